// @ts-check
/**
 * The canonical JSON of docs/fairness.md §2: the one spelling of a JSON value that
 * commitments and the log's hash chain hash. No whitespace; `null`, `true`, `false`; integers
 * from −(2^53 − 1) to 2^53 − 1 only, in plain decimal; strings with exactly `"`, `\`, and
 * U+0000–U+001F escaped (`\b \t \n \f \r`, the rest `\u00xx` in lowercase); object members
 * sorted by their keys' UTF-16 code units; at most 128 arrays and objects nested.
 *
 * @module canonical
 */

/** How many arrays and objects may nest inside one another (docs/fairness.md §2 rule 7). */
export const MAX_DEPTH = 128;

/** Why a value has no canonical form, naming where in it (`$`, `.key`, `[index]`). */
export class CanonicalError extends Error {
  /**
   * @param {string} path where the value at fault is
   * @param {string} why what is wrong with it
   */
  constructor(path, why) {
    super(`${path}: ${why}`);
    this.name = 'CanonicalError';
    /** Where the value at fault is. */
    this.path = path;
    /** What is wrong with it. */
    this.why = why;
  }
}

/** The two-character escapes of rule 4. */
const SHORT_ESCAPES = new Map([
  [0x22, '\\"'],
  [0x5c, '\\\\'],
  [0x08, '\\b'],
  [0x09, '\\t'],
  [0x0a, '\\n'],
  [0x0c, '\\f'],
  [0x0d, '\\r'],
]);

/**
 * Whether `s` is a sequence of Unicode scalar values (no lone surrogate).
 * @param {string} s
 * @returns {boolean}
 */
function wellFormed(s) {
  for (let i = 0; i < s.length; i++) {
    const u = s.charCodeAt(i);
    if (u >= 0xd800 && u <= 0xdbff) {
      const next = s.charCodeAt(i + 1);
      if (!(next >= 0xdc00 && next <= 0xdfff)) return false;
      i++;
    } else if (u >= 0xdc00 && u <= 0xdfff) {
      return false;
    }
  }
  return true;
}

/**
 * A string written as rule 4 says.
 * @param {string} s
 * @param {string} path
 * @returns {string}
 */
function writeString(s, path) {
  if (!wellFormed(s)) throw new CanonicalError(path, 'a string with a lone surrogate (not Unicode scalar values)');
  let out = '"';
  let from = 0;
  for (let i = 0; i < s.length; i++) {
    const u = s.charCodeAt(i);
    if (u >= 0x20 && u !== 0x22 && u !== 0x5c) continue;
    out += s.slice(from, i);
    out += SHORT_ESCAPES.get(u) ?? '\\u00' + (u < 16 ? '0' : '') + u.toString(16);
    from = i + 1;
  }
  return out + s.slice(from) + '"';
}

/**
 * @param {string} path
 * @param {string} key
 * @returns {string}
 */
function keyPath(path, key) {
  const excerpt = [...key].slice(0, 32).join('');
  return `${path}.${JSON.stringify(excerpt).slice(1, -1)}${excerpt.length < key.length ? '…' : ''}`;
}

/**
 * @param {unknown} value
 * @param {string} path
 * @param {number} depth how many arrays and objects enclose `value`
 * @returns {string}
 */
function write(value, path, depth) {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isSafeInteger(value) || Object.is(value, -0)) {
        throw new CanonicalError(
          path,
          `the number ${Object.is(value, -0) ? '-0' : String(value)} has no canonical form (integers from -(2^53-1) to 2^53-1 only; write anything else as a string)`,
        );
      }
      return String(value);
    case 'string':
      return writeString(value, path);
    case 'object': {
      if (depth >= MAX_DEPTH) throw new CanonicalError(path, `arrays and objects nest deeper than ${MAX_DEPTH}`);
      if (Array.isArray(value)) {
        return '[' + value.map((item, i) => write(item, `${path}[${i}]`, depth + 1)).join(',') + ']';
      }
      const object = /** @type {Record<string, unknown>} */ (value);
      // The default sort compares UTF-16 code units, as rule 6 asks.
      const keys = Object.keys(object).sort();
      const members = keys.map((k) => writeString(k, path) + ':' + write(object[k], keyPath(path, k), depth + 1));
      return '{' + members.join(',') + '}';
    }
    default:
      throw new CanonicalError(path, `a ${typeof value} is not a JSON value`);
  }
}

/**
 * The canonical JSON text of `value` (docs/fairness.md §2). Throws a {@link CanonicalError}
 * naming where the value has no canonical form: a fraction, `-0`, an integer beyond 2^53 − 1,
 * a lone surrogate, nesting deeper than {@link MAX_DEPTH}, or something that is not JSON.
 * @param {unknown} value
 * @returns {string}
 */
export function canonical(value) {
  return write(value, '$', 0);
}

/** UTF-8 encoder shared by the helpers. */
const utf8 = new TextEncoder();

/**
 * `canonical(v)` of docs/fairness.md: the UTF-8 bytes of the canonical JSON text.
 * @param {unknown} value
 * @returns {Uint8Array}
 */
export function canonicalBytes(value) {
  return utf8.encode(canonical(value));
}

/**
 * Parses `text` and checks that it is canonical: that it equals the canonical JSON of the
 * value it parses to (docs/fairness.md §2: this catches every second spelling — whitespace,
 * member order, `1.0`, `\u001F`, `\/`, a key given twice). Throws a {@link CanonicalError}
 * otherwise.
 * @param {string} text
 * @returns {unknown} the value
 */
export function parseCanonical(text) {
  let value;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new CanonicalError('$', `not JSON: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (canonical(value) !== text) {
    throw new CanonicalError('$', 'not written in canonical JSON (docs/fairness.md §2)');
  }
  return value;
}
