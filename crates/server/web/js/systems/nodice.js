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
      text: (v) => `${aspect(v)?.letter ?? ''} ${aspect(v)?.name ?? v}`,
      aria: (v) => `${aspect(v)?.name ?? v} Aspect card`,
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
      text: (v) => `${attribute(v)?.abbrev ?? v} ${attribute(v)?.name ?? ''}`.trim(),
      aria: (v) => `${attribute(v)?.name ?? v} Action card`,
      kind: (v) => `action-card aspect-${attribute(v)?.aspect ?? 'none'}`,
    },
    {
      key: 'bid',
      legend: 'Bid (chips)',
      numeric: true,
      needs: 'attribute',
      value: (c) => (a(c) ? String(a(c).bid) : null),
      aria: (v) => `bid ${v}`,
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
  return `${actorName(a)} vs ${actorName(b)}: TD ${who(pair.trine)}, AD ${who(pair.attribute)}${sweeps.length ? `; Sweep: ${sweeps.join(', ')}` : ''}${totals}`;
}

// ---- DOM ----

/** What the module remembers: the latest view, and whether an Action reveal has happened (a justification may follow). */
const memory = {
  /** @type {any} */ view: null,
  revealed: false,
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
  if (ctx.you?.kind !== 'seat') return null;
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
        h('div', { class: 'aspect-title' }, `${asp.letter} ${asp.name}`, actor.trine_scores ? ` — TS ${actor.trine_scores[ai]}` : ''),
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
    a.serial ? h('p', { class: 'serial' }, a.serial) : null,
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
    h('p', null, `Dominance wins this Hand: TD ${a.trine_wins ?? 0}, AD ${a.attribute_wins ?? 0}`),
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
      h('label', { for: `justify-${a.id}` }, `${a.name}: justify the revealed Action (one line, public)`),
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
      h('p', null, h('strong', null, `Hand ${view.hand ?? 0}`), ` — Stakes ${view.stakes ?? '?'} (${view.stakes_name ?? ''}) — UTG: ${actorName(view.utg)}`),
      view.waiting_for ? h('p', { class: 'waiting' }, `Waiting for ${view.waiting_for}`) : null,
      ending ? h('p', { class: 'ending' }, `The Conflict is over (${String(ending.ending).replace(/_/g, ' ')}).`) : null,
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
    memory.revealed && mine.length ? h('div', { class: 'justify-forms' }, justifyForms(mine, ctx)) : null,
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
 * One log item drawn: a justification line as a quote; the reveal opens the justification
 * form. Other items: null (their narration is the rules' own).
 * @param {any} item
 * @param {import('./index.js').SystemContext} _ctx
 * @returns {HTMLElement | null}
 */
export function renderEvent(item, _ctx) {
  const e = item?.event;
  if (e === 'actions_revealed') {
    memory.revealed = true;
    return null;
  }
  if (e && typeof e === 'object' && e.justified) {
    const j = e.justified;
    return h('blockquote', { class: 'justification' }, `“${j.line}”`, h('footer', null, `— ${actorName(j.actor)}, Hand ${j.hand}`));
  }
  return null;
}
