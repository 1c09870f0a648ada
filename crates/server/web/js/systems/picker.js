// @ts-check
/** @file Pickers over a prompt's choices, shared by the system modules.
 *
 * A prompt may offer many flat combinations (a stance's type × amount, an Aspect × ante ×
 * targets, a spread of damage over three Attributes). A picker shows them as a few fields,
 * each offering only the values some legal choice still has once the earlier fields are
 * chosen; when every field is chosen exactly one choice is left, and its `command` (as the
 * server wrote it, untouched) is what the page sends. The grouping ({@link narrow}) is pure
 * and tested under Node; {@link pickerElement} draws it. */

import { h } from '../dom.js';
import { cardArt, arrowKeys } from '../cards.js';

/**
 * A prompt's choice (docs/protocol.md, `prompt.choices`).
 * @typedef {object} Choice
 * @property {string} label the rules' label, in the book's words and symbols
 * @property {any} command the command to send, exactly as given
 * @property {boolean} private whether it is a face-down choice
 */

/**
 * One field of a picker: what each choice says for it.
 * @typedef {object} Field
 * @property {string} key a name unique in the picker
 * @property {string} legend the field's title, shown and read to screen readers
 * @property {(c: Choice) => (string | null)} value the choice's value for this field (null: the field does not apply to it)
 * @property {(v: string) => string} [text] how a value is shown (default: the value)
 * @property {(v: string) => string} [aria] how a value is read to screen readers (default: its text)
 * @property {(v: string) => string} [kind] a CSS class for the value's button (a card's look)
 * @property {boolean} [numeric] its values are numbers, offered in increasing order
 * @property {string} [needs] the key of an earlier field: this one is drawn only once that one is chosen (a long list waits for its group)
 * @property {boolean} [hideSingle] not drawn when it has a single possible value (it is still selected)
 * @property {(v: string) => (string | null)} [card] the key of the card a value is (`it-stance-grapple`): the value
 *   is drawn as that card of the hand (cards.js), its visible text its name and its accessible name
 *   that text (no `aria`); null: a plain button
 * @property {(v: string) => (string | null)} [cardName] a name written over the card's own (a character's move)
 */

/**
 * What a picker offers for a selection.
 * @typedef {object} Narrowed
 * @property {{field: Field, values: {value: string, text: string}[], selected: string | null}[]} fields
 *   each field with the values still possible after the earlier fields' selections, in the order of
 *   the choices, and its selection (null: none yet, or one no longer possible)
 * @property {Choice[]} matches the choices that agree with every selection made
 * @property {Choice | null} chosen the one choice every field now names (null until then)
 */

/**
 * Narrows `choices` by `selection` (field key → value), field after field: a field's values are
 * those of the choices agreeing with the earlier fields' selections; a selection no longer
 * among them is dropped. A field whose choices all lack it (value null) is skipped. A field
 * with a single possible value is selected by itself.
 * @param {Choice[]} choices
 * @param {Field[]} fields
 * @param {Record<string, string>} selection
 * @returns {Narrowed}
 */
export function narrow(choices, fields, selection) {
  let left = choices;
  /** @type {Narrowed['fields']} */
  const out = [];
  for (const field of fields) {
    /** @type {Map<string, string>} */
    const values = new Map();
    for (const c of left) {
      const v = field.value(c);
      if (v !== null && !values.has(v)) values.set(v, field.text ? field.text(v) : v);
    }
    if (values.size === 0) continue;
    const entries = [...values];
    if (field.numeric) entries.sort((a, b) => Number(a[0]) - Number(b[0]));
    /** @type {string | null} */
    let selected = selection[field.key] ?? null;
    if (selected !== null && !values.has(selected)) selected = null;
    if (selected === null && values.size === 1) selected = entries[0][0];
    out.push({ field, values: entries.map(([value, text]) => ({ value, text })), selected });
    if (selected !== null) left = left.filter((c) => field.value(c) === selected);
  }
  const complete = out.every((f) => f.selected !== null);
  return { fields: out, matches: left, chosen: complete && left.length === 1 ? left[0] : null };
}

/**
 * Splits choices into those a predicate takes and the rest, keeping their order.
 * @param {Choice[]} choices
 * @param {(c: Choice) => boolean} take
 * @returns {[Choice[], Choice[]]}
 */
export function partition(choices, take) {
  /** @type {Choice[]} */ const yes = [];
  /** @type {Choice[]} */ const no = [];
  for (const c of choices) (take(c) ? yes : no).push(c);
  return [yes, no];
}

