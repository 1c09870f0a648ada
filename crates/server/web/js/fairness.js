// @ts-check
/**
 * docs/fairness.md in the browser: a seat's commitment (§3), the seeds (§4), the draws (§5),
 * the hash chain (§6) and a verifier of a whole verifiable log (§7) — a second implementation,
 * independent of the Rust one (`session::fairlog::verify`, `facedown verify`), that names the
 * first line at fault as that one does.
 *
 * Every function that hashes takes an optional {@link Provider}: `crypto.subtle` where the page
 * has it (HTTPS or localhost), this project's pure JavaScript SHA-256 otherwise
 * ({@link preferred}); the tests run both.
 *
 * @module fairness
 */

import { canonical, canonicalBytes, CanonicalError } from './canonical.js';
import { concat, fromHex, preferred, toHex } from './sha256.js';

/** @typedef {import('./sha256.js').Provider} Provider */

/** The draw layout's name and version (docs/fairness.md §5.3), the first 16 bytes of every message. */
export const LAYOUT = 'facedown/draw/v1';

/** The hash before the first entry of a log: 32 zero bytes, in hex (§6). */
export const GENESIS = '0'.repeat(64);

const utf8 = new TextEncoder();
const TWO_64 = 1n << 64n;
const U32_MAX = 2 ** 32 - 1;

/** Why a value of docs/fairness.md is refused or fails to check, naming the value. */
export class FairnessError extends Error {
  /**
   * @param {string} what which value (`nonce`, `commitment`, `server seed`, `draw`, …)
   * @param {string} why what is wrong with it
   */
  constructor(what, why) {
    super(`${what}: ${why}`);
    this.name = 'FairnessError';
    /** Which value. */
    this.what = what;
    /** What is wrong with it. */
    this.why = why;
  }
}

/**
 * The 32 bytes of a value written `hex(…)` (§1): exactly 64 characters from `0-9a-f`.
 * @param {string} what which value, for the error
 * @param {unknown} text
 * @returns {Uint8Array}
 */
export function bytes32(what, text) {
  const bytes = typeof text === 'string' && text.length === 64 ? fromHex(text) : null;
  if (!bytes) {
    const excerpt = typeof text === 'string' ? JSON.stringify([...text].slice(0, 70).join('')) : typeof text;
    throw new FairnessError(what, `expected 64 lowercase hexadecimal characters, got ${excerpt}`);
  }
  return bytes;
}

/**
 * A fresh nonce (§3): 32 bytes from `crypto.getRandomValues`, as 64 hexadecimal digits.
 * @returns {string}
 */
export function randomNonce() {
  const random = globalThis.crypto?.getRandomValues;
  if (!random) throw new FairnessError('nonce', 'this page has no crypto.getRandomValues');
  return toHex(globalThis.crypto.getRandomValues(new Uint8Array(32)));
}

/**
 * A seat's commitment to `command` with the nonce `nonceHex` (§3): hex(SHA-256(canonical(command)
 * ‖ the nonce's 32 bytes)) — what the page sends in `seal`. Throws a {@link CanonicalError} for
 * a command without a canonical form, a {@link FairnessError} for a malformed nonce.
 * @param {unknown} command
 * @param {string} nonceHex
 * @param {Provider} [provider]
 * @returns {Promise<string>}
 */
export async function commitment(command, nonceHex, provider = preferred()) {
  const nonce = bytes32('nonce', nonceHex);
  return toHex(await provider.sha256(canonicalBytes(command), nonce));
}

/**
 * Whether a reveal — `command` and `nonceHex` — opens `commitmentHex` (§3). A command without a
 * canonical form, or a malformed nonce or commitment, does not.
 * @param {unknown} command
 * @param {string} nonceHex
 * @param {string} commitmentHex
 * @param {Provider} [provider]
 * @returns {Promise<boolean>}
 */
export async function opens(command, nonceHex, commitmentHex, provider = preferred()) {
  try {
    bytes32('commitment', commitmentHex);
    return (await commitment(command, nonceHex, provider)) === commitmentHex;
  } catch (e) {
    if (e instanceof CanonicalError || e instanceof FairnessError) return false;
    throw e;
  }
}

/**
 * The commitment to a server seed (§4): hex(SHA-256(its 32 bytes)).
 * @param {string} seedHex
 * @param {Provider} [provider]
 * @returns {Promise<string>}
 */
export async function serverSeedCommitment(seedHex, provider = preferred()) {
  return toHex(await provider.sha256(bytes32('server seed', seedHex)));
}

/**
 * The client seed of a phrase a person typed (§4): hex(SHA-256(utf8(phrase))).
 * @param {string} phrase
 * @param {Provider} [provider]
 * @returns {Promise<string>}
 */
export async function clientSeedFromPhrase(phrase, provider = preferred()) {
  return toHex(await provider.sha256(utf8.encode(phrase)));
}

