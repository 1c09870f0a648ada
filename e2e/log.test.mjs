// @ts-check
/** @file The log's rolls (issue 34 §2, the log): in an Inciting Incident scene with verifiable
 * draws, each roll's dice are on the roll's own line — its verifiable draws named there — not
 * on lines of draws; every attack's result and every round's are said where they happen. */

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { openPage, serverAndBrowser, waitFor } from './lib.mjs';

const env = serverAndBrowser();

describe('the log of a scene', () => {
  test("each roll's draws on the roll's line; each attack's and round's result said", async () => {
    const created = await env.server.createTable({
      system: 'inciting-incident',
      setup: { example: 'river-fight' },
      seats: { gm: { kind: 'bot', bot: 'random' }, bren: { kind: 'bot', bot: 'random' }, mira: { kind: 'bot', bot: 'random' } },
      options: { think_ms: 0 },
    });
    const watcher = await openPage(env.browser, created.spectator, 'spectator');
    try {
      await waitFor(() => Boolean(watcher.rec.change?.over), 60_000, 'the bots end the scene');
      const log = watcher.page.locator('ol.log');
      await waitFor(async () => (await log.locator('li.group').count()) > 1, 15_000, 'the log has its rounds');
      const lines = (await log.locator('li.item').allTextContents()).map((l) => l.trim());
      const draws = watcher.rec.frames.flatMap((f) => f.msg?.updates ?? []).filter((u) => u.kind === 'draw').length;
      assert.ok(draws > 0, 'the scene drew dice');
      // a roll's line: its dice (d6…) and total, as the text or the system module draws it
      const rolls = lines.filter((l) => /\bd\d+/.test(l) && /= -?\d+/.test(l) && !l.startsWith('Dice drawn'));
      assert.ok(rolls.length > 0, 'rolls are logged');
      for (const r of rolls) assert.match(r, /drawn verifiably: #\d+/, `a roll names its draws: ${r}`);
      const runs = lines.filter((l) => l.startsWith('Dice drawn'));
      assert.ok(runs.length <= 3, `draws of no roll only (a lot): ${runs.length} lines for ${draws} draws`);
      const ends = lines.filter((l) => /^Round \d+ ends\./.test(l));
      assert.ok(ends.length > 0 && ends.every((l) => /Flow of Battle: |No Duel is being fought/.test(l)), `each round's result: ${ends[0]}`);
      const attacks = lines.filter((l) => /: (Regular|Decisive) Attack/.test(l) && !l.startsWith('Declarations'));
      const results = lines.filter((l) => /\bResult: /.test(l));
      assert.ok(attacks.length === 0 || results.length > 0, `attacks have results: ${attacks.length} attacks, ${results.length} results`);
      assert.deepEqual(watcher.rec.errors, [], 'no script error');
    } finally {
      await watcher.context.close().catch(() => {});
    }
  });
});
