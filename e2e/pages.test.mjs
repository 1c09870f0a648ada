// @ts-check
/** @file The pages as a phone and a laptop load them: the Content-Security-Policy header, no
 * request to another host, under 200 KB loaded, and no horizontal scroll at 360 px — the home
 * page and each system's seat page, the GM screen and the spectators' view.
 */

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { TABLES, openPage, serverAndBrowser, waitFor } from './lib.mjs';

/** The most a page may load (the sum of its response bodies). */
const MAX_BYTES = 200 * 1024;

/** The narrowest phone the pages are made for. */
const PHONE = { width: 360, height: 740 };

const env = serverAndBrowser();


/**
 * Opens `url` at `viewport`, lets it settle, and checks what every page must hold to.
 * @param {string} url
 * @param {string} name
 * @param {{width: number, height: number}} viewport
 * @param {boolean} table whether it is a table page (waits for its welcome)
 */
async function check(url, name, viewport, table) {
  const { context, page, rec, response } = await openPage(env.browser, url, name, viewport);
  try {
    assert.ok(response, `${name}: the page answered`);
    assert.equal(response.status(), 200, `${name}: status`);
    const csp = response.headers()['content-security-policy'] ?? '';
    assert.match(csp, /default-src 'self'/, `${name}: the Content-Security-Policy header (${csp})`);
    if (table) await waitFor(() => rec.you !== null, 15_000, `${name}: the welcome`);
    await page.waitForLoadState('networkidle', { timeout: 15_000 });
    // A frame drawn after the last response.
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r(null))));
    await rec.settle();
    assert.deepEqual(rec.foreignRequests(), [], `${name}: every request goes to the server (${rec.host})`);
    const { encoded, decoded } = rec.bytes();
    assert.ok(
      encoded < MAX_BYTES,
      `${name}: loads ${encoded} bytes (decoded ${decoded}) over ${rec.responses.length} responses, at most ${MAX_BYTES}`,
    );
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(width <= viewport.width, `${name}: scrollWidth ${width} at ${viewport.width} px wide`);
    assert.deepEqual(rec.errors, [], `${name}: no script error`);
  } finally {
    await context.close();
  }
}

describe('the home page', () => {
  test('at 360 px and at 1280 px', async () => {
    await check(`${env.server.base}/`, 'home (360 px)', PHONE, false);
    await check(`${env.server.base}/`, 'home (1280 px)', { width: 1280, height: 800 }, false);
  });
});

describe('the table pages', () => {
  for (const t of TABLES) {
    test(`${t.system} ${t.example}: each seat, the GM screen and the spectators at 360 px`, async () => {
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
        await check(/** @type {string} */ (link), `${t.system} seat ${name} (360 px)`, PHONE, true);
      }
      await check(created.gm, `${t.system} GM (360 px)`, PHONE, true);
      await check(created.spectator, `${t.system} spectator (360 px)`, PHONE, true);
    });
  }
});

describe('the home page creates a table', () => {
  test('by clicking at 360 px: a link per seat with its QR code, each opening its seat, sealed', async () => {
    const { context, page, rec } = await openPage(env.browser, `${env.server.base}/`, 'home (create)', PHONE);
    try {
      await page.getByRole('button', { name: 'Create the table' }).click({ timeout: 15_000 });
      await page.getByRole('heading', { name: /^Table \S+ is ready$/ }).waitFor({ timeout: 15_000 });
      const fields = page.getByRole('textbox', { name: /: link$/ });
      await waitFor(async () => (await fields.count()) >= 3, 15_000, 'the links');
      /** @type {Record<string, string>} */
      const links = {};
      for (const f of await fields.all()) links[(await f.getAttribute('aria-label')) ?? ''] = await f.inputValue();
      for (const [label, link] of Object.entries(links)) {
        assert.match(link, new RegExp(`^${env.server.base}/t/[^/#]+#[0-9a-f]{32}$`), `${label}: a link of this server`);
      }
      // Every link's QR code is drawn (an SVG from the server), and the page still fits.
      await waitFor(async () => (await page.locator('.qr svg').count()) >= Object.keys(links).length, 15_000, 'the QR codes');
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(width <= PHONE.width, `home with its links: scrollWidth ${width} at ${PHONE.width} px wide`);
      await rec.settle();
      assert.deepEqual(rec.foreignRequests(), [], 'every request goes to the server');
      assert.deepEqual(rec.errors, [], 'no script error');
      const seat = Object.entries(links).find(([label]) => label.startsWith('Seat '));
      assert.ok(seat, `a seat's link among ${Object.keys(links).join(', ')}`);
      const opened = await openPage(env.browser, seat[1], seat[0], PHONE);
      try {
        await waitFor(() => opened.rec.you !== null, 15_000, `${seat[0]}: the welcome`);
        assert.equal(opened.rec.you.kind, 'seat', `${seat[0]} opens a seat`);
        const welcome = opened.rec.frames.find((f) => f.msg?.type === 'welcome')?.msg;
        const mine = welcome.seats.find((/** @type {any} */ s) => s.seat === opened.rec.you.seat);
        assert.equal(mine.mode, 'sealed', `a person's seat plays sealed by default: ${JSON.stringify(mine)}`);
      } finally {
        await opened.context.close();
      }
    } finally {
      await context.close();
    }
  });
});
