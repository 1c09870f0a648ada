// @ts-check
/** @file The table's chat (issue 34): a line typed on a seat's page reaches the GM screen and
 * the spectators' view, as text; the spectators have no box to write in; the GM mutes the seat
 * and its next line is refused with the rule's words.
 */

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { openPage, serverAndBrowser, waitFor } from './lib.mjs';

const PHONE = { width: 390, height: 844 };
const env = serverAndBrowser();

describe('the chat', () => {
  test('a line reaches every page; the GM mutes a seat', async () => {
    const created = await env.server.createTable({
      system: 'nodice',
      setup: { example: 'pc-vs-bandit' },
      seats: {},
      options: { think_ms: 0 },
    });
    const seatName = Object.keys(created.seats)[0];
    const seat = await openPage(env.browser, created.seats[seatName], seatName, PHONE);
    const gm = await openPage(env.browser, created.gm, 'gm', PHONE);
    const watcher = await openPage(env.browser, created.spectator, 'spectator', PHONE);
    try {
      await waitFor(() => seat.rec.you !== null && gm.rec.you !== null && watcher.rec.you !== null, 15_000, 'the welcomes');
      assert.equal(await watcher.page.getByLabel('Say to the table').isVisible(), false, 'a spectator only reads');
      await seat.page.getByLabel('Say to the table').fill('<i>good luck</i>');
      await seat.page.getByRole('button', { name: 'Send' }).click();
      for (const p of [watcher, gm]) {
        await waitFor(async () => (await p.page.locator('.chat-lines').innerText()).includes(`${seatName}: <i>good luck</i>`), 15_000, `the line on ${p.rec.name}`);
        assert.equal(await p.page.locator('.chat-lines i').count(), 0, 'a line is text, never markup');
      }
      await gm.page.getByRole('button', { name: `Mute ${seatName}` }).click();
      await waitFor(async () => (await gm.page.getByRole('button', { name: `Let ${seatName} chat` }).count()) === 1, 15_000, 'the mute');
      await seat.page.getByLabel('Say to the table').fill('hello?');
      await seat.page.getByRole('button', { name: 'Send' }).click();
      await waitFor(async () => (await seat.page.locator('body').innerText()).includes('muted this seat'), 15_000, 'the refusal');
      assert.ok(!(await watcher.page.locator('.chat-lines').innerText()).includes('hello?'), 'a muted line reaches nobody');
      assert.deepEqual([...seat.rec.errors, ...gm.rec.errors, ...watcher.rec.errors], [], 'no script error');
    } finally {
      for (const p of [seat, gm, watcher]) await p.context.close();
    }
  });
});
