// @ts-check
/** @file No Dice's seat page (rules reference shared/rules/nodice.md): the Aspect cards and the
 * nine Action cards, chip stacks per Attribute, the ante and bid pickers (only what the prompt
 * offers), Wildcards, the pot and the Jackpot, the Showdown, the Trine and Attribute Dominance
 * reference cards, the justification line after the reveal and the damage-split chooser.
 *
 * Nothing here decides what is legal, who dominates or what a strike deals: those come from
 * the prompt's choices, the view's Showdown and the events. The pure helpers are exported. */

import { h } from '../dom.js';
import { pickerElement, choiceButtons, partition, commandName } from './picker.js';
import { checkReason, wholeNumber, rulingForm, rulingsPanel, confirmButton, adjustForm as countForm } from './rulings.js';

/** The system's name as the book writes it. */
export const title = 'No Dice';

/** The three Aspects, in serial order, with their Attributes in serial order (§3.1). */
export const ASPECTS = [
  { key: 'mind', letter: 'M', name: 'Mind', attributes: ['rea', 'kno', 'qui'] },
  { key: 'body', letter: 'B', name: 'Body', attributes: ['str', 'fit', 'agi'] },
  { key: 'spirit', letter: 'S', name: 'Spirit', attributes: ['wil', 'pre', 'int'] },
];

/** The nine Attributes (the nine Action cards), in serial order: the order of a view's `stacks`, `pot` and `jackpot`. */
export const ATTRIBUTES = [
  { key: 'rea', abbrev: 'REA', name: 'Reason', aspect: 'mind' },
  { key: 'kno', abbrev: 'KNO', name: 'Knowledge', aspect: 'mind' },
  { key: 'qui', abbrev: 'QUI', name: 'Quickness', aspect: 'mind' },
  { key: 'str', abbrev: 'STR', name: 'Strength', aspect: 'body' },
  { key: 'fit', abbrev: 'FIT', name: 'Fitness', aspect: 'body' },
  { key: 'agi', abbrev: 'AGI', name: 'Agility', aspect: 'body' },
  { key: 'wil', abbrev: 'WIL', name: 'Willpower', aspect: 'spirit' },
  { key: 'pre', abbrev: 'PRE', name: 'Presence', aspect: 'spirit' },
  { key: 'int', abbrev: 'INT', name: 'Intuition', aspect: 'spirit' },
];

/** The Trine Dominance reference card: the book's cycle of Aspects. */
export const TRINE_CARD = ['Mind beats Body', 'Body beats Spirit', 'Spirit beats Mind', 'Same Aspect: a tie'];

/** The Attribute Dominance reference card, as the quick reference writes it (each beats three; any other pair ties). */
export const ATTRIBUTE_CARD = [
  'REA > KNO, FIT, PRE',
  'KNO > QUI, AGI, INT',
  'QUI > REA, STR, WIL',
  'STR > KNO, FIT, PRE',
  'FIT > QUI, AGI, INT',
  'AGI > REA, STR, WIL',
  'WIL > KNO, FIT, PRE',
  'PRE > QUI, AGI, INT',
  'INT > REA, STR, WIL',
];

/**
 * An Attribute by key (`str`) or abbreviation (`STR`).
 * @param {string | null | undefined} k
 */
export function attribute(k) {
  const s = String(k ?? '').toLowerCase();
  return ATTRIBUTES.find((a) => a.key === s) ?? null;
}

/**
 * An Aspect by key.
 * @param {string | null | undefined} k
 */
export function aspect(k) {
  return ASPECTS.find((a) => a.key === k) ?? null;
}

/**
 * Chips per Attribute (a view's `stacks`, `pot` or `jackpot`, serial order) as named entries.
 * @param {number[] | null | undefined} chips
 * @param {{skipZero?: boolean}} [opts]
 * @returns {{abbrev: string, name: string, aspect: string, chips: number}[]}
 */
export function chipEntries(chips, opts = {}) {
  if (!Array.isArray(chips)) return [];
  return ATTRIBUTES.map((a, i) => ({ abbrev: a.abbrev, name: a.name, aspect: a.aspect, chips: chips[i] ?? 0 })).filter(
    (e) => !opts.skipZero || e.chips > 0,
  );
}

/**
 * A token count written out: "REA 1, KNO 2 (3 tokens)", or "empty".
 * @param {number[] | null | undefined} tokens
 */
