// @ts-check
/** @file The GM's rulings panel, shared by the system modules: the checks every ruling's form
 * makes before it sends (a whole number in its range, a reason the rules accept) and the few
 * form parts they are built of. Each system's `rulingCommand(kind, fields, view)` is pure and
 * tested under Node; its `renderRulings(view, ctx)` draws the forms and sends the command it
 * builds through `ctx.ruling` (a public command, given on the GM seat's behalf from the GM
 * link). The server and the rules still decide: a refusal is shown as the page shows any. */

import { h } from '../dom.js';

/**
 * What a ruling's form gives: the command to send and what to say once it is applied, or why
 * it is not sent.
 * @typedef {{command: any, done: string} | {error: string}} Ruling
 */

/**
 * The number of bytes `text` takes in UTF-8 (the rules' reasons are capped in bytes).
 * @param {string} text
 */
export function utf8Length(text) {
  return new TextEncoder().encode(text).length;
}

/**
 * A reason as the rules take it: trimmed, not empty, within `max` (bytes, or characters when
 * `unit` is 'characters'), without control characters. The reason, or why not.
 * @param {unknown} raw
 * @param {number} max
 * @param {'bytes' | 'characters'} [unit]
 * @returns {{reason: string} | {error: string}}
 */
export function checkReason(raw, max, unit = 'bytes') {
  const reason = String(raw ?? '').trim();
  if (!reason) return { error: 'Give a reason: a ruling is always logged with one.' };
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(reason)) return { error: 'The reason is one line, without control characters.' };
  const size = unit === 'bytes' ? utf8Length(reason) : [...reason].length;
  if (size > max) return { error: `The reason is ${size} ${unit}: at most ${max}.` };
  return { reason };
}

/**
 * A whole number typed in a field, within [min, max]; `what` names it in the error.
 * @param {unknown} raw
 * @param {number} min
 * @param {number} max
 * @param {string} what
 * @returns {{value: number} | {error: string}}
 */
export function wholeNumber(raw, min, max, what) {
  const text = String(raw ?? '').trim();
  if (!/^-?\d+$/.test(text)) return { error: `${what}: a whole number, please.` };
  const value = Number(text);
  if (value < min || value > max) return { error: `${what}: from ${min} to ${max}.` };
  return { value };
}

/**
 * A labelled select.
 * @param {string} id
 * @param {string} label
 * @param {{value: string, text: string, group?: string}[]} options grouped under `<optgroup>`s by `group`, in order
 * @returns {{row: HTMLElement, input: HTMLSelectElement}}
 */
export function selectRow(id, label, options) {
  /** @type {(HTMLElement)[]} */
  const children = [];
  /** @type {HTMLElement | null} */
  let group = null;
  for (const o of options) {
    const opt = h('option', { value: o.value }, o.text);
    if (o.group === undefined) {
      group = null;
      children.push(opt);
    } else {
      if (!group || group.getAttribute('label') !== o.group) {
        group = h('optgroup', { label: o.group });
        children.push(group);
      }
      group.append(opt);
    }
  }
  const input = /** @type {HTMLSelectElement} */ (h('select', { id, name: id }, children));
  return { row: h('div', { class: 'ruling-row' }, h('label', { for: id }, label), input), input };
}

/**
 * A labelled number input.
 * @param {string} id
 * @param {string} label
 * @param {{min?: number, max?: number, value?: number}} [range]
 * @returns {{row: HTMLElement, input: HTMLInputElement}}
 */
export function numberRow(id, label, range = {}) {
  const input = /** @type {HTMLInputElement} */ (
    h('input', { id, name: id, type: 'number', inputmode: 'numeric', step: 1, min: range.min, max: range.max, value: range.value, required: true })
  );
  return { row: h('div', { class: 'ruling-row' }, h('label', { for: id }, label), input), input };
}

/**
 * The reason's input: required, one line, `maxlength` characters at most (the byte cap is
 * checked on sending).
 * @param {string} id
 * @param {number} maxlength
 * @returns {{row: HTMLElement, input: HTMLInputElement}}
 */
export function reasonRow(id, maxlength) {
  const input = /** @type {HTMLInputElement} */ (
    h('input', { id, name: id, type: 'text', maxlength, required: true, autocomplete: 'off', 'aria-describedby': `${id}-hint` })
  );
  return {
    row: h(
      'div',
      { class: 'ruling-row' },
      h('label', { for: id }, 'Reason (said to everyone)'),
      input,
      h('span', { class: 'hint', id: `${id}-hint` }, `required; in the public log; at most ${maxlength}${maxlength === 64 ? ' bytes' : ' characters'}`),
    ),
    input,
  };
}