/**
 * The name of a command's variant: `{"commit_stance": …}` → `commit_stance`, `"end_combo"` →
 * `end_combo`.
 * @param {any} command
 * @returns {string}
 */
export function commandName(command) {
  if (typeof command === 'string') return command;
  if (command && typeof command === 'object') return Object.keys(command)[0] ?? '';
  return '';
}

/**
 * A picker drawn: one group of toggle buttons per field, then the button that plays the one
 * choice the selection names (its label is the rules' own). Every button is a real `<button>`
 * (keyboard-operable), pressed state in `aria-pressed` and in a visible mark (not colour only).
 * @param {Choice[]} choices
 * @param {Field[]} fields
 * @param {{choose: (command: any) => void}} ctx
 * @param {{title?: string, confirm?: (c: Choice) => string, className?: string}} [opts]
 * @returns {HTMLElement}
 */
export function pickerElement(choices, fields, ctx, opts = {}) {
  // The page draws the prompt again whenever the table changes (another seat commits): the
  // same choices keep the selection made so far, and the focus stays on the same button.
  const key = pickerKey(choices);
  const selection = remembered.get(key) ?? {};
  remembered.delete(key);
  remembered.set(key, selection);
  while (remembered.size > 8) remembered.delete(remembered.keys().next().value ?? '');
  const active = typeof document !== 'undefined' ? document.activeElement : null;
  const wasHere = active instanceof HTMLElement && active.closest('.picker')?.getAttribute('data-key') === key;
  const root = h('div', { class: `picker ${opts.className ?? ''}`.trim(), 'data-key': key });
  /** @param {string | null} focusKey */
  const draw = (focusKey) => {
    const n = narrow(choices, fields, selection);
    /** @type {HTMLElement | null} */
    let focus = null;
    const selectedKeys = new Set(n.fields.filter((f) => f.selected !== null).map((f) => f.field.key));
    const shown = n.fields.filter(
      ({ field, values }) => !(field.hideSingle && values.length === 1) && !(field.needs && !selectedKeys.has(field.needs)),
    );
    const groups = shown.map(({ field, values, selected }) => {
      const buttons = values.map(({ value, text }) => {
        const pressed = value === selected;
        const card = field.card ? field.card(value) : null;
        const onclick = () => {
          selection[field.key] = value;
          // later fields may no longer fit: let narrow() drop what no longer fits
          draw(`${field.key}=${value}`);
        };
        const b = card
          ? // a card of the hand: its name, as written under it, is its accessible name
            h(
              'button',
              {
                type: 'button',
                class: `pick card-button ${field.kind ? field.kind(value) : ''} ${pressed ? 'pressed' : ''}`.trim(),
                'data-testid': 'pick',
                'aria-pressed': pressed ? 'true' : 'false',
                'data-pick': `${field.key}=${value}`,
                'data-card-key': card,
                onclick,
              },
              cardArt(card, { name: field.cardName ? field.cardName(value) : null }),
              h('span', { class: 'card-name' }, pressed ? h('span', { class: 'mark', 'aria-hidden': 'true' }, '✓ ') : null, text),
            )
          : h(
              'button',
              {
                type: 'button',
                class: `pick ${field.kind ? field.kind(value) : ''} ${pressed ? 'pressed' : ''}`.trim(),
                'data-testid': 'pick',
                'aria-pressed': pressed ? 'true' : 'false',
                'data-pick': `${field.key}=${value}`,
                'aria-label': field.aria ? accessibleName(text, field.aria(value)) : null,
                onclick,
              },
              pressed ? h('span', { class: 'mark', 'aria-hidden': 'true' }, '✓ ') : null,
              text,
            );
        if (focusKey === `${field.key}=${value}`) focus = b;
        return b;
      });
      return h(
        'fieldset',
        { class: `field field-${field.key}` },
        h('legend', null, field.legend),
        field.card && values.some((v) => field.card?.(v.value))
          ? arrowKeys(h('div', { class: 'picks hand' }, buttons))
          : arrowKeys(h('div', { class: 'picks' }, buttons)),
      );
    });
    const chosen = n.chosen;
    const confirm = h(
      'button',
      {
        type: 'button',
        class: 'confirm',
        'data-pick': 'confirm',
        'data-testid': 'confirm',
        disabled: chosen ? null : true,
        'aria-label': chosen ? (opts.confirm ? opts.confirm(chosen) : chosen.label) : 'choose every field first',
        onclick: () => {
          if (!chosen) return;
          // Sent: the next decision with the same choices (the next Hand's) starts empty, never
          // pre-filled with this one, a face-down choice the others must not see (issue 34).
          remembered.delete(key);
          ctx.choose(chosen.command);
        },
      },
      chosen ? (opts.confirm ? opts.confirm(chosen) : chosen.label) : 'choose every field first',
    );
    root.replaceChildren(...(opts.title ? [h('p', { class: 'picker-title' }, opts.title)] : []), ...groups, confirm);
    if (focusKey === 'confirm') focus = confirm;
    if (focus) {
      const f = /** @type {HTMLElement} */ (focus);
      // drawn again by the page: the new element is in the document only after this returns
      if (f.isConnected) f.focus();
      else setTimeout(() => f.isConnected && f.focus(), 0);
    }
  };
  draw(wasHere ? /** @type {HTMLElement} */ (active).getAttribute('data-pick') : null);
  return root;
}