export function tokensText(tokens) {
  const e = chipEntries(tokens, { skipZero: true });
  if (!e.length) return 'empty';
  const total = e.reduce((t, x) => t + x.chips, 0);
  return `${e.map((x) => `${x.abbrev} ${x.chips}`).join(', ')} (${total} token${total === 1 ? '' : 's'})`;
}

/**
 * The fields of the ante picker (Step 2): the Aspect card, the Attribute the ante comes from,
 * and the target(s).
 * @param {(id: number) => string} actorName
 * @returns {import('./picker.js').Field[]}
 */
export function aspectFields(actorName) {
  return [
    {
      key: 'aspect',
      legend: 'Aspect card (face down)',
      value: (c) => c.command?.commit_aspect?.aspect ?? null,
      // the Aspect cards of the hand (crates/cards), named as the cards are
      text: (v) => aspect(v)?.name ?? v,
      card: (v) => (aspect(v) ? `nd-aspect-${v}` : null),
      kind: (v) => `aspect-card aspect-${v}`,
    },
    {
      key: 'ante',
      legend: 'Ante from',
      needs: 'aspect',
      value: (c) => c.command?.commit_aspect?.ante ?? null,
      text: (v) => `${attribute(v)?.abbrev ?? v} ${attribute(v)?.name ?? ''}`.trim(),
      aria: (v) => `ante from ${attribute(v)?.name ?? v}`,
    },
    {
      key: 'targets',
      legend: 'Target(s), said aloud',
      value: (c) => {
        const t = c.command?.commit_aspect?.targets;
        return Array.isArray(t) ? t.join(',') : null;
      },
      text: (v) =>
        v
          .split(',')
          .map((x) => actorName(Number(x)))
          .join(', '),
      aria: (v) =>
        `target ${v
          .split(',')
          .map((x) => actorName(Number(x)))
          .join(' and ')}`,
    },
  ];
}

/**
 * The fields of the bid picker (Step 3): the Action card, the bid, the Wildcard, and — when
 * the prompt offers both — face up or face down, and the damage's Aspect.
 * @returns {import('./picker.js').Field[]}
 */
export function actionFields() {
  const a = (/** @type {any} */ c) => c.command?.commit_action ?? null;
  return [
    {
      key: 'attribute',
      legend: 'Action card',
      value: (c) => a(c)?.attribute ?? null,
      // the Action cards of the hand, named as the cards are
      text: (v) => attribute(v)?.name ?? v,
      card: (v) => (attribute(v) ? `nd-action-${v}` : null),
      kind: (v) => `action-card aspect-${attribute(v)?.aspect ?? 'none'}`,
    },
    {
      key: 'bid',
      legend: 'Bid (chips)',
      numeric: true,
      needs: 'attribute',
      value: (c) => (a(c) ? String(a(c).bid) : null),
      // the Bid cards 0 to 5 (crates/cards draws those); a higher bid is a plain button
      text: (v) => `Bid ${v}`,
      card: (v) => (/^[0-5]$/.test(v) ? `nd-bid-${v}` : null),
    },
    {
      key: 'wildcard',
      legend: 'Wildcard (+1)',
      value: (c) => (a(c) ? String(Boolean(a(c).wildcard)) : null),
      text: (v) => (v === 'true' ? 'play a Wildcard' : 'no Wildcard'),
    },
    {
      key: 'open',
      legend: 'The bid',
      value: (c) => (a(c) ? String(Boolean(a(c).open)) : null),
      text: (v) => (v === 'true' ? 'face up (chip bully)' : 'face down'),
      hideSingle: true,
    },
    {
      key: 'damage_aspect',
      legend: 'Damage to',
      value: (c) => a(c)?.damage_aspect ?? (a(c) ? '' : null),
      text: (v) => (v ? aspect(v)?.name ?? v : 'the played Aspect'),
      hideSingle: true,
    },
  ];
}

/**
 * The abbreviations of the three Attributes a damage spread goes over, in the order of the
 * spread's numbers: the view's `spreading` (the rules say which); null when it has none.
 * @param {any} view
 * @returns {string[] | null}
 */
export function spreadAttributes(view) {
  const keys = view?.spreading?.attributes;
  if (!Array.isArray(keys) || keys.length !== 3) return null;
  const names = keys.map((/** @type {string} */ k) => attribute(k)?.abbrev ?? null);
  return names.every((n) => n !== null) ? /** @type {string[]} */ (names) : null;
}

/**
 * The fields of the damage-split chooser (Step 4): chips removed from each Attribute of the
 * struck Aspect.
 * @param {string[] | null} names the three Attributes' abbreviations
 * @returns {import('./picker.js').Field[]}
 */
