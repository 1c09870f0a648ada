// The browser's SHA-256, canonical JSON, commitments, draws and log verifier
// (crates/server/web/js/) checked under Node: every vector of docs/fairness/vectors.json through
// the pure JavaScript path and through crypto.subtle; every verifiable log in a directory, and a
// set of tamperings of each that must be caught at the right line.
//
//   node --test crates/server/web/test/fairness.test.mjs
//   FACEDOWN_FAIR_LOGS=DIR node --test crates/server/web/test/fairness.test.mjs
//   node crates/server/web/test/fairness.test.mjs DIR
//
// DIR holds *.jsonl logs (default docs/fairness/logs). Run by crates/server/tests/web_verifier.rs,
// which also passes logs the Rust server wrote in that very run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { createHash, createHmac } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

import { sha256, hmacSha256, pure, subtleProvider, preferred, toHex, fromHex } from '../js/sha256.js';
import { canonical, parseCanonical, CanonicalError, MAX_DEPTH } from '../js/canonical.js';
import {
  randomNonce,
  commitment,
  opens,
  serverSeedCommitment,
  clientSeedFromPhrase,
  drawMessage,
  deriveDraw,
  checkDraw,
  chainLink,
  verifyLog,
  DrawLedger,
  GENESIS,
  FairnessError,
} from '../js/fairness.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../../../..');
const V = JSON.parse(readFileSync(path.join(root, 'docs/fairness/vectors.json'), 'utf8'));
const argDir = process.argv.slice(2).find((a) => !a.startsWith('-') && !a.endsWith('.mjs'));
const logDir = path.resolve(process.env.FACEDOWN_FAIR_LOGS ?? argDir ?? path.join(root, 'docs/fairness/logs'));
const subtle = subtleProvider();
const providers = [pure, ...(subtle ? [subtle] : [])];
const CASES = Math.max(1, Number(process.env.PROPTEST_CASES ?? 256));

test('crypto.subtle exists under Node, so both paths are checked', () => {
  assert.ok(subtle, 'Node 20 has globalThis.crypto.subtle');
  assert.equal(preferred().name, 'subtle');
});

test('SHA-256 and HMAC-SHA256 in pure JavaScript agree with node:crypto on every length and key', () => {
  // A deterministic generator, so a failure repeats.
  let state = 0x9e3779b9;
  const next = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return state >>> 0;
  };
  const bytes = (/** @type {number} */ n) => Uint8Array.from({ length: n }, () => next() & 255);
  // Every length around the padding boundaries (55, 56, 63, 64, 119, 120 …), then random ones.
  const lengths = [...Array(200).keys(), 1000, 4096, ...Array.from({ length: CASES }, () => next() % 3000)];
  for (const n of lengths) {
    const m = bytes(n);
    assert.equal(toHex(sha256(m)), createHash('sha256').update(m).digest('hex'), `length ${n}`);
    const key = bytes(next() % 150); // keys shorter and longer than the 64-byte block
    assert.equal(toHex(hmacSha256(key, m)), createHmac('sha256', key).update(m).digest('hex'), `key ${key.length}`);
  }
  // In parts, the same as whole.
  const m = bytes(300);
  assert.deepEqual(sha256(m.subarray(0, 7), m.subarray(7, 200), m.subarray(200)), sha256(m));
  // FIPS 180-4's "abc", and RFC 4231's test case 2.
  assert.equal(toHex(sha256(new TextEncoder().encode('abc'))), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  assert.equal(
    toHex(hmacSha256(new TextEncoder().encode('Jefe'), new TextEncoder().encode('what do ya want for nothing?'))),
    '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
  );
});

test('both providers give the same bytes, an empty key included', async () => {
  for (const p of providers) {
    for (const key of [new Uint8Array(0), new Uint8Array(32).fill(7), new Uint8Array(100).fill(1)]) {
      const m = new TextEncoder().encode('facedown');
      assert.equal(toHex(await p.hmacSha256(key, m)), createHmac('sha256', key).update(m).digest('hex'), p.name);
    }
    assert.equal(toHex(await p.sha256(new Uint8Array(0))), createHash('sha256').digest('hex'), p.name);
  }
});

