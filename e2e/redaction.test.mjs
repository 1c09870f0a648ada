// @ts-check
/** @file The redaction check of the games catches a leak: a seat's private item or its
 * nonce reaching another page's frames or DOM before the reveal fails it; the same after the
 * reveal passes. No browser: recorders stood in for by their recorded data.
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { seqOf } from './lib.mjs';
import { GM_SCREEN, checkRedaction, commitmentOf, unopened } from './play.mjs';

const NONCE = '9f'.repeat(32);

/** The public log: a stance committed face down (1), revealed (2), its command opened (3). */
const PUBLIC = [
  { seq: 1, kind: 'event', event: { event: 'stance_committed', fighter: 0 }, text: 'Ada commits a stance face down.' },
  { seq: 2, kind: 'event', event: { event: 'stances_revealed' }, text: 'Stances revealed: Ada 2▨.' },
  { seq: 3, kind: 'opened', seat: 0, command: { commit_stance: { stance: { type: 'grapple', amount: 2 } } }, nonce: NONCE },
];
/** Ada's own view of item 1. */
const ADA_1 = {
  seq: 1,
  kind: 'event',
  event: { event: 'stance_committed', fighter: 0, stance: { type: 'grapple', amount: 2 } },
  text: 'Ada commits 2▨ face down.',
};
const LOGS = { ada: [ADA_1, PUBLIC[1], PUBLIC[2]], gm: PUBLIC };
const SEATS = [
  { seat: 0, name: 'ada' },
  { seat: 1, name: 'gm' },
];

/**
 * A recorder's data: the frames (texts) in order, and DOM snapshots (html, seq).
 * @param {string[]} texts
 * @param {{html: string, seq: number}[]} [snapshots]
 */
function recorded(texts, snapshots = []) {
  let seq = 0;
  const frames = texts.map((text) => {
    const msg = JSON.parse(text);
    const before = seq;
    seq = Math.max(seq, seqOf(msg));
    return { at: 0, before, seq, text, msg };
  });
  return { frames, snapshots: snapshots.map((s) => ({ ...s, after: 'a click' })), you: null };
}

const WELCOME = JSON.stringify({ type: 'welcome', seats: SEATS, updates: [], seq: 0 });
/** @param {any[]} items */
const update = (items) => JSON.stringify({ type: 'update', updates: items, seq: items.at(-1)?.seq ?? 0 });

/**
 * Runs the check with the GM's page having received `gmFrames` and shown `gmDom`.
 * @param {string[]} gmFrames
 * @param {{html: string, seq: number}[]} [gmDom]
 */
function check(gmFrames, gmDom) {
  const ada = recorded([WELCOME, update([ADA_1, PUBLIC[1], PUBLIC[2]])]);
  ada.you = /** @type {any} */ ({ kind: 'seat', seat: 0 });
  const gm = recorded(gmFrames, gmDom);
  gm.you = /** @type {any} */ ({ kind: 'seat', seat: 1 });
  const spectator = recorded([WELCOME, update(PUBLIC)]);
  const created = { seats: { ada: 'l0', gm: 'l1' } };
  return checkRedaction(
    'test',
    created,
    LOGS,
    PUBLIC,
    /** @type {any} */ ([
      { name: 'ada', rec: ada },
      { name: 'gm', rec: gm },
    ]),
    /** @type {any} */ ([{ name: 'spectator', rec: spectator }]),
  );
}

test('what every page may see passes', () => {
  const r = check([WELCOME, update(PUBLIC)], [
    { html: '<p>Ada commits a stance face down.</p>', seq: 1 },
    { html: `<p>${NONCE}</p>`, seq: 3 },
  ]);
  assert.equal(r.privateItems, 1);
  assert.equal(r.opened, 1);
});

test("a seat's private item in another seat's frame fails", () => {
  assert.throws(() => check([WELCOME, update([ADA_1, PUBLIC[1], PUBLIC[2]])]), /private item 1/);
});

test("a seat's private text in another page's DOM fails", () => {
  assert.throws(() => check([WELCOME, update(PUBLIC)], [{ html: '<p>Ada commits 2▨ face down.</p>', seq: 3 }]), /private text/);
});

test('a nonce in a frame before its reveal fails', () => {
  const early = JSON.stringify({ type: 'update', updates: [PUBLIC[0]], seq: 1, view: { note: NONCE } });
  assert.throws(() => check([WELCOME, early, update(PUBLIC.slice(1))]), /nonce opened at 3/);
});

test('a nonce in the DOM before its reveal fails', () => {
  assert.throws(() => check([WELCOME, update(PUBLIC)], [{ html: `<p>${NONCE}</p>`, seq: 2 }]), /nonce before its reveal/);
});

test("the commitment is docs/protocol.md's example, and an unopened one is found", () => {
  const command = { commit_stance: { stance: { type: 'grapple', amount: 2 } } };
  const c = commitmentOf(command, NONCE);
  assert.equal(c, 'e8aa6dc50ba3fadd440e71381ca7b76f2ebd180fd59976a3ad97e512dfad3779');
  const bound = { seq: 1, kind: 'bound', commitments: [{ seat: 0, commitment: c }, { seat: 1, commitment: 'ab'.repeat(32) }] };
  const opened = { seq: 2, kind: 'opened', seat: 0, command, nonce: NONCE };
  assert.deepEqual(unopened([bound, opened]), [{ seq: 1, seat: 1, commitment: 'ab'.repeat(32) }]);
});

test("the GM screen sees the GM seat's private items, and no other seat's", () => {
  // item 1 is the GM seat's stance this time: its own view names it
  const GM_1 = { ...ADA_1, event: { event: 'stance_committed', fighter: 1, stance: { type: 'attack', amount: 1 } }, text: 'Kuro commits 1◆ face down.' };
  const pub = [{ ...PUBLIC[0], event: { event: 'stance_committed', fighter: 1 }, text: 'Kuro commits a stance face down.' }, ...PUBLIC.slice(1)];
  const seats = SEATS.map((s) => ({ ...s, role: s.name === 'gm' ? 'gm' : 'player' }));
  const welcome = JSON.stringify({ type: 'welcome', seats, updates: [], seq: 0 });
  /** @param {string[]} gmScreen @param {string[]} spectatorFrames */
  const run = (gmScreen, spectatorFrames) => {
    const ada = recorded([welcome, update(pub)]);
    ada.you = /** @type {any} */ ({ kind: 'seat', seat: 0 });
    const gm = recorded([welcome, update([GM_1, ...pub.slice(1)])]);
    gm.you = /** @type {any} */ ({ kind: 'seat', seat: 1 });
    return checkRedaction(
      'test',
      { seats: { ada: 'l0', gm: 'l1' } },
      { ada: pub, gm: [GM_1, ...pub.slice(1)] },
      pub,
      /** @type {any} */ ([
        { name: 'ada', rec: ada },
        { name: 'gm', rec: gm },
      ]),
      /** @type {any} */ ([
        { name: 'spectator', rec: recorded(spectatorFrames) },
        { name: GM_SCREEN, rec: recorded(gmScreen, [{ html: '<p>Kuro commits 1◆ face down.</p>', seq: 1 }]) },
      ]),
    );
  };
  const r = run([welcome, update([GM_1, ...pub.slice(1)])], [welcome, update(pub)]);
  assert.equal(r.privateItems, 1);
  // the same item reaching the spectators is a leak
  assert.throws(() => run([welcome, update(pub)], [welcome, update([GM_1, ...pub.slice(1)])]), /private item 1 is in a frame to spectator/);
});
