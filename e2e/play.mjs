// @ts-check
/** @file Whole conflicts played in the browser by clicking, and the check that no page ever
 * held another seat's face-down choice before its reveal.
 *
 * The test knows when a seat is asked from the frames its page received (the change's
 * `prompt` and `awaiting`), but acts only through the page: it clicks one of the controls the
 * page offers for the prompt (`[data-testid="choice"]`, visible and enabled), chosen at random
 * with a seeded generator. After every click the DOM of every page of the table is kept.
 */

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { openPage, waitFor } from './lib.mjs';
import { pressButton, pointerEvents, presses, watchPointer } from './keyboard.mjs';

/** The buttons of a page's prompt section, among which the test clicks. */
export const BUTTONS = '[data-testid="prompt"] button';

/** The watcher that opens the GM link: it sees as the rules' GM seat (see {@link checkRedaction}). */
export const GM_SCREEN = 'GM screen';

/**
 * What to click next in a page's prompt, by the page's hooks: a picker's confirm button once
 * it is enabled, else a value of a picker's field that has none selected yet, else a choice
 * button or a picker's value at random. Choices that end the game at once (`danger`:
 * surrender, withdraw, end the scene) only when nothing else is offered. Null: nothing.
 * @param {import('playwright-core').Page} page
 * @param {number} r a random number in [0, 1)
 * @returns {Promise<{index: number, kind: string, what: string} | null>} the button's index among
 *   {@link BUTTONS}, its hook and its label
 */
export async function nextClick(page, r) {
  return page
    .evaluate(
      ([selector, r]) => {
        const all = /** @type {HTMLButtonElement[]} */ (Array.from(document.querySelectorAll(selector)));
        const usable = (/** @type {HTMLButtonElement} */ b) =>
          !b.disabled && b.getAttribute('aria-disabled') !== 'true' && b.getClientRects().length > 0;
        const test = (/** @type {HTMLButtonElement} */ b) => b.getAttribute('data-testid') ?? '';
        const confirm = all.filter((b) => test(b) === 'confirm' && usable(b));
        const picks = all.filter((b) => test(b) === 'pick' && usable(b));
        const open = picks.filter((b) => {
          const field = b.closest('fieldset');
          return field !== null && field.querySelector('[aria-pressed="true"]') === null;
        });
        const choices = all.filter((b) => test(b) === 'choice' && usable(b));
        const calm = choices.filter((b) => !b.classList.contains('danger'));
        /** @type {HTMLButtonElement[]} */
        let from;
        if (confirm.length > 0 && (calm.length === 0 || r < 0.7)) from = confirm;
        else if (open.length > 0 && (calm.length === 0 || r < 0.7)) from = open;
        else if (calm.length > 0) from = calm;
        else if (picks.length > 0) from = picks;
        else from = choices;
        if (from.length === 0) return null;
        const b = from[Math.floor(r * from.length) % from.length];
        return { index: all.indexOf(b), kind: test(b), what: (b.getAttribute('aria-label') ?? b.textContent ?? '').slice(0, 60) };
      },
      /** @type {[string, number]} */ ([BUTTONS, r]),
    )
    .catch(() => null);
}

/**
 * A small seeded generator (mulberry32): the same seed, the same clicks.
 * @param {number} seed
 */
export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * @typedef {object} Seat
 * @property {string} name the seat's name
 * @property {string} link its link
 * @property {import('playwright-core').Page} page
 * @property {import('./lib.mjs').Recorder} rec
 * @property {import('playwright-core').BrowserContext} context
 * @property {number} clicks
 * @property {number} [sentBefore] how many messages the page had sent before its last click
 */

/**
 * @typedef {object} Game
 * @property {string} system
 * @property {string} example
 * @property {Record<string, string>} [bots] seat name → bot kind: the server plays these
 * @property {string} [reload] the seat whose page is reloaded once, sealed (after choosing,
 *   before the reveal)
 * @property {boolean} [reloadEvery] reload each seat's page once at every kind of prompt it
 *   reaches (see {@link reloadEveryKind}) and check that it then offers what the server awaits
 * @property {number} [deadlineMs] how long the whole conflict may take
 * @property {number} [maxClicks] how many clicks it may take, all pages together
 * @property {boolean} [keyboard] the seats' pages are played with the keyboard only (keyboard.mjs):
 *   Tab and the arrow keys move the focus, Enter and Space press; no pointer event reaches them
 */