export function spreadFields(names) {
  return [0, 1, 2].map((i) => {
    const n = names?.[i] ?? `Attribute ${i + 1}`;
    return {
      key: `a${i}`,
      legend: `${n}${attribute(n) ? ` ${attribute(n)?.name}` : ''} −`,
      numeric: true,
      value: (/** @type {any} */ c) => {
        const s = c.command?.spread_damage?.spread;
        return Array.isArray(s) ? String(s[i]) : null;
      },
      aria: (/** @type {string} */ v) => `${v} damage on ${attribute(n)?.name ?? n}`,
    };
  });
}

/**
 * A Showdown pair in words (the view gives each outcome from its first Actor's side): "Kara vs
 * Thug: TD Kara wins, AD tie; Showdown Totals 5 – 1".
 * @param {any} pair a view's `showdown.pairs` item
 * @param {(id: number) => string} actorName
 */
export function pairText(pair, actorName) {
  const [a, b] = pair.actors ?? [];
  const sweeps = [0, 1].filter((i) => pair.sweep?.[i]).map((i) => actorName(pair.actors[i]));
  const totals = pair.totals ? `; Showdown Totals ${pair.totals[0]} – ${pair.totals[1]}` : '';
  const who = (/** @type {string} */ r) => (r === 'win' ? `${actorName(a)} wins` : r === 'loss' ? `${actorName(b)} wins` : r);
  return `${actorName(a)} against ${actorName(b)}: Trine Dominance ${who(pair.trine)}, Attribute Dominance ${who(pair.attribute)}${sweeps.length ? `; Sweep: ${sweeps.join(', ')}` : ''}${totals}`;
}

// ---- DOM ----

/** What the module remembers: the latest view. */
const memory = {
  /** @type {any} */ view: null,
};

/** @param {number} id */
function actorName(id) {
  const a = memory.view?.actors?.find((/** @type {any} */ x) => x.id === id);
  return a ? a.name : `Actor ${id}`;
}

/**
 * This page's seat name, if it is a seat.
 * @param {import('./index.js').SystemContext} ctx
 */
function mySeatName(ctx) {
  // a seat's own; the GM link's `you` names the rules' GM seat, whose Actors it sees
  if ((ctx.you?.kind !== 'seat' && ctx.you?.kind !== 'gm') || typeof ctx.you.seat !== 'number') return null;
  return ctx.seats?.find((s) => s.seat === ctx.you.seat)?.name ?? null;
}

/**
 * An Actor's stacks as the nine Action cards, each with its chips (a stack of pips and the number).
 * @param {any} actor
 */
function stacksElement(actor) {
  if (!Array.isArray(actor.stacks)) return h('p', { class: 'hidden-sheet' }, 'Chip stacks: hidden from this seat');
  return h(
    'div',
    { class: 'aspects' },
    ASPECTS.map((asp, ai) =>
      h(
        'div',
        { class: `aspect-col aspect-${asp.key}` },
        h('div', { class: 'aspect-title' }, `${asp.letter} ${asp.name}`, actor.trine_scores ? ` — Trine Score ${actor.trine_scores[ai]}` : ''),
        asp.attributes.map((k) => {
          const i = ATTRIBUTES.findIndex((a) => a.key === k);
          const at = ATTRIBUTES[i];
          const n = actor.stacks[i] ?? 0;
          return h(
            'div',
            { class: 'stack', role: 'img', 'aria-label': `${at.name}: ${n} chips` },
            h('span', { class: 'stack-name', 'aria-hidden': 'true' }, at.abbrev),
            h('span', { class: 'chips', 'aria-hidden': 'true' }, '●'.repeat(Math.min(n, 12)), n > 12 ? '…' : ''),
            h('span', { class: 'stack-num', 'aria-hidden': 'true' }, String(n)),
          );
        }),
      ),
    ),
  );
}

/**
 * A face of the view (`empty`, `face_down`, `known`).
 * @param {any} face
 * @param {(v: any) => string} show
 */
function faceText(face, show) {
  if (!face || face.state === 'empty') return '—';
  if (face.state === 'face_down') return '🂠 face down';
  return show(face.value);
}

/**
 * An Actor's card: its status, cards on the table, stacks, Wildcards, wins this Hand.
 * @param {any} a
 * @param {boolean} mine
 */
