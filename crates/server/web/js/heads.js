// @ts-check
/** @file The heads of the hash chain this browser was shown during play (issue 34, Replay):
 * the table page keeps each table's latest here as it plays, and the replay says "verified"
 * only of a log whose head is one of them (else "consistent": the log checks, but this browser
 * never saw it). Kept in `localStorage`, the latest per table, the 200 most recent tables. */

const KEY = 'facedown-heads';
const KEEP = 200;

/** @returns {{t: string, h: string}[]} */
function read() {
  try {
    const list = JSON.parse(globalThis.localStorage?.getItem(KEY) ?? '[]');
    return Array.isArray(list) ? list.filter((e) => typeof e?.t === 'string' && typeof e?.h === 'string') : [];
  } catch {
    return [];
  }
}

/**
 * Remembers `head` as the latest this browser was shown at `table` (a page's table and seat).
 * @param {string} table
 * @param {string} head
 */
export function rememberHead(table, head) {
  const list = read();
  if (list[0]?.t === table && list[0]?.h === head) return;
  const kept = [{ t: table, h: head }, ...list.filter((e) => e.t !== table)].slice(0, KEEP);
  try {
    globalThis.localStorage?.setItem(KEY, JSON.stringify(kept));
  } catch {
    /* storage full or refused: the replay then says "consistent" */
  }
}

/**
 * Whether this browser was shown `head` during play.
 * @param {string} head
 */
export function wasShown(head) {
  return read().some((e) => e.h === head);
}