/**
 * Everything a draw is made from (§5.1): the server seed, and per seat in seat order its
 * client seed in effect and its nonce of the latest mixed round (`null` where none).
 * @typedef {object} DrawInputs
 * @property {string} serverSeed hex
 * @property {(string | null)[]} clientSeeds hex or null, one per seat
 * @property {(string | null)[]} roundNonces hex or null, one per seat
 */

/**
 * The message of §5.3 up to the counter: the layout, the number of seats, the client seeds and
 * the round nonces.
 * @param {DrawInputs} inputs
 * @returns {Uint8Array}
 */
function messagePrefix(inputs) {
  const seats = inputs.clientSeeds.length;
  if (inputs.roundNonces.length !== seats || seats > 65535) {
    throw new FairnessError(
      'draw inputs',
      `${seats} client seeds and ${inputs.roundNonces.length} round nonces (one of each per seat, at most 65535 seats)`,
    );
  }
  /** @type {Uint8Array[]} */
  const parts = [utf8.encode(LAYOUT), Uint8Array.of(seats >> 8, seats & 255)];
  for (const [what, list] of /** @type {const} */ ([
    ['client seed', inputs.clientSeeds],
    ['nonce', inputs.roundNonces],
  ])) {
    for (const x of list) parts.push(x === null ? Uint8Array.of(0) : concat(Uint8Array.of(1), bytes32(what, x)));
  }
  return concat(...parts);
}

/**
 * `message(c, retry)` of §5.3.
 * @param {DrawInputs} inputs
 * @param {bigint} counter from 0 to 2^64 − 1
 * @param {number} retry from 0 to 2^32 − 1
 * @returns {Uint8Array}
 */
export function drawMessage(inputs, counter, retry) {
  return concat(messagePrefix(inputs), counterBytes(counter, retry));
}

/**
 * `u64(counter) ‖ u32(retry)`.
 * @param {bigint} counter
 * @param {number} retry
 * @returns {Uint8Array}
 */
function counterBytes(counter, retry) {
  if (counter < 0n || counter >= TWO_64) throw new FairnessError('draw', `counter ${counter} is not a 64-bit number`);
  const out = new Uint8Array(12);
  const view = new DataView(out.buffer);
  view.setBigUint64(0, counter);
  view.setUint32(8, retry);
  return out;
}

/**
 * The draw with `counter` over `n` outcomes (§5.3–5.4): the outcome from 0 to n − 1 and how
 * many tries were rejected before it.
 * @param {DrawInputs} inputs
 * @param {bigint} counter
 * @param {bigint} n from 1 to 2^64
 * @param {Provider} [provider]
 * @returns {Promise<{value: bigint, retries: number}>}
 */
export async function deriveDraw(inputs, counter, n, provider = preferred()) {
  if (n < 1n || n > TWO_64) throw new FairnessError('draw', `range size ${n}: a draw has from 1 to 2^64 outcomes`);
  const key = bytes32('server seed', inputs.serverSeed);
  const prefix = messagePrefix(inputs);
  const limit = (TWO_64 / n) * n;
  for (let retry = 0; ; retry++) {
    const h = await provider.hmacSha256(key, prefix, counterBytes(counter, retry));
    const x = new DataView(h.buffer, h.byteOffset, 8).getBigUint64(0);
    // The try with the last retry counter is taken as it is (§5.4).
    if (x < limit || retry === U32_MAX) return { value: x % n, retries: retry };
  }
}

/**
 * A draw as the log records it (§7): the 64-bit quantities as decimal strings.
 * @typedef {object} DrawRecord
 * @property {string} counter
 * @property {string} n
 * @property {string} value
 * @property {number} retries
 * @property {number} mixes
 */

/**
 * Checks one logged draw against the inputs in effect when it was made (§5): once the server
 * seed is revealed, the page re-derives each die it showed "verifiable at scene end".
 * @param {DrawInputs} inputs
 * @param {DrawRecord} record
 * @param {Provider} [provider]
 * @returns {Promise<{ok: boolean, value: string, retries: number, what: string | null}>} what
 *   the inputs give, and when they differ from the record, how
 */
export async function checkDraw(inputs, record, provider = preferred()) {
  const r = readDrawRecord(record);
  const d = await deriveDraw(inputs, r.counter, r.n, provider);
  const ok = d.value === r.value && d.retries === r.retries;
  return {
    ok,
    value: String(d.value),
    retries: d.retries,
    what: ok
      ? null
      : `draw ${r.counter}: recorded ${r.value} of ${r.n} after ${r.retries} retries, but the seeds and nonces give ${d.value} after ${d.retries} retries`,
  };
}

/**
 * An unsigned integer written as a decimal string in its one spelling (§1), at most `max`.
 * @param {string} what
 * @param {unknown} text
 * @param {bigint} max
 * @returns {bigint}
 */
