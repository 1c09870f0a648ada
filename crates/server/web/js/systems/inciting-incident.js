// @ts-check
/** @file Inciting Incident's seat page (rules reference shared/rules/inciting-incident.md): a
 * map of the Regions (adjacency, who is where, Duels with their Flow gauge), the action
 * declaration from the prompt's choices, dice as they fall — marked "verifiable at scene end"
 * and checked in the page once the server seed is revealed (docs/protocol.md "Verifiable
 * draws") — Crisis, Triggers, Strikes, hits and wounds, and the keep-fighting roll.
 *
 * Nothing here decides what is legal or what a roll does: the choices are the prompt's, the
 * numbers the view's and the events'. The pure helpers are exported and tested under Node. */

import { h } from '../dom.js';
import { DrawLedger } from '../fairness.js';
import { pickerElement, choiceButtons, partition, commandName } from './picker.js';
import { checkReason, wholeNumber, selectRow, numberRow, rulingForm, rulingsPanel, confirmButton, adjustForm as countForm } from './rulings.js';

/** The system's name as the book writes it. */
export const title = 'Inciting Incident';

/** The kinds of action a character may declare (§5), in the order the picker offers them. */
export const ACTION_KINDS = [
  { key: 'hold', name: 'Hold' },
  { key: 'move', name: 'Move' },
  { key: 'regular', name: 'Regular Attack' },
  { key: 'decisive', name: 'Decisive Attack' },
  { key: 'advanced', name: 'Advanced Action' },
];

/**
 * The kind of a declared action: `"hold"` → hold, `{"move": …}` → move.
 * @param {any} action
 * @returns {string}
 */
export function actionKind(action) {
  if (typeof action === 'string') return action;
  if (action && typeof action === 'object') return Object.keys(action)[0] ?? '';
  return '';
}

/**
 * The key of an action kind's card (crates/cards): `regular` → `ii-action-regular`; null for a
 * kind with no card.
 * @param {string} kind
 */
export function actionCardKey(kind) {
  return ACTION_KINDS.some((k) => k.key === kind) ? `ii-action-${kind}` : null;
}

/**
 * The declaration inside a choice's command (`declare` or a Trigger's `extra_action`), or null.
 * @param {any} command
 * @returns {{character: number, action: any} | null}
 */
export function declaration(command) {
  const d = command?.declare ?? command?.extra_action;
  return d && typeof d === 'object' && 'action' in d ? d : null;
}

/**
 * A choice's label without its leading "Name: " (the picker shows whose it is already).
 * @param {string} label
 */
export function shortLabel(label) {
  const i = String(label).indexOf(': ');
  return i >= 0 ? String(label).slice(i + 2) : String(label);
}

/**
 * The declaration picker's fields: the character (when the seat declares for several), the
 * kind of action, then the action itself.
 * @param {(id: number) => string} name
 * @returns {import('./picker.js').Field[]}
 */
export function declareFields(name) {
  return [
    {
      key: 'character',
      legend: 'Character',
      value: (c) => {
        const d = declaration(c.command);
        return d ? String(d.character) : null;
      },
      text: (v) => name(Number(v)),
      hideSingle: true,
    },
    {
      key: 'kind',
      legend: 'Action',
      value: (c) => {
        const d = declaration(c.command);
        return d ? actionKind(d.action) : null;
      },
      text: (v) => ACTION_KINDS.find((k) => k.key === v)?.name ?? v,
      // the action cards of the hand (crates/cards), named as the cards are
      card: (v) => actionCardKey(v),
      kind: (v) => `kind-${v}`,
    },
    {
      key: 'which',
      legend: 'Which',
      value: (c) => {
        const d = declaration(c.command);
        return d ? JSON.stringify(d.action) : null;
      },
      // the action's own label, found again among the choices by the picker's caller
      text: (v) => v,
      hideSingle: true,
      needs: 'kind',
    },
  ];
}

/**
 * The Flow of a Duel in words, from the players' side (positive: the players' side is winning).
 * @param {number} flow
 * @param {string[]} sides the scene's two side names
 * @param {string} positive the side a positive Flow favours
 */
export function flowText(flow, sides, positive) {
  const other = sides.find((s) => s !== positive) ?? 'the other side';
  if (flow > 0) return `Flow of Battle +${flow}: ${positive} winning`;
  if (flow < 0) return `Flow of Battle ${flow}: ${other} winning`;
  return 'Flow of Battle 0: even';
}