function actorCard(a, mine) {
  const st = a.status?.status === 'in' ? 'in' : a.status?.status === 'exhausted' ? `eliminated (${aspect(a.status.aspect)?.name ?? a.status.aspect} exhausted)` : a.status?.status ?? '';
  return h(
    'section',
    { class: `actor side-${a.side} ${mine ? 'mine' : ''}`, 'aria-label': a.name },
    h('h3', null, a.name, mine ? h('span', { class: 'badge' }, ' (yours)') : null, ` — ${st}`),
    // the stat block as it stands (after damage), explained in words where it is shown
    a.serial
      ? h(
          'details',
          { class: 'serial' },
          h('summary', null, a.serial_now ?? a.serial),
          a.serial_words ? h('p', null, a.serial_words) : null,
          a.serial_now && a.serial_now !== a.serial ? h('p', { class: 'hint' }, `As built: ${a.serial}`) : null,
        )
      : null,
    h(
      'p',
      null,
      'Aspect: ',
      faceText(a.aspect, (v) => `${aspect(v.aspect)?.name ?? v.aspect} (ante ${attribute(v.ante)?.abbrev ?? v.ante})`),
      a.targets?.length ? ` → ${a.targets.map(actorName).join(', ')}` : '',
    ),
    a.intent ? h('p', { class: 'intent' }, `Intent: “${a.intent}”`) : null,
    h(
      'p',
      null,
      'Action: ',
      faceText(a.action, (v) => `${attribute(v.attribute)?.name ?? v.attribute}, bid ${v.bid}${v.wildcard ? ' + Wildcard' : ''}`),
      a.open_bid !== null && a.open_bid !== undefined ? ` (bid face up: ${a.open_bid})` : '',
    ),
    a.wildcards !== null && a.wildcards !== undefined ? h('p', null, `Wildcards left: ${a.wildcards}`) : null,
    h('p', null, `Dominance wins this Hand: Trine ${a.trine_wins ?? 0}, Attribute ${a.attribute_wins ?? 0}`),
    stacksElement(a),
  );
}

/** The Trine and Attribute Dominance reference cards. */
function referenceCards() {
  return h(
    'details',
    { class: 'reference-cards' },
    h('summary', null, 'Trine and Attribute Dominance'),
    h('div', { class: 'ref-card' }, h('h4', null, 'Trine Dominance (TD)'), h('ul', null, TRINE_CARD.map((l) => h('li', null, l)))),
    h(
      'div',
      { class: 'ref-card' },
      h('h4', null, 'Attribute Dominance (AD)'),
      h('ul', null, ATTRIBUTE_CARD.map((l) => h('li', null, l))),
      h('p', null, 'Any other pair of Attributes ties.'),
    ),
  );
}

/**
 * The justification line's form for each of the seat's Actors (Step 3, Bluff Space Rule): one
 * line, public, sent as the rules' `justify` command beside the prompt.
 * @param {any[]} actors
 * @param {import('./index.js').SystemContext} ctx
 */
function justifyForms(actors, ctx) {
  return actors.map((a) => {
    const input = /** @type {HTMLInputElement} */ (
      h('input', { type: 'text', maxlength: 200, id: `justify-${a.id}`, 'aria-label': `${a.name}'s justification line` })
    );
    return h(
      'form',
      {
        class: 'justify',
        onsubmit: (/** @type {Event} */ ev) => {
          ev.preventDefault();
          const line = input.value.trim();
          if (!line) return;
          const command = { justify: { actor: a.id, line } };
          // a public line beside the prompt: never sealed, and sent whether or not the seat is asked
          if (ctx.ruling) ctx.ruling(command, `${a.name}'s line is said.`);
          else ctx.choose(command);
          input.value = '';
        },
      },
      h('label', { for: `justify-${a.id}` }, `${a.name}: justify the Action revealed in Hand ${a.may_justify} (one line, public)`),
      input,
      h('button', { type: 'submit' }, 'Say it'),
    );
  });
}

/**
 * The view drawn: the Hand, the pot and Jackpot, the Showdown, every Actor, the reference cards.
 * @param {any} view
 * @param {import('./index.js').SystemContext} ctx
 * @returns {HTMLElement}
 */
