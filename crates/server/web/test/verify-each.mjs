// Verifies every *.jsonl log in a directory with the browser's verifier (pure JavaScript path)
// and prints one JSON line per log: {"file", "ok", "line", "what"}. crates/server/tests/web_verifier.rs
// compares these with the Rust verifier's verdicts on the same (tampered) logs.
//
//   node crates/server/web/test/verify-each.mjs DIR
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { verifyLog } from '../js/fairness.js';
import { pure } from '../js/sha256.js';

const dir = process.argv[2];
if (!dir) {
  console.error('usage: node verify-each.mjs DIR');
  process.exit(2);
}
for (const file of readdirSync(dir).filter((f) => f.endsWith('.jsonl')).sort()) {
  const r = await verifyLog(readFileSync(path.join(dir, file)), { provider: pure });
  console.log(JSON.stringify({ file, ok: r.ok, line: r.mismatch?.line ?? null, what: r.mismatch?.what ?? null }));
}
