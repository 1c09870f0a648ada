// @ts-check
/** @file Iron Triangle's seat page (rules reference shared/rules/iron-triangle.md): energies as
 * bars per type, the stance picker, the moves as cards, combos, disadvantage chains, specials,
 * the opponent, the loss spread, and each turn's reveal side by side with its result explained.
 *
 * Everything shown comes from the view, the prompt's choices and the events: nothing here
 * decides what is legal or who wins. The pure helpers (exported) are tested under Node. */

import { h } from '../dom.js';
import { narrow, pickerElement, choiceButtons, cardButtons, partition, commandName } from './picker.js';
import { checkReason, wholeNumber, selectRow, numberRow, reasonRow, rulingForm, rulingsPanel } from './rulings.js';

/** The system's name as the book writes it. */
export const title = 'Iron Triangle';

/** The three actions, which are also the energy types (§2), in the book's order. */
export const ACTIONS = [
  { key: 'defend', symbol: '○', name: 'Defend' },
  { key: 'grapple', symbol: '▨', name: 'Grapple' },
  { key: 'attack', symbol: '◆', name: 'Attack' },
];

/** The five elements (§2), with the height each stands for. */
export const ELEMENTS = [
  { symbol: '☷', name: 'Earth', height: 'Low' },
  { symbol: '☵', name: 'Water', height: 'Mid' },
  { symbol: '☲', name: 'Fire', height: 'High' },
  { symbol: '☰', name: 'Heaven', height: 'Jump' },
  { symbol: '☯', name: 'Spin', height: 'Balance' },
];

/**
 * The thirteen moves (§3): each action with the elements it has, the base loss and the stance
 * multiplier — the book's table, the same in both editions (§11), shown as a reference card.
 */
export const MOVES = [
  ...['☷', '☵', '☲'].map((e) => ({ move: `○${e}`, base: 2, multiplier: 1 })),
  ...['☷', '☵', '☲'].map((e) => ({ move: `▨${e}`, base: 4, multiplier: 2 })),
  { move: '▨☰', base: 4, multiplier: 3 },
  { move: '▨☯', base: 4, multiplier: 4 },
  ...['☷', '☵', '☲'].map((e) => ({ move: `◆${e}`, base: 3, multiplier: 2 })),
  { move: '◆☰', base: 3, multiplier: 3 },
  { move: '◆☯', base: 3, multiplier: 3 },
];

/** The earlier edition's names of the specials it shares (§11), by the JSON name's stem. */
const EARLIER_NAMES = /** @type {Record<string, string>} */ ({
  scouter: 'Insight',
  there_can_be_only_one: 'Showdown',
  pressure_point: 'Precise',
  i_already_know: 'Premonition',
  yojimbo: 'Bodyguard',
  liquid_metal: 'Mimic',
  the_way_of_the_samurai: 'Last Stand',
});

/**
 * A move's line of the book's table (§3), or null for what is not one of the thirteen.
 * @param {string} move
 */
export function moveCard(move) {
  return MOVES.find((m) => m.move === move) ?? null;
}

/**
 * An action by its key (`defend`) or symbol (`○`).
 * @param {string | null | undefined} k
 */
export function action(k) {
  return ACTIONS.find((a) => a.key === k || a.symbol === k) ?? null;
}

/**
 * A move's parts: `▨☷` → Grapple + Earth (Low).
 * @param {string} move
 * @returns {{move: string, action: {key: string, symbol: string, name: string} | null, element: {symbol: string, name: string, height: string} | null, words: string}}
 */
export function moveParts(move) {
  const chars = [...String(move)];
  const a = action(chars[0]);
  const e = ELEMENTS.find((x) => x.symbol === chars[1]) ?? null;
  const words = a && e ? `${a.name} ${e.name} (${e.height})` : String(move);
  return { move: String(move), action: a, element: e, words };
}

/**
 * A stance as the log writes it: `2▨`, or "no stance".
 * @param {{type: string, amount: number} | null | undefined} stance
 */
export function stanceText(stance) {
  if (!stance || !stance.amount) return 'no stance';
  const a = action(stance.type);
  return `${stance.amount}${a ? a.symbol : stance.type}`;
}

/**
 * A stance read aloud: "2 Grapple".
 * @param {{type: string, amount: number} | null | undefined} stance
 */
export function stanceWords(stance) {
  if (!stance || !stance.amount) return 'no stance';
  return `${stance.amount} ${action(stance.type)?.name ?? stance.type}`;
}

/**
 * A special's book name from its JSON name: `i_already_know_attack` → "I Already Know ◆"; in
 * the earlier edition (§11) the names it gave (`scouter` → "Insight").
 * @param {string} special
 * @param {string} [edition] the view's `edition`
 */
