// The table page's generic modules checked under Node (no browser): the connection's
// reconnection and retry rule against a fake WebSocket, the sealed choices kept in a storage and
// when they may be revealed, and the log's words.
//
//   node --test crates/server/web/test/pages.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { Connection, backoff, wsUrl, Ids } from '../js/conn.js';
import { SealStore, lostChoices, ownBranch, toReveal } from '../js/sealing.js';
import { itemText, faultText, andList, RollDraws, rollDrawsText } from '../js/log.js';
import { readFileSync } from 'node:fs';

/** A WebSocket stand-in: records what is sent; the test opens, answers and closes it. */
class FakeSocket {
  /** @type {FakeSocket[]} */
  static all = [];
  constructor(url) {
    this.url = url;
    this.readyState = 0;
    this.sent = [];
    FakeSocket.all.push(this);
  }
  send(text) {
    this.sent.push(JSON.parse(text));
  }
  close() {
    this.readyState = 3;
    this.onclose?.();
  }
  open() {
    this.readyState = 1;
    this.onopen?.();
  }
  receive(m) {
    this.onmessage?.({ data: JSON.stringify(m) });
  }
}

function connection(since = () => 0) {
  FakeSocket.all = [];
  const timers = [];
  const messages = [];
  const statuses = [];
  const c = new Connection({
    url: 'ws://x/ws',
    table: '7',
    token: 'ab'.repeat(16),
    since,
    onMessage: (m) => messages.push(m),
    onStatus: (s, why) => statuses.push([s, why]),
    WebSocketImpl: /** @type {any} */ (FakeSocket),
    setTimer: (f, ms) => timers.push({ f, ms }),
  });
  return { c, timers, messages, statuses };
}

test('the pause between reconnections doubles from 250 ms up to 5 s', () => {
  assert.deepEqual([1, 2, 3, 4, 5, 6, 7, 60].map(backoff), [250, 500, 1000, 2000, 4000, 5000, 5000, 5000]);
});

test('the WebSocket address follows the page: ws over http, wss over https', () => {
  assert.equal(wsUrl({ protocol: 'http:', host: '192.168.1.5:8080' }), 'ws://192.168.1.5:8080/ws');
  assert.equal(wsUrl({ protocol: 'https:', host: 'table.example' }), 'wss://table.example/ws');
});

test('client ids are a random prefix and a counter, never the same across pages', () => {
  const a = new Ids();
  const b = new Ids();
  assert.notEqual(a.prefix, b.prefix);
  assert.match(a.prefix, /^p[0-9a-f]{16}$/);
  assert.equal(a.next(), `${a.prefix}-1`);
  assert.equal(a.next(), `${a.prefix}-2`);
  assert.ok(a.next().length <= 64, 'the protocol takes ids of at most 64 bytes');
  a.atLeast(40);
  assert.equal(a.next(), `${a.prefix}-41`, 'a welcome\'s last_id: the next id is above it');
  a.atLeast(7);
  assert.equal(a.next(), `${a.prefix}-42`, 'never back');
});

test('a welcome moves the ids above the last one the server applied for the link', () => {
  const { c } = connection();
  c.start();
  const ws = FakeSocket.all[0];
  ws.open();
  ws.receive({ type: 'welcome', seq: 0, last_id: 80 });
  const id = c.request({ type: 'take_back' });
  assert.equal(id, `${c.ids.prefix}-81`);
  clearInterval(c.pinger);
});

test('hello carries the table, the token and the last sequence number seen', () => {
  let seen = 0;
  const { c } = connection(() => seen);
  c.start();
  FakeSocket.all[0].open();
  assert.deepEqual(FakeSocket.all[0].sent[0], { type: 'hello', v: 3, table: '7', token: 'ab'.repeat(16), since: 0 });
  seen = 12;
  FakeSocket.all[0].close();
  assert.equal(c.status, 'reconnecting');
});