test('hex is lowercase, two digits a byte; anything else is refused', () => {
  assert.equal(toHex(Uint8Array.of(0, 10, 255)), '000aff');
  assert.deepEqual(fromHex('000aff'), Uint8Array.of(0, 10, 255));
  for (const bad of ['0A', 'abc', '0x00', 'zz', ' 00']) assert.equal(fromHex(bad), null, bad);
});

test('canonical JSON: every vector, and every text that must be refused', () => {
  for (const c of V.canonical_json) {
    const text = canonical(JSON.parse(c.input));
    assert.equal(text, c.canonical, c.input);
    assert.equal(Buffer.from(text, 'utf8').toString('hex'), c.canonical_utf8, c.input);
    assert.deepEqual(parseCanonical(c.canonical), JSON.parse(c.input));
  }
  for (const c of V.not_canonical) {
    assert.throws(() => parseCanonical(c.input.replace(/\s/g, '')), CanonicalError, c.why);
  }
});

test('canonical JSON: the second spellings, lone surrogates, minus zero and depth', () => {
  for (const text of ['{"a":"\\u001F"}', '{"a":"\\/"}', '{"a":1,"a":1}', '{"b":1,"a":2}', '{ "a":1}', '{"a":1.0}', '{"a":"\\u00e9"}']) {
    assert.throws(() => parseCanonical(text), CanonicalError, text);
  }
  assert.equal(canonical({ a: '\u001f\u007f\u2028/' }), '{"a":"\\u001f\u007f\u2028/"}');
  assert.equal(canonical({ '\u{1F600}': 1, '\uffff': 2 }), '{"\u{1F600}":1,"\uffff":2}');
  assert.equal(canonical('\b\t\n\f\r"\\\u0000'), '"\\b\\t\\n\\f\\r\\"\\\\\\u0000"');
  assert.throws(() => canonical('\ud800'), CanonicalError);
  assert.throws(() => canonical(['x\udc00']), CanonicalError);
  assert.throws(() => canonical(-0), /-0/);
  assert.throws(() => canonical(2 ** 53), CanonicalError);
  assert.equal(canonical(-(2 ** 53 - 1)), '-9007199254740991');
  assert.throws(() => canonical(undefined), CanonicalError);
  assert.throws(() => canonical(1n), CanonicalError);
  let deep = /** @type {unknown} */ (0);
  for (let i = 0; i < MAX_DEPTH; i++) deep = [deep];
  assert.equal(canonical(deep).length, 2 * MAX_DEPTH + 1, '128 nested arrays are fine');
  assert.throws(() => canonical([deep]), /nest deeper than 128/);
  assert.throws(() => canonical({ a: [{ b: 1.5 }] }), (e) => e instanceof CanonicalError && e.path === '$.a[0].b');
});