export function specialName(special, edition) {
  const s = String(special);
  let suffix = '';
  let base = s;
  for (const a of ACTIONS) {
    if (s.endsWith(`_${a.key}`)) {
      suffix = ` ${a.symbol}`;
      base = s.slice(0, -a.key.length - 1);
    }
  }
  if (edition === 'earlier' && EARLIER_NAMES[base]) return EARLIER_NAMES[base] + suffix;
  const small = new Set(['of', 'the', 'be', 'on']);
  const words = base.split('_').map((w, i) => {
    if (w === 'i') return 'I';
    if (i > 0 && small.has(w) && !(base === 'wax_on' && w === 'on')) return w === 'be' ? 'Be' : w;
    return w.charAt(0).toUpperCase() + w.slice(1);
  });
  return words.join(' ') + suffix;
}

/**
 * The stance choices grouped as the picker's two fields: the type (or "none") and the amount.
 * @returns {import('./picker.js').Field[]}
 */
export function stanceFields() {
  return [
    {
      key: 'type',
      legend: 'Stance type',
      value: (c) => {
        const s = c.command?.commit_stance?.stance;
        if (!s) return null;
        return s.amount === 0 ? 'none' : s.type;
      },
      // the stance cards of the hand (crates/cards), named as the cards are
      text: (v) => (v === 'none' ? 'No Stance' : `${action(v)?.name ?? v} Stance`),
      card: (v) => stanceCardKey(v),
      kind: (v) => `action-${v}`,
    },
    {
      key: 'amount',
      legend: 'Amount of energy',
      numeric: true,
      needs: 'type',
      value: (c) => {
        const s = c.command?.commit_stance?.stance;
        return s && s.amount > 0 ? String(s.amount) : null;
      },
    },
  ];
}

/**
 * The key of a stance card (crates/cards): `grapple` → `it-stance-grapple`, `none` → `it-stance-none`.
 * @param {string} type an action's key, or `none`
 */
export function stanceCardKey(type) {
  return type === 'none' || action(type) ? `it-stance-${type}` : null;
}

/**
 * The key of the card a play is (crates/cards): `▨☷` → `it-move-grapple-earth`, `surrender`
 * → `it-surrender`; null for what has no card.
 * @param {string | null | undefined} play
 */
export function playCardKey(play) {
  if (play === 'surrender') return 'it-surrender';
  const p = moveParts(String(play ?? ''));
  return p.action && p.element ? `it-move-${p.action.key}-${p.element.name.toLowerCase()}` : null;
}

/**
 * The key of a special's card: `wax_on_defend` → `it-special-wax-on-defend`.
 * @param {string | null | undefined} special
 */
export function specialCardKey(special) {
  return special ? `it-special-${String(special).replace(/_/g, '-')}` : null;
}

/**
 * The spread choices (`spread_loss` / `spread_gain`) grouped as one field per energy type.
 * @returns {import('./picker.js').Field[]}
 */
export function spreadFields() {
  return ACTIONS.map((a) => ({
    key: a.key,
    legend: `${a.symbol} ${a.name}`,
    numeric: true,
    value: (/** @type {any} */ c) => {
      const s = (c.command?.spread_loss ?? c.command?.spread_gain)?.spread;
      return s ? String(s[a.key] ?? 0) : null;
    },
    aria: (/** @type {string} */ v) => `${v} from ${a.name}`,
  }));
}

/**
 * The parts of a loss, in the order §5.3 adds them, with the book's words; parts that are 0
 * are kept (the log writes them too). `mirrored` (Dig Two Graves) only when not 0.
 * @param {any} loss a `Loss` of the rules' JSON
 * @returns {{parts: {name: string, amount: number}[], total: number}}
 */
export function lossParts(loss) {
  const own = action(loss?.stance_type);
  const parts = [
    { name: "winner's stance", amount: loss?.winner_stance ?? 0 },
    { name: own ? `own stance (from ${own.symbol} ${own.name})` : 'own stance', amount: loss?.own_stance ?? 0 },
    { name: 'base', amount: loss?.base ?? 0 },
    { name: 'combo', amount: loss?.combo ?? 0 },
    { name: 'disadvantage', amount: loss?.disadvantage ?? 0 },
  ];
  if (loss?.mirrored) parts.push({ name: 'Dig Two Graves', amount: loss.mirrored });
  return { parts, total: parts.reduce((t, p) => t + p.amount, 0) };
}

/**
 * A resolved turn explained in words: who won and why (the step of §5.2 step 4 the rules say
 * decided it, shown with the revealed moves), and each of the pair's loss in its parts.
 * @param {any} result the `turn_resolved` event's `result`
 * @param {string[]} names the pair's names, active character first
 * @param {(string | null)[]} plays the pair's revealed plays (`▨☷`, `surrender`), if known
 * @returns {{headline: string, why: string, losses: {name: string, parts: {name: string, amount: number}[], total: number}[]}}
 */