test('a request not answered is sent again with the same id after a reconnection; an answered one is not', () => {
  const { c, timers, statuses } = connection();
  c.start();
  let ws = FakeSocket.all[0];
  ws.open();
  ws.receive({ type: 'welcome', seq: 0 });
  const first = c.request({ type: 'command', command: { a: 1 } });
  const second = c.request({ type: 'take_back' });
  assert.deepEqual(ws.sent.slice(1).map((m) => m.id), [first, second]);
  ws.receive({ type: 'ack', id: first, seq: 3 });
  ws.close();
  assert.deepEqual(statuses.at(-1)[0], 'reconnecting');
  assert.equal(timers.length, 1);
  assert.ok(timers[0].ms >= 250 && timers[0].ms < 400);
  timers[0].f();
  ws = FakeSocket.all[1];
  ws.open();
  assert.equal(ws.sent.length, 1, 'nothing but the hello before the welcome');
  ws.receive({ type: 'welcome', seq: 3 });
  assert.deepEqual(ws.sent.slice(1), [{ type: 'take_back', id: second }]);
  assert.equal(statuses.at(-1)[0], 'open');
  clearInterval(c.pinger);
});

test('a refusal answers a request too: it is not sent again', () => {
  const { c, timers } = connection();
  c.start();
  let ws = FakeSocket.all[0];
  ws.open();
  ws.receive({ type: 'welcome', seq: 0 });
  const id = c.request({ type: 'command', command: 1 });
  ws.receive({ type: 'error', id, code: 'refused', message: 'no' });
  ws.close();
  timers[0].f();
  ws = FakeSocket.all[1];
  ws.open();
  ws.receive({ type: 'welcome', seq: 0 });
  assert.equal(ws.sent.length, 1);
  clearInterval(c.pinger);
});

test('a link taken over, revoked or refused stops the page: no reconnection', () => {
  for (const m of [{ type: 'taken_over' }, { type: 'revoked' }, { type: 'error', code: 'unauthorized', message: 'no table 7' }]) {
    const { c, timers, statuses } = connection();
    c.start();
    const ws = FakeSocket.all[0];
    ws.open();
    if (m.type !== 'error') ws.receive({ type: 'welcome', seq: 0 });
    ws.receive(m);
    assert.equal(c.status, 'stopped', JSON.stringify(m));
    assert.equal(statuses.at(-1)[0], 'stopped');
    assert.equal(timers.length, 0, 'no reconnection is planned');
    clearInterval(c.pinger);
  }
});

test('the pause grows with failures and starts again after a welcome', () => {
  const { c, timers } = connection();
  c.start();
  FakeSocket.all[0].close();
  timers[0].f();
  FakeSocket.all[1].close();
  timers[1].f();
  assert.ok(timers[1].ms >= 500 && timers[1].ms < 600);
  const ws = FakeSocket.all[2];
  ws.open();
  ws.receive({ type: 'welcome', seq: 0 });
  ws.close();
  assert.ok(timers[2].ms < 400, 'a connection that was welcomed starts the count again');
  clearInterval(c.pinger);
});

/** A Storage stand-in. */
class MemoryStorage {
  constructor() {
    this.map = new Map();
  }
  get length() {
    return this.map.size;
  }
  key(i) {
    return [...this.map.keys()][i] ?? null;
  }
  getItem(k) {
    return this.map.has(k) ? this.map.get(k) : null;
  }
  setItem(k, v) {
    this.map.set(k, String(v));
  }
  removeItem(k) {
    this.map.delete(k);
  }
}

const hex = (c) => c.repeat(64);

const TOKEN_A = '0123456789abcdef0123456789abcdef';
const TOKEN_B = 'fedcba9876543210fedcba9876543210';

test('sealed choices are kept per table and seat, oldest first, and survive a new store (a reload, a closed tab)', () => {
  const storage = new MemoryStorage();
  const a = new SealStore(storage, '7', TOKEN_A);
  a.add({ command: { x: 1 }, nonce: hex('1'), commitment: hex('a'), label: 'one', round: 10 });
  a.add({ command: { x: 2 }, nonce: hex('2'), commitment: hex('b'), label: 'two', round: 9 });
  new SealStore(storage, '7', TOKEN_B).add({ command: 0, nonce: hex('3'), commitment: hex('c'), label: 'other seat', round: 9 });
  new SealStore(storage, '8', TOKEN_A).add({ command: 0, nonce: hex('4'), commitment: hex('d'), label: 'other table', round: 9 });
  const reloaded = new SealStore(storage, '7', TOKEN_A);
  assert.deepEqual(reloaded.all().map((s) => s.label), ['two', 'one']);
  assert.deepEqual(reloaded.all()[0].command, { x: 2 });
  assert.equal(reloaded.all()[0].nonce, hex('2'));
  assert.ok([...storage.map.keys()].includes(`facedown/sealed/v1/7/${hex('a')}`), 'keyed by the table and the commitment');
  reloaded.markRevealing(hex('b'), 'r1');
  assert.equal(reloaded.all()[0].revealId, 'r1');
  reloaded.drop(hex('b'));
  assert.deepEqual(reloaded.all().map((s) => s.label), ['one']);
  assert.equal(reloaded.dropLatest()?.label, 'one');
  assert.equal(reloaded.dropLatest(), null);
  assert.equal(new SealStore(storage, '7', TOKEN_B).all().length, 1, 'the other seat\u2019s choice stays');
  assert.equal(new SealStore(storage, '8', TOKEN_A).all().length, 1, 'the other table\u2019s choice stays');
});