for (const p of providers) {
  test(`commitments, seeds and the chain of the vectors (${p.name})`, async () => {
    for (const c of V.commitments) {
      assert.equal(canonical(c.command), c.canonical);
      assert.equal(await commitment(c.command, c.nonce, p), c.commitment);
      assert.equal(await commitment(c.command, c.a_wrong_nonce, p), c.its_commitment);
      assert.ok(await opens(c.command, c.nonce, c.commitment, p));
      assert.ok(!(await opens(c.command, c.a_wrong_nonce, c.commitment, p)), 'a wrong nonce does not open it');
      assert.ok(!(await opens({ ...c.command, extra: 1 }, c.nonce, c.commitment, p)), 'a changed command does not');
      assert.ok(!(await opens(c.command, c.nonce.toUpperCase(), c.commitment, p)), 'an upper-case nonce is refused');
    }
    for (const s of V.seeds.server_seeds) assert.equal(await serverSeedCommitment(s.server_seed, p), s.commitment);
    for (const s of V.seeds.client_seed_phrases) assert.equal(await clientSeedFromPhrase(s.phrase, p), s.client_seed);
    let previous = V.chain.genesis;
    assert.equal(previous, GENESIS);
    for (const [i, e] of V.chain.entries.entries()) {
      assert.equal(canonical(e), V.chain.canonical[i]);
      previous = await chainLink(previous, e, p);
      assert.equal(previous, V.chain.hashes[i]);
    }
    assert.equal(previous, V.chain.head);
  });

  test(`the draws of the vectors, every try (${p.name})`, async () => {
    for (const d of V.draws) {
      const inputs = { serverSeed: d.server_seed, clientSeeds: d.client_seeds, roundNonces: d.round_nonces };
      for (const t of d.tries) {
        const message = drawMessage(inputs, BigInt(d.counter), t.retry);
        assert.equal(toHex(message), t.message);
        const h = await p.hmacSha256(fromHex(d.server_seed) ?? new Uint8Array(), message);
        assert.equal(toHex(h), t.hmac);
        assert.equal(String(Buffer.from(h).readBigUInt64BE(0)), t.x);
      }
      const drawn = await deriveDraw(inputs, BigInt(d.counter), BigInt(d.n), p);
      assert.equal(String(drawn.value), d.value, `draw ${d.counter} of ${d.n}`);
      assert.equal(drawn.retries, d.retries);
      const record = { counter: d.counter, n: d.n, value: d.value, retries: d.retries, mixes: 0 };
      assert.ok((await checkDraw(inputs, record, p)).ok);
      const wrong = { ...record, value: String((BigInt(d.value) + 1n) % BigInt(d.n)) };
      if (d.n !== '1') assert.ok(!(await checkDraw(inputs, wrong, p)).ok, 'a changed value is caught');
      assert.ok(!(await checkDraw(inputs, { ...record, retries: d.retries + 1 }, p)).ok, 'changed retries are caught');
    }
    await assert.rejects(deriveDraw({ serverSeed: GENESIS, clientSeeds: [], roundNonces: [] }, 0n, 0n, p), FairnessError);
  });

  test(`the sequence of the vectors, as the rulesets draw (${p.name})`, async () => {
    const S = V.sequence;
    let seed = S.server_seed;
    /** @type {(string|null)[]} */
    let cs = Array(S.seats).fill(null);
    const given = [...cs];
    let ns = [...cs];
    let counter = 0n;
    const r = async (/** @type {number} */ n) => {
      const d = await deriveDraw({ serverSeed: seed, clientSeeds: cs, roundNonces: ns }, counter, BigInt(n), p);
      counter++;
      return Number(d.value);
    };
    for (const st of S.steps) {
      if (st.add_client_seed) given[st.add_client_seed.seat] = st.add_client_seed.client_seed;
      else if (st.mix) {
        ns = [...st.mix.round_nonces];
        cs = cs.map((c, i) => given[i] ?? c);
      } else if (st.rotate_server_seed) {
        seed = V.seeds.server_seeds.find((/** @type {any} */ s) => s.commitment === st.rotate_server_seed.next_commitment).server_seed;
      } else {
        let got;
        if (st.draw === 'die') got = st.sides === 0 ? 0 : 1 + (await r(st.sides));
        else if (st.draw === 'uniform') got = st.low + (await r('high_inclusive' in st ? st.high_inclusive - st.low + 1 : st.high_exclusive - st.low));
        else if (st.draw === 'pick') got = st.items[await r(st.items.length)];
        else if (st.draw === 'chance') got = (await r(2 ** 32)) < Math.round(st.p * 2 ** 32);
        assert.deepEqual(got, st.result, JSON.stringify(st));
      }
      assert.equal(String(counter), st.position_after);
    }
  });
}

test('a fresh nonce is 64 lowercase hex digits, different each time', () => {
  const a = randomNonce();
  const b = randomNonce();
  assert.match(a, /^[0-9a-f]{64}$/);
  assert.notEqual(a, b);
});

// --- the logs ---------------------------------------------------------------------------------

const logs = readdirSync(logDir)
  .filter((f) => f.endsWith('.jsonl'))
  .sort()
  .map((f) => ({ name: f, text: readFileSync(path.join(logDir, f), 'utf8') }));

test(`there are logs to verify in ${logDir}`, () => {
  assert.ok(logs.length > 0, `no *.jsonl in ${logDir}`);
});

/** The line (from 1) that byte offset `at` of `text` is on. */
const lineOf = (/** @type {string} */ text, /** @type {number} */ at) => text.slice(0, at).split('\n').length;

/**
 * The log with one byte changed at `at` to another that keeps the text UTF-8 (as `facedown
 * verify`'s tests change them), or null.
 * @param {Buffer} log
 * @param {number} at
 */
function changed(log, at) {
  const b = log[at];
  if (b === 0x0a) return null;
  const out = Buffer.from(log);
  if (b >= 0x30 && b <= 0x39) out[at] = 0x30 + ((b - 0x30 + 1) % 10);
  else if ((b | 0x20) >= 0x61 && (b | 0x20) <= 0x7a) out[at] = b ^ 0x20;
  else out[at] = 0x78; // 'x'
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(out);
  } catch {
    return null;
  }
  return out;
}

