// docs/fairness/vectors.json checked in JavaScript, written from docs/fairness.md alone: a
// second implementation of the specification, and a check of what it says about JavaScript
// (JSON.stringify for strings, the default sort for keys, Math.round, BigInt). Not the
// browser's verifier (issue 17), which this can start from.
//
//   node docs/fairness/check-vectors.mjs docs/fairness/vectors.json
//
// Run by crates/table/tests/fairness_vectors.rs when `node` is on the PATH.
import { readFileSync } from 'node:fs';
import { createHash, createHmac } from 'node:crypto';
const V = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const canon = (v, d = 0) => {
  if (v === null || typeof v === 'boolean') return JSON.stringify(v);
  if (typeof v === 'number') {
    if (!Number.isSafeInteger(v) || Object.is(v, -0)) throw new Error('number');
    return String(v);
  }
  if (typeof v === 'string') return JSON.stringify(v);
  if (d >= 128) throw new Error('deep');
  if (Array.isArray(v)) return '[' + v.map(x => canon(x, d + 1)).join(',') + ']';
  return '{' + Object.keys(v).sort().map(k => JSON.stringify(k) + ':' + canon(v[k], d + 1)).join(',') + '}';
};
const sha = b => createHash('sha256').update(b).digest();
const hex = b => Buffer.from(b).toString('hex');
let ok = 0;
for (const c of V.canonical_json) { const t = canon(JSON.parse(c.input)); if (t !== c.canonical || hex(Buffer.from(t, 'utf8')) !== c.canonical_utf8) throw new Error(c.input); ok++; }
for (const c of V.not_canonical) {
  let refused = false;
  try { const t = canon(JSON.parse(c.input)); refused = t !== c.input.replace(/\s/g, ''); } catch { refused = true; }
  if (!refused) throw new Error('accepted ' + c.input); ok++;
}
for (const c of V.commitments) {
  const t = canon(c.command); if (t !== c.canonical) throw new Error('canon');
  if (hex(sha(Buffer.concat([Buffer.from(t), Buffer.from(c.nonce, 'hex')]))) !== c.commitment) throw new Error('commitment'); ok++;
}
const message = (cs, ns, c, r) => {
  const parts = [Buffer.from('facedown/draw/v1'), Buffer.from([cs.length >> 8, cs.length & 255])];
  for (const x of [...cs, ...ns]) parts.push(x === null ? Buffer.from([0]) : Buffer.concat([Buffer.from([1]), Buffer.from(x, 'hex')]));
  const tail = Buffer.alloc(12); tail.writeBigUInt64BE(c, 0); tail.writeUInt32BE(r, 8); parts.push(tail);
  return Buffer.concat(parts);
};
const draw = (seed, cs, ns, c, n) => {
  const limit = ((1n << 64n) / n) * n;
  for (let r = 0; ; r++) {
    const h = createHmac('sha256', Buffer.from(seed, 'hex')).update(message(cs, ns, c, r)).digest();
    const x = h.readBigUInt64BE(0);
    if (x < limit) return [x % n, r];
  }
};
for (const d of V.draws) {
  const [v, r] = draw(d.server_seed, d.client_seeds, d.round_nonces, BigInt(d.counter), BigInt(d.n));
  if (String(v) !== d.value || r !== d.retries) throw new Error('draw ' + d.counter); ok++;
}
const S = V.sequence; let seed = S.server_seed; let cs = Array(S.seats).fill(null), given = [...cs], ns = [...cs]; let counter = 0n;
const r = n => { const [v] = draw(seed, cs, ns, counter, BigInt(n)); counter++; return Number(v); };
for (const st of S.steps) {
  if (st.add_client_seed) given[st.add_client_seed.seat] = st.add_client_seed.client_seed;
  else if (st.mix) { ns = [...st.mix.round_nonces]; cs = cs.map((c, i) => given[i] ?? c); }
  else if (st.rotate_server_seed) seed = V.seeds.server_seeds.find(s => s.commitment === st.rotate_server_seed.next_commitment).server_seed;
  else {
    let got;
    if (st.draw === 'die') got = st.sides === 0 ? 0 : 1 + r(st.sides);
    else if (st.draw === 'uniform') got = st.low + r(('high_inclusive' in st) ? st.high_inclusive - st.low + 1 : st.high_exclusive - st.low);
    else if (st.draw === 'pick') got = st.items[r(st.items.length)];
    else if (st.draw === 'chance') { const t = Math.round(st.p * 2 ** 32); if (t !== st.threshold) throw new Error('threshold'); got = r(2 ** 32) < t; }
    if (got !== st.result) throw new Error('step ' + JSON.stringify(st));
  }
  if (String(counter) !== st.position_after) throw new Error('position'); ok++;
}
let prev = Buffer.from(V.chain.genesis, 'hex');
V.chain.entries.forEach((e, i) => { const t = canon(e); if (t !== V.chain.canonical[i]) throw new Error('chain canon'); prev = sha(Buffer.concat([prev, Buffer.from(t)])); if (hex(prev) !== V.chain.hashes[i]) throw new Error('chain'); });
if (hex(prev) !== V.chain.head) throw new Error('head'); ok++;
console.log('all', ok, 'vectors check in JavaScript');