/** The messages by which a page answers its prompt (not `hello` or `ping`). */
const ANSWERS = new Set(['command', 'seal', 'reveal', 'take_back']);

/**
 * Whether the seat's page is asked now, by its frames: a prompt, the seat awaited, no answer
 * of the page still waiting for its change, and no bound round waiting on the reveal (which the
 * page sends by itself).
 * @param {Seat} s
 */
function asked(s) {
  const rec = s.rec;
  const change = rec.change;
  if (!change || change.over || !change.prompt || rec.you?.kind !== 'seat') return false;
  if (!(change.awaiting ?? []).includes(rec.you.seat)) return false;
  const lastChange = rec.frames.findLastIndex((f) => f.msg?.type === 'update' || f.msg?.type === 'welcome');
  const lastBound = rec.frames.findLastIndex((f) => f.msg?.type === 'bound');
  const lastItem = rec.frames.findLastIndex((f) => (f.msg?.updates ?? []).length > 0);
  if (lastBound > lastItem) return false;
  for (let i = rec.sent.length - 1; i >= 0; i--) {
    if (!ANSWERS.has(rec.sent[i]?.type)) continue;
    // Refused (another seat's decision came first, say): asked again.
    const lastError = rec.frames.findLastIndex((f) => f.msg?.type === 'error');
    return rec.sentAt[i] <= lastChange || rec.sentAt[i] <= lastError;
  }
  return true;
}

/**
 * Plays `game` to its end in `browser`, by clicking; returns what every page saw, the logs
 * and the table's links, with the redaction checked.
 * @param {import('playwright-core').Browser} browser
 * @param {import('./lib.mjs').Server} server
 * @param {Game} game
 * @param {number} seed
 */
