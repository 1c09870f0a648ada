// The symbol font (crates/server/web/fonts/symbols.woff2) holds every character the pages
// print: the WOFF2 is read here from its specification (the header, the table directory with its
// UIntBase128 numbers, the Brotli-compressed tables, then the `cmap`, which WOFF2 stores
// untransformed: formats 4 and 12), and every character of a list is looked up in it and in
// the unicode-range of crates/server/web/css/symbols.css.
//
//   FACEDOWN_FONT_CHARS=FILE node --test crates/server/web/test/font.test.mjs
//   node crates/server/web/test/font.test.mjs FILE
//
// FILE holds the characters (UTF-8; ASCII and white space are passed over). Without one, the
// characters of fonts/extra-chars.txt are checked. crates/server/tests/web_font.rs gathers the
// characters the pages may print and runs this.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { brotliDecompressSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const web = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const FONT = path.join(web, 'fonts/symbols.woff2');
const CSS = path.join(web, 'css/symbols.css');
const EXTRA = path.join(web, 'fonts/extra-chars.txt');
const argFile = process.argv.slice(2).find((a) => !a.startsWith('-') && !a.endsWith('.mjs'));
const charsFile = process.env.FACEDOWN_FONT_CHARS ?? argFile ?? EXTRA;

/** The tags WOFF2 names by index in a table directory entry (WOFF2 §5.1, "Known Table Tags"). */
const KNOWN_TAGS = (
  'cmap head hhea hmtx maxp name OS/2 post cvt_ fpgm glyf loca prep CFF_ VORG EBDT EBLC gasp hdmx ' +
  'kern LTSH PCLT VDMX vhea vmtx BASE GDEF GPOS GSUB EBSC JSTF MATH CBDT CBLC COLR CPAL SVG_ sbix ' +
  'acnt avar bdat bloc bsln cvar fdsc feat fmtx fvar gvar hsty just lcar mort morx opbd prop trak ' +
  'Zapf Silf Glat Gloc Feat Sill'
)
  .split(' ')
  .map((t) => t.replace('_', ' '));

/** A font that cannot be read, naming what is wrong. */
class FontError extends Error {}

/**
 * Reads a UIntBase128 (WOFF2 §4.1): 1 to 5 bytes, 7 bits each, most significant first, the
 * high bit set on every byte but the last; no leading zero byte, no value above 2^32 − 1.
 * @param {Uint8Array} bytes
 * @param {number} at
 * @returns {[number, number]} the value and the offset after it
 */
export function uintBase128(bytes, at) {
  let value = 0;
  for (let i = 0; i < 5; i++) {
    if (at + i >= bytes.length) throw new FontError('UIntBase128 runs past the end');
    const b = bytes[at + i];
    if (i === 0 && b === 0x80) throw new FontError('UIntBase128 with a leading zero');
    if (value >= 2 ** 25) throw new FontError('UIntBase128 above 2^32 - 1');
    value = value * 128 + (b & 0x7f);
    if ((b & 0x80) === 0) return [value, at + i + 1];
  }
  throw new FontError('UIntBase128 longer than 5 bytes');
}

/**
 * The tables of a WOFF2 font, decompressed (transformed ones as they are stored).
 * @param {Uint8Array} bytes
 * @returns {Map<string, {data: Uint8Array, transformed: boolean}>}
 */
export function woff2Tables(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length < 48 || view.getUint32(0) !== 0x774f4632) throw new FontError('not WOFF2: no wOF2 signature');
  if (view.getUint32(8) !== bytes.length) throw new FontError('the header length is not the file length');
  const numTables = view.getUint16(12);
  const totalCompressedSize = view.getUint32(20);
  if (view.getUint32(4) === 0x74746366) throw new FontError('a font collection: not expected here');
  let at = 48;
  /** @type {{tag: string, length: number, transformed: boolean}[]} */
  const directory = [];
  for (let i = 0; i < numTables; i++) {
    if (at >= bytes.length) throw new FontError('the table directory runs past the end');
    const flags = bytes[at++];
    let tag;
    if ((flags & 0x3f) === 0x3f) {
      tag = String.fromCharCode(...bytes.subarray(at, at + 4));
      at += 4;
    } else {
      tag = KNOWN_TAGS[flags & 0x3f];
    }
    const version = flags >> 6;
    let origLength;
    [origLength, at] = uintBase128(bytes, at);
    // glyf and loca are transformed with version 0 (3 is the null transform); the others are
    // transformed with any version but 0.
    const transformed = tag === 'glyf' || tag === 'loca' ? version !== 3 : version !== 0;
    let length = origLength;
    if (transformed) [length, at] = uintBase128(bytes, at);
    directory.push({ tag, length, transformed });
  }
  if (at + totalCompressedSize > bytes.length) throw new FontError('the compressed tables run past the end');
  const data = new Uint8Array(brotliDecompressSync(bytes.subarray(at, at + totalCompressedSize)));
  const tables = new Map();
  let offset = 0;
  for (const t of directory) {
    if (offset + t.length > data.length) throw new FontError(`table ${t.tag} runs past the decompressed data`);
    tables.set(t.tag, { data: data.subarray(offset, offset + t.length), transformed: t.transformed });
    offset += t.length;
  }
  return tables;
}

