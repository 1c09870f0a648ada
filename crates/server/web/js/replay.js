// @ts-check
/** @file Replay (issue 34 §2): a finished game stepped through as the cards were played —
 * first, previous, next, last (buttons, and the arrow, Home and End keys) — each step's
 * revealed choices and result. The server checks the log whole and the rules rebuild each
 * step's public view (`POST /api/replay`, `session::replay::replay_steps`): nothing here
 * decides anything. Loaded only when asked: from a finished table's "Replay", or a log file
 * dropped on the home page ({@link dropZone}). */

import { h, replace } from './dom.js';
import { turnResult, ending } from './outcome.js';
import { wasShown } from './heads.js';
import { systemModule } from './systems/index.js';

const TITLES = /** @type {Record<string, string>} */ ({
  'iron-triangle': 'Iron Triangle',
  nodice: 'No Dice',
  'inciting-incident': 'Inciting Incident',
});

/**
 * The server's replay of a verifiable log's text, or an Error saying why there is none.
 * @param {string} text
 * @returns {Promise<{system: string, head: string, seats: string[], steps: {view: any, lines: string[]}[]}>}
 */
export async function fetchReplay(text) {
  const r = await fetch('/api/replay', { method: 'POST', headers: { 'Content-Type': 'application/jsonl' }, body: text });
  const body = await r.text();
  if (!r.ok) {
    let message = body;
    try {
      message = JSON.parse(body).message ?? body;
    } catch {
      /* the text as it is */
    }
    throw new Error(message);
  }
  return JSON.parse(body);
}

/**
 * Replays `text` (a verifiable log) into `where`: a heading, whether it is verified, the
 * step controls and the step shown. Focus goes to the heading.
 * @param {string} text
 * @param {HTMLElement} where
 */