/**
 * A roll's dice as the log writes them, with how each counted: "d8:5 d8:2 (d6:6 dropped)".
 * @param {any} roll a `rolled` event's `roll`
 * @returns {{text: string, dice: {sides: number, value: number, counted: string, text: string}[], total: number}}
 */
export function diceText(roll) {
  const dice = (roll?.dice ?? []).map((/** @type {any} */ d) => {
    const base = `d${d.sides}:${d.value}`;
    const text = d.counted === 'dropped' ? `(${base} dropped)` : d.counted === 'subtracted' ? `−${base}` : base;
    return { sides: d.sides, value: d.value, counted: d.counted ?? 'added', text };
  });
  return { text: dice.map((/** @type {any} */ d) => d.text).join(' '), dice, total: roll?.total ?? 0 };
}

/**
 * The draw counters a roll used: the `rolled` event's `rng_pos` is the draw position after it,
 * one draw per die, so its dice are the draws just before.
 * @param {any} event a `rolled` event
 * @returns {string[]} decimal counters, as the `draw` items write them
 */
export function rollCounters(event) {
  const n = event?.roll?.dice?.length ?? 0;
  const end = Number(event?.rng_pos);
  if (!Number.isInteger(end) || n === 0) return [];
  const out = [];
  for (let c = end - n; c < end; c++) if (c >= 0) out.push(String(c));
  return out;
}

// ---- DOM ----

/** What the module remembers: the latest view, and the draws seen with the marks to update once they are checked. */
const memory = {
  /** @type {any} */ view: null,
  /** @type {DrawLedger | null} */ ledger: null,
  /** @type {{counters: string[], badge: HTMLElement}[]} */ marks: [],
  /** @type {{seed: string, checked: number, bad: number} | null} */ result: null,
};

/** @param {number} id */
function fighterName(id) {
  const f = memory.view?.fighters?.find((/** @type {any} */ x) => x.id === id);
  return f ? f.name : `character ${id}`;
}

/**
 * This page's seat name, if it is a seat.
 * @param {import('./index.js').SystemContext} ctx
 */
function mySeatName(ctx) {
  // a seat's own; the GM link's `you` names the rules' GM seat, whose characters it sees
  if ((ctx.you?.kind !== 'seat' && ctx.you?.kind !== 'gm') || typeof ctx.you.seat !== 'number') return null;
  return ctx.seats?.find((s) => s.seat === ctx.you.seat)?.name ?? null;
}

/**
 * A Duel's Flow gauge: a bar from the middle, toward the side it favours, with the number and
 * the words (never the colour alone).
 * @param {any} duel
 * @param {any} view
 */
function flowGauge(duel, view) {
  const flow = Number(duel.flow) || 0;
  const scale = Math.max(20, Math.abs(flow));
  const text = flowText(flow, view.sides ?? [], view.positive_side ?? '');
  const fill = h('span', { class: `flow-fill ${flow >= 0 ? 'pos' : 'neg'}` });
  fill.style.width = `${(50 * Math.abs(flow)) / scale}%`;
  return h(
    'div',
    {
      class: `flow ${duel.active ? 'active' : 'inactive'}`,
      role: 'meter',
      'aria-valuemin': -scale,
      'aria-valuemax': scale,
      'aria-valuenow': flow,
      'aria-valuetext': text,
      'aria-label': `Duel in ${duel.region}`,
    },
    h('span', { class: 'flow-track', 'aria-hidden': 'true' }, fill, h('span', { class: 'flow-mid' })),
    h('span', { class: 'flow-text' }, `Duel${duel.active ? '' : ' (broken up, Flow saved)'}: ${text}`),
  );
}

/**
 * A character's line on the map: side, hits and wounds, its declaration's face.
 * @param {any} f
 * @param {boolean} mine
 */
function fighterLine(f, mine) {
  const decl = f.declared?.state === 'face_down' ? '🂠 declared' : f.declared?.state === 'known' ? `declared: ${actionKind(f.declared.value)}` : '';
  return h(
    'li',
    { class: `ii-fighter side-${f.side} status-${f.status} ${mine ? 'mine' : ''}`.trim() },
    h('strong', null, f.name),
    mine ? ' (yours)' : '',
    ` — ${f.side}; hits ${f.hits}/${f.max_hits}`,
    f.death_hits ? `, death hits ${f.death_hits}` : '',
    f.status !== 'fighting' ? `; ${f.status}` : '',
    f.doomed ? '; doomed (dies before the next scene)' : '',
    decl ? `; ${decl}` : '',
    f.acted ? '; has acted' : '',
  );
}