/**
 * A ruling's form: its fields under a legend, a submit button and a status line; on submit
 * `build()` gives the command (sent through `ctx.ruling`, then `reset()` is called) or why not
 * (shown in the status line, nothing sent).
 * @param {{id: string, legend: string, rows: HTMLElement[], submit: string, build: () => Ruling, reset?: () => void, danger?: boolean}} opts
 * @param {import('./index.js').SystemContext} ctx
 */
export function rulingForm(opts, ctx) {
  const status = h('p', { class: 'ruling-status', role: 'status', id: `${opts.id}-status` });
  const send = (/** @type {Event} */ ev) => {
    ev.preventDefault();
    const r = opts.build();
    if ('error' in r) {
      status.textContent = r.error;
      return;
    }
    status.textContent = 'Sent.';
    if (ctx.ruling) ctx.ruling(r.command, r.done);
    opts.reset?.();
  };
  return h(
    'form',
    { class: 'ruling', id: opts.id, onsubmit: send, novalidate: true },
    h(
      'fieldset',
      null,
      h('legend', null, opts.legend),
      opts.rows,
      h('div', { class: 'ruling-row controls' }, h('button', { type: 'submit', class: opts.danger ? 'danger' : null }, opts.submit), status),
    ),
  );
}

/**
 * The Adjust form each system has (a count set to a new value, with a reason said to
 * everyone): what to set, its new value, the reason; the fields' ids start with `prefix`.
 * @param {{prefix: string, legend: string, options: {value: string, text: string, group?: string}[], range?: {min?: number, max?: number}, reasonMax: number, build: (fields: {what: string, to: string, reason: string}) => Ruling}} opts
 * @param {import('./index.js').SystemContext} ctx
 */
export function adjustForm(opts, ctx) {
  const what = selectRow(`${opts.prefix}-what`, 'What', opts.options);
  const to = numberRow(`${opts.prefix}-to`, 'New value', opts.range ?? {});
  const reason = reasonRow(`${opts.prefix}-reason`, opts.reasonMax);
  return rulingForm(
    {
      id: `${opts.prefix}-adjust`,
      legend: opts.legend,
      rows: [what.row, to.row, reason.row],
      submit: 'Adjust',
      build: () => opts.build({ what: what.input.value, to: to.input.value, reason: reason.input.value }),
      reset: () => {
        reason.input.value = '';
      },
    },
    ctx,
  );
}

/**
 * A button that asks again before it acts: the first press shows "Yes, …" and "No" in its
 * place; only "Yes" acts (no `confirm()` box, keyboard-operable, the focus kept on the pair).
 * @param {string} id
 * @param {string} text the first button's text
 * @param {string} question asked before acting
 * @param {string} yes the confirming button's text
 * @param {() => void} act
 */
export function confirmButton(id, text, question, yes, act) {
  const first = /** @type {HTMLButtonElement} */ (h('button', { type: 'button', id, class: 'danger' }, text));
  const yesButton = /** @type {HTMLButtonElement} */ (h('button', { type: 'button', id: `${id}-yes`, class: 'danger' }, yes));
  const noButton = /** @type {HTMLButtonElement} */ (h('button', { type: 'button', id: `${id}-no` }, 'No, go back'));
  const ask = h('span', { class: 'confirm-ask controls', hidden: true, role: 'group', 'aria-label': question }, h('span', null, question), yesButton, noButton);
  first.addEventListener('click', () => {
    first.hidden = true;
    ask.hidden = false;
    noButton.focus();
  });
  noButton.addEventListener('click', () => {
    ask.hidden = true;
    first.hidden = false;
    first.focus();
  });
  yesButton.addEventListener('click', () => {
    ask.hidden = true;
    first.hidden = false;
    first.focus();
    act();
  });
  return h('div', { class: 'ruling-row controls' }, first, ask);
}

/**
 * The panel a system draws: its forms under one wrapper (the table page gives the heading).
 * @param {string} system the system's CSS name
 * @param {...(HTMLElement | null)} forms
 */
export function rulingsPanel(system, ...forms) {
  const shown = forms.filter((f) => f !== null);
  if (shown.length === 0) return null;
  return h('div', { class: `sys rulings-forms ${system}` }, shown);
}
