// The system modules' pure parts, on frames a real server sent (test/fixtures/, captured from
// `facedown serve` with Node's WebSocket): grouping a prompt's choices into pickers, and the
// formatting of moves, losses, chips, Flow and dice. No DOM here: only what builds no element.
// Run: node --test crates/server/web/test/

import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { narrow, commandName, partition, pickerKey } from '../js/systems/picker.js';
import * as it from '../js/systems/iron-triangle.js';
import * as nd from '../js/systems/nodice.js';
import * as ii from '../js/systems/inciting-incident.js';
import { DrawLedger } from '../js/fairness.js';
import { checkReason, utf8Length, wholeNumber } from '../js/systems/rulings.js';

const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures');
/** @param {string} name */
const fixture = (name) => JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8'));
/** @param {any} frame @param {string} name */
const choicesOf = (frame, name) => frame.prompt.choices.filter((/** @type {any} */ c) => commandName(c.command) === name);

/**
 * Every choice is named by exactly one selection of the picker's fields, and that selection
 * gives back the very choice (its command untouched): nothing offered is unreachable, and
 * nothing not offered can be picked.
 * @param {any[]} choices
 * @param {import('../js/systems/picker.js').Field[]} fields
 */
function assertEveryChoiceReachable(choices, fields) {
  assert.ok(choices.length > 0, 'the fixture offers choices');
  const seen = new Set();
  for (const c of choices) {
    /** @type {Record<string, string>} */
    const sel = {};
    for (const f of fields) {
      const v = f.value(c);
      if (v !== null) sel[f.key] = v;
    }
    const key = JSON.stringify(sel);
    assert.ok(!seen.has(key), `two choices share the selection ${key}`);
    seen.add(key);
    const n = narrow(choices, fields, sel);
    assert.equal(n.chosen, c, `the selection ${key} names ${c.label}`);
    assert.deepEqual(n.chosen.command, c.command);
  }
}

test('narrow offers only values some choice still has, and drops a selection that no longer fits', () => {
  const f = fixture('iron-triangle-welcome.json');
  const stances = choicesOf(f, 'commit_stance');
  const fields = it.stanceFields();
  const none = narrow(stances, fields, {});
  assert.equal(none.chosen, null);
  const types = none.fields[0].values.map((v) => v.value);
  const inChoices = [...new Set(stances.map((/** @type {any} */ c) => (c.command.commit_stance.stance.amount === 0 ? 'none' : c.command.commit_stance.stance.type)))];
  assert.deepEqual(types, inChoices);
  // the amounts offered for a type are exactly that type's amounts in the choices (the cap is the prompt's)
  for (const t of types.filter((x) => x !== 'none')) {
    const n = narrow(stances, fields, { type: t });
    const amounts = n.fields[1].values.map((v) => Number(v.value));
    const expected = stances
      .filter((/** @type {any} */ c) => c.command.commit_stance.stance.type === t && c.command.commit_stance.stance.amount > 0)
      .map((/** @type {any} */ c) => c.command.commit_stance.stance.amount);
    assert.deepEqual(amounts, expected);
  }
  // "no stance" needs no amount
  const n0 = narrow(stances, fields, { type: 'none' });
  assert.equal(n0.chosen?.command.commit_stance.stance.amount, 0);
  // an amount the type does not offer is dropped, not matched
  const bad = narrow(stances, fields, { type: 'grapple', amount: '99' });
  assert.equal(bad.chosen, null);
  assert.equal(bad.fields[1].selected, null);
});

test('Iron Triangle: every stance and every loss spread is reachable through its picker', () => {
  assertEveryChoiceReachable(choicesOf(fixture('iron-triangle-welcome.json'), 'commit_stance'), it.stanceFields());
  const spread = fixture('iron-triangle-spread.json');
  assertEveryChoiceReachable(choicesOf(spread, 'spread_loss'), it.spreadFields());
  // numbers are offered in increasing order, whatever the order of the choices
  for (const f of narrow(choicesOf(spread, 'spread_loss'), it.spreadFields(), {}).fields) {
    const v = f.values.map((x) => Number(x.value));
    assert.deepEqual(v, [...v].sort((a, b) => a - b), `${f.field.legend} in increasing order`);
  }
});