/**
 * The Regions as an SVG graph (decorative: the list beside it says the same in words).
 * @param {any[]} regions
 */
function regionGraph(regions) {
  const NS = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(NS, 'svg');
  const n = regions.length;
  const W = 320;
  const H = 140;
  svg.setAttribute('viewBox', `0 0 ${W} ${H}`);
  svg.setAttribute('class', 'region-graph');
  svg.setAttribute('aria-hidden', 'true');
  /** @type {Map<string, {x: number, y: number}>} */
  const at = new Map();
  regions.forEach((r, i) => {
    const a = n > 1 ? (2 * Math.PI * i) / n - Math.PI / 2 : 0;
    at.set(r.name, { x: W / 2 + (n > 1 ? 110 * Math.cos(a) : 0), y: H / 2 + (n > 1 ? 50 * Math.sin(a) : 0) });
  });
  for (const r of regions) {
    for (const e of r.exits ?? []) {
      const p = at.get(r.name);
      const q = at.get(e);
      if (!p || !q || r.name > e) continue;
      const line = document.createElementNS(NS, 'line');
      line.setAttribute('x1', String(p.x));
      line.setAttribute('y1', String(p.y));
      line.setAttribute('x2', String(q.x));
      line.setAttribute('y2', String(q.y));
      line.setAttribute('class', 'exit');
      svg.append(line);
    }
  }
  for (const r of regions) {
    const p = at.get(r.name);
    if (!p) continue;
    const t = document.createElementNS(NS, 'text');
    t.setAttribute('x', String(p.x));
    t.setAttribute('y', String(p.y));
    t.setAttribute('text-anchor', 'middle');
    t.setAttribute('class', 'region-label');
    t.textContent = r.name;
    svg.append(t);
  }
  return svg;
}

/**
 * A Region's effect in words: its name and what it does ("Slippery stones: move crisis 3").
 * @param {any} effect
 */
function effectText(effect) {
  if (!effect || !effect.name) return '';
  const rest = Object.entries(effect)
    .filter(([k]) => k !== 'name')
    .map(([k, v]) => `${k.replace(/_/g, ' ')} ${v}`);
  return `${effect.name}${rest.length ? `: ${rest.join(', ')}` : ''}`;
}

/**
 * The view drawn: the scene's state (round, initiative, Crisis, Strikes, Triggers), then the
 * map of Regions with who is where and each Duel's Flow.
 * @param {any} view
 * @param {import('./index.js').SystemContext} ctx
 * @returns {HTMLElement}
 */
export function renderView(view, ctx) {
  memory.view = view;
  const me = mySeatName(ctx);
  const regions = view.regions ?? [];
  const fighters = view.fighters ?? [];
  const minions = view.minions ?? [];
  const duels = view.duels ?? [];
  const sides = view.sides ?? [];
  const offMap = fighters.filter((/** @type {any} */ f) => f.region === null || f.region === undefined);
  return h(
    'div',
    { class: 'sys inciting-incident' },
    h(
      'header',
      { class: 'sys-head' },
      view.title ? h('h2', null, view.title) : null,
      h(
        'p',
        null,
        h('strong', null, `Round ${view.round ?? 0}`),
        view.surprise_round ? ' (surprise round)' : '',
        view.initiative ? ` — initiative: ${view.initiative}` : '',
        typeof view.phase_words === 'string' ? ` — ${view.phase_words}` : '',
      ),
      h('p', { class: 'crisis' }, h('strong', null, `Crisis ${view.crisis ?? 0}`), view.rising_tension ? ` — Rising Tension ${view.rising_tension}` : ''),
      Array.isArray(view.strikes) ? h('p', { class: 'strikes' }, 'Strikes left: ', sides.map((/** @type {string} */ s, /** @type {number} */ i) => `${s} ${view.strikes[i] ?? 0}`).join(', ')) : null,
      view.who_won ? h('p', { class: 'ending' }, `${view.who_won.headline} (${view.who_won.why})`) : null,
    ),
    view.triggers?.length
      ? h(
          'details',
          { class: 'triggers' },
          h('summary', null, 'Crisis Triggers'),
          h('ul', null, view.triggers.map((/** @type {any} */ t) => h('li', null, `at ${t.at}${t.every ? `, then every ${t.every}` : ''}: ${t.note} (fired ${t.fired}×)`))),
        )
      : null,
    regions.length > 1 ? regionGraph(regions) : null,
    h(
      'div',
      { class: 'regions' },
      regions.map((/** @type {any} */ r) => {
        const here = fighters.filter((/** @type {any} */ f) => f.region === r.name);
        const mins = minions.filter((/** @type {any} */ m) => m.region === r.name);
        const rd = duels.filter((/** @type {any} */ d) => d.region === r.name);
        return h(
          'section',
          { class: 'region', 'aria-label': `Region ${r.name}` },
          h('h3', null, r.name),
          r.description ? h('p', { class: 'region-desc' }, r.description) : null,
          effectText(r.effect) ? h('p', { class: 'region-effect' }, `Effect: ${effectText(r.effect)}`) : null,
          h('p', { class: 'exits' }, `Exits: ${(r.exits ?? []).join(', ') || 'none'}`),
          rd.map((/** @type {any} */ d) => flowGauge(d, view)),
          here.length || mins.length
            ? h(
                'ul',
                { class: 'who' },
                here.map((/** @type {any} */ f) => fighterLine(f, f.seat === me)),
                mins.map((/** @type {any} */ m) => h('li', { class: `minions side-${m.side}` }, h('strong', null, m.name), ` — ${m.side}; ${m.count} minion(s), one hit each`)),
              )
            : h('p', { class: 'empty' }, 'Nobody here'),
        );
      }),
    ),
    offMap.length ? h('section', { class: 'region off-map' }, h('h3', null, 'Not on the map'), h('ul', { class: 'who' }, offMap.map((/** @type {any} */ f) => fighterLine(f, f.seat === me)))) : null,
    characterSheets(fighters),
  );
}

