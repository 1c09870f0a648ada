// @ts-check
/** @file Accessibility (issue 34): axe-core, run in Chromium on every page — the home page, and
 * for each system each seat's page, the GM screen and the spectators' view, at a phone's width
 * and a laptop's — finds no serious or critical violation. axe-core is evaluated through the
 * DevTools protocol, so the pages' Content-Security-Policy stays as served.
 */

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, test } from 'node:test';
import { TABLES, openPage, serverAndBrowser, waitFor } from './lib.mjs';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

const PHONE = { width: 390, height: 844 };
const LAPTOP = { width: 1280, height: 800 };

const env = serverAndBrowser();

/**
 * The serious and critical violations axe finds on `page`, one line each.
 * @param {import('playwright-core').Page} page
 */
async function violations(page) {
  await page.evaluate(AXE);
  const found = await page.evaluate(async () => {
    // @ts-ignore axe is what the evaluated source defines.
    const result = await window.axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((/** @type {any} */ v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.slice(0, 3).map((/** @type {any} */ n) => `${n.target.join(' ')}: ${n.failureSummary}`),
    }));
  });
  return found
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id} (${v.help}): ${v.nodes.join(' | ')}`);
}

/**
 * Opens `url` at both widths and checks it.
 * @param {string} url
 * @param {string} name
 * @param {boolean} table whether it is a table page (waits for its welcome and prompt)
 */
async function check(url, name, table) {
  for (const viewport of [PHONE, LAPTOP]) {
    const { context, page, rec } = await openPage(env.browser, url, name, viewport);
    try {
      if (table) await waitFor(() => rec.you !== null, 15_000, `${name}: the welcome`);
      await page.waitForLoadState('networkidle', { timeout: 15_000 });
      await rec.settle();
      assert.deepEqual(await violations(page), [], `${name} at ${viewport.width} px`);
    } finally {
      await context.close();
    }
  }
}

describe('axe-core finds no serious or critical violation', () => {
  test('on the home page', async () => {
    await check(`${env.server.base}/`, 'home', false);
  });
  for (const t of TABLES) {
    test(`on every page of ${t.system}`, async () => {
      /** @type {Record<string, {kind: string, bot?: string}>} */
      const seats = {};
      for (const [name, bot] of Object.entries(t.bots)) seats[name] = { kind: 'bot', bot };
      const created = await env.server.createTable({
        system: t.system,
        setup: { example: t.example },
        seats,
        options: { think_ms: 0 },
      });
      for (const [name, link] of Object.entries(created.seats)) {
        if (name in t.bots) continue;
        await check(/** @type {string} */ (link), `${t.system} seat ${name}`, true);
      }
      await check(created.gm, `${t.system} GM`, true);
      await check(created.spectator, `${t.system} spectator`, true);
    });
  }
});