function decimal(what, text, max) {
  if (typeof text !== 'string' || !/^(0|[1-9][0-9]*)$/.test(text) || BigInt(text) > max) {
    throw new FairnessError(what, `expected an unsigned integer as a decimal string, got ${JSON.stringify(text)}`);
  }
  return BigInt(text);
}

/**
 * A draw record's fields, read as the Rust verifier reads them.
 * @param {unknown} record
 * @returns {{counter: bigint, n: bigint, value: bigint, retries: number, mixes: number}}
 */
function readDrawRecord(record) {
  if (record === null || typeof record !== 'object' || Array.isArray(record)) {
    throw new FairnessError('draw', 'not an object');
  }
  const r = /** @type {Record<string, unknown>} */ (record);
  for (const k of ['counter', 'n', 'value', 'retries', 'mixes']) {
    if (!(k in r)) throw new FairnessError('draw', `missing field \`${k}\``);
  }
  const whole = (/** @type {string} */ k, /** @type {number} */ max) => {
    const x = r[k];
    if (typeof x !== 'number' || !Number.isSafeInteger(x) || x < 0 || x > max) {
      throw new FairnessError('draw', `\`${k}\` is not a whole number up to ${max}`);
    }
    return x;
  };
  return {
    counter: decimal('draw counter', r.counter, TWO_64 - 1n),
    n: decimal('draw n', r.n, (1n << 128n) - 1n),
    value: decimal('draw value', r.value, TWO_64 - 1n),
    retries: whole('retries', U32_MAX),
    mixes: whole('mixes', Number.MAX_SAFE_INTEGER),
  };
}

/**
 * One link of the hash chain (§6): hex(SHA-256(previous hash's 32 bytes ‖ canonical(entry))).
 * @param {string} previousHex
 * @param {unknown} entry
 * @param {Provider} [provider]
 * @returns {Promise<string>}
 */
export async function chainLink(previousHex, entry, provider = preferred()) {
  return toHex(await provider.sha256(bytes32('chain hash', previousHex), canonicalBytes(entry)));
}

/**
 * The state of the draws (§5.1–5.2) as the log items tell it, and each draw with the inputs it
 * was made from, so that a page can show dice as they fall and check them all once the
 * server seed is revealed. Feed it every log item in order ({@link DrawLedger#take}).
 */
export class DrawLedger {
  /**
   * @param {number} seats how many seats the table has
   * @param {string | null} serverSeedCommitment the table's, from its `welcome` (null: draws are not verifiable)
   */
  constructor(seats, serverSeedCommitment) {
    /** How many seats. */
    this.seats = seats;
    /** The commitment the revealed seed must match. */
    this.serverSeedCommitment = serverSeedCommitment;
    /** @type {(string | null)[]} each seat's client seed in effect */
    this.clientSeeds = Array(seats).fill(null);
    /** @type {(string | null)[]} each seat's client seed given, in effect from the next mix */
    this.givenClientSeeds = Array(seats).fill(null);
    /** @type {(string | null)[]} the nonces of the latest mixed round */
    this.roundNonces = Array(seats).fill(null);
    /** How many rounds were mixed in. */
    this.mixes = 0;
    /** @type {string | null} the last revealed server seed, once a `server_seed` item came */
    this.revealed = null;
    /** @type {string | null} the commitment of the seed in use: the table's, then each rotation's `next` */
    this.inForce = serverSeedCommitment;
    /** Which seed the draws use now: 0 for the table's, one more after each rotation. */
    this.stretch = 0;
    /** @type {{revealed: string, commitment: string | null}[]} each stretch's seed once revealed, with the commitment it must match */
    this.seeds = [];
    /**
     * Every draw seen, with the client seeds and nonces in effect when it was made and the
     * stretch (the seed) it was keyed by.
     * @type {{seq: number | null, record: DrawRecord, clientSeeds: (string | null)[], roundNonces: (string | null)[], stretch: number, status: 'pending' | 'ok' | 'bad', what: string | null}[]}
     */
    this.draws = [];
  }

  /**
   * Takes one log item (as a frame's `updates` carry it): records client seeds, mixes and
   * draws; a `server_seed` item keeps the revealed seed (check with {@link DrawLedger#check}).
   * @param {any} item
   */
  take(item) {
    if (!item || typeof item !== 'object') return;
    switch (item.kind) {
      case 'client_seed':
        if (Number.isInteger(item.seat) && item.seat < this.seats) this.givenClientSeeds[item.seat] = item.seed;
        break;
      case 'mix':
        this.roundNonces = [...item.round_nonces];
        this.clientSeeds = this.clientSeeds.map((s, i) => this.givenClientSeeds[i] ?? s);
        this.mixes += 1;
        break;
      case 'draw':
        this.draws.push({
          seq: typeof item.seq === 'number' ? item.seq : null,
          record: item.draw,
          clientSeeds: [...this.clientSeeds],
          roundNonces: [...this.roundNonces],
          stretch: this.stretch,
          status: 'pending',
          what: null,
        });
        break;
      case 'server_seed':
        // The seed in use is revealed; with a rotation's `next` the draws go on with another.
        this.revealed = item.revealed;
        this.seeds[this.stretch] = { revealed: item.revealed, commitment: this.inForce };
        if (typeof item.next === 'string') {
          this.inForce = item.next;
          this.stretch += 1;
        }
        break;
      default:
    }
  }