export function renderView(view, ctx) {
  memory.view = view;
  const me = mySeatName(ctx);
  const actors = view.actors ?? [];
  const sd = view.showdown ?? {};
  const mine = actors.filter((/** @type {any} */ a) => a.seat === me);
  const ending = view.ending;
  return h(
    'div',
    { class: 'sys nodice' },
    h(
      'header',
      { class: 'sys-head' },
      h('p', null, h('strong', null, `Hand ${view.hand ?? 0}`), ` — Stakes ${view.stakes ?? '?'} (${view.stakes_name ?? ''}) — Under the Gun: ${actorName(view.utg)}`),
      // who the table waits for is the prompt's to say (the session's, sealed rounds included):
      // the rules' own order here once read "Waiting for Bandit to ante…" under "Your turn"
      ending && view.who_won ? h('p', { class: 'ending' }, view.who_won.headline) : null,
    ),
    h(
      'div',
      { class: 'pots' },
      h('p', { class: 'pot' }, h('strong', null, 'Pot: '), tokensText(view.pot)),
      h('p', { class: 'jackpot' }, h('strong', null, 'Jackpot: '), tokensText(view.jackpot)),
    ),
    view.clusters?.length ? h('p', null, 'Interaction clusters: ', view.clusters.map((/** @type {number[]} */ c) => c.map(actorName).join(' & ')).join('; ')) : null,
    sd.pairs?.length
      ? h(
          'section',
          { class: 'showdown', 'aria-label': 'Showdown' },
          h('h2', null, 'Showdown'),
          h('ul', null, sd.pairs.map((/** @type {any} */ p) => h('li', null, pairText(p, actorName)))),
          sd.strikes?.length
            ? h(
                'ol',
                { class: 'strikes' },
                [...sd.strikes]
                  .sort((x, y) => (x.priority ?? 0) - (y.priority ?? 0))
                  .map((/** @type {any} */ s) =>
                    h('li', null, `${actorName(s.attacker)} → ${actorName(s.target)}: ${s.damage} ${aspect(s.aspect)?.name ?? s.aspect} damage${s.unopposed ? ' (unopposed)' : ''}`),
                  ),
              )
            : null,
        )
      : null,
    // the justification is the seat's own line: the GM link gives rulings only
    // the rules say when a justification line may come (its Action revealed at the latest
    // reveal, not justified yet): a box never stays into later Hands
    mine.some((/** @type {any} */ a) => a.may_justify) && ctx.you?.kind === 'seat' ? h('div', { class: 'justify-forms' }, justifyForms(mine.filter((/** @type {any} */ a) => Boolean(a.may_justify)), ctx)) : null,
    h('div', { class: 'actors' }, actors.map((/** @type {any} */ a) => actorCard(a, a.seat === me))),
    referenceCards(),
  );
}

/**
 * The prompt drawn: the ante picker (Aspect card, ante, targets), the bid picker (Action card,
 * bid, Wildcard), the damage-split chooser; other choices as buttons.
 * @param {any} prompt
 * @param {any} view
 * @param {import('./index.js').SystemContext} ctx
 * @returns {HTMLElement | null}
 */
export function renderPrompt(prompt, view, ctx) {
  if (!prompt || !Array.isArray(prompt.choices) || prompt.choices.length === 0) return null;
  memory.view = view ?? memory.view;
  /** @type {any[]} */
  let rest = prompt.choices;
  /** @type {HTMLElement[]} */
  const blocks = [];
  const take = (/** @type {string} */ name) => {
    const [yes, no] = partition(rest, (c) => commandName(c.command) === name);
    rest = no;
    return yes;
  };
  const aspects = take('commit_aspect');
  if (aspects.length) blocks.push(pickerElement(aspects, aspectFields(actorName), ctx, { className: 'ante-picker', confirm: (c) => `Ante and play face down: ${c.label}` }));
  const actions = take('commit_action');
  if (actions.length) blocks.push(pickerElement(actions, actionFields(), ctx, { className: 'bid-picker', confirm: (c) => `Play face down: ${c.label}` }));
  const spreads = take('spread_damage');
  if (spreads.length) blocks.push(pickerElement(spreads, spreadFields(spreadAttributes(view ?? memory.view)), ctx, { className: 'spread-picker', confirm: (c) => `Take the damage: ${c.label}` }));
  const withdraw = take('withdraw');
  if (rest.length) blocks.push(choiceButtons(rest, ctx));
  if (withdraw.length) blocks.push(choiceButtons(withdraw, ctx, { kind: () => 'danger' }));
  return h(
    'section',
    { class: 'sys-prompt nodice', 'aria-label': prompt.question },
    h('h2', null, prompt.question),
    prompt.private ? h('p', { class: 'face-down-note' }, '🂠 Face down: nobody sees it before the reveal.') : null,
    blocks,
  );
}

