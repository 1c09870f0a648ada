// @ts-check
/** @file A sealed seat's choices not yet revealed (docs/protocol.md, Sealed choices): each
 * command with its nonce and commitment, kept in the browser's `localStorage` so that a reload,
 * a closed tab or a new tab of the same link keeps them (docs/browser.md, "Where a face-down
 * choice is kept"), and nothing else ever sees the nonce before the reveal.
 *
 * - Each choice is its own entry, keyed by the table and its commitment, and never overwritten:
 *   two tabs of one link that seal two choices keep two entries, and the reveal opens the one
 *   whose commitment the server bound (never a nonce another tab wrote over).
 * - Each entry is encrypted under a key derived from the seat's token (the secret of its link):
 *   another seat's link opened in the same browser cannot read it, nor make one this seat reads.
 *   `crypto.subtle` is missing on plain HTTP to a LAN address, so the construction is built on
 *   sha256.js's HMAC-SHA256 alone: keys K = HMAC(token, "facedown/sealed/v1" ‖ table), then
 *   HMAC(K, "enc") and HMAC(K, "mac"); a keystream of HMAC(enc, iv ‖ i) blocks (i a 32-bit
 *   counter) XORed with the entry's JSON; a tag HMAC(mac, key ‖ iv ‖ ciphertext) checked
 *   before anything is decrypted (encrypt-then-MAC).
 * - An entry is deleted once its choice is opened (or refused, or taken back).
 */

/**
 * One sealed choice.
 * @typedef {object} Sealed
 * @property {any} command the command, exactly as the prompt's choice gives it
 * @property {string} nonce 64 hex digits
 * @property {string} commitment 64 hex digits
 * @property {string} label the choice's label, to show it to its own seat
 * @property {number} round the sequence number when it was committed
 * @property {number} [at] when it was kept (ms since the epoch): orders the choices of a round
 * @property {string} [revealId] the id of its reveal once sent
 */

import { canonical } from './canonical.js';
import { concat, fromHex, hmacSha256, toHex } from './sha256.js';

const PREFIX = 'facedown/sealed/v1/';

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder('utf-8', { fatal: true });

/** The storage a page keeps its sealed choices in: `localStorage`, or (where the browser refuses
 * it) `sessionStorage`, or nothing kept past the page.
 * @returns {Pick<Storage, 'getItem' | 'setItem' | 'removeItem' | 'key' | 'length'>} */
export function pageStorage() {
  for (const name of /** @type {const} */ (['localStorage', 'sessionStorage'])) {
    try {
      const s = globalThis[name];
      const probe = `${PREFIX}probe`;
      s.setItem(probe, '1');
      s.removeItem(probe);
      return s;
    } catch {
      /* the next one */
    }
  }
  /** @type {Map<string, string>} */
  const map = new Map();
  return {
    get length() {
      return map.size;
    },
    key: (i) => [...map.keys()][i] ?? null,
    getItem: (k) => map.get(k) ?? null,
    setItem: (k, v) => void map.set(k, String(v)),
    removeItem: (k) => void map.delete(k),
  };
}

/** Whether two byte strings are equal, looking at every byte. @param {Uint8Array} a @param {Uint8Array} b */
function same(a, b) {
  if (a.length !== b.length) return false;
  let d = 0;
  for (let i = 0; i < a.length; i++) d |= a[i] ^ b[i];
  return d === 0;
}

/** The keystream's block `i` for `iv`. @param {Uint8Array} enc @param {Uint8Array} iv @param {number} i */
function block(enc, iv, i) {
  const n = new Uint8Array([i >>> 24, (i >>> 16) & 255, (i >>> 8) & 255, i & 255]);
  return hmacSha256(enc, iv, n);
}

/** `data` XOR the keystream for `iv`. @param {Uint8Array} enc @param {Uint8Array} iv @param {Uint8Array} data */
function xorStream(enc, iv, data) {
  const out = new Uint8Array(data.length);
  for (let i = 0; i * 32 < data.length; i++) {
    const k = block(enc, iv, i);
    for (let j = 0; j < 32 && i * 32 + j < data.length; j++) out[i * 32 + j] = data[i * 32 + j] ^ k[j];
  }
  return out;
}