/**
 * The character sheets this viewer may read (§4.4; the view carries a sheet only to the seat
 * that plays the character and to the GM): Abilities, Talents with their Advanced Actions,
 * defences, movement and Skills, each character folded in a `<details>`.
 * @param {any[]} fighters
 * @returns {HTMLElement | null}
 */
export function characterSheets(fighters) {
  const withSheet = fighters.filter((f) => f && typeof f.sheet === 'object' && f.sheet !== null);
  if (withSheet.length === 0) return null;
  const defence = (/** @type {string} */ name, /** @type {any} */ d) =>
    h('li', null, `${name}: RV ${d?.rv ?? 0}, RD ${d?.rd ?? 0}d6${d?.protection?.length ? `, Protection ${d.protection.map((/** @type {number} */ x) => `d${x}`).join(' + ')}` : ''}`);
  return h(
    'section',
    { class: 'sheets', 'aria-label': 'Character sheets' },
    h('h3', null, 'Character sheets'),
    withSheet.map((f) => {
      const s = f.sheet;
      const ab = s.abilities ?? {};
      return h(
        'details',
        { class: 'sheet' },
        h('summary', null, `${s.name ?? f.name}${s.summary ? ` — ${s.summary}` : ''}`),
        h('p', null, `Fortitude ${ab.fortitude ?? 0}, Perseverance ${ab.perseverance ?? 0}, Nimbleness ${ab.nimbleness ?? 0}; Max Hits ${s.max_hits ?? f.max_hits}; moves up to ${s.max_move ?? 3} Regions${s.movement?.skip ? `, leaps ${s.movement.skip}` : ''}${s.movement?.pass_blockers ? ', passes blockers' : ''}`),
        h('h4', null, 'Defences'),
        h('ul', null, defence('Resilience', s.defences?.resilience), defence('Resolve', s.defences?.resolve), defence('Reactions', s.defences?.reactions)),
        (s.talents ?? []).length
          ? [
              h('h4', null, 'Talents'),
              h(
                'ul',
                { class: 'talents' },
                s.talents.map((/** @type {any} */ t) =>
                  h(
                    'li',
                    null,
                    h('strong', null, `${t.name} ${t.level}`),
                    ` (${t.ability}; attacks ${t.defence})`,
                    t.description ? ` — ${t.description}` : '',
                    (t.advanced ?? []).length ? h('ul', null, t.advanced.map((/** @type {any} */ a) => h('li', null, `Advanced: ${a.name}, Crisis ${a.crisis}${a.out_of_order ? ', out of order' : ''}`))) : null,
                  ),
                ),
              ),
            ]
          : null,
        (s.skills ?? []).length ? h('p', null, `Skills: ${s.skills.join('; ')}`) : null,
      );
    }),
  );
}

/**
 * The prompt drawn: declarations (and a Trigger's extra action) as a picker — character, kind
 * of action, which one — then the other choices (whose action next, the keep-fighting roll,
 * the GM's end of the scene) as buttons.
 * @param {any} prompt
 * @param {any} view
 * @param {import('./index.js').SystemContext} ctx
 * @returns {HTMLElement | null}
 */
