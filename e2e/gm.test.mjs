// @ts-check
/** @file The GM screen (the table's GM link): it sees what the rules' GM seat sees — the
 * NPCs' sheets and stacks the spectators' page shows as hidden — and gives the GM's rulings
 * from its rulings panel, typed and clicked as a GM would; each lands in the public log with
 * its reason, on a player's page and on the spectators'.
 */

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { openPage, serverAndBrowser, waitFor } from './lib.mjs';

const env = serverAndBrowser();


/** A phone's width: the panel must fit it. */
const PHONE = { width: 360, height: 740 };

/**
 * Opens the pages and waits for each welcome.
 * @param {Record<string, string>} links name → link
 */
async function open(links) {
  /** @type {Record<string, Awaited<ReturnType<typeof openPage>>>} */
  const pages = {};
  for (const [name, link] of Object.entries(links)) {
    pages[name] = await openPage(env.browser, link, name, name === 'GM screen' ? PHONE : undefined);
    await waitFor(() => pages[name].rec.you !== null, 20_000, `${name}'s welcome`);
  }
  return pages;
}

/**
 * Waits until the page's log has a line matching `re`.
 * @param {import('playwright-core').Page} page
 * @param {RegExp} re
 * @param {string} what
 */
async function logLine(page, re, what) {
  await page.locator('ol.log li', { hasText: re }).first().waitFor({ timeout: 15_000 }).catch(async () => {
    const lines = await page.locator('ol.log li').allTextContents();
    assert.fail(`${what}: no log line matching ${re} in ${JSON.stringify(lines.slice(-8))}`);
  });
}

/** @param {Record<string, Awaited<ReturnType<typeof openPage>>>} pages */
async function closeAll(pages) {
  for (const p of Object.values(pages)) {
    assert.deepEqual(p.rec.errors, [], `${p.rec.name}: no script error`);
    await p.context.close().catch(() => {});
  }
}

