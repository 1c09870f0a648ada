// @ts-check
/** @file A sealed seat's choices not yet revealed (docs/protocol.md, Sealed choices): each
 * command with its nonce and commitment, kept in `sessionStorage` under the table, the seat and
 * the round (the log's sequence number when it was committed: a round writes no item before it
 * is bound), so a reload keeps them and nothing else ever sees the nonce before the reveal. */

/**
 * One sealed choice.
 * @typedef {object} Sealed
 * @property {any} command the command, exactly as the prompt's choice gives it
 * @property {string} nonce 64 hex digits
 * @property {string} commitment 64 hex digits
 * @property {string} label the choice's label, to show it to its own seat
 * @property {number} round the sequence number when it was committed
 * @property {string} [revealId] the id of its reveal once sent
 */

import { canonical } from './canonical.js';

const PREFIX = 'facedown/sealed/';

/** The sealed choices of one seat at one table, oldest first. */
export class SealStore {
  /**
   * @param {Pick<Storage, 'getItem' | 'setItem' | 'removeItem' | 'key' | 'length'>} storage
   * @param {string} table
   * @param {number} seat
   */
  constructor(storage, table, seat) {
    this.storage = storage;
    this.base = `${PREFIX}${table}/${seat}/`;
  }

  /** Every key of this seat's rounds. */
  keys() {
    const keys = [];
    for (let i = 0; i < this.storage.length; i++) {
      const k = this.storage.key(i);
      if (k !== null && k.startsWith(this.base)) keys.push(k);
    }
    return keys.sort((a, b) => Number(a.slice(this.base.length)) - Number(b.slice(this.base.length)));
  }

  /** @param {string} key @returns {Sealed[]} */
  read(key) {
    try {
      const v = JSON.parse(this.storage.getItem(key) ?? '[]');
      return Array.isArray(v) ? v : [];
    } catch {
      return [];
    }
  }

  /** Every choice not yet revealed, oldest first. @returns {Sealed[]} */
  all() {
    return this.keys().flatMap((k) => this.read(k));
  }

  /** @param {number} round @param {Sealed[]} list */
  write(round, list) {
    const key = `${this.base}${round}`;
    if (list.length === 0) this.storage.removeItem(key);
    else this.storage.setItem(key, JSON.stringify(list));
  }

  /** Keeps a new choice. @param {Sealed} sealed */
  add(sealed) {
    const list = this.read(`${this.base}${sealed.round}`);
    list.push(sealed);
    this.write(sealed.round, list);
  }

  /** Drops the latest choice (taken back, or its seal refused). Returns it. */
  dropLatest() {
    const keys = this.keys();
    const key = keys[keys.length - 1];
    if (key === undefined) return null;
    const round = Number(key.slice(this.base.length));
    const list = this.read(key);
    const dropped = list.pop() ?? null;
    this.write(round, list);
    return dropped;
  }

  /** Replaces the latest choice (a `seal` sent again replaces the seat's latest commitment).
   * @param {Sealed} sealed */
  replaceLatest(sealed) {
    this.dropLatest();
    this.add(sealed);
  }

  /** Drops the choice with this commitment (revealed). @param {string} commitment */
  drop(commitment) {
    for (const key of this.keys()) {
      const round = Number(key.slice(this.base.length));
      const list = this.read(key);
      const i = list.findIndex((s) => s.commitment === commitment);
      if (i >= 0) {
        list.splice(i, 1);
        this.write(round, list);
        return;
      }
    }
  }

  /** Records the id its reveal was sent with. @param {string} commitment @param {string} id */
  markRevealing(commitment, id) {
    for (const key of this.keys()) {
      const round = Number(key.slice(this.base.length));
      const list = this.read(key);
      const s = list.find((x) => x.commitment === commitment);
      if (s) {
        s.revealId = id;
        this.write(round, list);
        return;
      }
    }
  }
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