export function renderPrompt(prompt, view, ctx) {
  if (!prompt || !Array.isArray(prompt.choices) || prompt.choices.length === 0) return null;
  memory.view = view ?? memory.view;
  const [decls, others] = partition(prompt.choices, (c) => declaration(c.command) !== null);
  const [endScene, rest] = partition(others, (c) => commandName(c.command) === 'end_scene');
  const [keep, rest2] = partition(rest, (c) => commandName(c.command) === 'keep_fighting');
  /** @type {HTMLElement[]} */
  const blocks = [];
  if (decls.length) {
    const labels = new Map(decls.map((c) => [JSON.stringify(declaration(c.command)?.action), shortLabel(c.label)]));
    const fields = declareFields(fighterName);
    fields[2].text = (v) => labels.get(v) ?? v;
    blocks.push(
      pickerElement(decls, fields, ctx, {
        className: 'declare-picker',
        confirm: (c) => (prompt.private ? `Declare face down: ${c.label}` : `Take it: ${c.label}`),
      }),
    );
  }
  if (keep.length) blocks.push(h('div', { class: 'keep-fighting' }, choiceButtons(keep, ctx)));
  if (rest2.length) blocks.push(choiceButtons(rest2, ctx));
  if (endScene.length) blocks.push(h('div', { class: 'gm-end' }, choiceButtons(endScene, ctx, { kind: () => 'danger' })));
  return h(
    'section',
    { class: 'sys-prompt inciting-incident', 'aria-label': prompt.question },
    h('h2', null, prompt.question),
    prompt.private ? h('p', { class: 'face-down-note' }, '🂠 Face down: nobody sees it before the reveal.') : null,
    blocks,
  );
}

/**
 * A declared action as a card: `{"move": …}` → the Move card, "Move".
 * @param {any} action
 * @returns {{key: string | null, name: string}}
 */
export function actionCard(action) {
  const kind = actionKind(action);
  return { key: actionCardKey(kind), name: ACTION_KINDS.find((k) => k.key === kind)?.name ?? kind };
}

/**
 * The cards on the table now (the table page draws them, cards.js): each character still
 * fighting with its declaration of the round as this viewer sees it. The round's key names the
 * round.
 * @param {any} view
 * @returns {{round: string, seats: {who: string, seat: string, winner: boolean, cards: any[]}[]} | null}
 */
export function tableCards(view) {
  const fighters = (view?.fighters ?? []).filter(
    (/** @type {any} */ f) => f?.status === 'fighting' || (f?.declared && f.declared.state !== 'empty'),
  );
  if (fighters.length === 0 || typeof view?.round !== 'number') return null;
  return {
    round: `round ${view.round}`,
    seats: fighters.map((/** @type {any} */ f) => {
      const d = f.declared;
      /** @type {{state: 'empty' | 'down' | 'up', key: string | null, name: string}} */
      const card =
        d?.state === 'known' ? { state: 'up', ...actionCard(d.value) } : { state: d?.state === 'face_down' ? 'down' : 'empty', key: null, name: '' };
      return { who: f.name, seat: f.seat, winner: false, cards: [card] };
    }),
  };
}

/**
 * The card a command of this seat's plays (its declaration), for the page to name its own
 * face-down choice; null for other commands.
 * @param {any} command
 * @returns {{key: string | null, name: string} | null}
 */
export function cardOf(command) {
  const d = declaration(command);
  return d ? actionCard(d.action) : null;
}

/**
 * The draw ledger, made on the first item (the seat count from the context).
 * @param {import('./index.js').SystemContext} ctx
 */
function ledger(ctx) {
  if (!memory.ledger) {
    const commitment = ctx.serverSeedCommitment ?? null;
    memory.ledger = new DrawLedger(Math.max(1, ctx.seats?.length ?? 1), commitment);
  }
  return memory.ledger;
}

/**
 * A roll's mark as it stands: pending until the seed is revealed, then checked or failed.
 * @param {string[]} counters
 * @returns {{text: string, state: string}}
 */
function markState(counters) {
  const l = memory.ledger;
  if (!l || !memory.result) return { text: 'verifiable at scene end', state: 'pending' };
  const mine = l.draws.filter((d) => counters.includes(String(d.record?.counter)));
  if (memory.result.seed === 'bad') return { text: '✗ the server seed does not match its commitment', state: 'bad' };
  if (mine.some((d) => d.status === 'bad')) return { text: `✗ does not check: ${mine.find((d) => d.status === 'bad')?.what ?? ''}`, state: 'bad' };
  if (mine.length && mine.every((d) => d.status === 'ok')) return { text: '✓ checked against the revealed server seed', state: 'ok' };
  return { text: memory.result.bad ? '✗ some draws of the scene do not check' : '✓ the scene\'s draws check', state: memory.result.bad ? 'bad' : 'ok' };
}

