// @ts-check
/** @file Issue 34, Lobby: the home page lists the tables this browser holds links for, with
 * where each stands (your turn / waiting / over), and resumes them; remembering links is
 * opt-in (off by default), and turning it off forgets them. */

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { openPage, serverAndBrowser, waitFor } from './lib.mjs';

const env = serverAndBrowser();

describe('your tables on the home page', () => {
  test('remembered only once chosen, listed with their standing, resumed, forgotten', async () => {
    const created = await env.server.createTable({ system: 'iron-triangle', setup: { example: 'duel' } });
    const home = `${env.server.base}/`;
    // Off by default: a seat opened first is not remembered.
    const p = await openPage(env.browser, created.seats.ada, 'ada');
    try {
      await waitFor(() => p.rec.you !== null, 20_000, "Ada's welcome");
      await p.page.goto(home, { waitUntil: 'load' });
      const box = p.page.locator('#remember-links');
      await box.waitFor({ timeout: 15_000 });
      assert.equal(await box.isChecked(), false, 'remembering is off by default');
      assert.equal(await p.page.locator('[data-testid="lobby-table"]').count(), 0, 'nothing remembered');
      assert.equal(await p.page.evaluate(() => localStorage.getItem('facedown.lobby.links')), null);
      // Turned on: the seats opened from now on are listed.
      await box.check();
      await p.page.goto(created.seats.ada, { waitUntil: 'load' });
      await waitFor(() => p.rec.frames.filter((f) => f.msg?.type === 'welcome').length >= 2, 20_000, "Ada's second welcome");
      // (Through the home page: from one link of a table to another is only a new fragment.)
      await p.page.goto(home, { waitUntil: 'load' });
      await p.page.goto(created.spectator, { waitUntil: 'load' });
      await waitFor(() => p.rec.frames.filter((f) => f.msg?.type === 'welcome').length >= 3, 20_000, 'the spectators\u2019 welcome');
      await p.page.goto(home, { waitUntil: 'load' });
      const rows = p.page.locator('[data-testid="lobby-table"]');
      await waitFor(async () => (await rows.count()) === 2, 15_000, 'two tables listed');
      const standings = p.page.locator('[data-testid="lobby-standing"]');
      await waitFor(async () => !(await standings.allInnerTexts()).some((t) => t.startsWith('Asking')), 15_000, 'the standings');
      const texts = await rows.allInnerTexts();
      assert.match(texts[0], new RegExp(`^Table ${created.table} \\(Iron Triangle\\), spectators: Waiting`), texts[0]);
      assert.match(texts[1], new RegExp(`^Table ${created.table} \\(Iron Triangle\\), seat ada: Your turn`), texts[1]);
      // The status requests carry the token in a header, never in the address.
      assert.ok(!p.rec.requests.some((u) => u.includes('/status') && u.includes(created.seats.ada.split('#')[1])), 'no token in a URL');
      // Resumed: Ada's seat again.
      await p.page.locator('[data-testid="lobby-resume"]').nth(1).click();
      await p.page.waitForURL((u) => u.pathname === `/t/${created.table}`, { timeout: 15_000 });
      await waitFor(() => p.rec.frames.filter((f) => f.msg?.type === 'welcome' && f.msg.you?.kind === 'seat').length >= 2, 20_000, 'resumed');
      // Forget one; then turning remembering off forgets them all.
      await p.page.goto(home, { waitUntil: 'load' });
      await waitFor(async () => (await rows.count()) === 2, 15_000, 'still two');
      await p.page.getByRole('button', { name: `Forget table ${created.table}, spectators` }).click();
      await waitFor(async () => (await rows.count()) === 1, 15_000, 'one forgotten');
      await p.page.locator('#remember-links').uncheck();
      await waitFor(async () => (await rows.count()) === 0, 15_000, 'all forgotten');
      assert.equal(await p.page.evaluate(() => localStorage.getItem('facedown.lobby.links')), null, 'nothing left in storage');
      assert.deepEqual(p.rec.errors, [], 'no page errors');
    } finally {
      await p.context.close();
    }
  });
});