/**
 * An Aspect card as a card of the table: `{aspect: body, ante: str}` → the Body card, "Body (ante STR)".
 * @param {any} v an `AspectCard`
 * @returns {{key: string | null, name: string}}
 */
export function aspectCard(v) {
  const a = aspect(v?.aspect);
  const ante = attribute(v?.ante);
  return { key: a ? `nd-aspect-${a.key}` : null, name: `${a?.name ?? v?.aspect ?? '?'}${ante ? ` (ante ${ante.abbrev})` : ''}` };
}

/**
 * An Action card as a card of the table: `{attribute: str, bid: 3}` → the Strength card, "Strength, bid 3".
 * @param {any} v an `ActionCard`
 * @returns {{key: string | null, name: string}}
 */
export function actionCard(v) {
  const at = attribute(v?.attribute);
  const bid = typeof v?.bid === 'number' ? `, bid ${v.bid}` : '';
  return { key: at ? `nd-action-${at.key}` : null, name: `${at?.name ?? v?.attribute ?? '?'}${bid}${v?.wildcard ? ' + Wildcard' : ''}` };
}

/**
 * A face of the view as a card on the table.
 * @param {any} face
 * @param {(v: any) => {key: string | null, name: string}} card
 * @returns {{state: 'empty' | 'down' | 'up', key: string | null, name: string}}
 */
function faceCard(face, card) {
  if (face?.state === 'known') return { state: 'up', ...card(face.value) };
  return { state: face?.state === 'face_down' ? 'down' : 'empty', key: null, name: '' };
}

/**
 * The cards on the table now (the table page draws them, cards.js): each Actor still in the
 * Conflict with its Aspect and Action cards of the Hand as this viewer sees them. The round's
 * key names the Hand.
 * @param {any} view
 * @returns {{round: string, seats: {who: string, seat: string, winner: boolean, cards: any[]}[]} | null}
 */
export function tableCards(view) {
  const actors = (view?.actors ?? []).filter(
    (/** @type {any} */ a) => a?.status?.status === 'in' || (a?.aspect && a.aspect.state !== 'empty'),
  );
  if (actors.length === 0 || typeof view?.hand !== 'number') return null;
  return {
    round: `hand ${view.hand}`,
    seats: actors.map((/** @type {any} */ a) => ({
      who: a.name,
      seat: a.seat,
      winner: false,
      cards: [faceCard(a.aspect, aspectCard), faceCard(a.action, actionCard)],
    })),
  };
}

/**
 * The card a command of this seat's plays, for the page to name its own face-down choice (a
 * sealed seat's is not in the view before the reveal): an Aspect or an Action card; null else.
 * @param {any} command
 * @returns {{key: string | null, name: string} | null}
 */
export function cardOf(command) {
  if (command?.commit_aspect) return aspectCard(command.commit_aspect);
  if (command?.commit_action) return actionCard(command.commit_action);
  return null;
}

/**
 * One log item drawn: a justification line as a quote (the view's `may_justify` opens its
 * form). Other items: null (their narration is the rules' own).
 * @param {any} item
 * @param {import('./index.js').SystemContext} _ctx
 * @returns {HTMLElement | null}
 */
export function renderEvent(item, _ctx) {
  const e = item?.event;
  if (e && typeof e === 'object' && e.justified) {
    const j = e.justified;
    return h('blockquote', { class: 'justification' }, `“${j.line}”`, h('footer', null, `— ${actorName(j.actor)}, Hand ${j.hand}`));
  }
  return null;
}

// ---- The GM's rulings ----

/** The most characters a ruling's reason may have (the rules' table-talk cap). */
export const REASON_CHARS = 200;

/** The most chips an Attribute's stack may be set to (§3.1). */
export const MAX_CHIPS = 100;

/**
 * The Attributes an Actor possesses, in serial order: read from its serial (`M4(5/-/3)`: a
 * `-` is an Attribute it lacks), else every Attribute when its stacks are shown; none when
 * its stacks are hidden from this page.
 * @param {any} actor a view's `actors` item
 * @returns {string[]} Attribute keys
 */