/** Checks every draw once the seed is revealed, then updates every roll's mark. */
async function checkDraws() {
  const l = memory.ledger;
  if (!l) return;
  try {
    memory.result = await l.check();
  } catch (e) {
    memory.result = { seed: 'bad', checked: 0, bad: 1 };
  }
  for (const m of memory.marks) {
    const s = markState(m.counters);
    m.badge.textContent = s.text;
    m.badge.className = `verify ${s.state}`;
  }
}

/**
 * One log item drawn. Every item should be passed (not only events): draws and the server
 * seed feed the page's check of the dice. A roll becomes its dice as they fell with a mark
 * "verifiable at scene end", which turns into the check's result once the server seed is
 * revealed; a hit, a wound and the keep-fighting result are marked. Other items: null.
 * @param {any} item
 * @param {import('./index.js').SystemContext} ctx
 * @returns {HTMLElement | null}
 */
export function renderEvent(item, ctx) {
  if (!item || typeof item !== 'object') return null;
  if (item.kind !== 'event') {
    const l = ledger(ctx);
    // without the welcome's commitment in the context, the seed is checked against the one
    // its own item repeats (the pages helper should pass `serverSeedCommitment`)
    if (item.kind === 'server_seed' && l.serverSeedCommitment === null) l.serverSeedCommitment = item.commitment ?? null;
    l.take(item);
    if (item.kind === 'server_seed') void checkDraws();
    return null;
  }
  const e = item.event;
  if (!e || typeof e !== 'object') return null;
  switch (e.event) {
    case 'rolled': {
      const d = diceText(e.roll);
      const who = e.who?.character !== undefined ? fighterName(e.who.character) : e.who?.minions !== undefined ? 'minions' : '';
      const counters = rollCounters(e);
      const s = markState(counters);
      const badge = h('span', { class: `verify ${s.state}`, role: 'status' }, s.text);
      memory.marks.push({ counters, badge });
      return h(
        'div',
        { class: 'roll', 'aria-label': `${who} ${e.purpose ?? ''} roll: ${d.text} = ${d.total}` },
        h('span', { class: 'roll-who' }, `${who} ${String(e.purpose ?? 'roll').replace(/_/g, ' ')}: `),
        h(
          'span',
          { class: 'dice', 'aria-hidden': 'true' },
          d.dice.map((x) => h('span', { class: `die counted-${x.counted}`, title: x.text }, h('small', null, `d${x.sides}`), String(x.value), x.counted === 'dropped' ? h('small', null, ' dropped') : x.counted === 'subtracted' ? h('small', null, ' −') : null)),
        ),
        h('span', { class: 'roll-total' }, ` = ${d.total} `),
        badge,
      );
    }
    // hits, wounds and the keep-fighting roll: the rules' narration, marked so it stands out
    case 'wounded':
    case 'strikes_lost':
      return marked('✚', 'wound', item.text);
    case 'incapacitated':
      return marked('⚠', 'wound', item.text);
    case 'kept_fighting':
      return marked(e.success ? '✓' : '✗', `keep ${e.success ? 'ok' : 'bad'}`, item.text);
    default:
      return null;
  }
}

/**
 * A line of the rules' narration with a mark before it (a word-free sign, the text says the rest).
 * @param {string} mark
 * @param {string} cls
 * @param {unknown} text
 */
function marked(mark, cls, text) {
  const t = typeof text === 'string' ? text.trim() : '';
  if (!t) return null;
  return h('p', { class: cls }, h('span', { 'aria-hidden': 'true' }, `${mark} `), t);
}

// ---- The GM's rulings ----

/** The most a ruling's reason may take, in bytes of UTF-8 (the rules' note). */
export const REASON_BYTES = 64;

/** The largest Flow (either way), Crisis or Strikes an adjustment may set (Decision 30). */
export const MAX_ADJUSTED = 1_000_000;

/**
 * What an adjustment may set, as the rulings form lists it: each character's hits, each Duel's
 * Flow, the Crisis pool, each side's Strikes (in a non-violent conflict, where the view has
 * them). Values: `hits:ID`, `flow:DUEL`, `crisis`, `strikes:SIDE`.
 * @param {any} view
 * @returns {{value: string, text: string, group: string}[]}
 */
