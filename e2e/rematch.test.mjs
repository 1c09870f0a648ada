// @ts-check
/** @file Issue 34, Rematch and the GM screen when the server is gone: a short game played to
 * its end, the GM's "Rematch" on the ending, the player's "Play again" that follows to the new
 * table's seat (the spectator offered nothing); and a GM screen that shows every seat's
 * connection as unknown once the server is down, not "connected".
 *
 * `E2E_SEED` replays a run's clicks.
 */

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { launchBrowser, openPage, startServer, waitFor } from './lib.mjs';
import { BUTTONS, nextClick, rng } from './play.mjs';

const SEED = Number(process.env.E2E_SEED ?? Date.now() % 1_000_000);

/**
 * Clicks in Ada's page (a random usable button while she is asked) until the game is over.
 * @param {{page: import('playwright-core').Page, rec: import('./lib.mjs').Recorder}} p
 * @param {number} ms
 */
async function playToTheEnd(p, ms = 180_000) {
  const random = rng(SEED);
  const deadline = Date.now() + ms;
  while (!p.rec.change?.over) {
    assert.ok(Date.now() < deadline, `the conflict ends within ${ms} ms (seed ${SEED})`);
    const change = p.rec.change;
    if (change?.prompt && (change.awaiting ?? []).includes(p.rec.you?.seat)) {
      const pick = await nextClick(p.page, random());
      if (pick !== null) {
        await p.page.locator(BUTTONS).nth(pick.index).click({ timeout: 3_000 }).catch(() => {});
        continue;
      }
    }
    await new Promise((r) => setTimeout(r, 60));
  }
}

describe('rematch', () => {
  test('the GM rematches a finished duel; the player plays again, the spectator is offered nothing', async () => {
    const server = await startServer();
    const browser = await launchBrowser();
    try {
      const created = await server.createTable({
        system: 'iron-triangle',
        setup: { example: 'duel' },
        seats: { gm: { kind: 'bot', bot: 'greedy' } },
        options: { think_ms: 0 },
      });
      const ada = await openPage(browser, created.seats.ada, 'ada');
      const gm = await openPage(browser, created.gm, 'gm');
      const watching = await openPage(browser, created.spectator, 'spectator');
      await waitFor(() => ada.rec.you !== null && gm.rec.you !== null && watching.rec.you !== null, 20_000, 'the welcomes');
      await playToTheEnd(ada);
      // The GM's ending offers the rematch; the players' and the spectator's do not yet.
      const rematch = gm.page.locator('[data-testid="rematch"]');
      await rematch.waitFor({ timeout: 15_000 });
      assert.equal(await rematch.innerText(), 'Rematch');
      assert.equal(await ada.page.locator('[data-testid="rematch"]').count(), 0, 'a seat asks for no rematch');
      await rematch.click();
      const made = gm.page.locator('[data-testid="rematched"]');
      await made.waitFor({ timeout: 15_000 });
      const told = gm.rec.frames.find((f) => f.msg?.type === 'rematched')?.msg;
      assert.ok(told, 'the GM got the new table');
      assert.deepEqual([told.sent, told.unsent, told.bots], [[0], [], [1]]);
      assert.match(await made.innerText(), new RegExp(`Rematch: table ${told.table}\\.`));
      // Ada's page: "Play again", which follows to her seat at the new table.
      const again = ada.page.locator('[data-testid="play-again"]');
      await again.waitFor({ timeout: 15_000 });
      assert.equal(await again.innerText(), 'Play again');
      const link = ada.rec.frames.find((f) => f.msg?.type === 'rematch')?.msg;
      assert.ok(link && link.table === told.table && link.seat === 0, 'her new seat link came to her page');
      await again.click();
      await ada.page.waitForURL((u) => u.pathname === `/t/${told.table}`, { timeout: 15_000 });
      await waitFor(
        () => ada.rec.frames.some((f) => f.msg?.type === 'welcome' && f.msg.table === told.table && f.msg.you?.seat === 0),
        20_000,
        "Ada's welcome at the new table",
      );
      // The spectator got no link and is offered nothing.
      await new Promise((r) => setTimeout(r, 300));
      assert.ok(!watching.rec.frames.some((f) => f.msg?.type === 'rematch' || f.msg?.type === 'rematched'), 'no link reached the spectator');
      assert.equal(await watching.page.locator('[data-testid="play-again"], [data-testid="rematch"]').count(), 0);
      for (const p of [ada, gm, watching]) assert.deepEqual(p.rec.errors, [], `${p.rec.name}'s page has no errors`);
    } finally {
      await browser.close();
      await server.stop();
    }
  });

  test("the GM screen shows a seat's connection as unknown while the server is down", async () => {
    const server = await startServer();
    const browser = await launchBrowser();
    try {
      const created = await server.createTable({ system: 'iron-triangle', setup: { example: 'duel' } });
      const ada = await openPage(browser, created.seats.ada, 'ada');
      const gm = await openPage(browser, created.gm, 'gm');
      const screen = gm.page.locator('.gm-seats');
      await waitFor(async () => /ada\b[^\n]*, connected/i.test(await screen.innerText().catch(() => '')), 20_000, 'Ada shown connected');
      await server.stop();
      await waitFor(async () => /connection unknown/.test(await screen.innerText()), 20_000, "the seats' connections shown unknown once the server is down");
      const text = await screen.innerText();
      assert.match(text, /connection unknown/, `each seat's connection is unknown: ${text}`);
      assert.doesNotMatch(text, /, connected|not connected/, text);
      await ada.context.close();
    } finally {
      await browser.close();
      await server.stop();
    }
  });
});