test('a sealed choice is encrypted under its seat\u2019s token: another seat\u2019s link cannot read it', () => {
  const storage = new MemoryStorage();
  const nonce = '9f'.repeat(32);
  new SealStore(storage, '7', TOKEN_A).add({ command: { commit_stance: { stance: 'grapple' } }, nonce, commitment: hex('a'), label: 'Grapple 2', round: 3 });
  const raw = storage.getItem(`facedown/sealed/v1/7/${hex('a')}`) ?? '';
  assert.ok(!raw.includes(nonce) && !raw.includes('grapple') && !raw.includes('Grapple'), `nothing readable in storage: ${raw}`);
  const other = new SealStore(storage, '7', TOKEN_B);
  assert.deepEqual(other.all(), [], 'the wrong token reads nothing');
  other.drop(hex('a'));
  other.clear();
  assert.equal(new SealStore(storage, '7', TOKEN_A).all().length, 1, 'nor can it delete what it cannot read');
  // A changed byte, or an entry moved under another commitment, fails its tag.
  const box = JSON.parse(raw);
  const flipped = (box.ct.startsWith('0') ? '1' : '0') + box.ct.slice(1);
  storage.setItem(`facedown/sealed/v1/7/${hex('a')}`, JSON.stringify({ ...box, ct: flipped }));
  assert.deepEqual(new SealStore(storage, '7', TOKEN_A).all(), [], 'a tampered entry reads as nothing');
  storage.setItem(`facedown/sealed/v1/7/${hex('e')}`, raw);
  assert.deepEqual(new SealStore(storage, '7', TOKEN_A).all(), [], 'an entry moved to another commitment reads as nothing');
});

test('two tabs of one seat never overwrite each other\u2019s choice: the reveal opens the one the server bound', () => {
  const storage = new MemoryStorage();
  const tab1 = new SealStore(storage, '7', TOKEN_A);
  const tab2 = new SealStore(storage, '7', TOKEN_A);
  assert.equal(tab1.add({ command: { x: 1 }, nonce: hex('1'), commitment: hex('a'), label: 'tab 1', round: 5 }), true);
  assert.equal(tab2.add({ command: { x: 1 }, nonce: hex('2'), commitment: hex('a'), label: 'tab 2 (same key)', round: 5 }), false, 'a kept commitment is never overwritten');
  assert.equal(tab2.add({ command: { x: 2 }, nonce: hex('3'), commitment: hex('b'), label: 'tab 2', round: 5 }), true);
  assert.equal(tab1.all().find((s) => s.commitment === hex('a'))?.nonce, hex('1'));
  // The server holds tab 2's seal (it replaced tab 1's): that one is revealed, with its own nonce.
  const decision = toReveal(tab1.all(), [{ seat: 0, commitment: hex('b') }, { seat: 1, commitment: hex('c') }], 0, [0, 1]);
  assert.ok('reveal' in decision);
  assert.deepEqual(decision.reveal.map((s) => [s.label, s.nonce]), [['tab 2', hex('3')]]);
});

