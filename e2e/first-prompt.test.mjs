// @ts-check
/** @file What a seat's page costs before it shows what the server awaits of it (issue 34's
 * bar): for each system, a seat's page opened cold (a fresh browser context) at a phone's
 * size, five times. The bytes loaded (as sent, compressed: the navigation's and every
 * resource's transfer size, up to the moment the prompt is drawn) must stay within 150 KB;
 * the time from navigation to that moment is printed, median of 5, for docs/performance.md,
 * and fails the test only above 3 s (speed targets are not timed tests).
 */

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { TABLES, openPage, serverAndBrowser, waitFor } from './lib.mjs';

const PHONE = { width: 390, height: 844 };
const MAX_BYTES = 150 * 1024;
const MAX_MS = 3000;
const RUNS = 5;

const env = serverAndBrowser();

/** @param {number[]} xs */
function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

describe('a seat page before its prompt', () => {
  for (const t of TABLES) {
    test(`${t.system}: at most 150 KB, and the time, median of ${RUNS}`, async () => {
      /** @type {Record<string, {kind: string, bot?: string}>} */
      const seats = {};
      for (const [name, bot] of Object.entries(t.bots)) seats[name] = { kind: 'bot', bot };
      const created = await env.server.createTable({
        system: t.system,
        setup: { example: t.example },
        seats,
        options: { think_ms: 0 },
      });
      // The seat the table awaits first, as the spectators' welcome says.
      const probe = await openPage(env.browser, created.spectator, `${t.system} spectator`, PHONE);
      await waitFor(() => probe.rec.change !== null, 15_000, 'the welcome');
      const welcome = probe.rec.frames.find((f) => f.msg?.type === 'welcome')?.msg;
      await probe.context.close();
      const awaited = welcome.seats.find((/** @type {any} */ s) => welcome.awaiting.includes(s.seat));
      assert.ok(awaited, `${t.system}: a seat is awaited (${JSON.stringify(welcome.awaiting)})`);
      const [name, link] = /** @type {[string, string]} */ (
        Object.entries(created.seats).find(([n]) => n === awaited.name)
      );
      const times = [];
      const sizes = [];
      for (let run = 0; run < RUNS; run += 1) {
        const { context, page } = await openPage(env.browser, 'about:blank', `${t.system} ${name}`, PHONE);
        try {
          await page.goto(link, { waitUntil: 'commit', timeout: 30_000 });
          await page.locator('.sys-prompt').first().waitFor({ timeout: 15_000 });
          const at = await page.evaluate(() => {
            const prompt = document.querySelector('.sys-prompt');
            // The first moment the prompt was in the page: the observer below is not
            // needed, the locator resolved once it was there; performance.now() bounds it.
            const now = performance.now();
            const nav = /** @type {PerformanceNavigationTiming} */ (performance.getEntriesByType('navigation')[0]);
            let bytes = nav ? nav.transferSize : 0;
            for (const r of /** @type {PerformanceResourceTiming[]} */ (performance.getEntriesByType('resource'))) {
              if (r.responseEnd <= now) bytes += r.transferSize;
            }
            return { ms: now, bytes, shown: prompt !== null };
          });
          assert.ok(at.shown, `${t.system}: the prompt is shown`);
          times.push(at.ms);
          sizes.push(at.bytes);
        } finally {
          await context.close();
        }
      }
      const ms = median(times);
      const bytes = Math.max(...sizes);
      console.log(`first prompt: ${t.system} seat ${name}: median ${ms.toFixed(0)} ms of ${times.map((x) => x.toFixed(0)).join(', ')}; ${(bytes / 1024).toFixed(1)} KB at most`);
      assert.ok(bytes <= MAX_BYTES, `${t.system}: ${bytes} bytes before the prompt, at most ${MAX_BYTES}`);
      assert.ok(ms <= MAX_MS, `${t.system}: ${ms} ms to the prompt (median), at most ${MAX_MS}`);
    });
  }
});