test('Iron Triangle: moves are read with the book names of their action and element', () => {
  assert.equal(it.moveParts('▨☷').words, 'Grapple Earth (Low)');
  assert.equal(it.moveParts('○☵').words, 'Defend Water (Mid)');
  assert.equal(it.moveParts('◆☲').words, 'Attack Fire (High)');
  assert.equal(it.moveParts('◆☰').words, 'Attack Heaven (Jump)');
  assert.equal(it.moveParts('▨☯').words, 'Grapple Spin (Balance)');
  const f = fixture('iron-triangle-move.json');
  for (const c of choicesOf(f, 'commit_move')) {
    const play = c.command.commit_move.play;
    if (play === 'surrender') continue;
    const p = it.moveParts(play);
    assert.ok(p.action && p.element, `${play} is an action and an element`);
    assert.ok(c.label.startsWith(play), `the rules' label ${c.label} starts with the move's symbols`);
  }
  // the book's table of thirteen moves: no Defend with Heaven or Spin
  assert.equal(it.MOVES.length, 13);
  assert.equal(new Set(it.MOVES.map((m) => m.move)).size, 13);
  assert.equal(it.moveCard('○☰'), null);
  assert.deepEqual(it.moveCard('▨☯'), { move: '▨☯', base: 4, multiplier: 4 });
  for (const m of it.MOVES) assert.ok(it.moveParts(m.move).action && it.moveParts(m.move).element);
  assert.equal(it.stanceText({ type: 'grapple', amount: 2 }), '2▨');
  assert.equal(it.stanceText({ type: 'defend', amount: 0 }), 'no stance');
  assert.equal(it.stanceWords({ type: 'attack', amount: 3 }), '3 Attack');
});

test('Iron Triangle: specials are named as the rules label them', () => {
  const f = fixture('iron-triangle-specials.json');
  let named = 0;
  for (const c of choicesOf(f, 'play_special')) {
    const card = c.command.play_special.card;
    if (!card || card.target !== undefined) continue;
    assert.equal(it.specialName(card.special), c.label.replace(/^[^:]*: /, ''));
    named += 1;
  }
  assert.ok(named > 0);
  assert.equal(it.specialName('i_already_know_attack'), 'I Already Know ◆');
  assert.equal(it.specialName('the_way_of_the_samurai'), 'The Way of the Samurai');
  assert.equal(it.specialName('there_can_be_only_one'), 'There Can Be Only One');
  assert.equal(it.specialName('wax_on_defend'), 'Wax On ○');
  assert.equal(it.specialName('dig_two_graves_grapple'), 'Dig Two Graves ▨');
  // the earlier edition's names (§11)
  assert.equal(it.specialName('scouter', 'earlier'), 'Insight');
  assert.equal(it.specialName('i_already_know_defend', 'earlier'), 'Premonition ○');
  assert.equal(it.specialName('the_way_of_the_samurai', 'earlier'), 'Last Stand');
  assert.equal(it.specialName('scouter', 'current'), 'Scouter');
});

test('Iron Triangle: a resolved turn is explained with the same loss the rules narrate', () => {
  const f = fixture('iron-triangle-resolved.json');
  const items = f.updates;
  const revealed = items.find((/** @type {any} */ u) => u.event?.event === 'moves_revealed')?.event.plays ?? [null, null];
  for (const u of items) {
    if (u.event?.event !== 'turn_resolved') continue;
    const r = u.event.result;
    const x = it.explainResult(r, ['First', 'Second'], revealed);
    if (r.outcome.kind === 'win') {
      assert.ok(x.headline.startsWith(r.outcome.winner === 0 ? 'First' : 'Second'));
      if (r.decided_by === 'action') assert.match(x.why, /beats/);
    }
    // each loss's parts add up to the total the narration states
    for (const l of x.losses) {
      const m = new RegExp(`loses ${l.total}\\b`).exec(u.text);
      assert.ok(m, `the narration "${u.text}" states the loss ${l.total}`);
    }
  }
  const parts = it.lossParts({ winner_stance: 6, own_stance: 1, base: 4, combo: 1, disadvantage: 1, mirrored: 0, stance_type: 'defend' });
  assert.equal(parts.total, 13);
  assert.deepEqual(parts.parts.map((p) => p.amount), [6, 1, 4, 1, 1]);
  assert.match(parts.parts[1].name, /○ Defend/);
  const tie = it.explainResult({ outcome: { kind: 'tie' }, decided_by: 'tie', disadvantaged: [false, false], losses: [{ base: 2 }, { base: 4 }] }, ['A', 'B'], ['○☵', '▨☷']);
  assert.equal(tie.headline, 'A tie');
  assert.deepEqual(tie.losses.map((l) => l.total), [2, 4]);
  const element = it.explainResult({ outcome: { kind: 'win', winner: 1 }, decided_by: 'element', losses: [{ base: 3 }, {}] }, ['A', 'B'], ['◆☲', '◆☷']);
  assert.match(element.why, /☷ Earth beats ☲ Fire/);
});