export function explainResult(result, names, plays) {
  const outcome = result?.outcome ?? {};
  const by = result?.decided_by;
  const nm = (/** @type {number} */ i) => names[i] ?? `character ${i + 1}`;
  let headline = 'A tie';
  let why = '';
  if (outcome.kind === 'win') {
    const w = outcome.winner;
    const l = 1 - w;
    headline = `${nm(w)} wins`;
    const wm = plays[w] ? moveParts(plays[w]) : null;
    const lm = plays[l] ? moveParts(plays[l]) : null;
    if (by === 'action' && wm?.action && lm?.action) {
      why = `${wm.action.symbol} ${wm.action.name} beats ${lm.action.symbol} ${lm.action.name} (the actions, §5.2 step 4)`;
    } else if (by === 'element' && wm?.element && lm?.element) {
      why = `same action; ${wm.element.symbol} ${wm.element.name} beats ${lm.element.symbol} ${lm.element.name} (the elements, §5.2 step 4)`;
    } else if (by === 'disadvantage') {
      why = `neither action nor element decides; ${nm(l)}'s move was disadvantaged (§5.4)`;
    } else if (by) {
      why = `decided by ${by}`;
    }
    if (result.combo_continued) why += `; ${nm(w)}'s move continued a combo (§5.5)`;
  } else if (outcome.kind === 'surrender') {
    const s = outcome.surrendered ?? [false, false];
    const who = [0, 1].filter((i) => s[i]).map(nm);
    headline = `${who.join(' and ')} surrender${who.length > 1 ? '' : 's'}`;
    why = 'a surrender: nobody loses energy (§5.2)';
  } else {
    headline = 'A tie';
    why = 'neither action, element nor disadvantage decides: each loses the base of the other\'s move (§5.2 step 4)';
  }
  if (result?.disadvantaged?.some(Boolean) && by !== 'disadvantage') {
    const d = [0, 1].filter((i) => result.disadvantaged[i]).map(nm);
    why += `; disadvantaged: ${d.join(', ')}`;
  }
  const losses = [0, 1]
    .map((i) => ({ name: nm(i), ...lossParts(result?.losses?.[i]) }))
    .filter((l) => l.total > 0);
  return { headline, why, losses };
}

// ---- DOM ----

/** What the module remembers between calls: the latest view (names), the turn's pair and reveals. */
const memory = {
  /** @type {any} */ view: null,
  /** @type {number | null} */ active: null,
  /** @type {number | null} */ opponent: null,
  /** @type {any[]} */ stances: [],
  /** @type {(string | null)[]} */ plays: [],
};

/**
 * A fighter's name by id, from the latest view.
 * @param {number | null | undefined} id
 */
function fighterName(id) {
  const f = memory.view?.fighters?.find((/** @type {any} */ x) => x.id === id);
  return f ? f.name : id === null || id === undefined ? '?' : `character ${id}`;
}

/**
 * The name of this page's seat, if it is one.
 * @param {import('./index.js').SystemContext} ctx
 */
function mySeatName(ctx) {
  // a seat's own; the GM link's `you` names the rules' GM seat, whose characters it sees
  if ((ctx.you?.kind !== 'seat' && ctx.you?.kind !== 'gm') || typeof ctx.you.seat !== 'number') return null;
  return ctx.seats?.find((s) => s.seat === ctx.you.seat)?.name ?? null;
}

/**
 * One energy type as a bar with its number written beside it.
 * @param {{key: string, symbol: string, name: string}} a
 * @param {number} now
 * @param {number} max
 */
function energyBar(a, now, max) {
  const fill = h('span', { class: `bar-fill action-${a.key}` });
  const pct = max > 0 ? Math.max(0, Math.min(100, (100 * now) / max)) : 0;
  fill.style.width = `${pct}%`;
  return h(
    'div',
    { class: 'energy', role: 'img', 'aria-label': `${a.name} energy ${now} of ${max}` },
    h('span', { class: 'energy-name', 'aria-hidden': 'true' }, `${a.symbol} ${a.name}`),
    h('span', { class: 'bar', 'aria-hidden': 'true' }, fill),
    h('span', { class: 'energy-num', 'aria-hidden': 'true' }, `${now}/${max}`),
  );
}

/**
 * A move as a small card: its symbols, the action and element named, and the character's name
 * for it.
 * @param {string} move
 * @param {string | null} [name]
 * @param {string[]} [tags]
 */
function moveChip(move, name, tags = []) {
  const p = moveParts(move);
  return h(
    'span',
    {
      class: `move-chip action-${p.action?.key ?? 'none'}`,
      'aria-label': `${name ? `${name}: ` : ''}${p.words}${tags.length ? `, ${tags.join(', ')}` : ''}`,
      role: 'img',
    },
    h('span', { class: 'sym', 'aria-hidden': 'true' }, move),
    name ? h('span', { class: 'move-name', 'aria-hidden': 'true' }, ` ${name}`) : null,
    tags.length ? h('span', { class: 'tag', 'aria-hidden': 'true' }, ` (${tags.join(', ')})`) : null,
  );
}

/**
 * A fighter's card: status, energy bars, chains, sheet when visible.
 * @param {any} f
 * @param {boolean} mine
 * @param {string} [edition] the view's edition (the specials' names)
 */
