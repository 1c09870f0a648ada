// @ts-check
/** @file Who won, where the player is looking (issue 34 §2): the turn's result beside the
 * prompt before the next one, the ending in the player's own words with its summary, and the
 * page's words a player knows — no "[object Object]" for a phase, no `§`, a prompt region that
 * is not read out whole on every change.
 *
 * `E2E_SEED` replays a run's clicks.
 */

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { openPage, serverAndBrowser, waitFor } from './lib.mjs';
import { BUTTONS, nextClick, rng } from './play.mjs';

const env = serverAndBrowser();

const SEED = Number(process.env.E2E_SEED ?? Date.now() % 1_000_000);

/**
 * Clicks in the pages (a random usable button of an asked page) until `done()` says so.
 * @param {{page: import('playwright-core').Page, rec: import('./lib.mjs').Recorder}[]} pages
 * @param {() => Promise<boolean>} done
 * @param {string} what
 * @param {number} ms
 */
async function clickUntil(pages, done, what, ms = 120_000) {
  const random = rng(SEED);
  const deadline = Date.now() + ms;
  while (!(await done())) {
    assert.ok(Date.now() < deadline, `${what} within ${ms} ms (seed ${SEED})`);
    let acted = false;
    for (const p of pages) {
      const change = p.rec.change;
      if (!change || change.over || !change.prompt || !(change.awaiting ?? []).includes(p.rec.you?.seat)) continue;
      const pick = await nextClick(p.page, random());
      if (pick === null) continue;
      await p.page.locator(BUTTONS).nth(pick.index).click({ timeout: 3_000 }).catch(() => {});
      acted = true;
      break;
    }
    if (!acted) await new Promise((r) => setTimeout(r, 60));
  }
}