test('Iron Triangle: learned follow-ups are read from the sheet after the chain\'s newest card', () => {
  const fighter = { side: 0, combos: [{ from: '▨☷', follow_ups: ['▨☰', '▨☯'] }, { from: '○☵', follow_ups: ['◆☲'] }] };
  const view = { combo: { side: 0, against: 1, cards: [{ by: 0, move: '○☵' }, { by: 0, move: '▨☷' }] } };
  assert.deepEqual(it.learnedFollowUps(view, fighter), ['▨☰', '▨☯']);
  assert.deepEqual(it.learnedFollowUps({ combo: { ...view.combo, side: 1 } }, fighter), []);
  assert.deepEqual(it.learnedFollowUps({ combo: null }, fighter), []);
});

test('No Dice: every ante, bid and damage split is reachable through its picker', () => {
  const name = (/** @type {number} */ id) => `Actor ${id}`;
  assertEveryChoiceReachable(choicesOf(fixture('nodice-ante.json'), 'commit_aspect'), nd.aspectFields(name));
  assertEveryChoiceReachable(choicesOf(fixture('nodice-gm-welcome.json'), 'commit_aspect'), nd.aspectFields(name));
  assertEveryChoiceReachable(choicesOf(fixture('nodice-bid.json'), 'commit_action'), nd.actionFields());
  const spread = fixture('nodice-spread.json');
  const names = nd.spreadAttributes(spread.view);
  assert.deepEqual(names, ['REA', 'KNO', 'QUI'], 'the view names the struck Aspect\'s three Attributes');
  assertEveryChoiceReachable(choicesOf(spread, 'spread_damage'), nd.spreadFields(names));
});

test('No Dice: the bid picker offers no bid above what the prompt allows, and a Wildcard only where offered', () => {
  const f = fixture('nodice-bid.json');
  const bids = choicesOf(f, 'commit_action');
  const fields = nd.actionFields();
  for (const attr of new Set(bids.map((/** @type {any} */ c) => c.command.commit_action.attribute))) {
    const n = narrow(bids, fields, { attribute: String(attr) });
    const offered = n.fields.find((x) => x.field.key === 'bid')?.values.map((v) => Number(v.value)) ?? [];
    const max = Math.max(...bids.filter((/** @type {any} */ c) => c.command.commit_action.attribute === attr).map((/** @type {any} */ c) => c.command.commit_action.bid));
    assert.ok(offered.every((b) => b <= max));
    assert.equal(Math.max(...offered), max);
  }
  const wild = narrow(bids, fields, {}).fields.find((x) => x.field.key === 'wildcard');
  assert.deepEqual(wild?.values.map((v) => v.value).sort(), ['false', 'true']);
  // the fields nobody varies are not drawn, but still selected
  const open = narrow(bids, fields, {}).fields.find((x) => x.field.key === 'open');
  assert.equal(open?.values.length, 1);
  assert.equal(open?.selected, 'false');
});

test('No Dice: chips, pot and Showdown are written with the book\'s abbreviations', () => {
  assert.equal(nd.tokensText([0, 0, 0, 2, 2, 0, 0, 0, 0]), 'STR 2, FIT 2 (4 tokens)');
  assert.equal(nd.tokensText([0, 0, 0, 0, 0, 0, 0, 0, 1]), 'INT 1 (1 token)');
  assert.equal(nd.tokensText([0, 0, 0, 0, 0, 0, 0, 0, 0]), 'empty');
  const f = fixture('nodice-showdown.json');
  const stacks = f.view.actors.find((/** @type {any} */ a) => Array.isArray(a.stacks)).stacks;
  const e = nd.chipEntries(stacks);
  assert.deepEqual(e.map((x) => x.abbrev), ['REA', 'KNO', 'QUI', 'STR', 'FIT', 'AGI', 'WIL', 'PRE', 'INT']);
  assert.deepEqual(e.map((x) => x.chips), stacks);
  const names = (/** @type {number} */ id) => f.view.actors.find((/** @type {any} */ a) => a.id === id).name;
  const p = f.view.showdown.pairs[0];
  const t = nd.pairText(p, names);
  assert.match(t, new RegExp(`Showdown Totals ${p.totals[0]} – ${p.totals[1]}`));
  const [a, b] = p.actors.map(names);
  assert.equal(nd.pairText({ actors: p.actors, trine: 'win', attribute: 'loss', sweep: [false, false] }, names), `${a} against ${b}: Trine Dominance ${a} wins, Attribute Dominance ${b} wins`);
  assert.equal(nd.pairText({ actors: p.actors, trine: 'win', attribute: 'win', sweep: [true, false], totals: [5, 1] }, names), `${a} against ${b}: Trine Dominance ${a} wins, Attribute Dominance ${a} wins; Sweep: ${a}; Showdown Totals 5 – 1`);
  // the rules' narration of the reveal states the same totals
  const reveal = f.updates.find((/** @type {any} */ u) => u.event === 'actions_revealed');
  assert.match(reveal.text, new RegExp(`Showdown Totals ${p.totals[0]} – ${p.totals[1]}`));
  assert.equal(nd.ATTRIBUTE_CARD.length, 9);
  assert.equal(nd.attribute('STR')?.name, 'Strength');
});