function fighterCard(f, mine, edition) {
  const status = f.dead ? 'dead' : f.status === 'in' ? 'in the conflict' : f.status;
  const marks = ACTIONS.filter((_, i) => f.zero_marks?.[i]).map((a) => a.symbol);
  const moveNames = new Map((f.moves ?? []).map((/** @type {any} */ m) => [m.move, m.name]));
  return h(
    'section',
    { class: `fighter side-${f.side} ${mine ? 'mine' : ''} status-${f.dead ? 'dead' : f.status}`, 'aria-label': f.name },
    h('h3', null, f.name, mine ? h('span', { class: 'badge' }, ' (yours)') : null, ' ', h('span', { class: 'status' }, `— ${status}`)),
    h('p', { class: 'seat-line' }, `seat ${f.seat}, side ${f.side === 0 ? 'players' : 'GM'}; turns taken ${f.turns_taken}`),
    h('div', { class: 'energies' }, ACTIONS.map((a) => energyBar(a, f.energy?.[a.key] ?? 0, f.max_energy?.[a.key] ?? 0))),
    marks.length ? h('p', null, `Marked at zero: ${marks.join(' ')}`) : null,
    f.samurai ? h('p', { class: 'badge' }, 'The Way of the Samurai is active') : null,
    f.drunken ? h('p', { class: 'badge' }, 'Drunken Monkey is active') : null,
    f.disadvantage?.length
      ? h(
          'div',
          { class: 'chain disadvantage' },
          h('span', { class: 'chain-title' }, 'Disadvantage chain (§5.4): '),
          f.disadvantage.map((/** @type {string} */ m) => moveChip(m, moveNames.get(m) ?? null)),
        )
      : null,
    f.moves
      ? h(
          'div',
          { class: 'sheet' },
          h('span', { class: 'chain-title' }, 'Moves: '),
          f.moves.map((/** @type {any} */ m) =>
            moveChip(m.move, m.name, f.available && !f.available.includes(m.move) ? ['not available now'] : []),
          ),
        )
      : h('p', { class: 'hidden-sheet' }, 'Moves, combos and specials: hidden from this seat'),
    f.combos?.length
      ? h(
          'div',
          { class: 'sheet' },
          h('span', { class: 'chain-title' }, 'Combos: '),
          f.combos.map((/** @type {any} */ c) =>
            h('span', { class: 'combo' }, `${c.from} → ${(c.follow_ups ?? []).join(', ')}`, ' '),
          ),
        )
      : null,
    f.specials?.length
      ? h(
          'p',
          { class: 'sheet' },
          'Specials: ',
          f.specials
            .map((/** @type {string} */ s) => specialName(s, edition) + (f.specials_used?.includes(s) ? ' (used)' : ''))
            .join(', '),
        )
      : null,
  );
}

/**
 * A face as the view shows it: `face_down`, `empty`, or `known` with its value.
 * @param {any} face
 * @param {(v: any) => string} show
 */
function faceText(face, show) {
  if (!face || face.state === 'empty') return '—';
  if (face.state === 'face_down') return '🂠 face down';
  return show(face.value);
}

/**
 * The view drawn: stakes, the turn, every character.
 * @param {any} view
 * @param {import('./index.js').SystemContext} ctx
 * @returns {HTMLElement}
 */
export function renderView(view, ctx) {
  memory.view = view;
  const me = mySeatName(ctx);
  const phase = view.phase ?? {};
  /** @type {HTMLElement[]} */
  const parts = [];
  if (phase.phase === 'turn') {
    const pair = [phase.active, phase.opponent];
    parts.push(
      h(
        'div',
        { class: 'pair' },
        [0, 1].map((i) =>
          h(
            'div',
            { class: 'pair-side' },
            h('strong', null, pair[i] === null || pair[i] === undefined ? 'opponent not chosen' : fighterName(pair[i])),
            h('div', null, 'Stance: ', faceText(phase.stances?.[i], stanceText)),
            h('div', null, 'Move: ', faceText(phase.plays?.[i], (p) => (typeof p === 'string' ? p : JSON.stringify(p)))),
            phase.forbidden?.[i] ? h('div', null, `may not play ${action(phase.forbidden[i])?.name ?? phase.forbidden[i]} this turn`) : null,
          ),
        ),
      ),
    );
    if (phase.window) {
      const w = phase.window;
      parts.push(
        h(
          'p',
          { class: 'window' },
          `Timing window: ${String(w.window).replace(/_/g, ' ')}`,
          w.count !== null && w.count !== undefined ? ` — ${w.count} card(s) face down` : '',
        ),
      );
    }
  }
  const combo = view.combo;
  const fighters = view.fighters ?? [];
  const sides = [...new Set(fighters.map((/** @type {any} */ f) => f.side))].sort();
  return h(
    'div',
    { class: 'sys iron-triangle' },
    h(
      'header',
      { class: 'sys-head' },
      h('p', null, h('strong', null, `Turn ${view.turn_number ?? 0}`), view.edition === 'earlier' ? ' (earlier edition)' : ''),
      view.waiting_for ? h('p', { class: 'waiting' }, view.waiting_for) : null,
      view.who_won ? h('p', { class: 'ending' }, view.who_won.headline) : null,
    ),
    view.stakes?.want
      ? h('details', { class: 'stakes' }, h('summary', null, 'Stakes'), h('p', null, view.stakes.want), h('p', null, view.stakes.how ?? ''), h('p', null, view.stakes.consequences ?? ''))
      : null,
    parts,
    combo
      ? h('div', { class: 'chain combo-chain' }, h('span', { class: 'chain-title' }, `Combo chain against ${fighterName(combo.against)} (${combo.cards?.length ?? 0} win(s)): `), (combo.cards ?? []).map((/** @type {any} */ c) => moveChip(c.move ?? c)))
      : null,
    view.bonds?.length ? h('p', null, 'There Can Be Only One binds: ', view.bonds.map((/** @type {number[]} */ b) => `${fighterName(b[0])} & ${fighterName(b[1])}`).join('; ')) : null,
    sides.map((s) =>
      h(
        'div',
        { class: 'side' },
        h('h2', null, s === 0 ? "Players' side" : "GM's side"),
        h('div', { class: 'fighters' }, fighters.filter((/** @type {any} */ f) => f.side === s).map((/** @type {any} */ f) => fighterCard(f, f.seat === me, view.edition))),
      ),
    ),
    movesReference(),
  );
}

