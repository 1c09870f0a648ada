// @ts-check
/** @file The redaction check of the games catches a leak: a seat's private item or its
 * nonce reaching another page's frames or DOM before the reveal fails it; the same after the
 * reveal passes. No browser: recorders stood in for by their recorded data.
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { seqOf } from './lib.mjs';
import { checkRedaction } from './play.mjs';

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