test('Inciting Incident: every declaration and extra action is reachable through the picker', () => {
  const name = (/** @type {number} */ id) => `character ${id}`;
  for (const fx of ['inciting-incident-welcome.json', 'inciting-incident-gm-declare.json']) {
    const f = fixture(fx);
    if (!f.prompt) continue;
    assertEveryChoiceReachable(f.prompt.choices.filter((/** @type {any} */ c) => ii.declaration(c.command)), ii.declareFields(name));
  }
  const extra = fixture('inciting-incident-extra-action.json');
  assertEveryChoiceReachable(choicesOf(extra, 'extra_action'), ii.declareFields(name));
  const keep = fixture('inciting-incident-keep-fighting.json');
  const [decl, rest] = partition(keep.prompt.choices, (c) => ii.declaration(c.command) !== null);
  assert.equal(decl.length, 0);
  assert.ok(rest.some((c) => commandName(c.command) === 'keep_fighting'));
  assert.equal(ii.actionKind('hold'), 'hold');
  assert.equal(ii.actionKind({ move: { path: [1] } }), 'move');
  assert.equal(ii.shortLabel("Bren: move to Bank"), 'move to Bank');
});

test('Inciting Incident: Flow and dice are written as the log writes them', () => {
  assert.equal(ii.flowText(4, ['players', 'enemies'], 'players'), 'Flow of Battle +4: players winning');
  assert.equal(ii.flowText(-3, ['players', 'enemies'], 'players'), 'Flow of Battle -3: enemies winning');
  assert.equal(ii.flowText(0, ['players', 'enemies'], 'players'), 'Flow of Battle 0: even');
  const d = ii.diceText({ dice: [{ sides: 8, value: 5, counted: 'added' }, { sides: 6, value: 2, counted: 'dropped' }, { sides: 6, value: 3, counted: 'subtracted' }], total: 2 });
  assert.equal(d.text, 'd8:5 (d6:2 dropped) −d6:3');
});