/** The thirteen moves (§3) and the actions' and elements' cycles (§2), as reference cards. */
function movesReference() {
  return h(
    'details',
    { class: 'reference-cards' },
    h('summary', null, 'The thirteen moves, actions and elements'),
    h(
      'div',
      { class: 'ref-card' },
      h('h4', null, 'The thirteen moves (§3)'),
      h(
        'ul',
        { class: 'move-table' },
        MOVES.map((m) => h('li', null, h('span', { class: 'sym' }, m.move), ` ${moveParts(m.move).words}: base ${m.base}, stance ×${m.multiplier}`)),
      ),
    ),
    h(
      'div',
      { class: 'ref-card' },
      h('h4', null, 'Actions (§2)'),
      h('ul', null, ['○ Defend beats ◆ Attack', '▨ Grapple beats ○ Defend', '◆ Attack beats ▨ Grapple'].map((l) => h('li', null, l))),
      h('h4', null, 'Elements (§2)'),
      h(
        'ul',
        null,
        ['☷ Earth beats ☲ Fire, ☯ Spin', '☵ Water beats ☷ Earth, ☰ Heaven', '☲ Fire beats ☵ Water, ☰ Heaven', '☰ Heaven beats ☷ Earth, ☯ Spin', '☯ Spin beats ☵ Water, ☲ Fire'].map((l) => h('li', null, l)),
      ),
    ),
  );
}

/**
 * The character of `seat` playing in the turn's pair, if any (for its combos and chain).
 * @param {any} view
 * @param {string | null} me
 */
function myPairFighter(view, me) {
  const ph = view?.phase;
  const ids = ph && ph.phase === 'turn' ? [ph.active, ph.opponent] : [];
  return view?.fighters?.find((/** @type {any} */ f) => ids.includes(f.id) && f.seat === me) ?? null;
}

/**
 * The follow-ups the fighter's sheet lists after the combo chain's newest card, when the chain
 * is its side's (a fact of the sheet, shown as a hint: the rules say whether it counts).
 * @param {any} view
 * @param {any} fighter
 * @returns {string[]}
 */
export function learnedFollowUps(view, fighter) {
  const chain = view?.combo;
  if (!chain || !fighter || chain.side !== fighter.side || !chain.cards?.length) return [];
  const newest = chain.cards[chain.cards.length - 1];
  const card = newest?.move ?? newest;
  return (fighter.combos ?? [])
    .filter((/** @type {any} */ c) => c.from === card)
    .flatMap((/** @type {any} */ c) => c.follow_ups ?? []);
}

/**
 * The prompt drawn with the system's pickers.
 * @param {any} prompt
 * @param {any} view
 * @param {import('./index.js').SystemContext} ctx
 * @returns {HTMLElement | null}
 */