export async function showReplay(text, where) {
  const status = h('p', { role: 'status' }, 'Checking the log and replaying the rules…');
  replace(where, status);
  let replay;
  try {
    replay = await fetchReplay(text);
  } catch (e) {
    replace(where, h('p', { class: 'note', role: 'alert', 'data-testid': 'replay-refused' }, `No replay: ${e instanceof Error ? e.message : String(e)}`));
    return;
  }
  const verified = wasShown(replay.head);
  const steps = replay.steps;
  const mod = await systemModule(replay.system);
  let at = 0;
  const counter = h('p', { class: 'replay-counter', role: 'status', 'aria-live': 'polite', 'data-testid': 'replay-counter' });
  const body = h('div', { class: 'replay-step', 'data-testid': 'replay-step' });
  const button = (/** @type {string} */ label, /** @type {() => number} */ to, /** @type {string} */ key) =>
    h('button', { type: 'button', 'data-testid': `replay-${key}`, onclick: () => go(to()) }, label);
  const buttons = [
    button('First', () => 0, 'first'),
    button('Previous', () => at - 1, 'previous'),
    button('Next', () => at + 1, 'next'),
    button('Last', () => steps.length - 1, 'last'),
  ];
  const ctx = { system: replay.system, you: { kind: 'spectator' }, seats: replay.seats.map((name, seat) => ({ seat, name })), rules: {}, choose: () => {} };
  /** @param {number} n */
  function go(n) {
    at = Math.max(0, Math.min(steps.length - 1, n));
    const step = steps[at];
    replace(counter, `Step ${at + 1} of ${steps.length}`);
    buttons[0].toggleAttribute('disabled', at === 0);
    buttons[1].toggleAttribute('disabled', at === 0);
    buttons[2].toggleAttribute('disabled', at === steps.length - 1);
    buttons[3].toggleAttribute('disabled', at === steps.length - 1);
    const result = turnResult(step.view);
    const end = at === steps.length - 1 ? ending(step.view) : null;
    let drawn = null;
    try {
      drawn = mod?.renderView?.(step.view, ctx) ?? null;
    } catch {
      drawn = null;
    }
    replace(
      body,
      end ? h('p', { class: 'ending', 'data-testid': 'replay-ending' }, end.headline) : null,
      end && end.summary.length > 0 ? h('ul', { class: 'ending-summary' }, end.summary.map((l) => h('li', null, l))) : null,
      result ? h('div', { class: 'turn-result', 'data-testid': 'replay-result' }, h('p', { class: 'result-headline' }, result.headline), result.lines.length > 0 ? h('ul', null, result.lines.map((l) => h('li', null, l))) : null) : null,
      h('h3', null, at === 0 ? 'The table as it opened' : 'What happened'),
      step.lines.length > 0 ? h('ul', { class: 'replay-lines' }, step.lines.map((l) => h('li', null, l))) : h('p', null, 'Nothing said yet.'),
      drawn ? h('details', { class: 'replay-view' }, h('summary', null, 'The table at this step'), drawn) : null,
    );
  }
  const section = h(
    'section',
    {
      class: 'replay',
      'aria-labelledby': 'replay-h',
      'data-testid': 'replay',
      onkeydown: (/** @type {KeyboardEvent} */ e) => {
        const t = /** @type {HTMLElement} */ (e.target);
        if (t.closest('input, textarea, select, summary')) return;
        const to = { ArrowLeft: at - 1, ArrowRight: at + 1, Home: 0, End: steps.length - 1 }[e.key];
        if (to === undefined) return;
        e.preventDefault();
        go(to);
      },
    },
    h('h2', { id: 'replay-h', tabindex: '-1' }, `Replay: ${TITLES[replay.system] ?? replay.system}`),
    h(
      'p',
      { class: verified ? 'ok' : 'note', 'data-testid': 'replay-trust' },
      verified
        ? '✓ Verified: this browser was shown this log\u2019s last hash during play, and the log checks — its hash chain, every commitment and draw, and the rules replayed from its commands.'
        : 'Consistent: the log checks — its hash chain, every commitment and draw, and the rules replayed from its commands — but this browser was never shown it during play, so it cannot say the table showed it to anyone.',
    ),
    h('p', { class: 'hint' }, 'Step through it as the cards were played: the buttons, or the arrow keys, Home and End.'),
    h('nav', { class: 'controls', 'aria-label': 'Replay steps' }, buttons),
    counter,
    body,
  );
  replace(where, section);
  go(0);
  const heading = section.querySelector('h2');
  if (heading instanceof HTMLElement) heading.focus();
}

/**
 * The home page's drop zone: a log file (as a table page downloads it) chosen or dropped, and
 * its replay below.
 * @param {HTMLElement} container
 */
export function dropZone(container) {
  const out = h('div', { class: 'replay-out' });
  const input = /** @type {HTMLInputElement} */ (h('input', { type: 'file', id: 'replay-file', accept: '.jsonl,.json,.txt,application/jsonl', 'data-testid': 'replay-file' }));
  const read = async (/** @type {File | undefined} */ file) => {
    if (!file) return;
    const text = await file.text();
    await showReplay(text, out);
  };
  input.addEventListener('change', () => void read(input.files?.[0]));
  const zone = h(
    'section',
    {
      class: 'drop-zone',
      'aria-labelledby': 'replay-zone-h',
      'data-testid': 'drop-zone',
      ondragover: (/** @type {DragEvent} */ e) => {
        e.preventDefault();
        zone.classList.add('over');
      },
      ondragleave: () => zone.classList.remove('over'),
      ondrop: (/** @type {DragEvent} */ e) => {
        e.preventDefault();
        zone.classList.remove('over');
        void read(e.dataTransfer?.files?.[0]);
      },
    },
    h('h2', { id: 'replay-zone-h' }, 'Replay a finished game'),
    h('label', { for: 'replay-file' }, 'Drop a game\u2019s log here (the file a table\u2019s “Download the log” saves), or choose it:'),
    input,
  );
  container.append(zone, out);
}