describe('the GM screen', () => {
  test("Iron Triangle: sees Kuro's sheet and sets Ada's energy from the rulings panel", async () => {
    const created = await env.server.createTable({
      system: 'iron-triangle',
      setup: { example: 'duel' },
      seats: { gm: { kind: 'bot', bot: 'greedy' } },
      options: { think_ms: 0 },
    });
    const pages = await open({ ada: created.seats.ada, 'GM screen': created.gm, spectator: created.spectator });
    try {
      const gm = pages['GM screen'].page;
      const spectator = pages.spectator.page;
      // Kuro, the GM seat's character: its moves are on the GM screen, hidden from the spectators
      const kuroGm = gm.locator('section.fighter[aria-label="Kuro"]');
      await kuroGm.locator('.sheet').first().waitFor({ timeout: 15_000 });
      assert.match(await kuroGm.innerText(), /Moves:/);
      assert.equal(await kuroGm.locator('.hidden-sheet').count(), 0, 'the GM screen sees Kuro\u2019s sheet');
      await spectator.locator('section.fighter[aria-label="Kuro"] .hidden-sheet').waitFor({ timeout: 15_000 });
      assert.match(await gm.locator('header .who').innerText(), /you see what the GM seat gm sees/);
      assert.equal(await spectator.locator('section.rulings:not([hidden])').count(), 0, 'no rulings on the spectators\u2019 page');
      assert.equal(await pages.ada.page.locator('section.rulings:not([hidden])').count(), 0, 'no rulings on a player\u2019s page');

      // The rulings panel, as a GM fills it: a character, three energies, a reason
      const panel = gm.locator('section.rulings');
      await panel.getByRole('heading', { name: 'GM rulings' }).waitFor({ timeout: 15_000 });
      await panel.getByLabel('Character').selectOption({ label: "Ada (players' side)" });
      // the fields are filled with Ada's energies now, capped by her maxima (3/2/5 in the duel)
      assert.equal(await panel.getByLabel('◆ Attack').getAttribute('max'), '5');
      // above her maximum: refused in the page, nothing sent
      await panel.getByLabel('○ Defend').fill('9');
      await panel.getByLabel('Reason (said to everyone)').fill('a fall from the roof');
      await panel.getByRole('button', { name: 'Set energy' }).click();
      await panel.getByText(/maximum is 3/).waitFor({ timeout: 5_000 });
      await panel.getByLabel('○ Defend').fill('1');
      await panel.getByLabel('▨ Grapple').fill('2');
      await panel.getByLabel('◆ Attack').fill('4');
      // sent with the keyboard, as a form is
      await panel.getByLabel('Reason (said to everyone)').press('Enter');
      const line = /The GM sets Ada's energy to ○1 ▨2 ◆4: a fall from the roof\./;
      await logLine(pages.ada.page, line, 'Ada\u2019s page');
      await logLine(spectator, line, 'the spectators\u2019 page');
      await logLine(gm, line, 'the GM screen');
      await gm.getByText("Ada's energy is set to 1○ 2▨ 4◆.").waitFor({ timeout: 5_000 });
      await pages.ada.page.getByRole('img', { name: 'Defend energy 1 of 3' }).first().waitFor({ timeout: 5_000 });
      const width = await gm.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(width <= PHONE.width, `the GM screen with its rulings: scrollWidth ${width} at ${PHONE.width} px`);
    } finally {
      await closeAll(pages);
    }
  });

  test("No Dice: sees the Bandit's stacks and adjusts its Strength chips", async () => {
    const created = await env.server.createTable({
      system: 'nodice',
      setup: { example: 'pc-vs-bandit' },
      seats: {},
      options: { think_ms: 0 },
    });
    const pages = await open({ kara: created.seats.kara, 'GM screen': created.gm, spectator: created.spectator });
    try {
      const gm = pages['GM screen'].page;
      const spectator = pages.spectator.page;
      await gm.locator('section.actor[aria-label="Bandit"]').getByRole('img', { name: 'Strength: 3 chips' }).waitFor({ timeout: 15_000 });
      await spectator.locator('section.actor[aria-label="Bandit"] .hidden-sheet').waitFor({ timeout: 15_000 });
      const panel = gm.locator('section.rulings');
      await panel.getByLabel('What', { exact: true }).selectOption({ label: 'Bandit: STR Strength chips (now 3)' });
      await panel.getByLabel('New value').fill('5');
      await panel.getByLabel('Reason (said to everyone)').fill('the bandit ate well');
      await panel.getByRole('button', { name: 'Adjust', exact: true }).click();
      const line = /The GM adjusts Bandit: .*3 → 5 \(reason: "the bandit ate well"\)/;
      await logLine(pages.kara.page, line, 'Kara\u2019s page');
      await logLine(spectator, line, 'the spectators\u2019 page');
      await gm.locator('section.actor[aria-label="Bandit"]').getByRole('img', { name: 'Strength: 5 chips' }).waitFor({ timeout: 5_000 });
      // Engage with no box ticked: everyone plays one Hand again (Decision 33)
      await panel.getByRole('button', { name: 'Engage', exact: true }).click();
      await logLine(spectator, /The GM engages every Actor: one Hand for all\./, 'the spectators\u2019 page');
      // End the Conflict asks again before it acts
      await panel.getByRole('button', { name: 'End the Conflict…' }).click();
      await panel.getByRole('button', { name: 'No, go back' }).click();
      assert.equal(await gm.locator('ol.log li', { hasText: /Conflict (is over|ends)/ }).count(), 0, 'going back ends nothing');
    } finally {
      await closeAll(pages);
    }
  });

  test('Inciting Incident: reads every sheet, ends the scene and holds a Rest Scene after it', async () => {
    const created = await env.server.createTable({
      system: 'inciting-incident',
      setup: { example: 'river-fight' },
      seats: { gm: { kind: 'bot', bot: 'random' }, mira: { kind: 'bot', bot: 'random' } },
      options: { think_ms: 0 },
    });
    const pages = await open({ bren: created.seats.bren, 'GM screen': created.gm, spectator: created.spectator });
    try {
      const gm = pages['GM screen'].page;
      const bren = pages.bren.page;
      const spectator = pages.spectator.page;
      // §4.4: a sheet is its player's and the GM's — the GM screen reads all three, Bren's
      // page only Bren's, the spectators none.
      const sheetsOf = async (/** @type {import('playwright-core').Page} */ page) =>
        (await page.locator('section.sheets details.sheet summary').allTextContents()).map((t) => t.split(' — ')[0]);
      await gm.locator('section.sheets').waitFor({ timeout: 15_000 });
      assert.deepEqual((await sheetsOf(gm)).sort(), ['Bren', 'Cult captain', 'Mira', "Y'ras'byn"]);
      await bren.locator('section.sheets').waitFor({ timeout: 15_000 });
      assert.deepEqual(await sheetsOf(bren), ['Bren']);
      await bren.locator('section.sheets details.sheet summary').first().click();
      await bren.getByText(/Icy blade/).first().waitFor({ timeout: 5_000 });
      assert.equal(await spectator.locator('section.sheets').count(), 0, 'the spectators read no sheet');

      // The GM corrects the Crisis pool (Decision 30), then ends the scene (asked twice) and
      // holds a Rest Scene after it.
      const panel = gm.locator('section.rulings');
      await panel.getByLabel('What', { exact: true }).selectOption('crisis');
      await panel.getByLabel('New value').fill('4');
      await panel.getByLabel('Reason (said to everyone)').fill('the dam breaks');
      await panel.getByRole('button', { name: 'Adjust', exact: true }).click();
      await logLine(bren, /The GM adjusts the Crisis pool: \d+ → 4 \(reason: the dam breaks\)/, 'Bren\u2019s page');
      await panel.getByRole('button', { name: 'End the scene…' }).click();
      await panel.getByRole('button', { name: 'Yes, end the scene' }).click();
      await logLine(spectator, /The scene is over/, 'the spectators\u2019 page');
      await panel.getByRole('button', { name: 'A Rest Scene' }).click();
      await logLine(spectator, /Rest Scene/, 'the spectators\u2019 page');
      await logLine(bren, /Rest Scene/, 'Bren\u2019s page');
    } finally {
      await closeAll(pages);
    }
  });
  test('the GM link revokes the spectator link and reissues its own, each after a confirmation', async () => {
    const created = await env.server.createTable({
      system: 'iron-triangle',
      setup: { example: 'duel' },
      seats: { gm: { kind: 'bot', bot: 'greedy' } },
      options: { think_ms: 0 },
    });
    const pages = await open({ 'GM screen': created.gm, spectator: created.spectator });
    try {
      const gm = pages['GM screen'].page;
      const screen = gm.locator('section.gm');
      // Revoking the spectators' link asks first; going back revokes nothing.
      await screen.getByRole('button', { name: 'Revoke spectator link' }).click();
      await screen.getByRole('button', { name: 'Cancel' }).click();
      await screen.getByRole('button', { name: 'Revoke spectator link' }).click();
      await screen.getByRole('button', { name: 'Yes, revoke it' }).click();
      await pages.spectator.page.getByText(/This page no longer plays/).waitFor({ timeout: 15_000 });
      await gm.getByText('The spectator link is revoked.').waitFor({ timeout: 5_000 });

      // A new GM link: shown once on this page, which goes on with it (its address changes);
      // the old link opens nothing.
      const oldHash = await gm.evaluate(() => location.hash);
      await screen.getByRole('button', { name: 'New GM link' }).click();
      await screen.getByRole('button', { name: 'Yes, make a new GM link' }).click();
      const field = screen.getByRole('textbox', { name: /New GM link/ });
      await field.waitFor({ timeout: 15_000 });
      const newLink = await field.inputValue();
      const newHash = await gm.evaluate(() => location.hash);
      assert.notEqual(newHash, oldHash, 'the page moved to the new link');
      assert.ok(newLink.endsWith(newHash), `${newLink} is the page's own new link`);
      // Still the GM screen: it manages the table with the new link.
      await screen.getByRole('button', { name: 'New spectator link' }).click();
      await screen.getByRole('textbox', { name: /New spectator link/ }).waitFor({ timeout: 15_000 });
      const stale = await openPage(env.browser, created.gm, 'old GM link');
      await stale.page.getByText(/opens nothing|no longer plays/).first().waitFor({ timeout: 15_000 });
      await stale.context.close().catch(() => {});
    } finally {
      await closeAll(pages);
    }
  });
});