export function renderPrompt(prompt, view, ctx) {
  if (!prompt || !Array.isArray(prompt.choices) || prompt.choices.length === 0) return null;
  memory.view = view ?? memory.view;
  const me = mySeatName(ctx);
  /** @type {any[]} */
  let rest = prompt.choices;
  /** @type {HTMLElement[]} */
  const blocks = [];
  const take = (/** @type {string[]} */ names) => {
    const [yes, no] = partition(rest, (c) => names.includes(commandName(c.command)));
    rest = no;
    return yes;
  };

  const stances = take(['commit_stance']);
  if (stances.length) blocks.push(pickerElement(stances, stanceFields(), ctx, { className: 'stance-picker', confirm: (c) => `Commit stance face down: ${c.label}` }));

  const moves = take(['commit_move']);
  if (moves.length) {
    const fighter = myPairFighter(view, me);
    const names = new Map((fighter?.moves ?? []).map((/** @type {any} */ m) => [m.move, m.name]));
    const follow = learnedFollowUps(view, fighter);
    const [surrender, cards] = partition(moves, (c) => c.command.commit_move.play === 'surrender');
    if (fighter?.disadvantage?.length) {
      blocks.push(h('p', { class: 'chain disadvantage' }, h('span', { class: 'chain-title' }, 'Your disadvantage chain: '), fighter.disadvantage.map((/** @type {string} */ m) => moveChip(m, names.get(m) ?? null))));
    }
    if (follow.length) blocks.push(h('p', { class: 'hint' }, `Follow-ups your sheet lists after the chain's newest card: ${follow.join(' ')}`));
    // The move cards of the hand, each with the character's own name for the move.
    blocks.push(
      cardButtons(cards, ctx, {
        card: (c) => playCardKey(c.command.commit_move.play),
        name: (c) => {
          const m = c.command.commit_move.play;
          return names.get(m) || c.label.replace(m, '').trim() || moveParts(m).words;
        },
        cardName: (c) => names.get(c.command.commit_move.play) ?? null,
        note: (c) => (follow.includes(c.command.commit_move.play) ? '(follow-up)' : null),
        kind: (c) => {
          const m = c.command.commit_move.play;
          return `move-card action-${moveParts(m).action?.key ?? 'none'} ${follow.includes(m) ? 'follow-up' : ''}`;
        },
      }),
    );
    if (surrender.length) blocks.push(cardButtons(surrender, ctx, { card: () => 'it-surrender', name: () => 'Surrender', kind: () => 'danger' }));
  }

  const specials = take(['play_special']);
  if (specials.length) {
    const fighters = new Set(specials.map((c) => c.command.play_special.fighter));
    blocks.push(
      h(
        'div',
        { class: 'special-cards' },
        [...fighters].map((fid) =>
          h(
            'div',
            { class: 'special-group' },
            fighters.size > 1 ? h('p', null, `For ${fighterName(fid)}:`) : null,
            cardButtons(
              specials.filter((c) => c.command.play_special.fighter === fid),
              ctx,
              {
                card: (c) => specialCardKey(c.command.play_special.card?.special),
                name: (c) => c.label,
                kind: (c) => (c.command.play_special.card ? 'special-card' : 'pass'),
              },
            ),
          ),
        ),
      ),
    );
  }

  const opponents = take(['choose_opponent']);
  if (opponents.length) {
    blocks.push(
      choiceButtons(opponents, ctx, {
        kind: () => 'opponent',
        aria: (c) => `Choose ${c.label} as the opponent`,
      }),
    );
  }

  const spreads = take(['spread_loss', 'spread_gain']);
  if (spreads.length) {
    const due = narrow(spreads, spreadFields(), {});
    blocks.push(pickerElement(spreads, spreadFields(), ctx, { className: 'spread-picker', title: due.fields.length ? 'How much from each energy type:' : undefined, confirm: (c) => `Spread: ${c.label}` }));
  }

  if (rest.length) blocks.push(choiceButtons(rest, ctx));

  return h(
    'section',
    { class: 'sys-prompt iron-triangle', 'aria-label': prompt.question },
    h('h2', null, prompt.question),
    prompt.private ? h('p', { class: 'face-down-note' }, '🂠 Face down: nobody sees it before the reveal.') : null,
    blocks,
  );
}

/**
 * A card on the table (cards.js): its state as the viewer sees it, its key and its name.
 * @typedef {{state: 'empty' | 'down' | 'up', key: string | null, name: string}} TableCard
 */

/**
 * A stance as a card: `{type: grapple, amount: 2}` → the Grapple Stance card, "2 ▨ Grapple".
 * @param {{type: string, amount: number} | null | undefined} stance
 * @returns {{key: string | null, name: string}}
 */
export function stanceCard(stance) {
  if (!stance || !stance.amount) return { key: stanceCardKey('none'), name: 'No Stance' };
  return { key: stanceCardKey(stance.type), name: `${stance.amount} ${action(stance.type)?.symbol ?? ''} ${action(stance.type)?.name ?? stance.type} Stance`.replace(/\s+/g, ' ') };
}

/**
 * A play as a card, named as the character names the move when the view says so.
 * @param {string | null | undefined} play
 * @param {any} fighter the view's fighter (its `moves` when visible)
 * @returns {{key: string | null, name: string}}
 */
export function playCard(play, fighter) {
  if (play === 'surrender') return { key: playCardKey(play), name: 'Surrender' };
  const own = (fighter?.moves ?? []).find((/** @type {any} */ m) => m.move === play)?.name;
  const p = moveParts(String(play ?? ''));
  return { key: playCardKey(play), name: own ? `${own} ${play}` : `${p.action?.name ?? ''} ${p.element?.name ?? ''} ${play ?? ''}`.trim() };
}

/**
 * A face of the view as a card on the table.
 * @param {any} face a `Face` (`{state: empty | face_down | known, value}`)
 * @param {(v: any) => {key: string | null, name: string}} card
 * @returns {TableCard}
 */