  /**
   * Once a seed is revealed: checks it against the commitment in force when it was revealed,
   * then re-derives every draw still pending that it keyed, marking each `ok` or `bad` (with
   * why). Draws keyed by a seed not revealed yet stay pending.
   * @param {Provider} [provider]
   * @returns {Promise<{seed: 'unrevealed' | 'ok' | 'bad', checked: number, bad: number}>}
   */
  async check(provider = preferred()) {
    if (this.seeds.length === 0) return { seed: 'unrevealed', checked: 0, bad: 0 };
    /** Whether each revealed seed matches the commitment in force when it was revealed. @type {boolean[]} */
    const seedOk = [];
    for (const [i, s] of this.seeds.entries()) {
      seedOk[i] = false;
      if (!s || s.commitment === null) continue;
      try {
        seedOk[i] = (await serverSeedCommitment(s.revealed, provider)) === s.commitment;
      } catch (e) {
        if (!(e instanceof FairnessError)) throw e;
      }
    }
    let checked = 0;
    let bad = 0;
    for (const d of this.draws) {
      const s = this.seeds[d.stretch];
      if (d.status !== 'pending' || !s) continue;
      if (!seedOk[d.stretch]) {
        d.status = 'bad';
        d.what = 'the revealed server seed does not match its published commitment';
      } else {
        try {
          const r = await checkDraw(
            { serverSeed: s.revealed, clientSeeds: d.clientSeeds, roundNonces: d.roundNonces },
            d.record,
            provider,
          );
          d.status = r.ok ? 'ok' : 'bad';
          d.what = r.what;
        } catch (e) {
          if (!(e instanceof FairnessError)) throw e;
          d.status = 'bad';
          d.what = e.message;
        }
      }
      checked += 1;
      if (d.status === 'bad') bad += 1;
    }
    return { seed: seedOk.every(Boolean) ? 'ok' : 'bad', checked, bad };
  }
}

/**
 * The `next` commitment of a `server_seed` entry (a rotation, §4), or null when it has none.
 * @param {any} e
 * @param {number} n the entry's line
 * @returns {string | null}
 */
function nextCommitment(e, n) {
  const next = e.next;
  if (next === undefined || next === null) return null;
  if (typeof next !== 'string') throw new Bad(n, '`next` is not a string');
  at(n, () => bytes32('commitment', next));
  return next;
}

/**
 * What {@link verifyLog} found.
 * @typedef {object} LogReport
 * @property {boolean} ok whether the whole log verified
 * @property {number} entries how many entries (lines) were read
 * @property {number} draws how many draws were checked (re-derived when the seed is revealed)
 * @property {number} commitments how many commitments were checked against their reveals
 * @property {{line: number, what: string} | null} mismatch the first line at fault (counting from 1) and why
 * @property {string} head the chain's head (the last hash), once every line chained
 * @property {string[]} hashes every line's hash, to check a head a frame showed after k entries
 * @property {number} beforeFirstMix draws made before the first mix (the host could foresee them, §8)
 * @property {boolean} seedRevealed whether the server seed of every draw was revealed (the table's, and after a rotation the next), so every draw was re-derived
 * @property {number} clientSeeds how many client seeds were given
 * @property {number} mixes how many sealed rounds were mixed in
 * @property {boolean} setupRevealed whether the setup was revealed and checked against its commitment
 */

/** A failure at one line of the log. */
class Bad extends Error {
  /**
   * @param {number} line
   * @param {string} what
   */
  constructor(line, what) {
    super(`entry ${line}: ${what}`);
    this.line = line;
    this.what = what;
  }
}

/**
 * A member of an object entry, or a {@link Bad} naming it.
 * @param {any} entry
 * @param {string} key
 * @param {number} line
 * @returns {any}
 */
function field(entry, key, line) {
  if (entry === null || typeof entry !== 'object' || Array.isArray(entry) || !Object.prototype.hasOwnProperty.call(entry, key)) {
    throw new Bad(line, `no \`${key}\``);
  }
  return entry[key];
}

/**
 * @param {any} entry
 * @param {string} key
 * @param {number} line
 * @returns {string}
 */