/** Selections of the pickers drawn lately, by {@link pickerKey}. @type {Map<string, Record<string, string>>} */
const remembered = new Map();

/**
 * A short name for a set of choices (their commands), the same when the page draws the same
 * prompt again: a 32-bit FNV-1a hash of their JSON, in base 36.
 * @param {Choice[]} choices
 * @returns {string}
 */
export function pickerKey(choices) {
  const text = JSON.stringify(choices.map((c) => c.command));
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return `${hash.toString(36)}-${choices.length}`;
}

/**
 * Plain buttons, one per choice, each sending its command; `text` and `kind` may dress them.
 * @param {Choice[]} choices
 * @param {{choose: (command: any) => void}} ctx
 * @param {{text?: (c: Choice) => (string | Node | (string | Node)[]), aria?: (c: Choice) => string, kind?: (c: Choice) => string}} [opts]
 * @returns {HTMLElement}
 */
export function choiceButtons(choices, ctx, opts = {}) {
  return h(
    'div',
    { class: 'choices' },
    choices.map((c) => {
      const b = h(
        'button',
        {
          type: 'button',
          class: `choice ${opts.kind ? opts.kind(c) : ''}`.trim(),
          'data-testid': 'choice',
          onclick: () => ctx.choose(c.command),
        },
        opts.text ? opts.text(c) : c.label,
      );
      if (opts.aria) b.setAttribute('aria-label', accessibleName(b.textContent ?? '', opts.aria(c)));
      return b;
    }),
  );
}

/**
 * A button's accessible name that begins with its visible text (WCAG 2.5.3, label in name:
 * "STR Strength" was announced as "ante from Strength", issue 34), the description after it
 * when it says more: "STR Strength, ante from Strength".
 * @param {string} visible the button's text as shown
 * @param {string} described what a screen reader should also hear
 */
export function accessibleName(visible, described) {
  const v = visible.replace(/\s+/g, ' ').trim();
  const d = described.replace(/\s+/g, ' ').trim();
  if (!v) return d;
  if (!d || d.toLowerCase().startsWith(v.toLowerCase())) return d || v;
  return `${v}, ${d}`;
}

/**
 * A hand of cards, one per choice: each a real `<button>` holding the card's art (cards.js) and
 * its name written under it, which is its accessible name; Enter or Space plays it, the arrow
 * keys move among the cards. A choice with no card (`card` null) is a plain button with its
 * name.
 * @param {Choice[]} choices
 * @param {{choose: (command: any) => void}} ctx
 * @param {{card: (c: Choice) => (string | null), name: (c: Choice) => string, cardName?: (c: Choice) => (string | null), kind?: (c: Choice) => string, note?: (c: Choice) => (string | null)}} opts
 *   `name`: the visible name; `cardName`: a name written over the card's own; `note`: a short
 *   visible line under the name (part of the accessible name: it is shown)
 * @returns {HTMLElement}
 */
export function cardButtons(choices, ctx, opts) {
  return arrowKeys(
    h(
      'div',
      { class: 'choices hand' },
      choices.map((c) => {
        const key = opts.card(c);
        const note = opts.note ? opts.note(c) : null;
        return h(
          'button',
          {
            type: 'button',
            class: `choice ${key ? 'card-button' : ''} ${opts.kind ? opts.kind(c) : ''}`.replace(/\s+/g, ' ').trim(),
            'data-testid': 'choice',
            'data-card-key': key,
            onclick: () => ctx.choose(c.command),
          },
          key ? cardArt(key, { name: opts.cardName ? opts.cardName(c) : null }) : null,
          h('span', { class: 'card-name' }, opts.name(c)),
          note ? h('span', { class: 'card-note' }, ` ${note}`) : null,
        );
      }),
    ),
  );
}
