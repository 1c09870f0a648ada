// @ts-check
/** @file The table with cards (issue 34 §2), in each system: a seat's choices are its hand of
 * cards, the card renderer's SVG inlined (its text in the cards' font), each a button named as
 * its card is written; a committed choice lies face down on its page ("Your …, face down") and
 * on the other seat's ("Kuro has chosen"), and a take-back puts it in the hand again; the
 * reveal turns both over together, with the
 * turn's result beside them — turning on a page that allows motion, not at all under
 * `prefers-reduced-motion: reduce`. And a whole game of each system played with the keyboard
 * only, with the redaction checks of every game (play.mjs).
 */

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { openPage, serverAndBrowser, waitFor } from './lib.mjs';
import { BUTTONS, nextClick, playGame, rng } from './play.mjs';

const env = serverAndBrowser();

const PHONE = { width: 390, height: 844 };

const SEED = Number(process.env.E2E_SEED ?? Date.now() % 1_000_000);

/** Per system: two seats on pages of their own (sealed), the first to commit and the other;
 * the rest are bots. `result`: the reveal comes with the rules' result of the turn or Hand. */
const TABLES = [
  { system: 'iron-triangle', example: 'duel', first: 'ada', second: 'gm', bots: {}, result: true },
  { system: 'nodice', example: 'pc-vs-bandit', first: 'kara', second: 'gm', bots: {}, result: true },
  { system: 'inciting-incident', example: 'river-fight', first: 'bren', second: 'mira', bots: { gm: 'random' }, result: false },
  // plain seats: the server holds the committed choice, and the view shows it to its seat
  { system: 'iron-triangle', example: 'duel', first: 'ada', second: 'gm', bots: {}, result: true, plain: true },
];

/**
 * The page's prompt is a face-down question drawn as a hand of cards, and nothing is chosen.
 * @param {import('playwright-core').Page} page
 */
async function handOpen(page) {
  return page.evaluate(() => {
    const p = document.querySelector('[data-testid="prompt"]');
    return Boolean(p && p.querySelector('.face-down-note') && p.querySelector('.hand .card-button') && !p.querySelector('.chosen'));
  });
}

/**
 * Clicks the page's prompt (as the games do) until `done()` holds.
 * @param {import('playwright-core').Page} page
 * @param {() => Promise<boolean>} done
 * @param {() => number} random
 * @param {string} what
 */
async function clickUntil(page, done, random, what) {
  for (let i = 0; i < 60; i++) {
    if (await done()) return;
    const pick = await nextClick(page, random());
    if (pick) await page.locator(BUTTONS).nth(pick.index).click({ timeout: 3_000 }).catch(() => {});
    await page.waitForTimeout(120);
  }
  assert.ok(await done(), what);
}

/**
 * Counts the card turns (CSS `animationstart` of the reveal) the page runs from now on.
 * @param {import('playwright-core').Page} page
 */
async function countTurns(page) {
  await page.evaluate(() => {
    const w = /** @type {any} */ (window);
    w.__turns = 0;
    document.addEventListener('animationstart', (e) => {
      if (e.animationName === 'card-turn') w.__turns += 1;
    });
  });
}