/** 16 random bytes. */
function randomIv() {
  const b = new Uint8Array(16);
  globalThis.crypto.getRandomValues(b);
  return b;
}

/** The sealed choices of one seat at one table, oldest first. */
export class SealStore {
  /**
   * @param {Pick<Storage, 'getItem' | 'setItem' | 'removeItem' | 'key' | 'length'>} storage
   * @param {string} table
   * @param {string} token the seat's token (32 hex digits, its link's secret): the key
   */
  constructor(storage, table, token) {
    this.storage = storage;
    this.base = `${PREFIX}${table}/`;
    const secret = fromHex(String(token).toLowerCase()) ?? utf8.encode(String(token));
    const k = hmacSha256(secret, utf8.encode('facedown/sealed/v1'), utf8.encode(table));
    this.enc = hmacSha256(k, utf8.encode('enc'));
    this.mac = hmacSha256(k, utf8.encode('mac'));
    /** The ids of reveals sent, by commitment (this page's: a new page sends its own). @type {Map<string, string>} */
    this.revealing = new Map();
  }

  /** The storage key of a commitment. @param {string} commitment */
  keyOf(commitment) {
    return `${this.base}${commitment}`;
  }

  /** Every key of this table (any seat's: only this seat's decrypt). */
  keys() {
    const keys = [];
    for (let i = 0; i < this.storage.length; i++) {
      const k = this.storage.key(i);
      if (k !== null && k.startsWith(this.base)) keys.push(k);
    }
    return keys;
  }

  /** The choice kept under `key`, or null: absent, damaged, or another seat's.
   * @param {string} key @returns {Sealed | null} */
  read(key) {
    try {
      const box = JSON.parse(this.storage.getItem(key) ?? 'null');
      const iv = fromHex(box?.iv);
      const ct = fromHex(box?.ct);
      const tag = fromHex(box?.tag);
      if (!iv || !ct || !tag || iv.length !== 16) return null;
      if (!same(tag, hmacSha256(this.mac, utf8.encode(key), iv, ct))) return null;
      const v = JSON.parse(fromUtf8.decode(xorStream(this.enc, iv, ct)));
      if (!v || typeof v !== 'object' || typeof v.nonce !== 'string' || this.keyOf(v.commitment) !== key) return null;
      const id = this.revealing.get(v.commitment);
      return id === undefined ? v : { ...v, revealId: id };
    } catch {
      return null;
    }
  }

  /** Every choice of this seat not yet revealed, oldest first. @returns {Sealed[]} */
  all() {
    const out = [];
    for (const k of this.keys()) {
      const v = this.read(k);
      if (v) out.push(v);
    }
    return out.sort((a, b) => a.round - b.round || (a.at ?? 0) - (b.at ?? 0));
  }

  /** Keeps a new choice, never over one kept under the same commitment (false then).
   * @param {Sealed} sealed */
  add(sealed) {
    const key = this.keyOf(sealed.commitment);
    if (this.storage.getItem(key) !== null) return false;
    const { revealId: _, ...plain } = sealed;
    const iv = randomIv();
    const ct = xorStream(this.enc, iv, utf8.encode(JSON.stringify({ at: Date.now(), ...plain })));
    const tag = hmacSha256(this.mac, utf8.encode(key), iv, ct);
    this.storage.setItem(key, JSON.stringify({ iv: toHex(iv), ct: toHex(ct), tag: toHex(tag) }));
    return true;
  }

  /** Drops the choice with this commitment (revealed, refused or taken back). @param {string} commitment */
  drop(commitment) {
    const key = this.keyOf(commitment);
    if (this.read(key)) this.storage.removeItem(key);
    this.revealing.delete(commitment);
  }

  /** Drops the latest choice. Returns it. */
  dropLatest() {
    const kept = this.all();
    const last = kept[kept.length - 1] ?? null;
    if (last) this.drop(last.commitment);
    return last;
  }

  /** Drops every choice of this seat at this table (stale: the server holds none, or the game is over). */
  clear() {
    for (const s of this.all()) this.drop(s.commitment);
  }

