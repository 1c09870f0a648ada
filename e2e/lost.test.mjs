// @ts-check
/** @file A lost face-down choice never hangs a table (issue 33 §4), at a No Dice table of Kara
 * against the bandit, both seats sealed on pages of their own:
 * - the GM, having chosen first in a round, closes its tab and opens its link again in a new tab
 *   of the same browser: the choice kept in `localStorage` is revealed, with no fault, and play
 *   goes on;
 * - the secret truly lost before the binding (the link opened on another device): the page
 *   offers to take the choice back, the seat chooses again, no fault;
 * - the secret lost after the binding: the reveal timer counts down from the binding, the page
 *   offers to give the choice up, the fault says the secret was lost, play goes on, and
 *   `facedown verify` accepts the log.
 */

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { Recorder, openPage, serverAndBrowser, tokenOf, waitFor, withTempDir } from './lib.mjs';
import { BUTTONS, nextClick } from './play.mjs';

const env = serverAndBrowser();

const sleep = (/** @type {number} */ ms) => new Promise((r) => setTimeout(r, ms));

/**
 * @typedef {object} Page
 * @property {string} name
 * @property {string} link
 * @property {import('playwright-core').BrowserContext} context
 * @property {import('playwright-core').Page} page
 * @property {Recorder} rec
 */

/** A No Dice table of Kara against the bandit, both sealed, each on a device of its own. */
async function table() {
  const created = await env.server.createTable({
    system: 'nodice',
    setup: { example: 'pc-vs-bandit' },
    seats: {},
    options: { think_ms: 0, modes: { kara: 'sealed', gm: 'sealed' } },
  });
  /** @type {Page[]} */
  const pages = [];
  for (const [name, link] of Object.entries(created.seats)) {
    const { context, page, rec } = await openPage(env.browser, /** @type {string} */ (link), `seat ${name}`);
    pages.push({ name, link: /** @type {string} */ (link), context, page, rec });
  }
  for (const p of pages) await waitFor(() => p.rec.you !== null, 20_000, `${p.name}'s welcome`);
  return { created, pages };
}

/** Opens `p`'s link again: in a new tab of its browser (`context`), or on another device. @param {Page} p @param {import('playwright-core').BrowserContext | null} context */
async function openAgain(p, context) {
  if (context) {
    const page = await context.newPage();
    const rec = new Recorder(page, `seat ${p.name} again`, new URL(p.link).host);
    await page.goto(p.link, { waitUntil: 'load', timeout: 30_000 });
    await waitFor(() => rec.you !== null, 20_000, `${p.name}'s welcome in its new tab`);
    return { ...p, page, rec };
  }
  const { context: other, page, rec } = await openPage(env.browser, p.link, `seat ${p.name} on another device`);
  await waitFor(() => rec.you !== null, 20_000, `${p.name}'s welcome on another device`);
  return { ...p, context: other, page, rec };
}

/** The first of `pages` that offers something to click, within `ms`. @param {Page[]} pages */
async function firstAsked(pages, ms = 15_000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    for (const p of pages) if ((await nextClick(p.page, 0.3)) !== null) return p;
    await sleep(100);
  }
  throw new Error(`no page offered anything to click in ${ms} ms`);
}

/** Clicks through `p`'s prompt until it sends its answer, and waits for the answer's ack. @param {Page} p */
async function choose(p) {
  const before = p.rec.sent.length;
  for (let i = 0; i < 30; i++) {
    const sent = p.rec.sent.slice(before).find((m) => m?.type === 'seal' || m?.type === 'command');
    if (sent) {
      await waitFor(() => p.rec.frames.some((f) => f.msg?.type === 'ack' && f.msg.id === sent.id), 10_000, `${p.name}'s ${sent.type} acknowledged`);
      return sent;
    }
    const pick = await nextClick(p.page, 0.3);
    if (pick) await p.page.locator(BUTTONS).nth(pick.index).click({ timeout: 3_000 }).catch(() => {});
    await sleep(80);
  }
  throw new Error(`${p.name}'s page sent no answer after 30 clicks`);
}

/** Every item a page's frames carried. @param {Recorder} rec */
const items = (rec) => rec.frames.flatMap((f) => f.msg?.updates ?? []);

/** The seat's number. @param {Page} p */
const seatOf = (p) => p.rec.you.seat;

/** Whether the round `p` is in is bound (a `bound` frame after the last item that is not one). @param {Recorder} rec */
function bound(rec) {
  const b = rec.frames.findLastIndex((f) => f.msg?.type === 'bound' || (f.msg?.type === 'welcome' && f.msg.round?.bound));
  const i = rec.frames.findLastIndex((f) => (f.msg?.updates ?? []).some((/** @type {any} */ u) => u.kind !== 'bound'));
  return b > i;
}