describe('cards on the table', () => {
  for (const t of TABLES) {
    test(`${t.system}${t.plain ? ' (plain seats)' : ''}: the hand, face down, "has chosen", the reveal and its result; no turn under reduced motion`, async () => {
      const random = rng(SEED);
      /** @type {Record<string, {kind: string, bot: string}>} */
      const seats = {};
      for (const [name, bot] of Object.entries(t.bots)) seats[name] = { kind: 'bot', bot };
      const created = await env.server.createTable({
        system: t.system,
        setup: { example: t.example },
        seats,
        options: { think_ms: 0, modes: t.plain ? {} : { [t.first]: 'sealed', [t.second]: 'sealed' } },
      });
      const { body: manifest } = await env.server.api('GET', '/cards/manifest.json');
      const deck = new Set(manifest.systems[t.system].cards);
      const first = await openPage(env.browser, created.seats[t.first], t.first, PHONE);
      const second = await openPage(env.browser, created.seats[t.second], t.second, PHONE);
      let [a, b] = [first, second];
      try {
        // The first seat's page moves with the motion it allows; the other's asks for none.
        await second.page.emulateMedia({ reducedMotion: 'reduce' });
        for (const p of [a, b]) await waitFor(() => p.rec.you !== null, 20_000, `${p.rec.name}'s welcome`);
        // Play both pages until one holds a face-down hand (the first turn's choices, an
        // opponent and the like are played by clicking); it commits first. Where the rules ask
        // in turn (No Dice's ante: Under the Gun first), the other is asked after.
        let open = false;
        for (let i = 0; i < 80 && !open; i++) {
          for (const p of [first, second]) {
            if (await handOpen(p.page)) {
              [a, b] = p === first ? [first, second] : [second, first];
              open = true;
              break;
            }
            const pick = await nextClick(p.page, random());
            if (pick) await p.page.locator(BUTTONS).nth(pick.index).click({ timeout: 3_000 }).catch(() => {});
          }
          if (!open) await first.page.waitForTimeout(150);
        }
        assert.ok(open, 'a seat holds a face-down hand');
        const aName = a === first ? t.first : t.second;
        const bName = a === first ? t.second : t.first;

        // The hand: the renderer's cards, loaded and inlined, each a button named as written.
        const hand = a.page.locator('[data-testid="prompt"] .hand .card-button');
        await waitFor(async () => (await a.page.locator('[data-testid="prompt"] .hand .card-button .card-art svg').count()) === (await hand.count()), 15_000, 'every card of the hand drawn');
        const cards = await hand.evaluateAll((bs) =>
          bs.map((b) => ({
            key: b.getAttribute('data-card-key'),
            svg: b.querySelector('.card-art svg')?.getAttribute('data-card') ?? null,
            font: b.querySelector('.card-art svg')?.getAttribute('font-family') ?? '',
            hidden: b.querySelector('.card-art')?.getAttribute('aria-hidden'),
            label: b.getAttribute('aria-label'),
            name: (b.querySelector('.card-name')?.textContent ?? '').replace('✓', '').trim(),
            w: b.getBoundingClientRect().width,
            h: b.getBoundingClientRect().height,
          })),
        );
        assert.ok(cards.length >= 2, `a hand of cards: ${JSON.stringify(cards)}`);
        for (const c of cards) {
          assert.ok(c.key && deck.has(c.key), `${c.name}: a card of the ${t.system} deck (${c.key})`);
          assert.equal(c.svg, c.key, `${c.name}: its own SVG, inlined`);
          assert.match(c.font, /Facedown Cards/, `${c.name}: the card's text asks for the cards' font`);
          assert.equal(c.hidden, 'true', `${c.name}: the art is decoration`);
          assert.equal(c.label, null, `${c.name}: no label other than its text`);
          assert.ok(c.w >= 44 && c.h >= 44, `${c.name}: at least 44 px each way (${c.w}×${c.h})`);
          const named = a.page.getByRole('button', { name: c.name, exact: true });
          assert.ok((await named.count()) >= 1, `a button whose accessible name is "${c.name}", as written on it`);
        }
        await waitFor(
          () => a.page.evaluate(() => [...document.fonts].some((f) => f.family.replace(/"/g, '') === 'Facedown Cards' && f.status === 'loaded')),
          15_000,
          "the cards' font loaded",
        );
        assert.ok((await a.page.evaluate(() => document.documentElement.scrollWidth)) <= PHONE.width, 'nothing wider than the phone');
        // the last card picked, the question's next part is drawn (Iron Triangle's amounts: "1", "2"…)
        const lastPick = a.page.locator('[data-testid="prompt"] .hand .card-button[data-testid="pick"]').last();
        if ((await lastPick.count()) > 0) {
          await lastPick.click();
          await a.page.waitForTimeout(200);
        }
        const small = await a.page.locator(BUTTONS).evaluateAll((bs) =>
          bs
            .filter((b) => b.getClientRects().length > 0)
            .map((b) => ({ text: (b.textContent ?? '').trim().slice(0, 40), w: b.getBoundingClientRect().width, h: b.getBoundingClientRect().height }))
            .filter((b) => b.w < 44 || b.h < 44),
        );
        assert.deepEqual(small, [], 'every button of the prompt is a target at least 44 px each way');

        // The seat commits: its card face down on its page, "has chosen" on the other's.
        await clickUntil(a.page, async () => (await a.page.locator('[data-testid="prompt"] .chosen').count()) > 0, random, `${aName} commits`);
        const mine = a.page.locator('[data-testid="table-cards"] .seat-cards.mine .table-card.face-down figcaption');
        await mine.first().waitFor({ timeout: 10_000 });
        await a.page.waitForTimeout(300);
        const own = await mine.allTextContents();
        assert.equal(own.length, 1, `${aName}'s one card lies face down, once: ${JSON.stringify(own)}`);
        assert.match(own[0], /^Your .+, face down/, `${aName}'s own card lies face down, named to it`);
        const who = a.rec.change?.view?.fighters?.find((/** @type {any} */ f) => f.seat === aName)?.name
          ?? a.rec.change?.view?.actors?.find((/** @type {any} */ f) => f.seat === aName)?.name;
        assert.ok(who, `${aName}'s character is in its view`);
        await b.page.getByText(`${who} has chosen`, { exact: true }).first().waitFor({ timeout: 10_000 });
        assert.ok(
          (await b.page.locator('[data-testid="table-cards"] .table-card.face-down', { hasText: `${who} has chosen` }).locator('.card-art svg').count()) >= 1 ||
            (await b.page.locator('[data-testid="table-cards"] .table-card.face-down', { hasText: `${who} has chosen` }).count()) >= 1,
          `${bName}'s page shows ${who}'s card back`,
        );

        // Taken back, the card is in the hand again, and the other page no longer sees it played.
        await a.page.locator('[data-testid="take-back"]').click({ timeout: 10_000 });
        await waitFor(async () => (await handOpen(a.page)) && (await mine.count()) === 0, 10_000, `${aName}'s card back in the hand`);
        await waitFor(async () => (await b.page.getByText(`${who} has chosen`, { exact: true }).count()) === 0, 10_000, `${bName}'s page: ${who}'s card taken back`);
        await clickUntil(a.page, async () => (await a.page.locator('[data-testid="prompt"] .chosen').count()) > 0, random, `${aName} commits again`);
        await b.page.getByText(`${who} has chosen`, { exact: true }).first().waitFor({ timeout: 10_000 });

        // The other commits: both pages turn both cards over together.
        await countTurns(first.page);
        await countTurns(second.page);
        const turnedOver = (/** @type {import('playwright-core').Page} */ page) => page.locator('[data-testid="prompt"] .table-card.revealed');
        await clickUntil(b.page, async () => (await turnedOver(b.page).count()) >= 2, random, `${bName} commits and the cards are revealed`);
        for (const p of [a, b]) {
          await waitFor(async () => (await turnedOver(p.page).count()) >= 2, 10_000, `${p.rec.name}: the cards turned over`);
          const sides = await p.page.locator('[data-testid="prompt"] .seat-cards:has(.table-card.revealed)').count();
          assert.ok(sides >= 2, `${p.rec.name}: both sides' cards are turned over (${sides})`);
          const captions = await turnedOver(p.page).locator('figcaption').allTextContents();
          assert.ok(captions.every((c) => c.trim().length > 0 && !/has chosen|face down/.test(c)), `${p.rec.name}: every card shows its face: ${JSON.stringify(captions)}`);
        }
        await a.page.waitForTimeout(700);
        assert.ok((await first.page.evaluate(() => /** @type {any} */ (window).__turns)) > 0, `${t.first}'s page turned the cards over`);
        assert.equal(await second.page.evaluate(() => /** @type {any} */ (window).__turns), 0, `${t.second}'s page (reduced motion) turned nothing`);
        const moving = await second.page.evaluate(() => ({
          animations: document.getAnimations().filter((x) => /** @type {any} */ (x).animationName === 'card-turn').length,
          styles: [...document.querySelectorAll('.card-turn')].map((e) => getComputedStyle(e).animationName).filter((n) => n !== 'none'),
        }));
        assert.deepEqual(moving, { animations: 0, styles: [] }, 'no animation under prefers-reduced-motion: reduce');

        if (t.system === 'iron-triangle') {
          // The move cards: named as the character's sheet names its moves, on the card too.
          const moves = a.page.locator('[data-testid="prompt"] .hand .move-card');
          await waitFor(async () => (await moves.count()) > 0 && (await moves.locator('.card-art svg').count()) === (await moves.count()), 10_000, 'the move cards');
          const sheet = (a.rec.change?.view?.fighters ?? []).filter((/** @type {any} */ f) => f.seat === aName).flatMap((/** @type {any} */ f) => f.moves ?? []);
          const drawn = await moves.evaluateAll((bs) =>
            bs.map((b) => ({
              name: (b.querySelector('.card-name')?.textContent ?? '').trim(),
              onCard: [...b.querySelectorAll('.card-art svg text')].find((x) => x.getAttribute('font-weight') === 'bold' && Number(x.getAttribute('font-size')) >= 24 && x.getAttribute('y') === '200')?.textContent ?? '',
              key: b.getAttribute('data-card-key'),
            })),
          );
          for (const d of drawn) {
            const m = sheet.find((/** @type {any} */ x) => x.name === d.name);
            assert.ok(m, `${d.name} is a move of ${aName}'s sheet: ${JSON.stringify(sheet)}`);
            assert.equal(d.onCard, d.name, `the card itself says ${d.name}`);
          }
        }
        if (t.result) {
          // On to the turn's (the Hand's) result: beside the turned cards, before the next question.
          const resultShown = async () => (await a.page.locator('[data-testid="reveal"] [data-testid="turn-result"]').count()) > 0 || Boolean(a.rec.change?.over);
          for (let i = 0; i < 80 && !(await resultShown()); i++) {
            for (const p of [a, b]) {
              const pick = await nextClick(p.page, random());
              if (pick) await p.page.locator(BUTTONS).nth(pick.index).click({ timeout: 3_000 }).catch(() => {});
            }
            await a.page.waitForTimeout(150);
          }
          assert.ok(await resultShown(), 'the result beside the turned cards');
          if (!a.rec.change?.over) {
            // the other page plays on too, so the tables move together
            const reveal = a.page.locator('[data-testid="reveal"]');
            assert.ok((await reveal.locator('.table-card.revealed').count()) >= 2, 'the cards stay turned over beside the result');
            assert.match(await reveal.locator('[data-testid="turn-result"]').innerText(), /^(Turn|Hand) \d+/, 'the result names the turn or Hand');
            const turn = a.rec.frames.map((f) => f.msg?.view?.turn_result).filter(Boolean).at(-1);
            if (turn && typeof turn.winner === 'number') {
              assert.equal(await reveal.locator('.seat-cards h3', { hasText: '— wins' }).count(), 1, "the turn's winner is marked, in words");
            }
          }
        }
        for (const p of [a, b]) assert.deepEqual(p.rec.errors, [], `${p.rec.name}: no script error`);
      } finally {
        await a.context.close().catch(() => {});
        await b.context.close().catch(() => {});
      }
    });
  }
});

describe('a whole game with the keyboard only', () => {
  /** @type {(import('./play.mjs').Game & {what: string})[]} */
  const GAMES = [
    { what: 'Iron Triangle duel: Ada against a greedy bot', system: 'iron-triangle', example: 'duel', bots: { gm: 'greedy' }, keyboard: true },
    { what: 'No Dice: Kara against the bandit, a greedy bot', system: 'nodice', example: 'pc-vs-bandit', bots: { gm: 'greedy' }, keyboard: true },
    {
      what: 'Inciting Incident river fight: Bren against a random GM bot, with Mira a random bot',
      system: 'inciting-incident',
      example: 'river-fight',
      bots: { gm: 'random', mira: 'random' },
      keyboard: true,
      deadlineMs: 300_000,
    },
  ];
  GAMES.forEach((game, i) => {
    test(game.what, async () => {
      const r = await playGame(env.browser, env.server, game, SEED + i);
      assert.deepEqual(r.openings, [], r.openings.join('; '));
      const k = r.keys;
      assert.ok(k.Tab + k['Shift+Tab'] > 0, `the focus moved by Tab: ${JSON.stringify(k)}`);
      assert.ok(k.ArrowRight + k.ArrowLeft > 0, `the focus moved among the cards by the arrow keys: ${JSON.stringify(k)}`);
      assert.ok(k.Enter > 0 && k.Space > 0, `Enter and Space chose: ${JSON.stringify(k)}`);
      console.log(`${game.system} ${game.example} by keyboard: table ${r.created.table} over after ${r.clicks} choices; keys ${JSON.stringify(k)} (E2E_SEED=${SEED})`);
    });
  });
});