export async function playGame(browser, server, game, seed) {
  const random = rng(seed);
  const bots = game.bots ?? {};
  /** @type {Record<string, {kind: string, bot?: string}>} */
  const seatsReq = {};
  for (const [name, bot] of Object.entries(bots)) seatsReq[name] = { kind: 'bot', bot };
  const created = await server.createTable({
    system: game.system,
    setup: { example: game.example },
    seats: seatsReq,
    options: { think_ms: 0, modes: Object.fromEntries(Object.keys(await seatNames(server, game)).filter((n) => !(n in bots)).map((n) => [n, 'sealed'])) },
  });
  const label = `${game.system} ${game.example} (seed ${seed}, table ${created.table})`;
  /** @type {Seat[]} */
  const seats = [];
  /** @type {{name: string, rec: import('./lib.mjs').Recorder, context: import('playwright-core').BrowserContext}[]} */
  const watchers = [];
  try {
    for (const [name, link] of Object.entries(created.seats)) {
      if (name in bots) continue;
      const { page, rec, context } = await openPage(browser, /** @type {string} */ (link), `seat ${name}`);
      seats.push({ name, link: /** @type {string} */ (link), page, rec, context, clicks: 0 });
    }
    for (const [name, link] of [[GM_SCREEN, created.gm], ['spectator', created.spectator]]) {
      const { rec, context } = await openPage(browser, link, name);
      watchers.push({ name, rec, context });
    }
    const all = [...seats.map((s) => ({ name: `seat ${s.name}`, rec: s.rec })), ...watchers];
    for (const p of all) await waitFor(() => p.rec.you !== null, 20_000, `${label}: ${p.name}'s welcome`);
    const keys = presses();
    if (game.keyboard) for (const s of seats) await watchPointer(s.page);

    const deadline = Date.now() + (game.deadlineMs ?? 180_000);
    const maxClicks = game.maxClicks ?? 600;
    let clicks = 0;
    let misses = 0;
    /** @type {Set<string>} the hooks clicked (choice, pick, confirm) */
    const kinds = new Set();
    let reloaded = false;
    /** @type {Map<string, string>} the kinds of prompt each seat was reloaded at, and what was checked */
    const covered = new Map();
    /** @type {Map<Seat, number>} since when a seat is asked with nothing to click */
    const stuckSince = new Map();
    const over = () => seats.every((s) => s.rec.change?.over) && watchers.every((w) => w.rec.change?.over);
    while (!over()) {
      assert.ok(Date.now() < deadline, `${label}: the conflict ends within ${game.deadlineMs ?? 180_000} ms (${clicks} clicks)`);
      let acted = false;
      for (const s of seats) {
        if (!asked(s)) {
          stuckSince.delete(s);
          continue;
        }
        const pick = await nextClick(s.page, random());
        if (pick === null) {
          const since = stuckSince.get(s) ?? Date.now();
          stuckSince.set(s, since);
          assert.ok(
            Date.now() - since < 10_000,
            `${label}: seat ${s.name} is asked (${JSON.stringify(s.rec.change.prompt).slice(0, 300)}) but its page offers nothing to click`,
          );
          continue;
        }
        stuckSince.delete(s);
        const what = pick.what;
        s.sentBefore = s.rec.sent.length;
        try {
          if (game.keyboard) {
            if (!(await pressButton(s.page, pick.index, clicks % 2 === 0 ? 'Enter' : 'Space', keys))) throw new Error('redrawn');
          } else {
            await s.page.locator(BUTTONS).nth(pick.index).click({ timeout: 3_000 });
          }
        } catch {
          // The page drew its prompt again between the look and the click (another seat's
          // commitment, a change): look again.
          misses += 1;
          assert.ok(misses < 50, `${label}: seat ${s.name}'s buttons kept moving away from the clicks`);
          break;
        }
        clicks += 1;
        s.clicks += 1;
        kinds.add(pick.kind);
        acted = true;
        assert.ok(clicks <= maxClicks, `${label}: the conflict ends within ${maxClicks} clicks`);
        for (const p of all) await p.rec.snapshot(`seat ${s.name} clicked ${what}`);
        if (game.reload === s.name && !reloaded) {
          reloaded = await reloadSealed(s, label);
          if (reloaded) for (const p of all) await p.rec.snapshot(`seat ${s.name} reloaded`);
        }
        if (game.reloadEvery) await reloadEveryKind(seats, covered, label);
        break;
      }
      if (!acted) await new Promise((r) => setTimeout(r, 40));
    }
    // The system's module drew its pickers (a module that failed to load leaves the generic
    // buttons, one per choice).
    assert.ok(kinds.has('pick') && kinds.has('confirm'), `${label}: the pages offered the system's pickers (clicked: ${[...kinds].join(', ')})`);
    if (game.reload) assert.ok(reloaded, `${label}: seat ${game.reload}'s page was reloaded while sealed`);

    // Every page's log: a seat's through its token, the public one through the spectators'.
    /** @type {Record<string, any[]>} */
    const logs = {};
    for (const [name, link] of Object.entries(created.seats)) logs[name] = (await server.log(created.table, /** @type {string} */ (link))).updates;
    const spectatorLog = (await server.log(created.table, created.spectator)).updates;
    for (const p of all) {
      await p.rec.settle();
      assert.deepEqual(p.rec.errors, [], `${label}: ${p.name} had no script error`);
      assert.deepEqual(p.rec.foreignRequests(), [], `${label}: every request of ${p.name} went to the server`);
      assert.ok(p.rec.change?.over, `${label}: ${p.name} saw the end`);
    }
    const checked = checkRedaction(label, created, logs, spectatorLog, seats, watchers);
    // The true choices: every opened command hashes to a commitment its seat bound; and (see
    // `openings`) every bound commitment, each page's reveals among them, is opened.
    for (const u of spectatorLog.filter((u) => u.kind === 'opened')) {
      const c = commitmentOf(u.command, u.nonce);
      assert.ok(
        spectatorLog.some((b) => b.kind === 'bound' && b.seq < u.seq && b.commitments.some((/** @type {any} */ x) => x.seat === u.seat && x.commitment === c)),
        `${label}: the command opened at ${u.seq} is one seat ${u.seat} committed to: ${JSON.stringify(u)}`,
      );
    }
    /** @type {string[]} */
    const openings = unopened(spectatorLog).map((c) => `seat ${c.seat}'s commitment bound at ${c.seq} (${c.commitment}) is never opened`);
    for (const s of seats) {
      const reveals = s.rec.sent.filter((m) => m?.type === 'reveal');
      assert.ok(reveals.length > 0, `${label}: seat ${s.name}'s page sealed and revealed its face-down choices`);
      for (const m of reveals) {
        if (!logs[s.name].some((u) => u.kind === 'opened' && u.seat === s.rec.you.seat && u.nonce === m.nonce)) {
          openings.push(`seat ${s.name}'s reveal of ${JSON.stringify(m.command)} (acknowledged) is not opened in its log`);
        }
      }
    }
    for (const s of seats) {
      const faults = spectatorLog.filter((u) => u.kind === 'fault' && u.seat === s.rec.you.seat);
      assert.deepEqual(faults, [], `${label}: seat ${s.name}'s page revealed every choice it sealed`);
    }
    if (game.keyboard) {
      for (const s of seats) assert.equal(await pointerEvents(s.page), 0, `${label}: seat ${s.name}'s page saw no pointer event`);
    }
    const frames = [...seats, ...watchers].reduce((n, p) => n + p.rec.frames.length, 0);
    const snapshots = [...seats, ...watchers].reduce((n, p) => n + p.rec.snapshots.length, 0);
    return { created, clicks, seats, watchers, logs, spectatorLog, checked, frames, snapshots, openings, covered, keys };
  } finally {
    for (const s of seats) await s.context.close().catch(() => {});
    for (const w of watchers) await w.context.close().catch(() => {});
  }
}