export function adjustTargets(view) {
  const sides = view?.sides ?? [];
  /** @type {{value: string, text: string, group: string}[]} */
  const out = [];
  for (const f of view?.fighters ?? []) {
    if (f.status === 'dead') continue;
    out.push({ value: `hits:${f.id}`, text: `${f.name}'s hits (now ${f.hits}/${f.max_hits})`, group: 'Hits' });
  }
  for (const d of view?.duels ?? []) {
    out.push({ value: `flow:${d.id}`, text: `Flow of the Duel in ${d.region} (now ${d.flow}${d.active ? '' : ', broken up'})`, group: 'Flow of Battle' });
  }
  out.push({ value: 'crisis', text: `the Crisis pool (now ${view?.crisis ?? 0})`, group: 'Crisis' });
  if (Array.isArray(view?.strikes)) {
    sides.forEach((/** @type {string} */ s, /** @type {number} */ i) => {
      out.push({ value: `strikes:${i}`, text: `${s}'s Strikes (now ${view.strikes[i] ?? 0})`, group: 'Strikes' });
    });
  }
  return out;
}

/**
 * The GM's ruling a form's fields make. Pure: the fields are the form's texts.
 * - `adjust` (Decision 30): `what` as {@link adjustTargets} gives it, `to` the new value, `reason`.
 * - `end_scene`: `winner`, a side's index or '' for none.
 * - `spend_tension` (§10): `side` and `strikes` (at least 1).
 * - `rest_scene` (§9): `full_day` ('true' for a whole day).
 * @param {string} kind
 * @param {Record<string, any>} fields
 * @param {any} view
 * @returns {import('./rulings.js').Ruling}
 */
export function rulingCommand(kind, fields, view) {
  const sides = view?.sides ?? [];
  const side = (/** @type {unknown} */ raw, /** @type {string} */ what) => {
    const n = wholeNumber(raw, 0, Math.max(1, sides.length - 1), what);
    return 'error' in n ? n : { value: n.value };
  };
  switch (kind) {
    case 'adjust': {
      const m = /^(hits|flow|crisis|strikes)(?::(\d+))?$/.exec(String(fields.what ?? ''));
      if (!m || (m[1] !== 'crisis') !== (m[2] !== undefined)) return { error: 'Choose what to adjust.' };
      const id = Number(m[2]);
      /** @type {any} */
      let adjustment;
      let done = '';
      if (m[1] === 'hits') {
        const f = (view?.fighters ?? []).find((/** @type {any} */ x) => x.id === id);
        if (!f) return { error: 'Choose a character of this scene.' };
        const max = Number.isInteger(f.max_hits) ? f.max_hits : 255;
        const n = wholeNumber(fields.to, 0, max, `${f.name}'s hits`);
        if ('error' in n) return n;
        adjustment = { hits: { character: id, hits: n.value } };
        done = `${f.name}'s hits: ${n.value}.`;
      } else if (m[1] === 'flow') {
        const d = (view?.duels ?? []).find((/** @type {any} */ x) => x.id === id);
        if (!d) return { error: 'Choose a Duel of this scene.' };
        const n = wholeNumber(fields.to, -MAX_ADJUSTED, MAX_ADJUSTED, 'The Flow');
        if ('error' in n) return n;
        adjustment = { flow: { duel: id, flow: n.value } };
        done = `The Flow in ${d.region}: ${n.value}.`;
      } else if (m[1] === 'crisis') {
        const n = wholeNumber(fields.to, 0, MAX_ADJUSTED, 'The Crisis pool');
        if ('error' in n) return n;
        adjustment = { crisis: { crisis: n.value } };
        done = `Crisis: ${n.value}.`;
      } else {
        if (!Array.isArray(view?.strikes) || id >= sides.length) return { error: 'Strikes are counted in a non-violent conflict only.' };
        const n = wholeNumber(fields.to, 0, MAX_ADJUSTED, `${sides[id]}'s Strikes`);
        if ('error' in n) return n;
        adjustment = { strikes: { side: id, strikes: n.value } };
        done = `${sides[id]}'s Strikes: ${n.value}.`;
      }
      const r = checkReason(fields.reason, REASON_BYTES);
      if ('error' in r) return r;
      return { command: { adjust: { ...adjustment, reason: r.reason } }, done };
    }
    case 'end_scene': {
      if (fields.winner === '' || fields.winner === undefined || fields.winner === null) {
        return { command: { end_scene: { winner: null } }, done: 'The scene is ended, nobody wins.' };
      }
      const w = side(fields.winner, 'The winner');
      if ('error' in w) return w;
      return { command: { end_scene: { winner: w.value } }, done: `The scene is ended: ${sides[w.value] ?? `side ${w.value}`} win.` };
    }
    case 'spend_tension': {
      const s = side(fields.side, 'The side');
      if ('error' in s) return s;
      const n = wholeNumber(fields.strikes, 1, MAX_ADJUSTED, 'Strikes');
      if ('error' in n) return n;
      return {
        command: { spend_tension: { side: s.value, strikes: n.value } },
        done: `Rising Tension spent: ${n.value} Strike${n.value === 1 ? '' : 's'} to ${sides[s.value] ?? `side ${s.value}`}.`,
      };
    }
    case 'rest_scene': {
      const full = fields.full_day === true || fields.full_day === 'true';
      return { command: { rest_scene: { full_day: full } }, done: full ? 'A whole day of rest.' : 'A Rest Scene.' };
    }
    default:
      return { error: `Inciting Incident has no ruling "${kind}".` };
  }
}

