// @ts-check
/** @file Display names (issue 34): a seat's player types its name on its page; every page —
 * the other seat's, the spectators' — shows it beside the seat's name, as text (markup stays
 * text); a name another seat has is refused with the rule's words, and nothing changes.
 */

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { openPage, serverAndBrowser, waitFor } from './lib.mjs';

const PHONE = { width: 390, height: 844 };
const env = serverAndBrowser();

describe('display names', () => {
  test('set on a seat page, shown on every page, refused when taken', async () => {
    const created = await env.server.createTable({
      system: 'iron-triangle',
      setup: { example: 'duel' },
      seats: { gm: { kind: 'bot', bot: 'greedy' } },
      options: { think_ms: 0 },
    });
    const ada = await openPage(env.browser, created.seats.ada, 'ada', PHONE);
    const watcher = await openPage(env.browser, created.spectator, 'spectator', PHONE);
    try {
      await waitFor(() => ada.rec.you !== null && watcher.rec.you !== null, 15_000, 'the welcomes');
      // The header names the seat's character as the book does, then the seat.
      await waitFor(async () => (await ada.page.locator('header .who').innerText()).startsWith('You play Ada (seat ada)'), 15_000, 'the header');
      const field = ada.page.getByLabel('Your name at this table');
      await field.fill('<b>Sam</b>');
      await ada.page.getByRole('button', { name: 'Set name' }).click();
      const seats = watcher.page.locator('.seat-list');
      await waitFor(async () => (await seats.innerText()).includes('ada \u2014 <b>Sam</b>'), 15_000, 'the name on the spectators\u2019 page');
      assert.equal(await watcher.page.locator('.seat-list b').count(), 0, 'a name is text, never markup');
      await waitFor(async () => (await ada.page.locator('.seat-list').innerText()).includes('<b>Sam</b>'), 15_000, 'the name on its own page');
      // The GM seat's own name is taken.
      await field.fill('GM');
      await ada.page.getByRole('button', { name: 'Set name' }).click();
      await waitFor(async () => (await ada.page.locator('body').innerText()).includes('Name not set'), 15_000, 'the refusal');
      assert.match(await ada.page.locator('body').innerText(), /taken at this table/);
      assert.ok((await seats.innerText()).includes('<b>Sam</b>'), 'the name is unchanged');
      const width = await ada.page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(width <= PHONE.width, `the form fits a phone: ${width}`);
      assert.deepEqual([...ada.rec.errors, ...watcher.rec.errors], [], 'no script error');
    } finally {
      await ada.context.close();
      await watcher.context.close();
    }
  });
});
