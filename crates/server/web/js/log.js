// @ts-check
/** @file The table's log in readable text: each item of a viewer's log (docs/protocol.md,
 * Changes and sequence numbers) as a line, for every kind of item, in the words `facedown join`
 * prints them. Items are never dropped, only blanked, so every viewer's log counts alike. */

import { withoutSections } from './reference.js';

/**
 * The text of one log item; `name` gives a seat's name by number.
 * @param {any} item
 * @param {(seat: number) => string} name
 * @returns {string}
 */
export function itemText(item, name) {
  const seat = (/** @type {string} */ key) => (typeof item?.[key] === 'number' ? name(item[key]) : '?');
  switch (item?.kind) {
    case 'event':
      return typeof item.text === 'string' ? item.text : '';
    case 'took_back':
      return `${seat('seat')} takes back a face-down choice.`;
    case 'forced':
      return `${seat('seat')}'s decision is forced: the rules' default is taken.`;
    case 'undone':
      return `${seat('by')} undoes ${seat('seat')}'s last command.`;
    case 'bound': {
      const n = Array.isArray(item.commitments) ? item.commitments.length : 0;
      return `Every choice is sealed (${n} commitment${n === 1 ? '' : 's'}): now they are revealed.`;
    }
    case 'fault':
      return `${seat('seat')} faulted (${faultText(item)}).`;
    case 'opened':
      return `${seat('seat')}'s commitment opened.`;
    case 'client_seed':
      return `${seat('seat')} gives a client seed for the draws.`;
    case 'mix':
      return 'The round\u2019s nonces are mixed into the draws.';
    case 'draw':
      return `Drawn (verifiable): ${drawText(item)}.`;
    case 'server_seed':
      return 'The game is over: the server seed is revealed, every draw can be checked.';
    case 'setup':
      return 'The setup is revealed, every sheet included: it can be checked against its commitment.';
    case 'record':
      return 'The game\u2019s commands are revealed, so that the command facedown verify --replay can replay the rules from them.';
    default:
      return '';
  }
}

/**
 * A fault item's fault in words (`wrong_nonce`, `illegal` with the rules' `reason`, `no_reveal` with
 * the reason `secret_lost` or none).
 * @param {any} item
 */
export function faultText(item) {
  const fault = item?.fault;
  if (fault === 'wrong_nonce') return 'its reveal did not open its commitment';
  if (fault === 'no_reveal' && item?.reason === 'secret_lost') return 'its secret was lost: its face-down choice could not be revealed';
  if (fault === 'no_reveal') return 'no reveal in time';
  // the rules' reason without its citations of the rules reference (a file players do not have)
  if (fault === 'illegal') return `the rules refuse its choice: ${withoutSections(String(item?.reason ?? '')) || 'no reason given'}`;
  if (fault && typeof fault === 'object') return faultText({ ...fault, fault: fault.fault });
  return String(fault ?? '?');
}

/**
 * Whether an item is the verifiable-draw machinery (shown small, not narration).
 * @param {any} item
 */
export function isMachinery(item) {
  return ['bound', 'opened', 'client_seed', 'mix', 'draw', 'server_seed', 'setup', 'record'].includes(item?.kind);
}

/**
 * The seats a page's notice names: "Ada and Kuro", "Ada, Bao and Kuro".
 * @param {string[]} names
 */
export function andList(names) {
  if (names.length <= 1) return names.join('');
  return `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}

/**
 * One verifiable draw, short, for a run of them on one line: "#12: 5 of 0–5".
 * @param {any} item
 */
export function drawText(item) {
  const d = item?.draw ?? {};
  return `#${d.counter ?? '?'}: ${d.value ?? '?'} of 0\u2013${d.n !== undefined ? Number(d.n) - 1 : '?'}`;
}

/**
 * The title of the log group an item opens — a turn (Iron Triangle), a Hand (No Dice), a round
 * (Inciting Incident) — or null: read from the rules' own narration of the event that starts it.
 * @param {any} item
 * @returns {string | null}
 */
export function groupTitle(item) {
  if (item?.kind !== 'event' || typeof item.text !== 'string') return null;
  const t = item.text;
  const turn = /^Turn (\d+): /m.exec(t);
  if (turn && item.event?.event === 'turn_began') return `Turn ${turn[1]}`;
  const hand = /^=== Hand (\d+) /m.exec(t);
  if (hand) return `Hand ${hand[1]}`;
  const round = /^== Round (\d+) ==/m.exec(t);
  if (round) return `Round ${round[1]}`;
  return null;
}

/**
 * Whether an item is this viewer's own business, for the log's "mine" filter: its seat's
 * items (a take-back, a forced decision, an opened commitment…), and events whose narration
 * names one of its characters.
 * @param {any} item
 * @param {number | null} seat this page's seat
 * @param {string[]} names its characters' names
 */
export function isMine(item, seat, names) {
  if (seat !== null && (item?.seat === seat || item?.by === seat)) return true;
  const text = typeof item?.text === 'string' ? item.text : '';
  return names.some((n) => n !== '' && text.includes(n));
}

/**
 * The rolls of a log and the verifiable draws that are their dice (issue 34: each roll's dice
 * on the roll's own line, not a line of draws). A rules' `rolled` event records where the
 * dice stand after it (`rng_pos`, the draw counter) and every die it rolled, one draw a die:
 * its draws are the counters `rng_pos - dice … rng_pos - 1`. Draws come after the events of
 * their command; {@link RollDraws.owner} says which roll, if any, a draw belongs to.
 * @template T what the caller keeps per roll (the roll's line)
 */
export class RollDraws {
  constructor() {
    /** @type {{from: number, to: number, counters: number[], at: T}[]} */
    this.rolls = [];
  }

  /**
   * Takes in an item; when it is a roll, remembers it with `at`.
   * @param {any} item
   * @param {T} at
   */
  add(item, at) {
    const e = item?.kind === 'event' ? item.event : null;
    if (e?.event !== 'rolled' || !Array.isArray(e.roll?.dice)) return;
    const to = Number(e.rng_pos);
    if (!Number.isSafeInteger(to)) return;
    this.rolls.push({ from: to - e.roll.dice.length, to, counters: [], at });
    if (this.rolls.length > 500) this.rolls.shift();
  }

  /**
   * The roll a draw item belongs to, with the counters of its draws seen so far (this one
   * included), or null for a draw of no roll (a lot, an order).
   * @param {any} item
   * @returns {{counters: number[], at: T} | null}
   */
  owner(item) {
    const c = Number(item?.draw?.counter);
    if (item?.kind !== 'draw' || !Number.isSafeInteger(c)) return null;
    for (let i = this.rolls.length - 1; i >= 0; i--) {
      const r = this.rolls[i];
      if (c >= r.from && c < r.to) {
        if (!r.counters.includes(c)) r.counters.push(c);
        return r;
      }
    }
    return null;
  }
}

/**
 * A roll's verifiable draws in words, for its line: "drawn verifiably: #4–#7".
 * @param {number[]} counters
 */
export function rollDrawsText(counters) {
  if (counters.length === 0) return '';
  const sorted = [...counters].sort((a, b) => a - b);
  const first = sorted[0];
  const last = sorted[sorted.length - 1];
  const contiguous = last - first + 1 === sorted.length;
  const list = contiguous && sorted.length > 1 ? `#${first}\u2013#${last}` : sorted.map((c) => `#${c}`).join(', ');
  return `drawn verifiably: ${list}`;
}
