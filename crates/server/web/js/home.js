// @ts-check
/** @file The home page (`/`): creates a table — the system, an example or an uploaded setup
 * file, who sits where (a person, sealed or plain, or one of the system's bot kinds), the
 * ruleset options, the decision timer and the bots' think delay — then shows every link with a
 * copy button and its QR code. Everything comes from `GET /api/systems`; the table is made by
 * `POST /api/tables`, whose errors name the field or rule at fault. */

import { h, replace } from './dom.js';
import { linkBox } from './links.js';

/** The systems' names as the books write them. */
const TITLES = /** @type {Record<string, string>} */ ({
  'iron-triangle': 'Iron Triangle',
  nodice: 'No Dice',
  'inciting-incident': 'Inciting Incident',
});

/**
 * @typedef {{name: string, role: string, side: number}} SeatSpec
 * @typedef {{name: string, seats: SeatSpec[], rules: Record<string, any>}} Example
 * @typedef {{name: string, number: boolean, rules: string, values: string[]}} RuleOption
 * @typedef {{system: string, examples: Example[], bots: string[], rules: RuleOption[], reference: string}} SystemInfo
 */

const app = /** @type {HTMLElement} */ (document.getElementById('app'));

/** @type {SystemInfo[]} */
let systems = [];

/** The form's state. */
const form = {
  system: '',
  /** 'example' or 'file' */
  source: 'example',
  example: '',
  /** The uploaded file's setup: `{toml: text}` or `{json: value}`. @type {any} */
  upload: null,
  uploadName: '',
  /** Seat names typed for an uploaded file. */
  uploadSeats: '',
};

const errorBox = h('div', { class: 'error', role: 'alert', hidden: true });
const result = h('section', { class: 'result', 'aria-live': 'polite' });

/** @param {string} text */
function showError(text) {
  errorBox.hidden = !text;
  replace(errorBox, text);
}

function system() {
  return systems.find((s) => s.system === form.system) ?? systems[0];
}

function example() {
  return system()?.examples.find((e) => e.name === form.example) ?? system()?.examples[0];
}

/** The seats of the chosen setup: the example's, or the names typed for a file. @returns {SeatSpec[]} */
function seats() {
  if (form.source === 'example') return example()?.seats ?? [];
  return form.uploadSeats
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((name) => ({ name, role: name === 'gm' ? 'gm' : 'player', side: 0 }));
}

// ---- The form --------------------------------------------------------------------------

const parts = {
  setup: h('div', { class: 'form-grid' }),
  seats: h('fieldset', null),
  rules: h('fieldset', null),
};

/** @param {string} text @param {string} id @param {HTMLElement} control @param {string} [hint] */
function field(text, id, control, hint) {
  control.id = id;
  return h('div', { class: 'field' }, h('label', { for: id }, h('span', null, text)), control, hint ? h('span', { class: 'hint' }, hint) : null);
}

function renderSetup() {
  const sys = system();
  const systemSelect = /** @type {HTMLSelectElement} */ (
    h(
      'select',
      { onchange: (/** @type {Event} */ e) => pickSystem(/** @type {HTMLSelectElement} */ (e.target).value) },
      systems.map((s) => h('option', { value: s.system, selected: s.system === form.system }, TITLES[s.system] ?? s.system)),
    )
  );
  const sourceRadio = (/** @type {string} */ value, /** @type {string} */ text) =>
    h(
      'label',
      { class: 'toggle' },
      h('input', {
        type: 'radio',
        name: 'source',
        value,
        checked: form.source === value,
        onchange: () => {
          form.source = value;
          renderAll();
        },
      }),
      ' ',
      text,
    );
  const exampleSelect = h(
    'select',
    {
      onchange: (/** @type {Event} */ e) => {
        form.example = /** @type {HTMLSelectElement} */ (e.target).value;
        renderSeats();
        renderRules();
      },
    },
    (sys?.examples ?? []).map((e) => h('option', { value: e.name, selected: e.name === form.example }, `${e.name} (${e.seats.map((s) => s.name).join(', ')})`)),
  );
  const file = h('input', { type: 'file', accept: '.toml,.json,application/json,text/plain', onchange: readFile });
  replace(
    parts.setup,
    field('System', 'system', systemSelect),
    h('fieldset', null, h('legend', null, 'Setup'), sourceRadio('example', 'An example'), sourceRadio('file', 'My own file')),
    form.source === 'example'
      ? field('Example', 'example', exampleSelect)
      : h(
          'div',
          { class: 'form-grid' },
          field('Setup file (TOML or JSON)', 'setup-file', file, form.uploadName ? `Read: ${form.uploadName}` : 'As the command line reads it; paths to other files are refused.'),
          field(
            'Seat names in the file',
            'upload-seats',
            h('input', {
              type: 'text',
              value: form.uploadSeats,
              placeholder: 'e.g. ada, gm',
              onchange: (/** @type {Event} */ e) => {
                form.uploadSeats = /** @type {HTMLInputElement} */ (e.target).value;
                renderSeats();
              },
            }),
            'Optional, comma-separated: to put bots in seats or choose plain mode. Seats not named are people\u2019s, playing plain.',
          ),
        ),
  );
}