/**
 * The code points a `cmap` table maps to a glyph other than .notdef, from its Unicode
 * subtables of format 4 (BMP segments) and 12 (groups over all planes).
 * @param {Uint8Array} cmap
 * @returns {Set<number>}
 */
export function cmapCodePoints(cmap) {
  const v = new DataView(cmap.buffer, cmap.byteOffset, cmap.byteLength);
  const mapped = new Set();
  let formats = 0;
  const numTables = v.getUint16(2);
  for (let i = 0; i < numTables; i++) {
    const platform = v.getUint16(4 + 8 * i);
    const encoding = v.getUint16(6 + 8 * i);
    const offset = v.getUint32(8 + 8 * i);
    const unicode = platform === 0 || (platform === 3 && (encoding === 1 || encoding === 10));
    if (!unicode) continue;
    const format = v.getUint16(offset);
    if (format === 4) {
      formats++;
      const segments = v.getUint16(offset + 6) / 2;
      const ends = offset + 14;
      const starts = ends + 2 * segments + 2;
      const deltas = starts + 2 * segments;
      const rangeOffsets = deltas + 2 * segments;
      for (let s = 0; s < segments; s++) {
        const end = v.getUint16(ends + 2 * s);
        const start = v.getUint16(starts + 2 * s);
        const delta = v.getUint16(deltas + 2 * s);
        const where = rangeOffsets + 2 * s;
        const rangeOffset = v.getUint16(where);
        for (let c = start; c <= end && c !== 0xffff; c++) {
          let glyph;
          if (rangeOffset === 0) {
            glyph = (c + delta) & 0xffff;
          } else {
            glyph = v.getUint16(where + rangeOffset + 2 * (c - start));
            if (glyph !== 0) glyph = (glyph + delta) & 0xffff;
          }
          if (glyph !== 0) mapped.add(c);
        }
      }
    } else if (format === 12) {
      formats++;
      const groups = v.getUint32(offset + 12);
      for (let g = 0; g < groups; g++) {
        const at = offset + 16 + 12 * g;
        const start = v.getUint32(at);
        const end = v.getUint32(at + 4);
        const glyph = v.getUint32(at + 8);
        for (let c = start; c <= end; c++) if (glyph + (c - start) !== 0) mapped.add(c);
      }
    }
  }
  if (formats === 0) throw new FontError('no Unicode cmap subtable of format 4 or 12');
  return mapped;
}

/**
 * The code points of a stylesheet's `unicode-range` descriptors.
 * @param {string} css
 * @returns {(c: number) => boolean}
 */
export function unicodeRange(css) {
  const spans = [];
  for (const m of css.matchAll(/unicode-range\s*:([^;}]*)/g)) {
    for (const part of m[1].split(',')) {
      const r = /^\s*U\+([0-9A-Fa-f]{1,6})(?:-([0-9A-Fa-f]{1,6}))?\s*$/.exec(part);
      if (!r) throw new FontError(`not a unicode-range: ${part.trim()}`);
      spans.push([parseInt(r[1], 16), parseInt(r[2] ?? r[1], 16)]);
    }
  }
  return (c) => spans.some(([a, b]) => a <= c && c <= b);
}

/**
 * The characters of `text` a font must hold: not ASCII, not white space.
 * @param {string} text
 * @returns {string[]}
 */
export function charactersOf(text) {
  return [...new Set([...text].filter((c) => (c.codePointAt(0) ?? 0) > 0x7f && !/\s/u.test(c)))];
}

/**
 * The characters of `chars` the code points lack, as `X U+XXXX` for a message.
 * @param {Set<number>} codePoints
 * @param {string[]} chars
 * @returns {string[]}
 */
export function missing(codePoints, chars) {
  return chars
    .filter((c) => !codePoints.has(/** @type {number} */ (c.codePointAt(0))))
    .map((c) => `${c} U+${(c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`);
}

const fontBytes = new Uint8Array(readFileSync(FONT));
const codePoints = cmapCodePoints(/** @type {Uint8Array} */ (woff2Tables(fontBytes).get('cmap')?.data));
const chars = charactersOf(readFileSync(charsFile, 'utf8'));

test('the font is a small WOFF2 whose cmap is stored untransformed', () => {
  assert.ok(fontBytes.length < 64 * 1024, `${fontBytes.length} bytes: keep the subset small`);
  const tables = woff2Tables(fontBytes);
  for (const tag of ['cmap', 'head', 'glyf', 'name']) assert.ok(tables.has(tag), `a ${tag} table`);
  assert.equal(tables.get('cmap')?.transformed, false);
  assert.ok(codePoints.size > 0);
});

test(`the font has every one of the ${chars.length} characters of ${path.basename(charsFile)}`, () => {
  assert.ok(chars.length > 0, `${charsFile} lists no character`);
  const lacking = missing(codePoints, chars);
  assert.deepEqual(
    lacking,
    [],
    `not in fonts/symbols.woff2: ${lacking.join(', ')} — add them to fonts/extra-chars.txt or let the ` +
      'pages print something else, then run crates/server/web/fonts/subset.sh (fonts/README.md)',
  );
});

