#!/usr/bin/env node
// @ts-check
/** @file Writes screenshots of the browser table for the README and docs/browser.md: each
 * system's seat page at 1280×800 and 390×844, the GM screen and the home page.
 *
 *     node e2e/screenshots.mjs --bin target/debug/facedown --out docs/screenshots
 *
 * Not a test: it writes into the folder it is given. It starts its own `facedown serve` on
 * 127.0.0.1 port 0 with a throwaway database, creates one table per system with a bot in the
 * GM's seat, plays a few turns there by clicking (so that the pages show a log and a reveal),
 * and photographs the pages.
 */

import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { launchBrowser, startServer } from './lib.mjs';
import { BUTTONS, nextClick, rng } from './play.mjs';

const USAGE = `usage: node e2e/screenshots.mjs --bin FACEDOWN_BINARY --out FOLDER

Writes home-1280.png, home-390.png, gm-1280.png, gm-390.png and, for each system,
SYSTEM-1280.png and SYSTEM-390.png into FOLDER (created if missing).`;

/** The sizes photographed: a laptop and a phone. */
const SIZES = [
  { name: '1280', width: 1280, height: 800 },
  { name: '390', width: 390, height: 844 },
];

/** One table per system: its example, the seat photographed, the bots, and at most how many
 * clicks (the page's own buttons, as the tests click them) before the photograph: the seat's
 * page is played until it shows the cards of a round turned over beside the result, and its
 * hand of cards for the next question, with the bots' cards face down on the table. */
const TABLES = [
  { system: 'iron-triangle', example: 'duel', seat: 'ada', bots: { gm: 'greedy' }, clicks: 12 },
  { system: 'nodice', example: 'pc-vs-bandit', seat: 'kara', bots: { gm: 'greedy' }, clicks: 14 },
  { system: 'inciting-incident', example: 'river-fight', seat: 'bren', bots: { gm: 'random', mira: 'random' }, clicks: 8 },
];

/**
 * Whether a seat's page shows what its photograph is for: cards turned over (the last reveal)
 * and a hand of cards to choose from.
 * @param {import('playwright-core').Page} page
 */
async function cardsShown(page) {
  return page
    .evaluate(() => {
      const p = document.querySelector('[data-testid="prompt"]');
      return Boolean(p && p.querySelector('.table-card.revealed') && p.querySelector('.hand .card-button') && p.querySelector('.table-card.face-down'));
    })
    .catch(() => false);
}

/**
 * Clicks up to `n` of the page's choices (its seat's prompt), waiting for the page between.
 * @param {import('playwright-core').Page} page
 * @param {number} n
 * @param {() => number} random
 */
async function play(page, n, random) {
  for (let i = 0; i < n; i++) {
    if (n > 0 && (await cardsShown(page))) return;
    let pick = null;
    for (let tries = 0; tries < 50 && pick === null; tries++) {
      pick = await nextClick(page, random());
      if (pick === null) await page.waitForTimeout(100);
    }
    if (pick === null) return;
    await page.locator(BUTTONS).nth(pick.index).click({ timeout: 5_000 }).catch(() => {});
    await page.waitForTimeout(300);
  }
}

async function main() {
  const { values } = parseArgs({
    options: {
      bin: { type: 'string' },
      out: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  if (!values.bin || !values.out) {
    console.error(`${USAGE}\n\nerror: --bin and --out are both needed`);
    process.exit(2);
  }
  process.env.FACEDOWN_BIN = resolve(values.bin);
  const out = resolve(values.out);
  mkdirSync(out, { recursive: true });
  const server = await startServer();
  const browser = await launchBrowser();
  const random = rng(17);
  /** @type {string[]} */
  const written = [];
  try {
    /**
     * @param {string} url
     * @param {string} file
     * @param {{width: number, height: number}} size
     * @param {number} n clicks before the photograph
     * @param {boolean} [retry] whether the caller tries again at a new table when the page does not
     *   show its cards (then nothing is written and false is returned)
     * @returns {Promise<boolean>}
     */
    const shoot = async (url, file, size, n, retry = false) => {
      const context = await browser.newContext({ viewport: { width: size.width, height: size.height } });
      try {
        const page = await context.newPage();
        await page.goto(url, { waitUntil: 'networkidle', timeout: 30_000 });
        await play(page, n, random);
        // every card drawn (their SVGs come after the page), and the table in view
        await page.waitForFunction(() => [...document.querySelectorAll('.card-art[data-card]')].every((f) => f.querySelector('svg')), null, { timeout: 10_000 }).catch(() => {});
        await page.evaluate(() => document.querySelector('[data-testid="prompt"]')?.scrollIntoView({ block: 'start' }));
        await page.waitForTimeout(900);
        const path = join(out, file);
        const shown = n === 0 || (await cardsShown(page));
        // a game that ended first (a bot's luck) is played again at a new table
        if (!shown && retry) return false;
        await page.screenshot({ path, fullPage: false });
        written.push(path);
        return true;
      } finally {
        await context.close();
      }
    };
    for (const size of SIZES) await shoot(`${server.base}/`, `home-${size.name}.png`, size, 0);
    for (const t of TABLES) {
      for (const size of SIZES) {
        /** @type {Record<string, {kind: string, bot: string}>} */
        const seats = {};
        for (const [name, bot] of Object.entries(t.bots)) seats[name] = { kind: 'bot', bot };
        for (let attempt = 0; attempt < 6; attempt++) {
          const created = await server.createTable({
            system: t.system,
            setup: { example: t.example },
            seats,
            options: { think_ms: 0, modes: { [t.seat]: 'sealed' } },
          });
          const last = attempt === 5;
          if (!(await shoot(created.seats[t.seat], `${t.system}-${size.name}.png`, size, t.clicks, !last))) continue;
          if (t.system === 'iron-triangle') await shoot(created.gm, `gm-${size.name}.png`, size, 0);
          break;
        }
      }
    }
  } finally {
    await browser.close();
    await server.stop();
  }
  for (const w of written) console.log(w);
}

main().catch((e) => {
  console.error(`error: ${e?.message ?? e}`);
  process.exit(1);
});