/**
 * Lines of a log rewritten with fresh hashes (with node:crypto), so that only the deeper checks
 * — commitments, seeds, draws — can catch what was changed.
 * @param {any[]} entries
 */
function rechain(entries) {
  let previous = Buffer.alloc(32);
  return entries
    .map((entry) => {
      previous = createHash('sha256').update(previous).update(canonical(entry)).digest();
      return canonical({ entry, hash: previous.toString('hex') });
    })
    .join('\n') + '\n';
}

/**
 * The line of the first draw whose record the seeds and nonces in effect do not give, or -1:
 * docs/fairness.md §5 replayed with node:crypto (a third implementation, kept small, so the
 * tests know where a change that only some dice notice must be named).
 * @param {any[]} entries
 */
function firstWrongDraw(entries) {
  const seats = entries[0].seats.length;
  // Each revealed seed keys the draws of its stretch: up to its reveal, or after a rotation's
  // `next` up to the next reveal.
  const seeds = entries.filter((e) => e.kind === 'server_seed').map((e) => Buffer.from(e.revealed, 'hex'));
  if (seeds.length === 0) return -1;
  let stretch = 0;
  let cs = Array(seats).fill(null);
  const given = Array(seats).fill(null);
  let ns = Array(seats).fill(null);
  for (const [i, e] of entries.entries()) {
    if (e.kind === 'client_seed') given[e.seat] = e.seed;
    if (e.kind === 'mix') {
      ns = [...e.round_nonces];
      cs = cs.map((c, s) => given[s] ?? c);
    }
    if (e.kind === 'server_seed' && typeof e.next === 'string') stretch += 1;
    if (e.kind !== 'draw') continue;
    const seed = seeds[stretch];
    if (seed === undefined) continue;
    const n = BigInt(e.draw.n);
    const limit = ((1n << 64n) / n) * n;
    const head = [Buffer.from('facedown/draw/v1'), Buffer.from([seats >> 8, seats & 255])];
    for (const x of [...cs, ...ns]) head.push(x === null ? Buffer.from([0]) : Buffer.concat([Buffer.from([1]), Buffer.from(x, 'hex')]));
    for (let retry = 0; ; retry++) {
      const tail = Buffer.alloc(12);
      tail.writeBigUInt64BE(BigInt(e.draw.counter), 0);
      tail.writeUInt32BE(retry, 8);
      const x = createHmac('sha256', seed).update(Buffer.concat([...head, tail])).digest().readBigUInt64BE(0);
      if (x >= limit) continue;
      if (String(x % n) !== e.draw.value || retry !== e.draw.retries) return i + 1;
      break;
    }
  }
  return -1;
}

/** @param {string} text */
const entriesOf = (text) => text.trimEnd().split('\n').map((l) => JSON.parse(l).entry);