function text(entry, key, line) {
  const v = field(entry, key, line);
  if (typeof v !== 'string') throw new Bad(line, `\`${key}\` is not a string`);
  return v;
}

/**
 * @param {any} entry
 * @param {string} key
 * @param {number} line
 * @returns {number}
 */
function whole(entry, key, line) {
  const v = field(entry, key, line);
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) {
    throw new Bad(line, `\`${key}\` is not a whole number`);
  }
  return v;
}

/**
 * Turns a {@link FairnessError} or {@link CanonicalError} into a {@link Bad} at `line`.
 * @param {number} line
 * @param {unknown} e
 * @returns {never}
 */
function rethrowAt(line, e) {
  if (e instanceof FairnessError || e instanceof CanonicalError) throw new Bad(line, e.message);
  throw e;
}

/**
 * Runs `f`, naming `line` if it fails with a {@link FairnessError} or {@link CanonicalError}.
 * @template T
 * @param {number} line
 * @param {() => T} f
 * @returns {T}
 */
function at(line, f) {
  try {
    return f();
  } catch (e) {
    return rethrowAt(line, e);
  }
}

/**
 * {@link at} for an asynchronous `f`.
 * @template T
 * @param {number} line
 * @param {() => Promise<T>} f
 * @returns {Promise<T>}
 */
async function atAsync(line, f) {
  try {
    return await f();
  } catch (e) {
    return rethrowAt(line, e);
  }
}

/**
 * The lines of a log as Rust's `str::lines` gives them: split at `\n`, a trailing `\r`
 * dropped, no empty line after a final `\n`. Bytes are decoded as UTF-8, a line that is not
 * UTF-8 is a {@link Bad}.
 * @param {string | Uint8Array} log
 * @returns {string[]}
 */
function lines(log) {
  /** @type {string[]} */
  let out;
  if (typeof log === 'string') {
    out = log.split('\n');
  } else {
    const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
    out = [];
    let from = 0;
    for (let i = 0; i <= log.length; i++) {
      if (i === log.length || log[i] === 0x0a) {
        try {
          out.push(decoder.decode(log.subarray(from, i)));
        } catch {
          throw new Bad(out.length + 1, 'not UTF-8');
        }
        from = i + 1;
      }
    }
  }
  if (out.length > 0 && out[out.length - 1] === '') out.pop();
  return out.map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
}

/**
 * Verifies a whole verifiable log (docs/fairness.md §7.1: JSON Lines of canonical
 * `{"entry":…,"hash":"…"}`), independently of the server: every line canonical and chained to
 * the one before (§6); the table entry first; the revealed server seed against the table's
 * commitment (§4); every reveal against one of its seat's unused commitments of the round (§3);
 * every mix's nonces against the round's commitments and reveals; the client seeds and mixes
 * replayed into the state of the draws (§5.1–5.2), and every draw's counter, number of mixes
 * and — once the seed is revealed — outcome and retries re-derived (§5.3–5.4). Names the first
 * line at fault, as `facedown verify` does.
 * @param {string | Uint8Array} log the log's text (or its bytes)
 * @param {{provider?: Provider}} [options] how to hash (default: {@link preferred})
 * @returns {Promise<LogReport>}
 */
export async function verifyLog(log, options = {}) {
  const provider = options.provider ?? preferred();
  /** @type {LogReport} */
  const report = {
    ok: false,
    entries: 0,
    draws: 0,
    commitments: 0,
    mismatch: null,
    head: GENESIS,
    hashes: [],
    beforeFirstMix: 0,
    seedRevealed: false,
    clientSeeds: 0,
    mixes: 0,
    setupRevealed: false,
  };
  try {
    await verifyInto(log, provider, report);
    report.ok = true;
  } catch (e) {
    if (!(e instanceof Bad)) throw e;
    report.mismatch = { line: e.line, what: e.what };
  }
  return report;
}

/**
 * A sealed round being checked: its commitments in the order of its `bound` list (seat, hash,
 * and once opened the nonce, the line that opened it and whether that came after the game's
 * end), each seat's nonce in its mix (null until mixed), the seats that faulted, the line of
 * its mix (0: none yet), and whether a `server_seed` line came after the mix.
 * @typedef {{slots: {seat: number, hash: string, opened: {nonce: string, line: number, afterEnd: boolean} | null}[], mixed: (string | null)[] | null, faulted: number[], mixLine: number, ended: boolean}} Round
 */

/**
 * The round's mix against its reveals (docs/fairness.md §5.2, §7.1), once the round is over:
 * each seat's nonce is its last valid one in the order of the `bound` list (the last it opened,
 * or for a seat that faulted an `illegal` reveal's, mixed and not opened), and a seat whose
 * choice was opened in the round before the game's end has its nonce mixed.
 * @param {Round} round
 */