test('a lost sealed choice: more commitments at the server than this browser keeps, or a bound one it cannot open', () => {
  const kept = [{ command: 1, nonce: hex('1'), commitment: hex('a'), label: 'mine', round: 2 }];
  assert.deepEqual(lostChoices(kept, { sealed: [0, 1], bound: null, revealing: [] }, 0), { lost: 0, bound: false });
  assert.deepEqual(lostChoices([], { sealed: [0, 1], bound: null, revealing: [] }, 0), { lost: 1, bound: false });
  assert.deepEqual(lostChoices(kept, { sealed: [0, 0, 1], bound: null, revealing: [] }, 0), { lost: 1, bound: false });
  const bound = [{ seat: 0, commitment: hex('a') }, { seat: 1, commitment: hex('c') }];
  assert.deepEqual(lostChoices(kept, { sealed: [0, 1], bound, revealing: [0, 1] }, 0), { lost: 0, bound: true });
  assert.deepEqual(lostChoices([], { sealed: [0, 1], bound, revealing: [0, 1] }, 0), { lost: 1, bound: true });
  assert.deepEqual(lostChoices([], { sealed: [0, 1], bound, revealing: [0, 1] }, 0, [hex('a')]), { lost: 0, bound: true }, 'a reveal on its way is not lost');
  assert.deepEqual(lostChoices([], { sealed: [0, 1], bound, revealing: [1] }, 0), { lost: 0, bound: true }, 'revealed already');
});

test('a seat reveals only once the bound commitments hold one for every seat asked, and only its own', () => {
  const kept = [{ command: 1, nonce: hex('1'), commitment: hex('a'), label: 'mine', round: 2 }];
  const bound = [
    { seat: 1, commitment: hex('c') },
    { seat: 0, commitment: hex('a') },
  ];
  assert.deepEqual(toReveal(kept, bound, 0, [0, 1]), { reveal: kept });
  const missing = toReveal(kept, [{ seat: 0, commitment: hex('a') }], 0, [0, 1]);
  assert.ok('refuse' in missing && missing.refuse.includes('seat 1'));
  const bad = toReveal(kept, [{ seat: 0, commitment: hex('a') }, { seat: 1, commitment: 'zz' }], 0, [0, 1]);
  assert.ok('refuse' in bad && bad.refuse.includes('64 hex'));
  assert.deepEqual(toReveal(kept, [{ seat: 0, commitment: hex('e') }, { seat: 1, commitment: hex('c') }], 0, [0, 1]), { reveal: [] }, 'a commitment not this page\u2019s is not revealed');
});

test('a sealed seat asked again answers the branch after its own latest choices', () => {
  const a = { declare: { character: 2, action: 'hold' } };
  const b = { declare: { character: 3, action: 'hold' } };
  const afterA = { question: 'for 3', choices: [{ command: b }] };
  const afterB = { question: 'for 2', choices: [{ command: a }] };
  const prompt = { question: 'for 3', choices: [{ command: b }], branches: [{ earlier: [[a]], prompt: afterA }, { earlier: [[b]], prompt: afterB }] };
  const kept = (command) => ({ command, nonce: hex('1'), commitment: hex('a'), label: '', round: 1 });
  assert.equal(ownBranch(prompt, [kept(b)]), afterB);
  // Keys in another order are the same command (canonical JSON); an older choice left face down
  // by an earlier round comes first and is not part of the sequence.
  assert.equal(ownBranch(prompt, [kept({ x: 1 }), kept({ declare: { action: 'hold', character: 2 } })]), afterA);
  assert.equal(ownBranch(prompt, []), prompt, 'no earlier choice: the prompt itself');
  assert.equal(ownBranch({ question: 'q', choices: [] }, [kept(a)]).question, 'q');
});