/**
 * The seat names of a game's example, from `GET /api/systems`.
 * @param {import('./lib.mjs').Server} server
 * @param {Game} game
 * @returns {Promise<Record<string, any>>}
 */
async function seatNames(server, game) {
  const { body } = await server.api('GET', '/api/systems');
  const systems = Array.isArray(body) ? body : body.systems ?? [];
  const system = systems.find((/** @type {any} */ s) => s.system === game.system || s.name === game.system);
  const example = (system?.examples ?? []).find((/** @type {any} */ e) => e.name === game.example);
  const seats = example?.seats ?? [];
  if (seats.length === 0) throw new Error(`GET /api/systems lists no seats for ${game.system} ${game.example}: ${JSON.stringify(body).slice(0, 500)}`);
  return Object.fromEntries(seats.map((/** @type {any} */ s) => [typeof s === 'string' ? s : s.name, s]));
}

/**
 * The kind of what a seat is asked now, by its page's frames: the commands its prompt offers
 * (their names), whether the prompt carries branches, whether the seat has committed already in
 * the open round (a sealed GM asked again for its next fighter), and whether the round is bound.
 * @param {Seat} s
 */
export function promptKind(s) {
  const rec = s.rec;
  const change = rec.change;
  const seat = rec.you?.seat;
  const sealed = rec.frames.findLast((f) => f.msg?.type === 'sealed' || f.msg?.type === 'welcome' || (f.msg?.updates ?? []).length > 0)?.msg;
  const committed = sealed?.type === 'sealed' ? (sealed.seats ?? []).includes(seat) : sealed?.type === 'welcome' ? (sealed.round?.sealed ?? []).includes(seat) : false;
  const lastBound = rec.frames.findLastIndex((f) => f.msg?.type === 'bound');
  const lastItem = rec.frames.findLastIndex((f) => (f.msg?.updates ?? []).some((/** @type {any} */ u) => u.kind !== 'bound'));
  const bound = lastBound > lastItem;
  const prompt = change?.prompt;
  const names = prompt ? [...new Set((prompt.choices ?? []).map((/** @type {any} */ c) => (c.command && typeof c.command === 'object' ? Object.keys(c.command)[0] : String(c.command))))].sort().join(',') : 'none';
  const awaited = (sealed?.type === 'sealed' ? sealed.awaiting : change?.awaiting ?? []).includes(seat);
  return `${s.name}: ${names}${prompt?.branches ? ' (branches)' : ''}${awaited ? ' awaited' : ''}${committed ? ' after its own commitment' : ''}${bound ? ' bound' : ''}`;
}