function closeRound(round) {
  if (round.mixed === null) return;
  round.mixed.forEach((nonce, seat) => {
    const opened = round.slots.filter((c) => c.seat === seat && c.opened !== null).map((c) => /** @type {{nonce: string, line: number, afterEnd: boolean}} */ (c.opened));
    const faulted = round.faulted.includes(seat);
    if (nonce !== null) {
      const last = opened.length > 0 ? opened[opened.length - 1].nonce : null;
      const any = opened.some((o) => o.nonce === nonce);
      if (last === nonce || (faulted && !any)) return;
      throw new Bad(
        round.mixLine,
        any
          ? `mix: seat ${seat}'s nonce ${nonce} is not its last valid one of the round (the last it opened, in the order of the \`bound\` list)`
          : `mix: seat ${seat}'s nonce ${nonce} is not one the seat revealed in the round`,
      );
    }
    const early = opened.find((o) => !o.afterEnd);
    if (early) {
      throw new Bad(
        round.mixLine,
        `mix: seat ${seat}'s nonce is null, yet its choice of the round is opened at entry ${early.line}, before the game's end: only a choice the rules still hold face down after its round is left out of the mix (docs/fairness.md §3)`,
      );
    }
  });
}

/**
 * The checks of {@link verifyLog}, filling `report`; throws a {@link Bad} at the first fault.
 * @param {string | Uint8Array} log
 * @param {Provider} provider
 * @param {LogReport} report
 */