/** @param {Event} e */
async function readFile(e) {
  const input = /** @type {HTMLInputElement} */ (e.target);
  const f = input.files?.[0];
  form.upload = null;
  form.uploadName = '';
  showError('');
  if (!f) return;
  const text = await new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result ?? ''));
    reader.onerror = () => reject(reader.error);
    reader.readAsText(f);
  }).catch((err) => {
    showError(`The file could not be read: ${err}`);
    return null;
  });
  if (text === null) return;
  if (/\.json$/i.test(f.name) || /^\s*[{[]/.test(String(text))) {
    try {
      form.upload = { json: JSON.parse(String(text)) };
    } catch (err) {
      showError(`${f.name} is not JSON: ${err instanceof Error ? err.message : String(err)}`);
      return;
    }
  } else {
    form.upload = { toml: String(text) };
  }
  form.uploadName = f.name;
  renderSetup();
}

/**
 * The example a system's form opens on: the one the README and its docs start with (the duel,
 * Kara against the bandit, the river fight), else the first.
 * @param {SystemInfo | undefined} sys
 */
function firstExample(sys) {
  const names = (sys?.examples ?? []).map((e) => e.name);
  return names.find((n) => n === FIRST_EXAMPLES[sys?.system ?? '']) ?? names[0] ?? '';
}

/** The README's example of each system. @type {Record<string, string>} */
const FIRST_EXAMPLES = { 'iron-triangle': 'duel', nodice: 'pc-vs-bandit', 'inciting-incident': 'river-fight' };

function pickSystem(/** @type {string} */ name) {
  form.system = name;
  form.example = firstExample(system());
  renderAll();
}

function renderSeats() {
  const sys = system();
  const list = seats();
  replace(
    parts.seats,
    h('legend', null, 'Who sits where'),
    list.length === 0 ? h('p', { class: 'hint' }, 'Every seat of the file is a person\u2019s, playing plain (the GM screen can hand one to a bot later).') : null,
    list.map((s, i) => {
      const who = /** @type {HTMLSelectElement} */ (
        h(
          'select',
          { id: `who-${i}`, 'data-seat': s.name, class: 'who-select', onchange: () => renderModes() },
          h('option', { value: '' }, 'a person'),
          (sys?.bots ?? []).map((b) => h('option', { value: b, selected: defaultBot(s) === b }, `bot: ${b}`)),
        )
      );
      const sealed = h('input', { type: 'checkbox', id: `sealed-${i}`, 'data-seat': s.name, class: 'sealed-box', checked: true });
      return h(
        'div',
        { class: 'seat-row' },
        h('span', { class: 'seat-name' }, s.name, ' ', h('span', { class: 'hint' }, `(${s.role}, side ${s.side})`)),
        h('label', { for: `who-${i}` }, 'Played by '),
        who,
        h('label', { class: 'toggle sealed-label', for: `sealed-${i}` }, sealed, ' sealed'),
      );
    }),
    list.length > 0
      ? h('p', { class: 'hint' }, 'Sealed: the seat\u2019s page sends only a commitment to each face-down choice and reveals it once every seat has chosen, so not even the host sees it early. A bot always plays plain.')
      : null,
  );
  renderModes();
}

/** The GM seats start as a greedy bot (or the system's first kind), the players as people. @param {SeatSpec} s */
function defaultBot(s) {
  if (s.role !== 'gm') return '';
  const bots = system()?.bots ?? [];
  return bots.includes('greedy') ? 'greedy' : bots[0] ?? '';
}

/** A bot's seat has no mode: its checkbox is hidden. */
function renderModes() {
  for (const sel of parts.seats.querySelectorAll('select.who-select')) {
    const row = sel.closest('.seat-row');
    const label = row?.querySelector('.sealed-label');
    if (label instanceof HTMLElement) label.hidden = /** @type {HTMLSelectElement} */ (sel).value !== '';
  }
}

function renderRules() {
  const sys = system();
  const defaults = form.source === 'example' ? example()?.rules ?? {} : {};
  replace(
    parts.rules,
    h('legend', null, 'Ruleset options'),
    (sys?.rules ?? []).map((r, i) => {
      const id = `rule-${i}`;
      const current = defaults[r.name];
      const select = h(
        'select',
        { id, 'data-rule': r.name, class: 'rule-select' },
        h('option', { value: '' }, current === undefined ? 'as the setup says' : `as the setup says (${JSON.stringify(current)})`),
        r.values.map((v) => h('option', { value: v }, JSON.parse(v))),
        r.number ? h('option', { value: '#' }, 'a number…') : null,
      );
      const number = r.number
        ? h('input', { type: 'number', id: `${id}-n`, 'data-rule': r.name, class: 'rule-number', min: '0', step: '1', 'aria-label': `${r.name}: the number` })
        : null;
      return h(
        'div',
        { class: 'field' },
        h('label', { for: id }, h('span', null, r.name)),
        h('div', { class: 'controls' }, select, number),
        h('span', { class: 'hint' }, r.rules),
      );
    }),
  );
}

const secret = /** @type {HTMLInputElement} */ (h('input', { type: 'password', autocomplete: 'off' }));
const away = h(
  'details',
  { class: 'away' },
  h('summary', null, 'Creating from another device'),
  field('The server\u2019s admin secret', 'admin-secret', secret, 'Needed when the server was started with one (FACEDOWN_ADMIN_SECRET), from every machine; sent once, with this request, and not kept.'),
);

const timing = h(
  'fieldset',
  null,
  h('legend', null, 'Timing'),
  field('Decision timer (seconds, empty for none)', 'decision-seconds', h('input', { type: 'number', min: '1', step: '1', inputmode: 'numeric' }), 'When it runs out, the rules\u2019 documented default is taken for the seat.'),
  field('Bots think for (milliseconds)', 'think-ms', h('input', { type: 'number', min: '0', step: '100', value: '600', inputmode: 'numeric' }), 'So people can follow what the bots do.'),
);

function renderAll() {
  renderSetup();
  renderSeats();
  renderRules();
}

// ---- Creating --------------------------------------------------------------------------

/** The `CreateTable` body the form describes, or a message saying what is missing. */
function request() {
  const sys = system();
  if (!sys) return { error: 'No system to play: the server lists none.' };
  /** @type {any} */
  let setup;
  if (form.source === 'example') setup = { example: example()?.name ?? '' };
  else if (form.upload) setup = form.upload;
  else return { error: 'Choose a setup file first (or an example).' };
  /** @type {Record<string, any>} */
  const seatsOut = {};
  /** @type {Record<string, string>} */
  const modes = {};
  for (const sel of parts.seats.querySelectorAll('select.who-select')) {
    const s = /** @type {HTMLSelectElement} */ (sel);
    const name = s.dataset.seat ?? '';
    if (s.value) seatsOut[name] = { kind: 'bot', bot: s.value };
    else {
      const box = parts.seats.querySelector(`input.sealed-box[data-seat="${CSS.escape(name)}"]`);
      if (box instanceof HTMLInputElement && box.checked) modes[name] = 'sealed';
    }
  }
  /** @type {Record<string, any>} */
  const rules = {};
  for (const sel of parts.rules.querySelectorAll('select.rule-select')) {
    const s = /** @type {HTMLSelectElement} */ (sel);
    const name = s.dataset.rule ?? '';
    if (s.value === '#') {
      const n = parts.rules.querySelector(`input.rule-number[data-rule="${CSS.escape(name)}"]`);
      const v = n instanceof HTMLInputElement ? n.value.trim() : '';
      if (!/^\d+$/.test(v)) return { error: `${name}: write a whole number, or pick another value` };
      rules[name] = Number(v);
    } else if (s.value) rules[name] = JSON.parse(s.value);
  }
  /** @type {Record<string, any>} */
  const options = {};
  const seconds = /** @type {HTMLInputElement} */ (timing.querySelector('#decision-seconds')).value.trim();
  if (seconds) {
    if (!/^\d+$/.test(seconds) || Number(seconds) < 1) return { error: 'Decision timer: a whole number of seconds, at least 1 (or empty for none)' };
    options.decision_seconds = Number(seconds);
  }
  const think = /** @type {HTMLInputElement} */ (timing.querySelector('#think-ms')).value.trim();
  if (think) {
    if (!/^\d+$/.test(think)) return { error: 'Bots think for: a whole number of milliseconds' };
    options.think_ms = Number(think);
  }
  if (Object.keys(modes).length > 0) options.modes = modes;
  /** @type {any} */
  const body = { system: sys.system, setup, seats: seatsOut, options };
  if (Object.keys(rules).length > 0) body.rules = rules;
  return { body };
}

/** @param {Event} e */
async function create(e) {
  e.preventDefault();
  showError('');
  replace(result);
  const r = request();
  if ('error' in r) {
    showError(r.error ?? '');
    return;
  }
  const button = /** @type {HTMLButtonElement} */ (document.getElementById('create'));
  button.disabled = true;
  try {
    const response = await fetch('/api/tables', {
      method: 'POST',
      headers: secret.value
        ? { 'content-type': 'application/json', authorization: `Bearer ${secret.value}` }
        : { 'content-type': 'application/json' },
      body: JSON.stringify(r.body),
    });
    const text = await response.text();
    /** @type {any} */
    let answer = null;
    try {
      answer = JSON.parse(text);
    } catch {
      answer = null;
    }
    if (!response.ok) {
      if (response.status === 401) away.setAttribute('open', '');
      showError(`The table was not created (${answer?.code ?? response.status}): ${answer?.message ?? text}`);
      return;
    }
    showLinks(answer, r.body);
  } catch (err) {
    showError(`The server could not be reached: ${err instanceof Error ? err.message : String(err)}`);
  } finally {
    button.disabled = false;
  }
}

/**
 * The links of a new table.
 * @param {{table: string, seats: Record<string, string>, gm: string, spectator: string}} created
 * @param {any} body
 */
function showLinks(created, body) {
  const bots = body.seats ?? {};
  replace(
    result,
    h('h2', { id: 'links-h', tabindex: '-1' }, `Table ${created.table} is ready`),
    h('p', null, 'Give each player their seat\u2019s link (or let them scan its QR code): whoever holds a link plays that seat. Keep the GM link for yourself.'),
    h(
      'div',
      { class: 'link-grid' },
      Object.entries(created.seats).map(([name, link]) =>
        linkBox(`Seat ${name}${bots[name] ? ` (bot: ${bots[name].bot})` : ''}`, link),
      ),
      linkBox('GM', created.gm),
      linkBox('Spectators', created.spectator),
    ),
  );
  document.getElementById('links-h')?.focus();
}

// ---- Start -----------------------------------------------------------------------------

async function start() {
  try {
    const r = await fetch('/api/systems');
    if (!r.ok) throw new Error(`${r.status}`);
    systems = (await r.json()).systems ?? [];
  } catch (err) {
    replace(app, h('h1', null, 'facedown'), h('p', { class: 'error', role: 'alert' }, `The server\u2019s systems could not be loaded: ${err}`));
    return;
  }
  form.system = systems[0]?.system ?? '';
  form.example = firstExample(systems[0]);
  replace(
    app,
    h('h1', null, 'facedown'),
    h('p', null, 'Create a table, then share the links: each player opens theirs on a phone or a laptop and plays face down.'),
    h(
      'form',
      { class: 'form-grid', onsubmit: create, 'aria-label': 'A new table' },
      parts.setup,
      parts.seats,
      parts.rules,
      timing,
      away,
      errorBox,
      h('p', null, h('button', { type: 'submit', id: 'create', class: 'primary' }, 'Create the table')),
    ),
    result,
  );
  renderAll();
  // Replay a finished game from its log file (replay.js, loaded after the page shows).
  void import('./replay.js').then((m) => m.dropZone(app));
}

void start();