function faceCard(face, card) {
  if (face?.state === 'known') return { state: 'up', ...card(face.value) };
  return { state: face?.state === 'face_down' ? 'down' : 'empty', key: null, name: '' };
}

/**
 * The cards on the table now (the table page draws them, cards.js): the turn's pair, each
 * with its stance and its move as this viewer sees them — face down, face up (the viewer's own
 * are known to it, and shown face down until the pair's are revealed: the page's rule), or not
 * played yet. After the turn (the aftermath), both face up, the winner marked. Null outside a
 * turn. The round's key names the turn.
 * @param {any} view
 * @returns {{round: string, seats: {who: string, seat: string, winner: boolean, cards: TableCard[]}[]} | null}
 */
export function tableCards(view) {
  const ph = view?.phase;
  const fighter = (/** @type {any} */ id) => view?.fighters?.find((/** @type {any} */ f) => f.id === id) ?? null;
  if (ph?.phase === 'turn') {
    const ids = [ph.active, ph.opponent];
    return {
      round: `turn ${view.turn_number}`,
      seats: ids
        .map((id, i) => ({ id, i }))
        .filter(({ id }) => id !== null && id !== undefined)
        .map(({ id, i }) => ({
          who: fighter(id)?.name ?? `character ${id}`,
          seat: fighter(id)?.seat ?? '',
          winner: false,
          cards: [faceCard(ph.stances?.[i], stanceCard), faceCard(ph.plays?.[i], (v) => playCard(v, fighter(id)))],
        })),
    };
  }
  if (ph?.phase === 'aftermath' && Array.isArray(ph.pair)) {
    const winner = view?.turn_result?.winner ?? null;
    return {
      round: `turn ${view.turn_number}`,
      seats: ph.pair.map((/** @type {any} */ id, /** @type {number} */ i) => ({
        who: fighter(id)?.name ?? `character ${id}`,
        seat: fighter(id)?.seat ?? '',
        winner: winner === id,
        cards: [
          { state: /** @type {const} */ ('up'), ...stanceCard(ph.stances?.[i]) },
          { state: /** @type {const} */ ('up'), ...playCard(ph.plays?.[i], fighter(id)) },
        ],
      })),
    };
  }
  return null;
}

/**
 * The card a command of this seat's plays, for the page to name its own face-down choice (a
 * sealed seat's choice is not in the view before the reveal): a stance or a move; null else.
 * @param {any} command
 * @param {any} view
 * @returns {{key: string | null, name: string} | null}
 */
export function cardOf(command, view) {
  const st = command?.commit_stance?.stance;
  if (st) return stanceCard(st);
  const play = command?.commit_move?.play;
  if (play) {
    const ph = view?.phase;
    const ids = ph?.phase === 'turn' ? [ph.active, ph.opponent] : [];
    const seatFighters = (view?.fighters ?? []).filter((/** @type {any} */ f) => ids.includes(f.id) && f.moves);
    return playCard(play, seatFighters.find((/** @type {any} */ f) => f.moves.some((/** @type {any} */ m) => m.move === play)) ?? null);
  }
  return null;
}

/**
 * One log item drawn: a resolved turn becomes the reveal side by side — each of the pair's
 * stance and move — with who won and why, and each loss in its parts. Other items: null.
 * @param {any} item
 * @param {import('./index.js').SystemContext} _ctx
 * @returns {HTMLElement | null}
 */
export function renderEvent(item, _ctx) {
  const e = item?.event;
  if (!e || typeof e !== 'object') return null;
  switch (e.event) {
    case 'turn_began':
      memory.active = e.active;
      memory.opponent = null;
      memory.stances = [];
      memory.plays = [];
      return null;
    case 'opponent_chosen':
      memory.opponent = e.opponent;
      return null;
    case 'stances_revealed':
      memory.stances = e.stances ?? [];
      return null;
    case 'moves_revealed':
      memory.plays = e.plays ?? [];
      return null;
    case 'turn_resolved': {
      // what the earlier items did not tell (a page that joined late), the view's aftermath does
      const ph = memory.view?.phase;
      if (ph?.phase === 'aftermath') {
        if (memory.active === null) [memory.active, memory.opponent] = ph.pair ?? [null, null];
        if (!memory.stances.length) memory.stances = ph.stances ?? [];
        if (!memory.plays.length) memory.plays = ph.plays ?? [];
      } else if (ph?.phase === 'turn' && memory.active === null) {
        memory.active = ph.active;
        memory.opponent = ph.opponent;
      }
      const names = [fighterName(memory.active), fighterName(memory.opponent)];
      const x = explainResult(e.result, names, memory.plays);
      const winner = e.result?.outcome?.kind === 'win' ? e.result.outcome.winner : null;
      return h(
        'article',
        { class: 'reveal iron-triangle' },
        h(
          'div',
          { class: 'reveal-pair' },
          [0, 1].map((i) => {
            const play = memory.plays[i];
            const p = play && play !== 'surrender' ? moveParts(play) : null;
            return h(
              'div',
              { class: `reveal-side ${winner === i ? 'winner' : ''}` },
              h('strong', null, names[i], winner === i ? ' — wins' : ''),
              h('div', null, 'Stance: ', h('span', { class: 'sym' }, stanceText(memory.stances[i])), memory.stances[i]?.amount ? ` (${stanceWords(memory.stances[i])})` : ''),
              h('div', null, 'Move: ', play ? h('span', { class: 'sym' }, play) : '?', p ? ` ${p.words}` : ''),
            );
          }),
        ),
        h('p', { class: 'verdict' }, h('strong', null, x.headline), x.why ? `: ${x.why}.` : '.'),
        x.losses.map((l) =>
          h(
            'p',
            { class: 'loss' },
            `${l.name} loses ${l.total}: `,
            l.parts.map((p) => `${p.name} ${p.amount}`).join(' + '),
            ` = ${l.total}`,
          ),
        ),
      );
    }
    default:
      return null;
  }
}