export function possessed(actor) {
  if (!Array.isArray(actor?.stacks)) return [];
  const serial = typeof actor.serial === 'string' ? actor.serial.trim() : '';
  // a Thing's short serial (§3.3): `FIT-3 STR-@`, only the Attributes it has
  if (/^([A-Za-z]{3}-(\d+|@))( [A-Za-z]{3}-(\d+|@))*$/.test(serial)) {
    const keys = serial.split(' ').map((/** @type {string} */ t) => attribute(t.slice(0, 3))?.key ?? null);
    if (keys.every((/** @type {string | null} */ k) => k !== null)) return ATTRIBUTES.map((a) => a.key).filter((k) => keys.includes(k));
  }
  /** @type {string[]} */
  const out = [];
  let read = 0;
  for (const asp of ASPECTS) {
    const m = new RegExp(`${asp.letter}(?:\\d+|-)\\(([^)]*)\\)`).exec(serial);
    const parts = m ? m[1].split('/') : null;
    if (parts && parts.length === 3) {
      read += 1;
      asp.attributes.forEach((k, i) => {
        if (parts[i].trim() !== '-') out.push(k);
      });
    } else {
      out.push(...asp.attributes);
    }
  }
  return read > 0 ? out : ATTRIBUTES.map((a) => a.key);
}

/**
 * The GM's ruling a form's fields make. Pure: the fields are the form's texts.
 * - `adjust` (Decision 35): `what` is `ACTOR:chips:ATTRIBUTE` or `ACTOR:wildcards`, `to` the new
 *   value, `reason` why.
 * - `engage` (Decision 33): `clusters`, each a list of Actor ids (an empty list: everyone
 *   engages again); an Actor in two clusters is refused here.
 * - `end_conflict`: the fiction resolved the objective.
 * @param {string} kind
 * @param {Record<string, any>} fields
 * @param {any} view
 * @returns {import('./rulings.js').Ruling}
 */
export function rulingCommand(kind, fields, view) {
  const actors = view?.actors ?? [];
  const name = (/** @type {number} */ id) => actors.find((/** @type {any} */ a) => a.id === id)?.name ?? `Actor ${id}`;
  switch (kind) {
    case 'adjust': {
      const m = /^(\d+):(chips:([a-z]{3})|wildcards)$/.exec(String(fields.what ?? ''));
      if (!m) return { error: 'Choose what to adjust.' };
      const actor = Number(m[1]);
      if (!actors.some((/** @type {any} */ a) => a.id === actor)) return { error: 'Choose an Actor of this Conflict.' };
      const at = m[3] ? attribute(m[3]) : null;
      if (m[3] && !at) return { error: `No Attribute ${m[3]}.` };
      const to = wholeNumber(fields.to, 0, MAX_CHIPS, 'The new value');
      if ('error' in to) return to;
      const r = checkReason(fields.reason, REASON_CHARS, 'characters');
      if ('error' in r) return r;
      const change = at ? { chips: { attribute: at.key, to: to.value } } : { wildcards: { to: to.value } };
      const what = at ? `${at.abbrev} chips` : 'Wildcards left';
      return { command: { adjust: { actor, change, reason: r.reason } }, done: `${name(actor)}'s ${what}: ${to.value}.` };
    }
    case 'engage': {
      const raw = Array.isArray(fields.clusters) ? fields.clusters : [];
      /** @type {number[][]} */
      const clusters = raw.map((/** @type {any[]} */ c) => [...new Set((c ?? []).map(Number))].sort((x, y) => x - y)).filter((c) => c.length > 0);
      const seen = new Set();
      for (const c of clusters) {
        for (const a of c) {
          if (!actors.some((/** @type {any} */ x) => x.id === a)) return { error: `No Actor ${a} in this Conflict.` };
          if (seen.has(a)) return { error: `${name(a)} is in two clusters.` };
          seen.add(a);
        }
      }
      const done = clusters.length
        ? `Engaged: ${clusters.map((c) => c.map(name).join(' & ')).join('; ')}.`
        : 'Everyone engages again.';
      return { command: { engage: { clusters } }, done };
    }
    case 'end_conflict':
      return { command: 'end_conflict', done: 'The Conflict is ended.' };
    default:
      return { error: `No Dice has no ruling "${kind}".` };
  }
}

/** How many clusters the Engage editor shows, kept across redraws (0: as the view's). */
const engageRows = { count: 0 };

/**
 * The GM's rulings panel: Adjust (an Actor's chips in one Attribute it possesses, or its
 * Wildcards left), Engage (the interaction clusters, at the start of a Hand) and End the
 * Conflict (asked twice); nothing once the Conflict is over.
 * @param {any} view
 * @param {import('./index.js').SystemContext} ctx
 * @returns {HTMLElement | null}
 */