describe('who won, where the player is looking', () => {
  test("Iron Triangle: each turn's result beside the prompt, the ending in the player's words", async () => {
    const created = await env.server.createTable({
      system: 'iron-triangle',
      setup: { example: 'duel' },
      seats: { gm: { kind: 'bot', bot: 'greedy' } },
      options: { think_ms: 0 },
    });
    const ada = await openPage(env.browser, created.seats.ada, 'ada');
    try {
      await waitFor(() => ada.rec.you !== null, 20_000, "Ada's welcome");
      const prompt = ada.page.locator('[data-testid="prompt"]');
      // the prompt region is not aria-live as a whole: its changes are announced by one line
      assert.equal(await prompt.getAttribute('aria-live'), null, 'the whole prompt region is not aria-live');
      const result = prompt.locator('[data-testid="turn-result"]');
      await clickUntil([ada], async () => (await result.count()) > 0 || Boolean(ada.rec.change?.over), 'the first turn resolves');
      if (!ada.rec.change?.over) {
        const text = await result.innerText();
        assert.match(text, /^Turn 1: /, 'the turn is named');
        assert.match(text, /wins with|a tie|surrender/, `who won and why: ${text}`);
        assert.doesNotMatch(text, /§/, 'no section references');
        // beside the prompt, before what the seat is asked next
        const order = await prompt.evaluate((p) => {
          const r = p.querySelector('[data-testid="turn-result"]');
          const b = p.querySelector('button');
          return r && b ? Boolean(r.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING) : true;
        });
        assert.ok(order, "the turn's result comes before the next question's buttons");
      }
      await clickUntil([ada], async () => Boolean(ada.rec.change?.over), 'the conflict ends', 180_000);
      const ending = prompt.locator('[data-testid="ending"]');
      await ending.waitFor({ timeout: 15_000 });
      assert.match(await ending.innerText(), /^You (won|lost): (the players win|Kuro's side wins)\.$/);
      const summary = await prompt.locator('[data-testid="ending-summary"] li').allTextContents();
      assert.match(summary[0] ?? '', /^\d+ turns?\.$/, `the summary counts the turns: ${JSON.stringify(summary)}`);
      assert.ok(summary.some((l) => /^Ada lost \d+ energy/.test(l)), `Ada's losses: ${JSON.stringify(summary)}`);
      assert.ok(summary.some((l) => /^Kuro lost \d+ energy/.test(l)), `Kuro's losses: ${JSON.stringify(summary)}`);
      // The quick reference as structure: headings, the legend as a table, a search, no §
      const ref = ada.page.locator('details.reference');
      await ref.locator('summary').click();
      await ref.getByRole('heading', { name: 'One turn' }).waitFor({ timeout: 5_000 });
      assert.ok((await ref.locator('table.legend tr').count()) > 3, 'the legend is a table');
      assert.doesNotMatch(await ref.innerText(), /§/, 'no section a player cannot look up');
      await ref.getByLabel('Search the reference').fill('Heaven');
      await waitFor(async () => (await ref.locator('.ref-section:not([hidden])').count()) < (await ref.locator('.ref-section').count()), 5_000, 'the search hides what does not match');
      assert.deepEqual(ada.rec.errors, [], 'no script error');
    } finally {
      await ada.context.close().catch(() => {});
    }
  });

  test('Inciting Incident: the header names the phase in words (never "[object Object]"), the scene ends for the players', async () => {
    const created = await env.server.createTable({
      system: 'inciting-incident',
      setup: { example: 'river-fight' },
      seats: { gm: { kind: 'bot', bot: 'random' } },
      options: { think_ms: 0 },
    });
    const pages = [];
    try {
      for (const [name, link] of Object.entries(created.seats)) {
        if (name === 'gm') continue;
        pages.push(await openPage(env.browser, /** @type {string} */ (link), name));
      }
      for (const p of pages) await waitFor(() => p.rec.you !== null, 20_000, `${p.rec.name}'s welcome`);
      const head = pages[0].page.locator('.sys-head');
      /** @type {string[]} */
      const seen = [];
      await clickUntil(
        pages,
        async () => {
          const text = await head.innerText().catch(() => '');
          seen.push(text);
          assert.doesNotMatch(text, /\[object Object\]/, `the header: ${text}`);
          return /resolve their actions/.test(text) || Boolean(pages[0].rec.change?.over);
        },
        'a side resolves its actions',
      );
      assert.ok(seen.some((t) => /Round \d+ — initiative: \w+ — /.test(t)), `the phase in words: ${JSON.stringify(seen.slice(-3))}`);
      for (const p of pages) assert.deepEqual(p.rec.errors, [], `${p.rec.name}: no script error`);
    } finally {
      for (const p of pages) await p.context.close().catch(() => {});
    }
  });

  test("the home page opens on the README's example of each system (the duel, not ambush-2v3)", async () => {
    const { context, page, rec } = await openPage(env.browser, `${env.server.base}/`, 'home');
    try {
      const example = page.getByLabel('Example', { exact: true });
      await example.waitFor({ timeout: 15_000 });
      assert.equal(await example.inputValue(), 'duel');
      for (const [system, first] of [['nodice', 'pc-vs-bandit'], ['inciting-incident', 'river-fight'], ['iron-triangle', 'duel']]) {
        await page.getByLabel('System', { exact: true }).selectOption(system);
        await waitFor(async () => (await page.getByLabel('Example', { exact: true }).inputValue()) === first, 5_000, `${system} opens on ${first}`);
      }
      assert.deepEqual(rec.errors, [], 'no script error');
    } finally {
      await context.close().catch(() => {});
    }
  });

  test("No Dice: a button's accessible name begins with its text; the next Hand's form is not pre-filled", async () => {
    const created = await env.server.createTable({
      system: 'nodice',
      setup: { example: 'pc-vs-bandit' },
      seats: { gm: { kind: 'bot', bot: 'greedy' } },
      options: { think_ms: 0 },
    });
    const kara = await openPage(env.browser, created.seats.kara, 'kara');
    try {
      await waitFor(() => kara.rec.you !== null, 20_000, "Kara's welcome");
      await kara.page.locator('[data-testid="prompt"] .picker').first().waitFor({ timeout: 15_000 });
      /** Buttons of the prompt whose accessible name does not begin with their visible text. */
      const mismatched = () =>
        kara.page.evaluate(() =>
          [...document.querySelectorAll('[data-testid="prompt"] button')]
            .map((b) => {
              const norm = (/** @type {string} */ t) => t.replace(/✓/g, '').replace(/\s+/g, ' ').trim().toLowerCase();
              const visible = norm(b.textContent ?? '');
              const name = norm(b.getAttribute('aria-label') ?? b.textContent ?? '');
              return name.startsWith(visible) ? null : `${visible} announced as ${name}`;
            })
            .filter(Boolean),
        );
      assert.deepEqual(await mismatched(), [], 'every name begins with the text shown');
      // Kara's serial is explained where it is shown
      const serial = kara.page.locator('section.actor[aria-label="Kara"] details.serial');
      assert.match(await serial.locator('summary').innerText(), /^R2\/1\(38\/5\)-M4\(/);
      await serial.locator('summary').click();
      assert.match(await serial.innerText(), /Rank 2, Wildcard Rank 1, Build Budget 38/);
      // asked, the page says so, and nowhere that it waits for someone
      await kara.page.getByText('Your turn.').waitFor({ timeout: 15_000 });
      assert.doesNotMatch(await kara.page.locator('main, body').first().innerText(), /Waiting for/, '"Your turn" and never "Waiting for …" beside it');
      // Hand 1 by clicking, up to Hand 2's first question to Kara.
      const hand = () => kara.rec.change?.view?.hand ?? 0;
      await clickUntil([kara], async () => hand() >= 2 || Boolean(kara.rec.change?.over), 'Hand 1 ends');
      if (!kara.rec.change?.over) {
        await waitFor(() => Boolean(kara.rec.change?.prompt) || Boolean(kara.rec.change?.over), 15_000, 'Kara asked in Hand 2');
        await kara.page.locator('[data-testid="prompt"] .picker').first().waitFor({ timeout: 15_000 }).catch(() => {});
        const prefilled = await kara.page.evaluate(() =>
          [...document.querySelectorAll('[data-testid="prompt"] fieldset')]
            .filter((f) => f.querySelectorAll('button').length > 1 && f.querySelector('[aria-pressed="true"]'))
            .map((f) => f.textContent),
        );
        assert.deepEqual(prefilled, [], "Hand 2's form starts with nothing chosen");
        assert.deepEqual(await mismatched(), [], 'every name begins with the text shown, in Hand 2 too');
      }
      assert.deepEqual(kara.rec.errors, [], 'no script error');
    } finally {
      await kara.context.close().catch(() => {});
    }
  });

  test('the log: grouped by round, collapsible, a run of draws on one line, room for numbers past 999', async () => {
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
      const titles = await log.locator('li.group > details > summary').allTextContents();
      assert.ok(titles.includes('Round 1') && titles.includes('Round 2'), `groups by round: ${JSON.stringify(titles.slice(0, 4))}`);
      const open = await log.locator('li.group > details[open]').count();
      assert.equal(open, 1, 'only the latest group is open; the others collapse');
      const lines = await log.locator('li.item').allTextContents();
      assert.ok(!lines.some((l) => /^Draw #/.test(l.trim())), 'no "Draw #…" line a draw');
      const draws = watcher.rec.frames.flatMap((f) => f.msg?.updates ?? []).filter((u) => u.kind === 'draw').length;
      const drawLines = lines.filter((l) => l.includes('Dice drawn')).length;
      assert.ok(draws === 0 || drawLines < draws, `${draws} draws on ${drawLines} lines`);
      const pad = await log.locator('ol.entries').first().evaluate((e) => parseFloat(getComputedStyle(e).paddingLeft));
      assert.ok(pad >= 56, `room for a four-digit number before each line: ${pad}px`);
      // "Mine" hides what is not this viewer's (a spectator has nothing of its own)
      await watcher.page.getByLabel('Mine').check();
      assert.equal(await log.locator('li.item:visible').count(), 0, 'a spectator has no items of its own');
      await watcher.page.getByLabel('Everything').check();
      assert.deepEqual(watcher.rec.errors, [], 'no script error');
    } finally {
      await watcher.context.close().catch(() => {});
    }
  });
});