for (const { name, text } of logs) {
  for (const p of providers) {
    test(`${name} verifies (${p.name}), with the Rust verifier's counts`, async () => {
      const r = await verifyLog(text, { provider: p });
      assert.equal(r.mismatch, null, JSON.stringify(r.mismatch));
      assert.ok(r.ok);
      const lines = text.trimEnd().split('\n');
      assert.equal(r.entries, lines.length);
      assert.equal(r.head, JSON.parse(lines[lines.length - 1]).hash);
      assert.equal(r.hashes.length, lines.length);
      const kinds = lines.map((l) => JSON.parse(l).entry.kind);
      assert.equal(r.draws, kinds.filter((k) => k === 'draw').length);
      assert.equal(r.commitments, kinds.filter((k) => k === 'opened').length);
      assert.equal(r.mixes, kinds.filter((k) => k === 'mix').length);
      assert.equal(r.seedRevealed, kinds.includes('server_seed'));
      // As bytes, with Windows line ends, and with trailing empty lines, the same.
      assert.ok((await verifyLog(new TextEncoder().encode(text), { provider: p })).ok);
      assert.ok((await verifyLog(text.replaceAll('\n', '\r\n'), { provider: p })).ok);
      assert.ok((await verifyLog(text + '\n\n', { provider: p })).ok);
    });
  }

  test(`${name}: one changed byte in a name, a die, a nonce, a narration line, a hash, the seed is named at its line`, async () => {
    const bytes = Buffer.from(text, 'utf8');
    const needles = {
      name: '"name":"',
      die: '"value":"',
      nonce: '"nonce":"',
      narration: '"text":"',
      hash: '"hash":"',
      seed: '"revealed":"',
      commitment: '"commitment":"',
      command: '"command":{',
    };
    /** @type {[string, number][]} */
    const positions = [];
    for (const [what, needle] of Object.entries(needles)) {
      const found = [...text.matchAll(new RegExp(needle.replace(/[{}]/g, '\\$&'), 'g'))];
      if (what === 'die' && !text.includes('"kind":"draw"')) continue; // Iron Triangle rarely draws
      assert.ok(found.length > 0 || what === 'narration' || what === 'command', `${name} holds ${needle}`);
      for (const m of found.slice(0, 5)) {
        const offset = Buffer.byteLength(text.slice(0, /** @type {number} */ (m.index) + needle.length));
        positions.push([what, offset]);
      }
    }
    const step = Math.max(1, Math.floor(bytes.length / Math.min(CASES, 400)));
    for (let at = 0; at < bytes.length; at += step) positions.push(['anywhere', at]);
    let checked = 0;
    for (const [what, at] of positions) {
      const bad = changed(bytes, at);
      if (!bad) continue;
      const r = await verifyLog(bad, { provider: pure });
      const line = bytes.subarray(0, at).toString('utf8').split('\n').length;
      assert.equal(r.ok, false, `${what}: a change at byte ${at} went unnoticed`);
      assert.equal(r.mismatch?.line, line, `${what} at byte ${at}: ${JSON.stringify(r.mismatch)}`);
      checked++;
    }
    assert.ok(checked >= 20, `${checked} changes checked`);
    // A byte that is not UTF-8 is named too.
    const broken = Buffer.from(bytes);
    const at = bytes.indexOf('"text":"') > 0 ? bytes.indexOf('"text":"') + 8 : bytes.length >> 1;
    broken[at] = 0xff;
    const r = await verifyLog(broken, { provider: pure });
    assert.equal(r.mismatch?.line, lineOf(text, bytes.subarray(0, at).toString('utf8').length));
    assert.equal(r.mismatch?.what, 'not UTF-8');
  });

  test(`${name}: a dropped line and two lines swapped are named`, async () => {
    const lines = text.trimEnd().split('\n');
    for (const k of [1, Math.floor(lines.length / 2), lines.length - 2]) {
      if (k < 1 || k >= lines.length - 1) continue;
      const dropped = [...lines.slice(0, k), ...lines.slice(k + 1)].join('\n') + '\n';
      const r = await verifyLog(dropped, { provider: pure });
      assert.equal(r.mismatch?.line, k + 1, `line ${k + 1} dropped: ${JSON.stringify(r.mismatch)}`);
      const swapped = [...lines];
      [swapped[k], swapped[k + 1]] = [swapped[k + 1], swapped[k]];
      const s = await verifyLog(swapped.join('\n') + '\n', { provider: pure });
      assert.equal(s.mismatch?.line, k + 1, `lines ${k + 1} and ${k + 2} swapped: ${JSON.stringify(s.mismatch)}`);
    }
    const first = await verifyLog(lines.slice(1).join('\n'), { provider: pure });
    assert.equal(first.ok, false, 'a log without its table entry');
    assert.equal((await verifyLog('', { provider: pure })).mismatch?.line, 1, 'an empty log');
  });

  test(`${name}: changes re-chained with fresh hashes are caught by the commitments, seeds and draws`, async () => {
    const entries = entriesOf(text);
    const at = (/** @type {string} */ kind) => entries.findIndex((e) => e.kind === kind);
    assert.ok((await verifyLog(rechain(entries), { provider: pure })).ok, 'the re-chained log verifies');
    assert.equal(firstWrongDraw(entries), -1, 'every die of the untouched log re-derives in the third implementation too');
    /** @type {[string, (e: any[]) => number | null][]} */
    const cases = [
      ['a reveal with another nonce', (e) => {
        const i = at('opened');
        e[i].nonce = e[i].nonce.replace(/^./, (c) => (c === '0' ? '1' : '0'));
        return i + 1;
      }],
      ['a revealed command changed', (e) => {
        const i = at('opened');
        e[i].command = { changed: e[i].command };
        return i + 1;
      }],
      ['a commitment changed', (e) => {
        const i = at('bound');
        const c = e[i].commitments[0];
        c.commitment = c.commitment.replace(/^./, (x) => (x === '0' ? '1' : '0'));
        // the reveal that opened it now opens nothing
        return e.findIndex((x, j) => j > i && x.kind === 'opened' && x.seat === c.seat) + 1;
      }],
      ['the server seed changed', (e) => {
        const i = at('server_seed');
        e[i].revealed = e[i].revealed.replace(/^./, (c) => (c === '0' ? '1' : '0'));
        return i + 1;
      }],
      ["the table's seed commitment changed", (e) => {
        e[0].server_seed_commitment = e[at('server_seed')].revealed;
        return at('server_seed') + 1;
      }],
      ['a die changed', (e) => {
        const i = e.findIndex((x) => x.kind === 'draw' && x.draw.n !== '1');
        if (i < 0) return null;
        const d = e[i].draw;
        d.value = String((BigInt(d.value) + 1n) % BigInt(d.n));
        return i + 1;
      }],
      ['a draw dropped', (e) => {
        const i = at('draw');
        if (i < 0 || e.slice(i + 1).every((x) => x.kind !== 'draw')) return null;
        const next = e.findIndex((x, j) => j > i && x.kind === 'draw');
        e.splice(i, 1);
        e.forEach((x, j) => {
          if (j > 0) x.seq = j;
        });
        return next; // the next draw, now one line up
      }],
      ['a mix with a nonce no one revealed', (e) => {
        const i = at('mix');
        const s = e[i].round_nonces.findIndex((/** @type {any} */ x) => x !== null);
        e[i].round_nonces[s] = 'ab'.repeat(32);
        // named at the mix once its round closes (the next `bound`, or the end), unless a draw
        // that the changed nonce changes comes first
        const nextBound = e.findIndex((x, j) => j > i && x.kind === 'bound');
        const draw = firstWrongDraw(e);
        return draw > 0 && (nextBound < 0 || draw <= nextBound) ? draw : i + 1;
      }],
      ['a client seed changed', (e) => {
        const i = at('client_seed');
        e[i].seed = e[i].seed.replace(/^./, (c) => (c === '0' ? '1' : '0'));
        // named at the first die it changes (none, if the seed never took effect before a draw
        // or every die happened to fall the same)
        const draw = firstWrongDraw(e);
        return draw > 0 ? draw : null;
      }],
    ];
    let caught = 0;
    for (const [what, change] of cases) {
      const copy = structuredClone(entries);
      const line = change(copy);
      if (line === null) continue;
      const r = await verifyLog(rechain(copy), { provider: pure });
      assert.equal(r.ok, false, `${what} went unnoticed`);
      assert.equal(r.mismatch?.line, line, `${what}: ${JSON.stringify(r.mismatch)}`);
      caught++;
    }
    assert.ok(caught >= 6, `${caught} re-chained changes`);
  });

  test(`${name}: the page's ledger checks every die once the seed is revealed`, async () => {
    const entries = entriesOf(text);
    const ledger = new DrawLedger(entries[0].seats.length, entries[0].server_seed_commitment);
    for (const e of entries.slice(1)) ledger.take(e);
    const draws = entries.filter((e) => e.kind === 'draw').length;
    assert.equal(ledger.draws.length, draws);
    const result = await ledger.check(pure);
    assert.deepEqual(result, { seed: 'ok', checked: draws, bad: 0 });
    assert.ok(ledger.draws.every((d) => d.status === 'ok'));
    // Before the reveal nothing is checked; with a wrong seed every die is marked bad.
    const early = new DrawLedger(entries[0].seats.length, entries[0].server_seed_commitment);
    for (const e of entries.slice(1).filter((e) => e.kind !== 'server_seed')) early.take(e);
    assert.deepEqual(await early.check(pure), { seed: 'unrevealed', checked: 0, bad: 0 });
    early.take({ kind: 'server_seed', revealed: 'ab'.repeat(32) });
    assert.deepEqual(await early.check(pure), { seed: 'bad', checked: draws, bad: draws });
    const changedDie = entries.findIndex((e) => e.kind === 'draw' && e.draw.n !== '1');
    if (changedDie > 0) {
      const lied = new DrawLedger(entries[0].seats.length, entries[0].server_seed_commitment);
      const copy = structuredClone(entries);
      const d = copy[changedDie].draw;
      d.value = String((BigInt(d.value) + 1n) % BigInt(d.n));
      for (const e of copy.slice(1)) lied.take(e);
      const r = await lied.check(pure);
      assert.equal(r.seed, 'ok');
      assert.equal(r.bad, 1, 'the changed die, and only it, is marked bad');
      assert.match(String(lied.draws.find((x) => x.status === 'bad')?.what), /recorded/);
    }
  });
}