  /** Records the id its reveal was sent with (by this page). @param {string} commitment @param {string} id */
  markRevealing(commitment, id) {
    this.revealing.set(commitment, id);
  }
}

/**
 * What this seat holds of its own sealed decisions in the open round, as the server sees it: the
 * commitments the server holds for it (bound) that this page cannot open are `lost` (made on
 * another device, or this browser's storage was cleared). Before the binding the server names
 * no commitment, only how many times the seat committed: more than this page keeps is `lost`.
 * @param {Sealed[]} kept this seat's choices not yet revealed
 * @param {{sealed: number[], bound: {seat: number, commitment: string}[] | null, revealing: number[]}} round
 * @param {number} seat
 * @param {Iterable<string>} [revealed] the commitments this page revealed in the round (no longer kept)
 * @returns {{lost: number, bound: boolean}}
 */
export function lostChoices(kept, round, seat, revealed = []) {
  if (round.bound) {
    if (!round.revealing.includes(seat)) return { lost: 0, bound: true };
    const have = new Set([...kept.map((k) => k.commitment), ...revealed]);
    const mine = round.bound.filter((c) => c.seat === seat);
    const lost = mine.filter((c) => !have.has(c.commitment)).length;
    // Lost only when nothing of this seat's is left to reveal: a reveal on its way goes first.
    return { lost: mine.some((c) => have.has(c.commitment)) ? 0 : lost, bound: true };
  }
  const committed = round.sealed.filter((s) => s === seat).length;
  return { lost: Math.max(0, committed - kept.length), bound: false };
}

/**
 * Which kept choices to reveal now, given the bound commitments of the round: a reveal goes only
 * once the page holds a commitment for every awaited seat (docs/protocol.md: "a client reveals
 * only once it holds every commitment"), and only for a choice whose commitment is among them.
 * Returns the choices to reveal, or the reason not to.
 * @param {Sealed[]} kept this seat's choices not yet revealed
 * @param {{seat: number, commitment: string}[]} commitments the bound commitments
 * @param {number} seat this seat
 * @param {number[]} asked the seats the round asked (whose commitments must be there)
 * @returns {{reveal: Sealed[]} | {refuse: string}}
 */
export function toReveal(kept, commitments, seat, asked) {
  const hex = /^[0-9a-f]{64}$/;
  for (const c of commitments) {
    if (!hex.test(String(c?.commitment))) return { refuse: `seat ${c?.seat}'s commitment is not 64 hex digits` };
  }
  const have = new Set(commitments.map((c) => c.seat));
  const missing = asked.filter((s) => !have.has(s));
  if (missing.length > 0) return { refuse: `no commitment for seat ${missing.join(', ')}` };
  const mine = new Set(commitments.filter((c) => c.seat === seat).map((c) => c.commitment));
  return { reveal: kept.filter((k) => mine.has(k.commitment)) };
}

/**
 * The question a sealed seat asked again in one round answers (docs/protocol.md, Sealed
 * choices): the server, which knows only its commitments, asks after stand-ins for them and
 * gives in `branches` the question after each sequence of its own earlier choices. The branch
 * whose sequence is the latest of `kept` (this seat's choices not yet revealed, oldest first);
 * the prompt itself when it has no branches or none matches.
 * @param {any} prompt
 * @param {Sealed[]} kept
 * @returns {any}
 */
export function ownBranch(prompt, kept) {
  if (!prompt || !Array.isArray(prompt.branches)) return prompt;
  /** @param {any} c */
  const key = (c) => {
    try {
      return canonical(c);
    } catch {
      return null;
    }
  };
  const mine = kept.map((k) => key(k.command));
  for (const branch of prompt.branches) {
    for (const seq of branch?.earlier ?? []) {
      if (!Array.isArray(seq) || seq.length === 0 || seq.length > mine.length) continue;
      const tail = mine.slice(mine.length - seq.length);
      if (seq.every((c, i) => key(c) !== null && key(c) === tail[i])) return branch.prompt;
    }
  }
  return prompt;
}