/**
 * The GM's rulings panel: Adjust (a character's hits, a Duel's Flow, the Crisis pool, a side's
 * Strikes); on the GM link, which is asked nothing, also End scene, Spend Rising Tension and
 * Rest Scene (on the GM seat's own page these come in its prompt).
 * @param {any} view
 * @param {import('./index.js').SystemContext} ctx
 * @returns {HTMLElement | null}
 */
export function renderRulings(view, ctx) {
  memory.view = view ?? memory.view;
  if (!view) return null;
  const gmLink = ctx.you?.kind === 'gm';
  const sideOptions = (view.sides ?? []).map((/** @type {string} */ s, /** @type {number} */ i) => ({ value: String(i), text: s }));
  const adjust = countForm(
    {
      prefix: 'ruling-ii',
      legend: 'Adjust (Decision 30)',
      options: adjustTargets(view),
      reasonMax: REASON_BYTES,
      build: (fields) => rulingCommand('adjust', fields, view),
    },
    ctx,
  );
  if (!gmLink) return rulingsPanel('inciting-incident', adjust);
  const over = Boolean(view.outcome);
  /** @param {string} kind @param {Record<string, any>} fields */
  const send = (kind, fields) => {
    const r = rulingCommand(kind, fields, view);
    if ('command' in r && ctx.ruling) ctx.ruling(r.command, r.done);
  };
  const winner = selectRow('ruling-ii-winner', 'Winner', [{ value: '', text: 'nobody' }, ...sideOptions]);
  const end = over
    ? null
    : h(
        'div',
        { class: 'ruling' },
        h(
          'fieldset',
          null,
          h('legend', null, 'End the scene (§5 step 9)'),
          winner.row,
          confirmButton('ruling-ii-end', 'End the scene…', 'End the scene for everyone?', 'Yes, end the scene', () => send('end_scene', { winner: winner.input.value })),
        ),
      );
  let tension = null;
  if (!over && Array.isArray(view.strikes)) {
    const tside = selectRow('ruling-ii-tension-side', 'Side', sideOptions);
    const strikes = numberRow('ruling-ii-tension-strikes', 'Strikes', { min: 1, value: 1 });
    tension = rulingForm(
      {
        id: 'ruling-ii-tension',
        legend: `Spend Rising Tension (§10; now ${view.rising_tension ?? 0})`,
        rows: [tside.row, strikes.row],
        submit: 'Spend it',
        build: () => rulingCommand('spend_tension', { side: tside.input.value, strikes: strikes.input.value }, view),
      },
      ctx,
    );
  }
  const rest = over
    ? h(
        'div',
        { class: 'ruling' },
        h(
          'fieldset',
          null,
          h('legend', null, 'Rest Scene (§9)'),
          h(
            'div',
            { class: 'ruling-row controls' },
            h('button', { type: 'button', id: 'ruling-ii-rest', onclick: () => send('rest_scene', { full_day: false }) }, 'A Rest Scene'),
            h('button', { type: 'button', id: 'ruling-ii-rest-day', onclick: () => send('rest_scene', { full_day: true }) }, 'A whole day of rest'),
          ),
        ),
      )
    : null;
  return rulingsPanel('inciting-incident', adjust, end, tension, rest);
}

/**
 * Forgets what the module remembers (a new table on the same page, or a test).
 */
export function reset() {
  memory.view = null;
  memory.ledger = null;
  memory.marks = [];
  memory.result = null;
}