async function verifyInto(log, provider, report) {
  // 1. The chain (§6): each line canonical, exactly `entry` and `hash`, the hash the chain's.
  const all = lines(log);
  /** @type {any[]} */
  const entries = [];
  let previous = GENESIS;
  for (let i = 0; i < all.length; i++) {
    const n = i + 1;
    const line = all[i];
    if (line === '' && all.slice(i).every((l) => l === '')) break;
    let value;
    try {
      value = JSON.parse(line);
    } catch (e) {
      throw new Bad(n, `not JSON: ${e instanceof Error ? e.message : String(e)}`);
    }
    if (at(n, () => canonical(value)) !== line) throw new Bad(n, 'not written in canonical JSON (docs/fairness.md §2)');
    if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new Bad(n, 'not an object');
    if (Object.keys(value).length !== 2) throw new Bad(n, 'a line holds exactly `entry` and `hash`');
    const entry = field(value, 'entry', n);
    const recorded = text(value, 'hash', n);
    at(n, () => bytes32('chain hash', recorded));
    const derived = await atAsync(n, () => chainLink(previous, entry, provider));
    if (derived !== recorded) throw new Bad(n, `recorded hash ${recorded}, but the chain gives ${derived}`);
    previous = derived;
    report.hashes.push(derived);
    entries.push(entry);
    report.entries = entries.length;
  }
  report.head = previous;
  // 2. The table entry.
  if (entries.length === 0) throw new Bad(1, 'the log is empty');
  const first = entries[0];
  if (first === null || typeof first !== 'object' || first.kind !== 'table') {
    throw new Bad(1, 'the first entry is not the table entry');
  }
  if (text(first, 'layout', 1) !== LAYOUT) throw new Bad(1, `the draw layout is not ${LAYOUT}`);
  const seatList = field(first, 'seats', 1);
  if (!Array.isArray(seatList)) throw new Bad(1, '`seats` is not a list');
  const seats = seatList.length;
  if (seats > 65535) throw new Bad(1, 'more than 65535 seats');
  const committed = field(first, 'server_seed_commitment', 1);
  /** @type {string | null} */
  let tableCommitment = null;
  if (committed !== null) {
    if (typeof committed !== 'string') throw new Bad(1, '`server_seed_commitment` is not a string');
    at(1, () => bytes32('commitment', committed));
    tableCommitment = committed;
  }
  // The setup's commitment (§7.1): the setup itself is revealed at the end (a `setup` entry).
  const setupCommitted = Object.prototype.hasOwnProperty.call(first, 'setup_commitment') ? first.setup_commitment : null;
  if (setupCommitted !== null) {
    if (typeof setupCommitted !== 'string') throw new Bad(1, '`setup_commitment` is not a string');
    at(1, () => bytes32('commitment', setupCommitted));
  }
  let setupSeen = false;
  // 3. The revealed server seeds (§4), each against the commitment in force when it is
  // revealed: the table's, then each rotation's `next`. Each keys the draws of its stretch.
  /** @type {string[]} */
  const seeds = [];
  // A fault found here is thrown when step 4 reaches its line, so that the first line at fault
  // is named (a draw after a `server_seed` that lost its `next` comes before the next one).
  /** @type {Bad | null} */
  let seedFault = null;
  /** @type {string | null} */
  let inForce = tableCommitment;
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i];
    const n = i + 1;
    if (e === null || typeof e !== 'object' || e.kind !== 'server_seed') continue;
    try {
      if (inForce === null) {
        throw new Bad(n, tableCommitment === null ? 'a server seed at a table that committed none' : 'a server seed after the last one was revealed with no next seed committed');
      }
      if (text(e, 'commitment', n) !== inForce) throw new Bad(n, "the commitment named is not the one in force (the table's, or the last rotation's next)");
      const revealed = text(e, 'revealed', n);
      const committedTo = inForce;
      const derived = await atAsync(n, () => serverSeedCommitment(revealed, provider));
      if (derived !== committedTo) throw new Bad(n, 'the revealed server seed does not match its published commitment');
      const next = nextCommitment(e, n);
      seeds.push(revealed);
      inForce = next;
    } catch (err) {
      if (!(err instanceof Bad)) throw err;
      seedFault = err;
      break;
    }
  }
  /** The seed of the stretch being replayed, null when it is not revealed. @type {string | null} */
  let seed = seeds[0] ?? null;
  let stretch = 0;
  /** How many `server_seed` lines (ends) were read so far. */
  let ends = 0;
  report.seedRevealed = seed !== null;
  // 4. The entries in order: rounds, client seeds, mixes and draws replayed (§5.1–5.2).
  /** @type {(string | null)[]} */
  let clientSeeds = Array(seats).fill(null);
  /** @type {(string | null)[]} */
  const given = Array(seats).fill(null);
  /** @type {(string | null)[]} */
  let roundNonces = Array(seats).fill(null);
  /** @type {Round | null} */
  let round = null;
  /** Commitments of earlier rounds left face down, opened later. @type {{seat: number, hash: string}[]} */
  const carried = [];
  let seedSeen = false;
  // The line of a `bound` whose `mix` has not come yet, at a table with verifiable draws: the
  // session mixes every sealed round right after its `bound`, with only client seeds between.
  let unmixed = 0;
  for (let i = 1; i < entries.length; i++) {
    const e = entries[i];
    const n = i + 1;
    const seq = whole(e, 'seq', n);
    if (seq !== i) throw new Bad(n, `seq ${seq} where ${i} comes next`);
    const kind = text(e, 'kind', n);
    if (unmixed !== 0 && kind !== 'client_seed' && kind !== 'mix') {
      throw new Bad(n, `the sealed round bound at entry ${unmixed} is not mixed: its \`mix\` comes right after its \`bound\`, before anything but client seeds (docs/fairness.md §5.2)`);
    }
    const seatOf = (/** @type {any} */ x) => {
      const s = whole(x, 'seat', n);
      if (s >= seats) throw new Bad(n, `seat ${s}: the table has ${seats} seats`);
      return s;
    };
    switch (kind) {
      case 'client_seed': {
        const seat = seatOf(e);
        const s = text(e, 'seed', n);
        at(n, () => bytes32('client seed', s));
        given[seat] = s;
        report.clientSeeds += 1;
        break;
      }
      case 'bound': {
        if (round) {
          closeRound(round);
          // Commitments left unopened: choices the rules still held face down when it ended,
          // opened later (docs/fairness.md §3). Per decision: a seat asked twice may have its
          // public decision mixed and opened, its face-down one left for later; closeRound
          // checks that a mixed nonce was opened in its round.
          for (const c of round.slots) {
            if (c.opened === null) carried.push({ seat: c.seat, hash: c.hash });
          }
        }
        const list = field(e, 'commitments', n);
        if (!Array.isArray(list)) throw new Bad(n, '`commitments` is not a list');
        /** @type {Round} */
        const r = { slots: [], mixed: null, faulted: [], mixLine: 0, ended: false };
        for (const c of list) {
          const seat = seatOf(c);
          const hash = text(c, 'commitment', n);
          at(n, () => bytes32('commitment', hash));
          r.slots.push({ seat, hash, opened: null });
        }
        round = r;
        if (tableCommitment !== null) unmixed = n;
        break;
      }
      case 'opened': {
        const seat = seatOf(e);
        const nonce = text(e, 'nonce', n);
        at(n, () => bytes32('nonce', nonce));
        const command = field(e, 'command', n);
        if (!round) throw new Bad(n, 'a reveal outside a sealed round');
        let slot = null;
        for (const c of round.slots) {
          if (c.seat === seat && c.opened === null && (await opens(command, nonce, c.hash, provider))) {
            slot = c;
            break;
          }
        }
        if (slot) {
          slot.opened = { nonce, line: n, afterEnd: round.ended };
        } else {
          let at = -1;
          for (let i = 0; i < carried.length && at < 0; i++) {
            if (carried[i].seat === seat && (await opens(command, nonce, carried[i].hash, provider))) at = i;
          }
          if (at < 0) {
            throw new Bad(n, `seat ${seat}'s reveal matches none of its commitments in the round or left face down before it`);
          }
          carried.splice(at, 1);
        }
        report.commitments += 1;
        break;
      }
      case 'fault': {
        const seat = seatOf(e);
        // One of the faults the protocol names (docs/fairness.md §3): a missed reveal with no
        // reason or the seat's lost secret, a wrong nonce, an illegal choice with the rules' reason.
        const known =
          e.fault === 'wrong_nonce' ||
          (e.fault === 'illegal' && typeof e.reason === 'string') ||
          (e.fault === 'no_reveal' && (e.reason === undefined || e.reason === 'secret_lost'));
        if (!known) throw new Bad(n, `seat ${seat}'s fault is none the protocol names: ${JSON.stringify({ fault: e.fault, reason: e.reason })}`);
        if (round) round.faulted.push(seat);
        break;
      }
      case 'mix': {
        const list = field(e, 'round_nonces', n);
        if (!Array.isArray(list)) throw new Bad(n, '`round_nonces` is not a list');
        if (list.length !== seats) throw new Bad(n, `${list.length} round nonces for ${seats} seats`);
        if (!round) throw new Bad(n, 'a mix without a bound sealed round');
        const r = /** @type {Round} */ (round);
        if (r.mixLine !== 0) throw new Bad(n, 'a second mix of one sealed round');
        r.mixLine = n;
        unmixed = 0;
        /** @type {(string | null)[]} */
        const nonces = [];
        list.forEach((x, s) => {
          if (x === null) {
            nonces.push(null);
            return;
          }
          if (typeof x !== 'string') throw new Bad(n, 'a round nonce is not a string');
          at(n, () => bytes32('nonce', x));
          if (!r.slots.some((c) => c.seat === s)) {
            throw new Bad(n, `a nonce for seat ${s}, which committed nothing in the round`);
          }
          nonces.push(x);
        });
        r.mixed = nonces;
        roundNonces = nonces;
        clientSeeds = clientSeeds.map((c, s) => given[s] ?? c);
        report.mixes += 1;
        break;
      }
      case 'draw': {
        if (seedSeen) throw new Bad(n, 'a draw after the server seed was revealed with no next seed committed');
        const record = field(e, 'draw', n);
        const d = at(n, () => readDrawRecord(record));
        if (d.counter !== BigInt(report.draws)) throw new Bad(n, `draw counter ${d.counter} where ${report.draws} comes next`);
        if (d.mixes !== report.mixes) throw new Bad(n, `draw after ${d.mixes} mixes, but ${report.mixes} are logged`);
        if (seed !== null) {
          const inputs = { serverSeed: seed, clientSeeds, roundNonces };
          const checked = await atAsync(n, () => checkDraw(inputs, record, provider));
          if (!checked.ok) throw new Bad(n, /** @type {string} */ (checked.what));
        } else {
          // Keyed by a seed not revealed (yet): counted, not checked.
          report.seedRevealed = false;
        }
        if (d.mixes === 0) report.beforeFirstMix += 1;
        report.draws += 1;
        break;
      }
      case 'server_seed':
        if (seedFault !== null && seedFault.line === n) throw seedFault;
        ends += 1;
        if (round !== null && round.mixed !== null) round.ended = true;
        // A rotation goes on with the next seed (checked if revealed later); none ends the draws.
        if (nextCommitment(e, n) === null) seedSeen = true;
        else {
          stretch += 1;
          seed = seeds[stretch] ?? null;
        }
        break;
      case 'setup': {
        if (setupCommitted === null) throw new Bad(n, 'a setup revealed at a table that committed none');
        if (setupSeen) throw new Bad(n, 'a second reveal of the setup');
        const setup = text(e, 'setup', n);
        const nonce = text(e, 'nonce', n);
        at(n, () => bytes32('nonce', nonce));
        if (!(await opens(setup, nonce, setupCommitted, provider))) {
          throw new Bad(n, "the revealed setup does not match the table's setup commitment");
        }
        setupSeen = true;
        report.setupRevealed = true;
        break;
      }
      case 'record': {
        // The game's commands, revealed at an end for `facedown verify --replay` (§7.3): this
        // page has no rules engine, so the rules' replay is that command's, not this one's.
        if (ends === 0) throw new Bad(n, "a record revealed before the game's end (a server seed's reveal)");
        const list = field(e, 'entries', n);
        if (!Array.isArray(list)) throw new Bad(n, '`entries` is not a list');
        // The face-down choices taken back, when any (§7.3): replayed by that command too.
        if (e.taken_back !== undefined && !Array.isArray(e.taken_back)) {
          throw new Bad(n, '`taken_back` is not a list');
        }
        break;
      }
      case 'event':
      case 'took_back':
      case 'forced':
      case 'undone':
        break;
      default:
        throw new Bad(n, `an entry of unknown kind ${JSON.stringify(kind)}`);
    }
  }
  if (round) closeRound(round);
}