test('the stylesheet sends every one of those characters, and only the font\'s, to the font', () => {
  const css = readFileSync(CSS, 'utf8');
  assert.match(css, /font-family:\s*"facedown symbols"/);
  assert.match(css, /src:\s*url\("\/assets\/fonts\/symbols\.woff2"\)\s*format\("woff2"\)/);
  const inRange = unicodeRange(css);
  const outside = chars.filter((c) => !inRange(/** @type {number} */ (c.codePointAt(0))));
  assert.deepEqual(outside, [], 'characters outside symbols.css\'s unicode-range');
  const beyond = [...codePoints].filter((c) => c > 0x7f && !inRange(c));
  assert.deepEqual(beyond, [], 'the range names every non-ASCII character of the font');
  for (let c = 0x20; c < 0x7f; c++) assert.ok(!inRange(c), `ASCII ${String.fromCharCode(c)} stays with the page's font`);
});

test('the characters kept for pages to come are in the font too', () => {
  assert.deepEqual(missing(codePoints, charactersOf(readFileSync(EXTRA, 'utf8'))), []);
});

test('a character the font does not hold is reported missing', () => {
  assert.deepEqual(missing(codePoints, ['😀', '☷']), ['😀 U+1F600']);
  assert.deepEqual(missing(codePoints, charactersOf('A ☷\n')), []);
  assert.deepEqual(missing(new Set(), ['☷']), ['☷ U+2637']);
  // Take one of the font's own characters out of its cmap and it is missed.
  const cmap = woff2Tables(fontBytes).get('cmap')?.data;
  assert.ok(cmap);
  const without = new Set(cmapCodePoints(cmap));
  without.delete(0x2637);
  assert.deepEqual(missing(without, ['☷']), ['☷ U+2637']);
});

test('the cmap reader reads formats 4 and 12 from bytes made here', () => {
  // A cmap with one format 4 subtable (U+2630–2637 to glyphs 1–8, U+25CB through the glyph
  // array to glyph 9) and one format 12 group (U+1F600 to glyph 10).
  const f4 = [4, 0, 0, 3 * 2, 0, 0, 0, /* ends */ 0x25cb, 0x2637, 0xffff, 0, /* starts */ 0x25cb, 0x2630, 0xffff,
    /* deltas */ 0, (1 - 0x2630) & 0xffff, 1, /* range offsets */ 6, 0, 0, /* glyph array */ 9];
  const f4bytes = new Uint8Array(f4.length * 2);
  f4.forEach((x, i) => new DataView(f4bytes.buffer).setUint16(2 * i, x));
  new DataView(f4bytes.buffer).setUint16(2, f4bytes.length);
  const f12 = new Uint8Array(28);
  const d12 = new DataView(f12.buffer);
  d12.setUint16(0, 12);
  d12.setUint32(4, 28);
  d12.setUint32(12, 1);
  d12.setUint32(16, 0x1f600);
  d12.setUint32(20, 0x1f600);
  d12.setUint32(24, 10);
  const head = new Uint8Array(4 + 16);
  const dh = new DataView(head.buffer);
  dh.setUint16(2, 2);
  dh.setUint16(4, 3);
  dh.setUint16(6, 1);
  dh.setUint32(8, head.length);
  dh.setUint16(12, 3);
  dh.setUint16(14, 10);
  dh.setUint32(16, head.length + f4bytes.length);
  const cmap = new Uint8Array([...head, ...f4bytes, ...f12]);
  const got = cmapCodePoints(cmap);
  assert.deepEqual([...got].sort((a, b) => a - b), [0x25cb, 0x2630, 0x2631, 0x2632, 0x2633, 0x2634, 0x2635, 0x2636, 0x2637, 0x1f600]);
  assert.throws(() => cmapCodePoints(new Uint8Array(4)), FontError);
});

test('UIntBase128 reads its numbers and refuses the malformed ones', () => {
  assert.deepEqual(uintBase128(Uint8Array.of(0x3f), 0), [63, 1]);
  assert.deepEqual(uintBase128(Uint8Array.of(0x81, 0x00), 0), [128, 2]);
  assert.deepEqual(uintBase128(Uint8Array.of(0x8f, 0xff, 0xff, 0xff, 0x7f), 0), [2 ** 32 - 1, 5]);
  assert.throws(() => uintBase128(Uint8Array.of(0x80, 0x01), 0), /leading zero/);
  assert.throws(() => uintBase128(Uint8Array.of(0x90, 0x80, 0x80, 0x80, 0x00), 0), /above/);
  assert.throws(() => uintBase128(Uint8Array.of(0x81, 0x81, 0x81, 0x81, 0x81, 0x01), 0), FontError);
  assert.throws(() => uintBase128(Uint8Array.of(0x81), 0), /past the end/);
});

test('a file that is not WOFF2 is refused', () => {
  assert.throws(() => woff2Tables(new Uint8Array(60)), /signature/);
  const cut = fontBytes.slice(0, fontBytes.length - 10);
  assert.throws(() => woff2Tables(cut), FontError);
});