// ---- The GM's rulings ----

/** The most a ruling's reason may take, in bytes of UTF-8 (the rules' note). */
export const REASON_BYTES = 64;

/** The largest energy of a type the rules can hold (a byte), when the view gives no maximum. */
const MAX_ENERGY = 255;

/**
 * The GM's ruling a form's fields make (§6: the GM may always correct energy): `set_energy`
 * with `fighter` (its id), `defend`, `grapple`, `attack` (its new current energy, each at most
 * the character's maximum when the view has it) and `reason`. Pure: the fields are the form's
 * texts.
 * @param {string} kind
 * @param {Record<string, string>} fields
 * @param {any} view
 * @returns {import('./rulings.js').Ruling}
 */
export function rulingCommand(kind, fields, view) {
  if (kind !== 'set_energy') return { error: `Iron Triangle has no ruling "${kind}".` };
  const id = Number(fields.fighter);
  const f = (view?.fighters ?? []).find((/** @type {any} */ x) => x.id === id);
  if (fields.fighter === undefined || fields.fighter === '' || !f) return { error: 'Choose a character.' };
  /** @type {Record<string, number>} */
  const energy = {};
  for (const a of ACTIONS) {
    const max = Number.isInteger(f.max_energy?.[a.key]) ? f.max_energy[a.key] : MAX_ENERGY;
    const n = wholeNumber(fields[a.key], 0, max, `${a.symbol} ${a.name} (${f.name}'s maximum is ${max})`);
    if ('error' in n) return n;
    energy[a.key] = n.value;
  }
  const r = checkReason(fields.reason, REASON_BYTES);
  if ('error' in r) return r;
  return {
    command: { adjust_energy: { fighter: id, energy, reason: r.reason } },
    done: `${f.name}'s energy is set to ${ACTIONS.map((a) => `${energy[a.key]}${a.symbol}`).join(' ')}.`,
  };
}

/**
 * The GM's rulings panel: "Set energy" — a character, its three energies (each capped by its
 * maximum), a reason.
 * @param {any} view
 * @param {import('./index.js').SystemContext} ctx
 * @returns {HTMLElement | null}
 */
export function renderRulings(view, ctx) {
  const fighters = view?.fighters ?? [];
  if (fighters.length === 0) return null;
  const who = selectRow(
    'ruling-it-fighter',
    'Character',
    fighters.map((/** @type {any} */ f) => ({ value: String(f.id), text: `${f.name} (${f.side === 0 ? "players'" : "GM's"} side)` })),
  );
  const inputs = ACTIONS.map((a) => {
    const row = numberRow(`ruling-it-${a.key}`, `${a.symbol} ${a.name}`, { min: 0 });
    const max = h('span', { class: 'hint energy-max' });
    row.row.append(max);
    return { a, ...row, max };
  });
  const reason = reasonRow('ruling-it-reason', REASON_BYTES);
  // the chosen character's energies and maxima, as the view has them
  const fill = () => {
    const f = fighters.find((/** @type {any} */ x) => String(x.id) === who.input.value) ?? fighters[0];
    for (const x of inputs) {
      const m = f?.max_energy?.[x.a.key];
      if (Number.isInteger(m)) x.input.max = String(m);
      else x.input.removeAttribute('max');
      x.input.defaultValue = String(f?.energy?.[x.a.key] ?? 0);
      x.input.value = x.input.defaultValue;
      x.max.textContent = Number.isInteger(m) ? ` at most ${m}` : '';
    }
  };
  who.input.addEventListener('change', fill);
  fill();
  const form = rulingForm(
    {
      id: 'ruling-it-energy',
      legend: 'Set energy (§6)',
      rows: [who.row, ...inputs.map((x) => x.row), reason.row],
      submit: 'Set energy',
      build: () =>
        rulingCommand(
          'set_energy',
          {
            fighter: who.input.value,
            ...Object.fromEntries(inputs.map((x) => [x.a.key, x.input.value])),
            reason: reason.input.value,
          },
          view,
        ),
      reset: () => {
        reason.input.value = '';
      },
    },
    ctx,
  );
  return rulingsPanel('iron-triangle', form);
}