/**
 * Reloads each seat's page once at every kind of prompt it reaches ({@link promptKind}), and
 * checks that the reloaded page offers exactly what the server's welcome awaits of it: a prompt
 * (the seat awaited, the round not bound) is offered as controls to click, never hidden behind
 * its "chosen" line; a seat awaited for nothing is offered nothing to choose.
 * @param {Seat[]} seats
 * @param {Map<string, string>} covered the kinds already reloaded at, and what was checked
 * @param {string} label
 */
export async function reloadEveryKind(seats, covered, label) {
  for (const s of seats) {
    const rec = s.rec;
    if (rec.change?.over) continue;
    // Every answer of the page answered first (a reload drops what is not acknowledged).
    await waitFor(() => unanswered(rec) === 0, 5_000, `${label}: seat ${s.name}'s answers acknowledged`).catch(() => {});
    await new Promise((r) => setTimeout(r, 150));
    const kind = promptKind(s);
    if (covered.has(kind)) continue;
    const welcomes = rec.frames.filter((f) => f.msg?.type === 'welcome').length;
    await s.page.reload({ waitUntil: 'load', timeout: 30_000 });
    await waitFor(() => rec.frames.filter((f) => f.msg?.type === 'welcome').length > welcomes, 20_000, `${label}: seat ${s.name}'s welcome after a reload at ${kind}`);
    const at = rec.frames.findLastIndex((f) => f.msg?.type === 'welcome');
    const welcome = rec.frames[at].msg;
    const seat = welcome.you?.seat;
    const asked = Boolean(welcome.prompt) && (welcome.awaiting ?? []).includes(seat) && !welcome.round?.bound && !welcome.over;
    // Give the page its moment to draw (its system module loads with the welcome).
    await new Promise((r) => setTimeout(r, 400));
    // The table moved on meanwhile (a bot, the page's own reveal): the welcome is not what to compare with.
    const moved = () => rec.frames.slice(at + 1).some((f) => f.msg?.type === 'update' || f.msg?.type === 'bound' || f.msg?.type === 'sealed');
    if (moved()) continue;
    const offered = await waitFor(async () => (await nextClick(s.page, 0.5)) !== null, asked ? 5_000 : 300, 'controls').then(
      () => true,
      () => false,
    );
    if (moved()) continue;
    const chosenShown = await s.page.locator('[data-testid="prompt"] .chosen').count();
    if (asked) {
      assert.ok(offered, `${label}: seat ${s.name} reloaded at ${kind}: the server awaits ${JSON.stringify(welcome.prompt).slice(0, 200)} but its page offers nothing to click`);
      assert.equal(chosenShown, 0, `${label}: seat ${s.name} reloaded at ${kind}: the page shows its "chosen" line over the question the server awaits`);
    } else {
      assert.ok(!offered, `${label}: seat ${s.name} reloaded at ${kind}: the server awaits nothing of it, but its page offers choices`);
    }
    covered.set(kind, asked ? 'offers the prompt' : 'offers nothing');
  }
}

/** How many of a page's answers (seal, reveal, command, take-back) have no ack or error yet. @param {import('./lib.mjs').Recorder} rec */
function unanswered(rec) {
  const answered = new Set(rec.frames.filter((f) => f.msg?.type === 'ack' || f.msg?.type === 'error').map((f) => f.msg.id));
  // Since the page's latest welcome: what a page sent before a reload is not its to answer.
  const since = rec.frames.findLastIndex((f) => f.msg?.type === 'welcome');
  return rec.sent.filter((m, i) => rec.sentAt[i] > since && ANSWERS.has(m?.type) && !answered.has(m.id)).length;
}

/**
 * Reloads the seat's page if it has sealed a choice that is not bound yet (after choosing,
 * before the reveal), and waits until its new connection is welcomed. Whether it did.
 * @param {Seat} s
 * @param {string} label
 */