describe('a lost face-down choice never hangs a table', () => {
  test('the sealed GM that chooses first, closes its tab and opens its link again in a new tab reveals, with no fault', async () => {
    const { created, pages } = await table();
    try {
      // Play on until the GM commits face down while the round still waits for Kara (as in
      // the issue: the GM's new tab showed "Waiting for kara." and the table hung).
      const first = /** @type {Page} */ (pages.find((p) => p.name === 'gm'));
      const other = /** @type {Page} */ (pages.find((p) => p !== first));
      let found = false;
      for (let i = 0; i < 80 && !found; i++) {
        const p = await firstAsked(pages);
        const sent = await choose(p);
        if (p !== first || sent.type !== 'seal') continue;
        await sleep(300);
        const notice = first.rec.frames.findLast((f) => f.msg?.type === 'sealed')?.msg;
        found = !bound(first.rec) && (notice?.awaiting ?? []).includes(seatOf(other));
      }
      assert.ok(found, 'the GM committed first in a round within 80 choices');
      const wasBound = false;
      await first.page.close();
      const again = await openAgain(first, first.context);
      await waitFor(async () => (await again.page.locator('[data-testid="prompt"] .chosen').count()) > 0, 5_000, `${first.name}'s new tab shows its choice made`);
      assert.equal(await again.page.locator('[data-testid="lost"]').count(), 0, 'the new tab holds the secret: nothing is lost');
      if (!wasBound) await choose(await firstAsked([other]));
      // The new tab reveals the choice its browser kept, and the table goes on.
      await waitFor(() => items(again.rec).some((u) => u.kind === 'opened' && u.seat === seatOf(first)), 20_000, `${first.name}'s choice opened`);
      const log = (await env.server.log(created.table, created.spectator)).updates;
      assert.deepEqual(log.filter((/** @type {any} */ u) => u.kind === 'fault'), [], 'no fault');
      await firstAsked([again, other]);
      console.log(`${first.name} chose first (${wasBound ? 'bound at once' : `then ${other.name}`}), closed its tab and revealed from a new one`);
    } finally {
      for (const p of pages) await p.context.close().catch(() => {});
    }
  });

  test('a secret lost before the binding (another device): the page takes the choice back, the seat chooses again, no fault', async () => {
    const { created, pages } = await table();
    /** @type {import('playwright-core').BrowserContext[]} */
    const extra = [];
    try {
      const first = await firstAsked(pages);
      const other = /** @type {Page} */ (pages.find((p) => p !== first));
      await choose(first);
      assert.ok(!bound(first.rec), 'the round waits for the other seat');
      const moved = await openAgain(first, null);
      extra.push(moved.context);
      await waitFor(async () => (await moved.page.locator('[data-testid="take-back-lost"]').count()) > 0, 5_000, `${first.name}'s other device offers to take the lost choice back`);
      assert.equal(await moved.page.locator('[data-testid="give-up"]').count(), 0);
      await moved.page.locator('[data-testid="take-back-lost"]').click();
      await waitFor(() => items(moved.rec).some((u) => u.kind === 'took_back' && u.seat === seatOf(first)), 10_000, 'the take-back');
      const sealed = await choose(await firstAsked([moved], 10_000));
      assert.equal(sealed.type, 'seal');
      if (!bound(moved.rec)) await choose(await firstAsked([other]));
      await waitFor(() => items(moved.rec).some((u) => u.kind === 'opened' && u.seat === seatOf(first)), 20_000, `${first.name}'s new choice opened`);
      const log = (await env.server.log(created.table, created.spectator)).updates;
      assert.deepEqual(log.filter((/** @type {any} */ u) => u.kind === 'fault'), [], 'no fault');
    } finally {
      for (const p of pages) await p.context.close().catch(() => {});
      for (const c of extra) await c.close().catch(() => {});
    }
  });

  test('a secret lost after the binding: the page gives it up, the fault says the secret was lost, and the log verifies', async () => {
    const { created, pages } = await table();
    /** @type {import('playwright-core').BrowserContext[]} */
    const extra = [];
    try {
      const first = await firstAsked(pages);
      const other = /** @type {Page} */ (pages.find((p) => p !== first));
      await choose(first);
      // The device is gone before the round is bound (it would reveal at once).
      await first.context.close();
      if (!bound(other.rec)) await choose(await firstAsked([other]));
      await waitFor(() => bound(other.rec), 10_000, 'the round bound');
      // A sealed table times the reveals from the binding, and the page counts down in words.
      const timer = other.page.locator('[role="timer"]');
      await waitFor(async () => /^Time to reveal: .*(1:5\d|2:00)/.test((await timer.innerText().catch(() => '')) ?? ''), 5_000, 'the reveal timer shown');
      const moved = await openAgain(first, null);
      extra.push(moved.context);
      await waitFor(async () => (await moved.page.locator('[data-testid="give-up"]').count()) > 0, 5_000, `${first.name}'s other device offers to give the lost choice up`);
      await moved.page.locator('[data-testid="give-up"]').click();
      await waitFor(() => items(moved.rec).some((u) => u.kind === 'fault'), 10_000, 'the fault');
      const fault = items(moved.rec).find((u) => u.kind === 'fault');
      assert.deepEqual([fault.seat, fault.fault, fault.reason], [seatOf(first), 'no_reveal', 'secret_lost']);
      assert.match(await moved.page.locator('.log').innerText(), /secret was lost/, 'the log says why, in words');
      // The table goes on: someone is asked again.
      await firstAsked([moved, other]);
      const { body } = await env.server.api('GET', `/api/tables/${created.table}/log?format=fair`, { token: tokenOf(created.spectator) });
      await withTempDir(async (dir) => {
        const file = join(dir, 'log.jsonl');
        writeFileSync(file, typeof body === 'string' ? body : JSON.stringify(body));
        const out = spawnSync(/** @type {string} */ (process.env.FACEDOWN_BIN), ['verify', file], { encoding: 'utf8' });
        assert.equal(out.status, 0, `facedown verify: ${out.stdout}${out.stderr}`);
      });
    } finally {
      for (const p of pages) await p.context.close().catch(() => {});
      for (const c of extra) await c.close().catch(() => {});
    }
  });
});