test('Inciting Incident: each roll\'s dice are the draws just before its position, and they check once the seed is revealed', async () => {
  const frames = fs
    .readFileSync(path.join(dir, 'inciting-incident-scene.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  const welcome = frames.find((f) => f.type === 'welcome');
  const items = frames.flatMap((f) => (f.type === 'welcome' || f.type === 'update' ? f.updates : []));
  const draws = new Map(items.filter((u) => u.kind === 'draw').map((u) => [u.draw.counter, u.draw]));
  let rolls = 0;
  for (const u of items) {
    if (u.kind !== 'event' || u.event?.event !== 'rolled') continue;
    const counters = ii.rollCounters(u.event);
    assert.equal(counters.length, u.event.roll.dice.length);
    counters.forEach((c, i) => {
      const draw = draws.get(c);
      const die = u.event.roll.dice[i];
      assert.ok(draw, `draw ${c} is in the log`);
      assert.equal(Number(draw.n), die.sides, `draw ${c} is a d${die.sides}`);
      assert.equal(Number(draw.value) + 1, die.value, `draw ${c} fell as the die shows`);
    });
    rolls += 1;
  }
  assert.ok(rolls > 0, 'the scene rolled dice');
  const ledger = new DrawLedger(welcome.seats.length, welcome.server_seed_commitment);
  for (const u of items) ledger.take(u);
  const r = await ledger.check();
  assert.equal(r.seed, 'ok');
  assert.equal(r.bad, 0);
  assert.equal(r.checked, draws.size);
});

test('the reference cards agree with the quick references the server publishes (GET /api/systems)', () => {
  const systems = fixture('systems.json').systems;
  const ref = (/** @type {string} */ name) => systems.find((/** @type {any} */ x) => (x.system ?? x.name) === name).reference;
  // Iron Triangle §3: every "▨☰ 4 ×3" of the MOVES section is a line of the card, and no more
  const moves = [...ref('iron-triangle').matchAll(/([○▨◆][☷☵☲☰☯]) (\d+) ×(\d+)/g)].map((m) => ({ move: m[1], base: Number(m[2]), multiplier: Number(m[3]) }));
  assert.deepEqual(moves, it.MOVES);
  // No Dice: the Attribute Dominance lines, as the quick reference writes them
  const text = ref('nodice');
  for (const line of nd.ATTRIBUTE_CARD) assert.ok(text.includes(line), `the quick reference has "${line}"`);
  for (const a of nd.ATTRIBUTES) assert.ok(text.includes(`${a.abbrev} ${a.name}`) || text.includes(`${a.abbrev}  ${a.name}`), `${a.abbrev} is ${a.name}`);
});

test('a picker is known again by its choices, so that a redraw keeps its selection', () => {
  const a = choicesOf(fixture('iron-triangle-welcome.json'), 'commit_stance');
  const again = JSON.parse(JSON.stringify(a));
  assert.equal(pickerKey(a), pickerKey(again));
  assert.notEqual(pickerKey(a), pickerKey(a.slice(1)));
  const b = choicesOf(fixture('nodice-bid.json'), 'commit_action');
  assert.notEqual(pickerKey(a), pickerKey(b));
});

// ---- The GM's rulings: the command each form's fields make ----

test('a ruling\'s reason: required, one line, capped in bytes (Iron Triangle, Inciting Incident) or characters (No Dice)', () => {
  assert.deepEqual(checkReason('  a fall  ', 64), { reason: 'a fall' });
  assert.ok('error' in checkReason('   ', 64));
  assert.ok('error' in checkReason('two\nlines', 64));
  // 32 × "é" is 64 bytes; 33 is 66: the rules' note holds 64 bytes, not 64 characters
  assert.equal(utf8Length('é'.repeat(32)), 64);
  assert.deepEqual(checkReason('é'.repeat(32), 64), { reason: 'é'.repeat(32) });
  assert.match(/** @type {any} */ (checkReason('é'.repeat(33), 64)).error, /66 bytes: at most 64/);
  assert.deepEqual(checkReason('é'.repeat(200), 200, 'characters'), { reason: 'é'.repeat(200) });
  assert.ok('error' in checkReason('é'.repeat(201), 200, 'characters'));
  for (const bad of ['', '1.5', '1e2', 'x', '0x3', '-1']) assert.ok('error' in wholeNumber(bad, 0, 10, 'n'), `"${bad}" is refused`);
  assert.deepEqual(wholeNumber(' 7 ', 0, 10, 'n'), { value: 7 });
  assert.deepEqual(wholeNumber('-3', -5, 5, 'n'), { value: -3 });
});

test('Iron Triangle: "Set energy" makes the rules\' adjust_energy, never above the character\'s maximum', () => {
  const view = fixture('iron-triangle-welcome.json').view;
  const kuro = view.fighters.find((/** @type {any} */ f) => f.name === 'Kuro');
  const r = it.rulingCommand('set_energy', { fighter: String(kuro.id), defend: '2', grapple: '0', attack: '5', reason: 'a fall from the roof' }, view);
  assert.deepEqual(/** @type {any} */ (r).command, {
    adjust_energy: { fighter: kuro.id, energy: { defend: 2, grapple: 0, attack: 5 }, reason: 'a fall from the roof' },
  });
  // every energy within the maximum is accepted as typed; one above it, in any type, is not
  const max = kuro.max_energy;
  for (let d = 0; d <= max.defend + 1; d++) {
    for (let g = 0; g <= max.grapple + 1; g++) {
      for (let a = 0; a <= max.attack + 1; a++) {
        const x = it.rulingCommand('set_energy', { fighter: String(kuro.id), defend: String(d), grapple: String(g), attack: String(a), reason: 'r' }, view);
        const fits = d <= max.defend && g <= max.grapple && a <= max.attack;
        assert.equal('command' in x, fits, `${d}/${g}/${a}`);
        if ('command' in x) assert.deepEqual(x.command.adjust_energy.energy, { defend: d, grapple: g, attack: a });
        else assert.match(x.error, /maximum is \d+/);
      }
    }
  }
  assert.ok('error' in it.rulingCommand('set_energy', { fighter: '9', defend: '1', grapple: '1', attack: '1', reason: 'r' }, view));
  assert.ok('error' in it.rulingCommand('set_energy', { fighter: '', defend: '1', grapple: '1', attack: '1', reason: 'r' }, view));
  assert.ok('error' in it.rulingCommand('set_energy', { fighter: '0', defend: '1', grapple: '1', attack: '1', reason: '' }, view));
  assert.ok('error' in it.rulingCommand('something_else', {}, view));
});

test('No Dice: the Attributes an Actor possesses are read from its serial, hidden stacks offer none', () => {
  const view = fixture('nodice-gm-welcome.json').view;
  const all = nd.ATTRIBUTES.map((a) => a.key);
  for (const a of view.actors) assert.deepEqual(nd.possessed(a), all, a.name);
  assert.deepEqual(nd.possessed({ stacks: [0, 0, 0, 0, 0, 0, 0, 0, 0], serial: 'R1/0(20/0)-M2(2/-/2)-B-(-/-/-)-S3(3/3/@)' }), ['rea', 'qui', 'wil', 'pre', 'int']);
  assert.deepEqual(nd.possessed({ stacks: [0, 0, 0, 0, 3, 0, 0, 0, 0], serial: 'FIT-3' }), ['fit']);
  assert.deepEqual(nd.possessed({ stacks: null, serial: 'FIT-3' }), []);
});

test('No Dice: Adjust, Engage and End the Conflict make the rules\' commands', () => {
  const view = fixture('nodice-gm-welcome.json').view;
  const reason = 'the thug was already winded';
  assert.deepEqual(/** @type {any} */ (nd.rulingCommand('adjust', { what: '1:chips:str', to: '3', reason }, view)).command, {
    adjust: { actor: 1, change: { chips: { attribute: 'str', to: 3 } }, reason },
  });
  assert.deepEqual(/** @type {any} */ (nd.rulingCommand('adjust', { what: '0:wildcards', to: '0', reason }, view)).command, {
    adjust: { actor: 0, change: { wildcards: { to: 0 } }, reason },
  });
  assert.ok('error' in nd.rulingCommand('adjust', { what: '1:chips:str', to: '101', reason }, view), 'at most 100 chips');
  assert.ok('error' in nd.rulingCommand('adjust', { what: '7:chips:str', to: '1', reason }, view), 'no Actor 7');
  assert.ok('error' in nd.rulingCommand('adjust', { what: '1:chips:str', to: '1', reason: ' ' }, view), 'a reason');
  assert.ok('error' in nd.rulingCommand('adjust', { what: '', to: '1', reason }, view));
  const engage = nd.rulingCommand('engage', { clusters: [[1, 0], [], [2]] }, view);
  assert.deepEqual(/** @type {any} */ (engage).command, { engage: { clusters: [[0, 1], [2]] } }, 'empty clusters dropped, ids in order');
  assert.deepEqual(/** @type {any} */ (nd.rulingCommand('engage', { clusters: [[], []] }, view)).command, { engage: { clusters: [] } }, 'everyone engages again');
  assert.match(/** @type {any} */ (nd.rulingCommand('engage', { clusters: [[0, 1], [1, 2]] }, view)).error, /Thug is in two clusters/);
  assert.deepEqual(/** @type {any} */ (nd.rulingCommand('end_conflict', {}, view)).command, 'end_conflict');
});

test('Inciting Incident: what an adjustment may set, and the commands of Adjust, End scene, Spend Rising Tension and Rest Scene', () => {
  const view = fixture('inciting-incident-welcome.json').view;
  const targets = ii.adjustTargets(view).map((t) => t.value);
  assert.deepEqual(targets, [...view.fighters.map((/** @type {any} */ f) => `hits:${f.id}`), 'flow:0', 'crisis'], 'no Strikes in a violent scene');
  const reason = 'the spear hit';
  assert.deepEqual(/** @type {any} */ (ii.rulingCommand('adjust', { what: 'hits:3', to: '1', reason }, view)).command, {
    adjust: { hits: { character: 3, hits: 1 }, reason },
  });
  assert.ok('error' in ii.rulingCommand('adjust', { what: 'hits:3', to: '3', reason }, view), 'above Max Hits');
  assert.deepEqual(/** @type {any} */ (ii.rulingCommand('adjust', { what: 'flow:0', to: '-2', reason }, view)).command, {
    adjust: { flow: { duel: 0, flow: -2 }, reason },
  });
  assert.deepEqual(/** @type {any} */ (ii.rulingCommand('adjust', { what: 'crisis', to: '5', reason }, view)).command, {
    adjust: { crisis: { crisis: 5 }, reason },
  });
  assert.ok('error' in ii.rulingCommand('adjust', { what: 'crisis', to: '-1', reason }, view));
  assert.ok('error' in ii.rulingCommand('adjust', { what: 'strikes:0', to: '2', reason }, view), 'no Strikes to set');
  const talk = { ...view, strikes: [3, 4] };
  assert.deepEqual(ii.adjustTargets(talk).slice(-2).map((t) => t.value), ['strikes:0', 'strikes:1']);
  assert.deepEqual(/** @type {any} */ (ii.rulingCommand('adjust', { what: 'strikes:1', to: '2', reason }, talk)).command, {
    adjust: { strikes: { side: 1, strikes: 2 }, reason },
  });
  assert.ok('error' in ii.rulingCommand('adjust', { what: 'crisis', to: '5', reason: 'x'.repeat(65) }, view), '64 bytes at most');
  assert.deepEqual(/** @type {any} */ (ii.rulingCommand('end_scene', { winner: '' }, view)).command, { end_scene: { winner: null } });
  assert.deepEqual(/** @type {any} */ (ii.rulingCommand('end_scene', { winner: '1' }, view)).command, { end_scene: { winner: 1 } });
  assert.ok('error' in ii.rulingCommand('end_scene', { winner: '2' }, view));
  assert.deepEqual(/** @type {any} */ (ii.rulingCommand('spend_tension', { side: '0', strikes: '2' }, talk)).command, { spend_tension: { side: 0, strikes: 2 } });
  assert.ok('error' in ii.rulingCommand('spend_tension', { side: '0', strikes: '0' }, talk));
  assert.deepEqual(/** @type {any} */ (ii.rulingCommand('rest_scene', { full_day: 'true' }, view)).command, { rest_scene: { full_day: true } });
  assert.deepEqual(/** @type {any} */ (ii.rulingCommand('rest_scene', { full_day: false }, view)).command, { rest_scene: { full_day: false } });
});

/** Every card key of a system the server draws (crates/cards, `GET /cards/manifest.json`, captured). */
const deck = (/** @type {string} */ system) => {
  const s = fixture('cards-manifest.json').systems[system];
  return new Set([...s.cards, s.back]);
};

test('the hand: every choice of the fixtures is a card the renderer draws, named as the card is', async () => {
  const { backKey, PREFIX } = await import('../js/cards.js');
  for (const system of ['iron-triangle', 'nodice', 'inciting-incident']) assert.ok(deck(system).has(backKey(system)), `${system}'s back`);
  assert.equal(Object.keys(PREFIX).length, 3);
  // Iron Triangle: stance types, moves, surrender and specials
  const itDeck = deck('iron-triangle');
  for (const c of choicesOf(fixture('iron-triangle-welcome.json'), 'commit_stance')) {
    const type = it.stanceFields()[0].value(c);
    assert.ok(type && itDeck.has(/** @type {string} */ (it.stanceCardKey(type))), `stance ${type}`);
  }
  for (const m of it.MOVES) assert.ok(itDeck.has(/** @type {string} */ (it.playCardKey(m.move))), `move ${m.move}`);
  assert.equal(it.playCardKey('▨☷'), 'it-move-grapple-earth');
  assert.equal(it.playCardKey('surrender'), 'it-surrender');
  assert.ok(itDeck.has('it-surrender'));
  for (const c of choicesOf(fixture('iron-triangle-specials.json'), 'play_special')) {
    const card = c.command.play_special.card;
    if (card) assert.ok(itDeck.has(/** @type {string} */ (it.specialCardKey(card.special))), `special ${card.special}`);
  }
  assert.equal(it.stanceFields()[0].text?.('grapple'), 'Grapple Stance');
  assert.equal(it.stanceFields()[0].text?.('none'), 'No Stance');
  // No Dice: Aspects, Actions, bids 0 to 5
  const ndDeck = deck('nodice');
  const aspectField = nd.aspectFields(() => '')[0];
  for (const c of choicesOf(fixture('nodice-ante.json'), 'commit_aspect')) {
    const v = /** @type {string} */ (aspectField.value(c));
    assert.ok(ndDeck.has(/** @type {string} */ (aspectField.card?.(v))), `Aspect ${v}`);
  }
  const [attrField, bidField] = nd.actionFields();
  for (const c of choicesOf(fixture('nodice-bid.json'), 'commit_action')) {
    const v = /** @type {string} */ (attrField.value(c));
    assert.ok(ndDeck.has(/** @type {string} */ (attrField.card?.(v))), `Action ${v}`);
    const bid = /** @type {string} */ (bidField.value(c));
    const key = bidField.card?.(bid);
    assert.ok(key === null ? Number(bid) > 5 : ndDeck.has(/** @type {string} */ (key)), `bid ${bid}`);
  }
  assert.equal(attrField.text?.('str'), 'Strength');
  // Inciting Incident: every kind of action
  const iiDeck = deck('inciting-incident');
  for (const k of ii.ACTION_KINDS) assert.ok(iiDeck.has(/** @type {string} */ (ii.actionCardKey(k.key))), `action ${k.key}`);
});

test('the table: the turn\'s cards as the viewer sees them, a character\'s own move names, a seat\'s own face-down choice', () => {
  // Iron Triangle at the move step: the stances known to both (revealed), the moves not played
  const f = fixture('iron-triangle-move.json');
  const t = it.tableCards(f.view);
  assert.ok(t);
  assert.equal(t.round, `turn ${f.view.turn_number}`);
  assert.deepEqual(t.seats.map((s) => s.who), ['Ada', 'Kuro']);
  assert.deepEqual(t.seats[0].cards.map((c) => c.state), ['up', 'empty']);
  assert.deepEqual(t.seats[0].cards[0], { state: 'up', key: 'it-stance-defend', name: '3 ○ Defend Stance' });
  // Ada's move named as her sheet names it; Kuro's sheet is hidden: the book's words
  assert.deepEqual(it.cardOf({ commit_move: { play: '▨☷' } }, f.view), { key: 'it-move-grapple-earth', name: 'Trip ▨☷' });
  assert.deepEqual(it.playCard('◆☲', null), { key: 'it-move-attack-fire', name: 'Attack Fire ◆☲' });
  assert.deepEqual(it.cardOf({ commit_stance: { stance: { type: 'grapple', amount: 0 } } }, f.view), { key: 'it-stance-none', name: 'No Stance' });
  assert.equal(it.cardOf('end_combo', f.view), null);
  // after the turn: both face up, the winner marked
  const r = fixture('iron-triangle-resolved.json');
  const after = it.tableCards(r.view);
  if (r.view.phase.phase === 'aftermath') {
    assert.ok(after && after.seats.every((s) => s.cards.every((c) => c.state === 'up')));
    // the winner as the rules' turn_result names it (none in a view without one)
    assert.equal(after.seats.filter((s) => s.winner).length, typeof r.view.turn_result?.winner === 'number' ? 1 : 0);
  }
  // No Dice: each Actor in, its Aspect and Action cards
  const n = nd.tableCards(fixture('nodice-showdown.json').view);
  assert.ok(n && n.seats.length >= 2 && n.seats.every((s) => s.cards.length === 2));
  assert.deepEqual(nd.cardOf({ commit_aspect: { actor: 0, aspect: 'body', ante: 'str', targets: [1] } }), { key: 'nd-aspect-body', name: 'Body (ante STR)' });
  assert.deepEqual(nd.cardOf({ commit_action: { actor: 0, attribute: 'agi', bid: 3, wildcard: true } }), { key: 'nd-action-agi', name: 'Agility, bid 3 + Wildcard' });
  // Inciting Incident: each character fighting, its declaration
  const i = ii.tableCards(fixture('inciting-incident-welcome.json').view);
  assert.ok(i && i.seats.length > 0 && i.seats.every((s) => s.cards.length === 1));
  assert.deepEqual(ii.cardOf({ declare: { character: 0, action: 'hold' } }), { key: 'ii-action-hold', name: 'Hold' });
  assert.deepEqual(ii.cardOf({ declare: { character: 0, action: { move: { to: 'x' } } } }), { key: 'ii-action-move', name: 'Move' });
});

test('the table laid: a sealed seat\'s committed card face down, this seat\'s own named, a plain seat\'s known card never twice', async () => {
  const { layTable } = await import('../js/cards.js');
  const up = (/** @type {string} */ name) => ({ state: /** @type {const} */ ('up'), key: 'k', name });
  const empty = { state: /** @type {const} */ ('empty'), key: null, name: '' };
  const down = { state: /** @type {const} */ ('down'), key: null, name: '' };
  const turn = (/** @type {any[]} */ ada, /** @type {any[]} */ kuro) => ({
    round: 'turn 1',
    seats: [
      { who: 'Ada', seat: 'ada', winner: false, cards: ada },
      { who: 'Kuro', seat: 'gm', winner: false, cards: kuro },
    ],
  });
  const none = () => false;
  const own = { key: 'it-stance-grapple', name: '2 ▨ Grapple Stance' };
  // a plain seat's stance, known to it, the other's not played: one card face down, named
  let t = layTable(turn([up('2 ▨ Grapple Stance'), empty], [empty, empty]), { me: 'ada', own, committed: none, awaited: (s) => s === 'gm' });
  assert.equal(t.revealed, false);
  assert.deepEqual(t.table.seats.map((/** @type {any} */ s) => s.cards.map((/** @type {any} */ c) => c.state)), [['down'], ['empty']]);
  assert.equal(t.table.seats[0].cards[0].name, '2 ▨ Grapple Stance');
  assert.deepEqual([t.table.seats[0].mine, t.table.seats[1].awaited], [true, true]);
  // a sealed seat: the view knows nothing; its own choice from the page, the other's committed
  t = layTable(turn([empty, empty], [empty, empty]), { me: 'ada', own, committed: (s) => s === 'gm', awaited: none });
  assert.deepEqual(t.table.seats.map((/** @type {any} */ s) => s.cards), [[{ state: 'down', key: null, name: own.name }], [{ state: 'down', key: null, name: '' }]]);
  // nothing played: nothing on the table
  assert.equal(layTable(turn([empty, empty], [empty, empty]), { me: 'ada', own: null, committed: none, awaited: none }).table, null);
  // the stances turned over, Kuro's move face down (another viewer, who knows neither move)
  t = layTable(turn([up('No Stance'), empty], [up('3 ▨ Grapple Stance'), down]), { me: null, own: null, committed: none, awaited: none });
  assert.deepEqual(t.table.seats.map((/** @type {any} */ s) => s.cards.map((/** @type {any} */ c) => c.state)), [['up', 'empty'], ['up', 'down']]);
  // everything face up: the reveal
  t = layTable(turn([up('No Stance'), up('Trip ▨☷')], [up('3 ▨ Grapple Stance'), up('Attack Fire ◆☲')]), { me: 'ada', own: null, committed: none, awaited: none });
  assert.equal(t.revealed, true);
  assert.equal(t.table.seats[0].cards[1].name, 'Trip ▨☷');
});