async function reloadSealed(s, label) {
  const rec = s.rec;
  // The click's answer: a seal, acknowledged, with the round still open (not bound).
  const answered = () => rec.sent.findLastIndex((m) => ANSWERS.has(m?.type));
  await waitFor(() => answered() >= s.sentBefore, 5_000, `${label}: seat ${s.name}'s answer`).catch(() => {});
  const i = answered();
  if (i < s.sentBefore || rec.sent[i].type !== 'seal') return false;
  const id = rec.sent[i].id;
  const ackd = () => rec.frames.some((f, k) => k >= rec.sentAt[i] && (f.msg?.type === 'ack' || f.msg?.type === 'error') && f.msg.id === id);
  await waitFor(ackd, 5_000, `${label}: the seal's answer`);
  const after = rec.frames.slice(rec.sentAt[i]);
  if (after.some((f) => f.msg?.type === 'error' && f.msg.id === id)) return false;
  if (after.some((f) => f.msg?.type === 'bound' || (f.msg?.updates ?? []).length > 0)) return false;
  const sealed = rec.frames.findLast((f) => f.msg?.type === 'sealed')?.msg;
  if (!(sealed?.seats ?? []).includes(rec.you.seat) || rec.change?.over) return false;
  const welcomes = rec.frames.filter((f) => f.msg?.type === 'welcome').length;
  await s.page.reload({ waitUntil: 'load', timeout: 30_000 });
  await waitFor(() => rec.frames.filter((f) => f.msg?.type === 'welcome').length > welcomes, 20_000, `${label}: seat ${s.name}'s welcome after the reload`);
  const welcome = rec.frames.findLast((f) => f.msg?.type === 'welcome')?.msg;
  assert.deepEqual(welcome.you, rec.you, `${label}: the reloaded page holds its seat again`);
  const round = welcome.round;
  assert.ok(
    (round?.sealed ?? []).includes(rec.you.seat) || (round?.commitments ?? []).some((/** @type {any} */ c) => c.seat === rec.you.seat),
    `${label}: the round still holds seat ${s.name}'s seal after the reload: ${JSON.stringify(round)}`,
  );
  return true;
}

/**
 * The commitment to `command` with `nonce` (docs/fairness.md §3): SHA-256 over the command's
 * canonical JSON and the nonce's 32 bytes, in hex. (The commands hold only integers, strings,
 * objects and arrays: `JSON.stringify` with sorted keys is their canonical JSON.)
 * @param {any} command
 * @param {string} nonce 64 hex digits
 */
export function commitmentOf(command, nonce) {
  return createHash('sha256').update(JSON.stringify(canonicalize(command)), 'utf8').update(Buffer.from(nonce, 'hex')).digest('hex');
}

/**
 * The bound commitments of a log that no later `opened` item opens.
 * @param {any[]} log
 * @returns {{seq: number, seat: number, commitment: string}[]}
 */
export function unopened(log) {
  const opened = new Set(log.filter((u) => u.kind === 'opened').map((u) => `${u.seat}:${commitmentOf(u.command, u.nonce)}`));
  const faulted = new Set(log.filter((u) => u.kind === 'fault').map((u) => u.seat));
  /** @type {{seq: number, seat: number, commitment: string}[]} */
  const out = [];
  for (const u of log) {
    if (u.kind !== 'bound') continue;
    for (const c of u.commitments) {
      if (!opened.has(`${c.seat}:${c.commitment}`) && !faulted.has(c.seat)) out.push({ seq: u.seq, ...c });
    }
  }
  return out;
}

/**
 * A JSON value with its objects' keys sorted, to compare commands written in another order.
 * @param {any} v
 * @returns {any}
 */
function canonicalize(v) {
  if (Array.isArray(v)) return v.map(canonicalize);
  if (v && typeof v === 'object') return Object.fromEntries(Object.keys(v).sort().map((k) => [k, canonicalize(v[k])]));
  return v;
}

/**
 * Escapes text as the DOM's `outerHTML` writes it in a text node.
 * @param {string} text
 */
function htmlText(text) {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\u00a0/g, '&nbsp;');
}

