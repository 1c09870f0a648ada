// @ts-check
/** @file The rule systems' page modules, by the protocol's system name.
 *
 * Each `systems/<system>.js` exports (the table page calls them; every one may return null
 * to fall back to the generic rendering):
 * - `renderView(view, ctx)` → HTMLElement: the viewer's `view` (welcome/update), drawn.
 * - `renderPrompt(prompt, view, ctx)` → HTMLElement | null: the prompt's choices drawn as the
 *   system's cards and pickers; a choice calls `ctx.choose(choice.command)`.
 * - `renderEvent(item, ctx)` → HTMLElement | null: one log item (an `event` update) drawn,
 *   e.g. a reveal side by side with its result explained; its `text` is the narration.
 * - `renderRulings(view, ctx)` → HTMLElement | null: the GM's rulings panel (on the GM link and
 *   the rules' GM seat's page): forms that send a GM's ruling through `ctx.ruling`; each is
 *   built by the module's pure `rulingCommand(kind, fields, view)`.
 * - `tableCards(view)` → `{round, seats: [{who, seat, winner, cards: [{state, key, name}]}]}` |
 *   null: the round's cards on the table as the viewer sees them (`state`: `empty`, `down` or
 *   `up`; `key` a card of crates/cards, `name` what it says), which the page draws with
 *   cards.js — face down, or turned over once every card of a row is up.
 * - `cardOf(command, view)` → `{key, name}` | null: the card a seat's own command plays, to
 *   name its face-down card (a sealed seat's choice is in no view before the reveal).
 * - `title` (string): the system's name as the books write it.
 *
 * `ctx` is {@link SystemContext}. A module never re-derives a rule: what it shows comes from
 * the view, the prompt's choices (the legal ones) and the events.
 */

/**
 * @typedef {object} SystemContext
 * @property {string} system the protocol's system name
 * @property {{kind: string, seat?: number}} you who this page is (welcome's `you`); on the GM
 *   link `{kind: 'gm', seat: N}` with N the rules' GM seat, whose redaction it receives (its
 *   characters are drawn as "mine"), asked nothing and giving no seat's choices
 * @property {any[]} seats the seats (welcome's/seats' `seats`)
 * @property {Record<string, any>} rules the table's ruleset options
 * @property {(command: any) => void} choose sends a command for this seat (sealed or plain, as the seat's mode says)
 * @property {(command: any, done: string) => void} [ruling] sends a public ruling the rules allow beside the prompt (always plain, asked or not); `done` is said once applied
 * @property {string | null} [serverSeedCommitment] the table's server seed commitment (welcome), to check the draws against
 * @property {(node: Element) => void} [announce] reads a short text to screen readers
 */

/** @type {Record<string, () => Promise<any>>} */
const modules = {
  'iron-triangle': () => import('./iron-triangle.js'),
  'nodice': () => import('./nodice.js'),
  'inciting-incident': () => import('./inciting-incident.js'),
};

/**
 * The page module of `system`, or null (the generic rendering) when it has none.
 * @param {string} system
 */
export async function systemModule(system) {
  const load = modules[system];
  if (!load) return null;
  try {
    return await load();
  } catch {
    return null;
  }
}