test('every kind of log item reads as words', () => {
  const name = (s) => ['Ada', 'Kuro'][s] ?? '?';
  assert.equal(itemText({ seq: 1, kind: 'event', event: {}, text: 'Ada wins.' }, name), 'Ada wins.');
  assert.equal(itemText({ kind: 'took_back', seat: 1 }, name), 'Kuro takes back a face-down choice.');
  assert.match(itemText({ kind: 'forced', seat: 0 }, name), /^Ada's decision is forced/);
  assert.equal(itemText({ kind: 'undone', by: 1, seat: 0 }, name), "Kuro undoes Ada's last command.");
  assert.match(itemText({ kind: 'bound', commitments: [{}, {}] }, name), /2 commitments/);
  assert.match(itemText({ kind: 'fault', seat: 0, fault: 'illegal', reason: 'no stance above the energy left (§5.2 step 2)' }, name), /Ada faulted \(the rules refuse its choice: no stance above the energy left\)/);
  assert.match(itemText({ kind: 'draw', draw: { counter: '3', n: '6', value: '2' } }, name), /#3: 2 of 0–5/);
  for (const kind of ['opened', 'client_seed', 'mix', 'server_seed']) assert.notEqual(itemText({ kind, seat: 0 }, name), '');
  assert.equal(itemText({ kind: 'something_new' }, name), '', 'an unknown kind is left out, not an error');
  assert.equal(faultText({ fault: 'no_reveal' }), 'no reveal in time');
  assert.equal(faultText({ fault: 'no_reveal', reason: 'secret_lost' }), 'its secret was lost: its face-down choice could not be revealed');
  assert.equal(andList(['Ada', 'Bao', 'Kuro']), 'Ada, Bao and Kuro');
  assert.equal(andList(['Ada']), 'Ada');
});

import { turnResult, ending } from '../js/outcome.js';

test("the turn's result beside the prompt is the rules crate's words: headline and the losses in their parts", () => {
  const view = {
    turn_result: {
      turn: 2,
      headline: 'Turn 2: A wins with Grapple ▨☰ against Defend ○☷, continuing the combo (▨ Grapple beats ○ Defend).',
      losses: [{ fighter: 1, words: "B loses 13: winner's stance 6 + own stance 1 + base 4 + combo 1 + disadvantage 1 = 13." }],
    },
  };
  const r = turnResult(view);
  assert.equal(r?.key, 'turn 2');
  assert.match(r?.headline ?? '', /▨ Grapple beats ○ Defend/);
  assert.deepEqual(r?.lines, [view.turn_result.losses[0].words]);
  const hand = turnResult({ hand_result: { hand: 1, headline: 'Hand 1: Kara sweeps Bandit.', pairs: [{ words: 'Kara against Bandit: …' }] } });
  assert.deepEqual(hand, { key: 'hand 1', headline: 'Hand 1: Kara sweeps Bandit.', lines: ['Kara against Bandit: …'] });
  assert.equal(turnResult({ turn_result: null, hand_result: null }), null);
  assert.equal(turnResult(null), null);
});

test('the ending says who won in the viewer\u2019s words, with the summary', () => {
  const e = ending({ who_won: { headline: "You lost: Kuro's side wins.", you_won: false, summary: ['3 turns.', 'Ada lost 12 energy.'] } });
  assert.deepEqual(e, { headline: "You lost: Kuro's side wins.", youWon: false, summary: ['3 turns.', 'Ada lost 12 energy.'] });
  assert.equal(ending({ who_won: { headline: 'The scene ends at the round limit, after 12 rounds: nobody wins.', summary: [] } })?.youWon, null);
  assert.equal(ending({}), null);
});

import { accessibleName } from '../js/systems/picker.js';

test("a picker button's accessible name begins with its visible text (label in name)", () => {
  assert.equal(accessibleName('STR Strength', 'ante from Strength'), 'STR Strength, ante from Strength');
  assert.equal(accessibleName('Surrender', 'Surrender (face down)'), 'Surrender (face down)');
  assert.equal(accessibleName('  4 ', ''), '4');
  assert.equal(accessibleName('', 'No stance'), 'No stance');
});

import { groupTitle, isMine, drawText } from '../js/log.js';

test('the log groups by turn, Hand and round, from the rules\u2019 own narration', () => {
  assert.equal(groupTitle({ kind: 'event', event: { event: 'turn_began', active: 0 }, text: '\nTurn 12: Ada takes the turn.' }), 'Turn 12');
  assert.equal(groupTitle({ kind: 'event', event: { event: 'hand_ended' }, text: 'Bids return to the stacks.\n\n=== Hand 1000 — Stakes 1 — Under the Gun: Kara ===' }), 'Hand 1000');
  assert.equal(groupTitle({ kind: 'event', event: { event: 'round_started' }, text: '\n== Round 3 == initiative: players' }), 'Round 3');
  assert.equal(groupTitle({ kind: 'event', event: { event: 'moves_revealed' }, text: 'Moves revealed: …' }), null);
  assert.equal(groupTitle({ kind: 'draw', draw: {} }), null);
  assert.equal(drawText({ draw: { counter: '1234', n: '8', value: '7' } }), '#1234: 7 of 0–7');
});

test('the log\u2019s "mine" filter keeps a seat\u2019s own items and those naming its characters', () => {
  assert.ok(isMine({ kind: 'took_back', seat: 0 }, 0, []));
  assert.ok(isMine({ kind: 'event', text: 'Ada commits a stance face down.' }, 0, ['Ada']));
  assert.ok(!isMine({ kind: 'event', text: 'Kuro commits a stance face down.' }, 0, ['Ada']));
  assert.ok(!isMine({ kind: 'took_back', seat: 1 }, null, []));
});

import { parseReference, headingText } from '../js/reference.js';
import fs from 'node:fs';

test('the quick reference as structure: headings, lines, the legend as rows, no section citations', () => {
  const catalogue = JSON.parse(fs.readFileSync(new URL('./fixtures/systems.json', import.meta.url), 'utf8'));
  for (const sys of catalogue.systems) {
    const r = parseReference(sys.reference);
    assert.ok(r.sections.length >= 4, `${sys.system}: its sections`);
    assert.doesNotMatch(JSON.stringify(r), /§/, `${sys.system}: no § a player cannot look up`);
    const legend = r.sections.find((s) => s.legend);
    assert.ok(legend && legend.legend.length >= 3, `${sys.system}: the legend's rows`);
    for (const s of r.sections) assert.doesNotMatch(s.heading, /^[A-Z ]{4,}$/, `${sys.system}: "${s.heading}" is not shouted`);
  }
  const it = parseReference(catalogue.systems[0].reference);
  assert.deepEqual(it.sections.find((s) => s.legend)?.legend?.[0], ['○', 'Defend: an action, and the energy type of that name']);
  assert.equal(it.sections[0].heading, 'One turn');
  assert.ok(it.sections[0].lines.some((l) => l.startsWith('Specials are played face down in timing windows: before opponent, before stance, before move, before resolving;')));
  assert.equal(headingText('ACTIONS (§2): each beats one, a 3-cycle'), 'Actions: each beats one, a 3-cycle');
});

import { withoutSections } from '../js/reference.js';

test('an engine refusal is shown without its citations of the rules reference', () => {
  assert.equal(withoutSections('Ada cannot play ◆☷: it is face up in her disadvantage chain (§5.2 step 3)'), 'Ada cannot play ◆☷: it is face up in her disadvantage chain');
  assert.equal(withoutSections('gm cannot do that now: a stance from Ada (§5.2 step 2)'), 'gm cannot do that now: a stance from Ada');
  assert.equal(withoutSections('spread 4 (a roll each, §9)'), 'spread 4 (a roll each)');
  assert.equal(withoutSections('the spread must add up to 10 (§5.3): got 11'), 'the spread must add up to 10: got 11');
});

test("log: a roll's verifiable draws go on the roll's own line, not a line a draw (issue 34)", () => {
  // docs/fairness/logs/: a finished Inciting Incident scene's log, as a seat downloads it.
  const url = new URL('../../../../docs/fairness/logs/inciting-incident.jsonl', import.meta.url);
  const items = readFileSync(url, 'utf8').trim().split('\n').map((l) => JSON.parse(l).entry).slice(1);
  const rolls = new RollDraws();
  let draws = 0;
  let owned = 0;
  /** @type {string[][]} */
  const lines = [];
  for (const item of items) {
    if (item.kind === 'draw') {
      draws += 1;
      const r = rolls.owner(item);
      if (r) owned += 1;
      continue;
    }
    const line = [];
    lines.push(line);
    rolls.add(item, line);
  }
  assert.ok(draws > 0, 'the scene drew dice');
  assert.equal(owned, draws, 'every draw of this scene is a die of a roll');
  // Each roll names exactly its dice's draws, in order.
  for (const r of rolls.rolls) {
    assert.equal(r.counters.length, r.to - r.from);
    assert.equal(rollDrawsText(r.counters), r.counters.length > 1 ? `drawn verifiably: #${r.from}\u2013#${r.to - 1}` : `drawn verifiably: #${r.from}`);
  }
  assert.equal(rollDrawsText([7, 4, 5, 6]), 'drawn verifiably: #4\u2013#7');
  assert.equal(rollDrawsText([1, 3]), 'drawn verifiably: #1, #3');
  assert.equal(rolls.owner({ kind: 'draw', draw: { counter: '999' } }), null, 'a draw of no roll keeps its own line');
});