/**
 * No page held another seat's face-down choice before its reveal:
 * - an item of seat X's log that differs from the public one (X's private view of it) is in
 *   no frame and no DOM of another page (another seat's, the spectators', the GM screen's —
 *   which sees as the rules' GM seat, so that seat's private items are its own);
 * - the nonce of every command opened at a reveal (seq j) is in no frame another page
 *   received before the one carrying item j, and in none of its DOM snapshots taken before.
 * @param {string} label
 * @param {any} created
 * @param {Record<string, any[]>} logs every seat's log by name
 * @param {any[]} spectatorLog
 * @param {Seat[]} seats
 * @param {{name: string, rec: import('./lib.mjs').Recorder}[]} watchers
 */
export function checkRedaction(label, created, logs, spectatorLog, seats, watchers) {
  // The seats' numbers by name, from a welcome (the links are keyed by name, in name order).
  const welcome = watchers[0].rec.frames.find((f) => f.msg?.type === 'welcome')?.msg;
  // The GM screen sees what the rules' GM seat sees (docs/protocol.md, Links): its private
  // items are that seat's, and every other seat's are as hidden from it as from a spectator.
  const gmSeat = (welcome?.seats ?? []).find((/** @type {any} */ s) => s.role === 'gm')?.seat ?? -1;
  const pages = [
    ...seats.map((s) => ({ name: `seat ${s.name}`, seat: s.rec.you.seat, rec: s.rec })),
    ...watchers.map((w) => ({ name: w.name, seat: w.name === GM_SCREEN ? gmSeat : -1, rec: w.rec })),
  ];
  /** @type {Record<string, number>} */
  const seatNumber = Object.fromEntries((welcome?.seats ?? []).map((/** @type {any} */ s) => [s.name, s.seat]));
  for (const name of Object.keys(created.seats)) assert.ok(name in seatNumber, `${label}: the welcome numbers seat ${name}`);
  let privateItems = 0;
  for (const [name, log] of Object.entries(logs)) {
    const x = seatNumber[name];
    assert.equal(log.length, spectatorLog.length, `${label}: seat ${name}'s log numbers the same items`);
    for (let i = 0; i < log.length; i++) {
      const mine = log[i];
      const pub = spectatorLog[i];
      if (JSON.stringify(mine) === JSON.stringify(pub)) continue;
      privateItems += 1;
      const hidden = JSON.stringify(mine);
      const text = typeof mine.text === 'string' && mine.text !== pub.text && mine.text.trim().length > 0 ? mine.text : null;
      for (const p of pages) {
        if (p.seat === x) continue;
        for (const f of p.rec.frames) {
          assert.ok(!f.text.includes(hidden), `${label}: seat ${name}'s private item ${mine.seq} is in a frame to ${p.name}: ${hidden}`);
          for (const u of f.msg?.updates ?? []) {
            if (u?.seq === mine.seq) assert.notDeepEqual(u, mine, `${label}: ${p.name} received seat ${name}'s view of item ${mine.seq}`);
          }
        }
        if (text) {
          for (const snap of p.rec.snapshots) {
            assert.ok(
              !snap.html.includes(text) && !snap.html.includes(htmlText(text)),
              `${label}: ${p.name}'s page showed seat ${name}'s private text of item ${mine.seq} (after ${snap.after}): ${text}`,
            );
          }
        }
      }
    }
  }
  let opened = 0;
  for (const item of spectatorLog) {
    if (item.kind !== 'opened' || typeof item.nonce !== 'string') continue;
    opened += 1;
    const j = item.seq;
    for (const p of pages) {
      if (p.seat === item.seat) continue;
      for (const f of p.rec.frames) {
        // From the first frame carrying item j on, the nonce is public.
        if (f.seq >= j) break;
        assert.ok(!f.text.includes(item.nonce), `${label}: seat ${item.seat}'s nonce opened at ${j} reached ${p.name} before its reveal: ${f.text.slice(0, 300)}`);
      }
      for (const snap of p.rec.snapshots) {
        if (snap.seq < j) assert.ok(!snap.html.includes(item.nonce), `${label}: ${p.name}'s page held seat ${item.seat}'s nonce before its reveal at ${j} (after ${snap.after})`);
      }
    }
  }
  assert.ok(opened > 0, `${label}: the game opened commitments at its reveals (sealed rounds)`);
  return { privateItems, opened };
}
