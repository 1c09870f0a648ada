// @ts-check
/** @file Whole conflicts of each system played by clicking in separate browser contexts,
 * against each other and against the server's bots, with a page reloaded while its choice is
 * sealed; no page ever holds another seat's face-down choice before its reveal.
 *
 * `E2E_SEED` replays a run's clicks (each game prints its seed when it fails).
 */

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { serverAndBrowser } from './lib.mjs';
import { playGame } from './play.mjs';

const env = serverAndBrowser();

const SEED = Number(process.env.E2E_SEED ?? Date.now() % 1_000_000);


/** @type {(import('./play.mjs').Game & {what: string})[]} */
const GAMES = [
  {
    what: 'Iron Triangle duel: Ada and the GM on two pages, Ada reloaded while sealed',
    system: 'iron-triangle',
    example: 'duel',
    reload: 'ada',
  },
  {
    what: 'Iron Triangle duel: Ada on a page against a greedy bot',
    system: 'iron-triangle',
    example: 'duel',
    bots: { gm: 'greedy' },
  },
  {
    what: 'No Dice PC against the bandit: Kara and the GM on two pages, Kara reloaded while sealed',
    system: 'nodice',
    example: 'pc-vs-bandit',
    reload: 'kara',
  },
  {
    what: 'Inciting Incident river fight: Bren and Mira on two pages against a random GM bot',
    system: 'inciting-incident',
    example: 'river-fight',
    bots: { gm: 'random' },
    reload: 'bren',
    deadlineMs: 240_000,
  },
  {
    what: 'Inciting Incident cover-up: Sam and the GM on two pages',
    system: 'inciting-incident',
    example: 'cover-up',
  },
];

describe('whole conflicts by clicking', () => {
  GAMES.forEach((game, i) => {
    test(game.what, async (t) => {
      const seed = SEED + i;
      const r = await playGame(env.browser, env.server, game, seed);
      // Every commitment bound is opened once the rules reveal its command — one a round
      // left face down (a sealed public end_combo beside the other's stance) in a later round
      // (docs/fairness.md §3).
      assert.deepEqual(r.openings, [], r.openings.join('; '));
      console.log(
        `${game.system} ${game.example}: table ${r.created.table} over after ${r.clicks} clicks; ` +
          `${r.frames} frames and ${r.snapshots} DOM snapshots checked against ${r.checked.privateItems} private items ` +
          `and ${r.checked.opened} opened commitments (E2E_SEED=${SEED})`,
      );
    });
  });
});
