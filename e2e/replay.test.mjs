// @ts-check
/** @file Replay (issue 34 §2): a finished game stepped through as the cards were played. From
 * the table's ending ("Replay") in the browser that played it, the log is "verified" (its head
 * is one this browser was shown); the same log dropped on the home page of a fresh browser
 * profile is only "consistent". Stepped with the keyboard; axe finds no serious or critical
 * violation on the replay.
 *
 * `E2E_SEED` replays a run's clicks.
 */

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, test } from 'node:test';
import { openPage, serverAndBrowser, tokenOf, waitFor } from './lib.mjs';
import { BUTTONS, nextClick, rng } from './play.mjs';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const env = serverAndBrowser();
const SEED = Number(process.env.E2E_SEED ?? Date.now() % 1_000_000);

/**
 * The serious and critical violations axe finds on `page`.
 * @param {import('playwright-core').Page} page
 */
async function violations(page) {
  await page.evaluate(AXE);
  const found = await page.evaluate(async () => {
    // @ts-ignore axe is what the evaluated source defines.
    const result = await window.axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((/** @type {any} */ v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.slice(0, 3).map((/** @type {any} */ n) => n.target.join(' ')) }));
  });
  return found.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.impact} ${v.id}: ${v.nodes.join(' | ')}`);
}

/**
 * Steps a shown replay with the keyboard: End, Home, → and ←; checks the counter and the end.
 * @param {import('playwright-core').Page} page
 */
async function stepThrough(page) {
  const replay = page.locator('[data-testid="replay"]');
  const counter = replay.locator('[data-testid="replay-counter"]');
  const of = /^Step 1 of (\d+)$/.exec(await counter.innerText());
  assert.ok(of, `the first step: ${await counter.innerText()}`);
  const n = Number(of[1]);
  assert.ok(n > 2, `${n} steps`);
  await replay.locator('#replay-h').focus();
  await page.keyboard.press('End');
  assert.equal(await counter.innerText(), `Step ${n} of ${n}`);
  assert.match(await replay.locator('[data-testid="replay-ending"]').innerText(), /\bwins?\b|won|lost|nobody/);
  await page.keyboard.press('Home');
  assert.equal(await counter.innerText(), `Step 1 of ${n}`);
  await page.keyboard.press('ArrowRight');
  assert.equal(await counter.innerText(), `Step 2 of ${n}`);
  await page.keyboard.press('ArrowLeft');
  assert.equal(await counter.innerText(), `Step 1 of ${n}`);
  // the buttons are the keyboard's too
  await replay.locator('[data-testid="replay-next"]').focus();
  await page.keyboard.press('Enter');
  assert.equal(await counter.innerText(), `Step 2 of ${n}`);
  // the table at this step, drawn by the system's module, opened for axe too
  const view = replay.locator('.replay-view > summary');
  if ((await view.count()) > 0) await view.click();
  const lines = await replay.locator('[data-testid="replay-step"]').innerText();
  assert.doesNotMatch(lines, /§/, 'no section references');
}

describe('replay', () => {
  test('a finished duel replays from its ending ("verified") and from its file in a fresh profile ("consistent")', async () => {
    const created = await env.server.createTable({
      system: 'iron-triangle',
      setup: { example: 'duel' },
      seats: { gm: { kind: 'bot', bot: 'greedy' } },
      options: { think_ms: 0 },
    });
    const ada = await openPage(env.browser, created.seats.ada, 'ada', { width: 390, height: 844 });
    let log = '';
    try {
      await waitFor(() => ada.rec.you !== null, 20_000, "Ada's welcome");
      const random = rng(SEED);
      const deadline = Date.now() + 180_000;
      while (!ada.rec.change?.over) {
        assert.ok(Date.now() < deadline, `the duel ends (seed ${SEED})`);
        const c = ada.rec.change;
        if (c?.prompt && (c.awaiting ?? []).includes(ada.rec.you?.seat)) {
          const pick = await nextClick(ada.page, random());
          if (pick !== null) {
            await ada.page.locator(BUTTONS).nth(pick.index).click({ timeout: 3_000 }).catch(() => {});
            continue;
          }
        }
        await new Promise((r) => setTimeout(r, 60));
      }
      const button = ada.page.locator('[data-testid="replay-button"]');
      await button.waitFor({ timeout: 15_000 });
      await button.click();
      const trust = ada.page.locator('[data-testid="replay-trust"]');
      await trust.waitFor({ timeout: 30_000 });
      assert.match(await trust.innerText(), /^✓ Verified/, 'the browser that played it saw its head');
      await stepThrough(ada.page);
      assert.deepEqual(await violations(ada.page), [], 'axe on the replay at the table');
      assert.deepEqual(ada.rec.errors, [], 'no script error');
      const table = new URL(created.seats.ada).pathname.split('/').pop();
      const r = await env.server.api('GET', `/api/tables/${table}/log?format=fair`, { token: tokenOf(created.seats.ada) });
      assert.equal(r.status, 200);
      log = typeof r.body === 'string' ? r.body : '';
      assert.ok(log.length > 0);
    } finally {
      await ada.context.close().catch(() => {});
    }
    // A fresh profile (another browser context): the home page's drop zone.
    const home = await openPage(env.browser, `${env.server.base}/`, 'home', { width: 390, height: 844 });
    try {
      const input = home.page.locator('[data-testid="replay-file"]');
      await input.waitFor({ timeout: 15_000 });
      await input.setInputFiles({ name: 'table.jsonl', mimeType: 'application/jsonl', buffer: Buffer.from(log) });
      const trust = home.page.locator('[data-testid="replay-trust"]');
      await trust.waitFor({ timeout: 30_000 });
      assert.match(await trust.innerText(), /^Consistent/, 'a browser that never saw it');
      await stepThrough(home.page);
      assert.deepEqual(await violations(home.page), [], 'axe on the replay on the home page');
      // A log with a byte changed is refused, saying so.
      const tampered = log.replace('"seq":', '"seq": ');
      await input.setInputFiles({ name: 'bad.jsonl', mimeType: 'application/jsonl', buffer: Buffer.from(tampered) });
      const refused = home.page.locator('[data-testid="replay-refused"]');
      await refused.waitFor({ timeout: 30_000 });
      assert.match(await refused.innerText(), /does not check/);
      assert.deepEqual(home.rec.errors.filter((e) => !/Failed to load resource/.test(e)), [], 'no script error');
    } finally {
      await home.context.close().catch(() => {});
    }
  });
});