export function renderRulings(view, ctx) {
  memory.view = view ?? memory.view;
  // once the Conflict is over no ruling is left to give (a justification line is the seats')
  if (!view || view.ending) return null;
  const actors = (view.actors ?? []).filter((/** @type {any} */ a) => !a.status || a.status.status === 'in');
  if (actors.length === 0) return null;
  return rulingsPanel('nodice', adjustForm(view, actors, ctx), engageForm(view, actors, ctx), endForm(view, ctx));
}

/**
 * @param {any} view
 * @param {any[]} actors
 * @param {import('./index.js').SystemContext} ctx
 */
function adjustForm(view, actors, ctx) {
  /** @type {{value: string, text: string, group: string}[]} */
  const options = [];
  for (const a of actors) {
    for (const k of possessed(a)) {
      const at = attribute(k);
      const i = ATTRIBUTES.findIndex((x) => x.key === k);
      options.push({ value: `${a.id}:chips:${k}`, text: `${a.name}: ${at?.abbrev} ${at?.name} chips (now ${a.stacks?.[i] ?? '?'})`, group: a.name });
    }
    options.push({ value: `${a.id}:wildcards`, text: `${a.name}: Wildcards left${a.wildcards === null || a.wildcards === undefined ? '' : ` (now ${a.wildcards})`}`, group: a.name });
  }
  return countForm(
    {
      prefix: 'ruling-nd',
      legend: 'Adjust (Decision 35)',
      options,
      range: { min: 0, max: MAX_CHIPS },
      reasonMax: REASON_CHARS,
      build: (fields) => rulingCommand('adjust', fields, view),
    },
    ctx,
  );
}

/**
 * The Engage editor: one row of checkboxes (one per Actor) per cluster, a button to add a
 * cluster and one to take the last away; no cluster checked engages everyone again.
 * @param {any} view
 * @param {any[]} actors
 * @param {import('./index.js').SystemContext} ctx
 */
function engageForm(view, actors, ctx) {
  const current = Array.isArray(view?.clusters) ? view.clusters : [];
  if (engageRows.count === 0) engageRows.count = Math.max(1, current.length);
  const rows = h('div', { class: 'clusters' });
  /** @type {HTMLInputElement[][]} */
  let boxes = [];
  const draw = () => {
    boxes = [];
    rows.replaceChildren();
    for (let k = 0; k < engageRows.count; k++) {
      const row = actors.map((a) => {
        const id = `ruling-nd-cluster-${k}-${a.id}`;
        const box = /** @type {HTMLInputElement} */ (
          h('input', { type: 'checkbox', id, value: String(a.id), checked: Array.isArray(current[k]) && current[k].includes(a.id) })
        );
        return { box, el: h('span', { class: 'check' }, box, h('label', { for: id }, a.name)) };
      });
      boxes.push(row.map((r) => r.box));
      rows.append(h('div', { class: 'cluster-row', role: 'group', 'aria-label': `Cluster ${k + 1}` }, h('span', { class: 'cluster-name' }, `Cluster ${k + 1}: `), row.map((r) => r.el)));
    }
  };
  draw();
  const add = h('button', { type: 'button', id: 'ruling-nd-add-cluster', onclick: () => { engageRows.count += 1; draw(); } }, 'Add a cluster');
  const drop = h('button', { type: 'button', id: 'ruling-nd-drop-cluster', onclick: () => { if (engageRows.count > 1) { engageRows.count -= 1; draw(); } } }, 'Remove the last cluster');
  return rulingForm(
    {
      id: 'ruling-nd-engage',
      legend: 'Engage (Decision 33: at the start of a Hand)',
      rows: [
        h('p', { class: 'hint' }, 'Who interacts with whom this Hand; Actors in no cluster sit it out. No box ticked: everyone engages again.'),
        rows,
        h('div', { class: 'ruling-row controls' }, add, drop),
      ],
      submit: 'Engage',
      build: () => rulingCommand('engage', { clusters: boxes.map((row) => row.filter((b) => b.checked).map((b) => Number(b.value))) }, view),
    },
    ctx,
  );
}

/**
 * End the Conflict, asked twice.
 * @param {any} view
 * @param {import('./index.js').SystemContext} ctx
 */
function endForm(view, ctx) {
  if (view?.ending) return null;
  return h(
    'div',
    { class: 'ruling' },
    confirmButton('ruling-nd-end', 'End the Conflict…', 'The fiction resolved the objective: end the Conflict for everyone?', 'Yes, end the Conflict', () => {
      const r = rulingCommand('end_conflict', {}, view);
      if ('command' in r && ctx.ruling) ctx.ruling(r.command, r.done);
    }),
  );
}