test('a rotated seed (docs/fairness/rotation): a Rest Scene rolled after the end verifies, and each seed is bound by the commitment in force', async () => {
  const text = readFileSync(path.join(root, 'docs/fairness/rotation/inciting-incident-rest.jsonl'), 'utf8');
  const entries = entriesOf(text);
  const reveals = entries.flatMap((e, i) => (e.kind === 'server_seed' ? [i] : []));
  assert.equal(reveals.length, 2, 'the end reveals the first seed, the Rest Scene the rotated one');
  assert.equal(entries[reveals[0]].next, entries[reveals[1]].commitment, 'the first reveal committed the second seed');
  assert.ok(entries.slice(reveals[0]).some((e) => e.kind === 'draw'), 'the Rest Scene rolled after the first reveal');
  for (const p of providers) {
    const r = await verifyLog(text, { provider: p });
    assert.equal(r.mismatch, null, JSON.stringify(r.mismatch));
    assert.ok(r.seedRevealed);
    assert.equal(r.draws, entries.filter((e) => e.kind === 'draw').length);
  }
  assert.equal(firstWrongDraw(entries), -1);
  // The ledger a page keeps checks the dice after the rotation with the second seed.
  const ledger = new DrawLedger(entries[0].seats.length, entries[0].server_seed_commitment);
  for (const e of entries.slice(1)) ledger.take(e);
  assert.deepEqual(await ledger.check(pure), { seed: 'ok', checked: entries.filter((e) => e.kind === 'draw').length, bad: 0 });
  // Each change, chained afresh, is named at its line.
  const changes = [
    ['the second seed replaced by the first', (/** @type {any[]} */ e) => { e[reveals[1]].revealed = e[reveals[0]].revealed; return reveals[1] + 1; }],
    ['the next commitment changed', (/** @type {any[]} */ e) => { e[reveals[0]].next = e[reveals[0]].commitment; return reveals[1] + 1; }],
    // (a reveal with no next ends the draws: the first draw after it is the first thing wrong,
    // before the second reveal)
    ['the rotation dropped', (/** @type {any[]} */ e) => { delete e[reveals[0]].next; return e.findIndex((x, i) => i > reveals[0] && x.kind === 'draw') + 1; }],
  ];
  for (const [what, change] of changes) {
    const copy = structuredClone(entries);
    const line = /** @type {(e: any[]) => number} */ (change)(copy);
    const r = await verifyLog(rechain(copy), { provider: pure });
    assert.equal(r.mismatch?.line, line, `${what}: ${JSON.stringify(r.mismatch)}`);
  }
});

test('a seat that lost its secret: its missed reveal with the reason verifies; a fault the protocol does not name does not', async () => {
  // Written by crates/server/tests/sealed.rs (WRITE_SECRET_LOST_LOG): a sealed duel where the GM
  // takes back a lost choice before the binding and gives up its reveal after it.
  const text = readFileSync(path.join(root, 'crates/server/web/test/fixtures/secret-lost.jsonl'), 'utf8');
  const entries = text.trim().split('\n').map((l) => JSON.parse(l).entry);
  const fault = entries.find((e) => e.kind === 'fault');
  assert.deepEqual([fault?.fault, fault?.reason], ['no_reveal', 'secret_lost']);
  const report = await verifyLog(text);
  assert.ok(report.ok, JSON.stringify(report.mismatch));
  const forged = rechain(entries.map((e) => (e.kind === 'fault' ? { ...e, reason: 'dog_ate_it' } : e)));
  const bad = await verifyLog(forged);
  assert.ok(!bad.ok);
  assert.equal(bad.mismatch?.line, entries.indexOf(fault) + 1);
  assert.match(bad.mismatch?.what ?? '', /none the protocol names/);
});
