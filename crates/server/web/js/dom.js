// @ts-check
/** @file A few lines of DOM building, shared by every page module. Text is always set as text
 * (never parsed as HTML), so nothing a server or a player wrote can become markup. */

/**
 * An element: `h('button', {class: 'card', onclick: f, 'aria-label': 'Attack'}, 'Attack')`.
 * Attributes starting with `on` are listeners; `class`, `id` and the rest are attributes;
 * `null`, `undefined` and `false` are left out. Children are nodes or text.
 * @param {string} tag
 * @param {Record<string, any> | null} [attrs]
 * @param {...(Node | string | number | null | undefined | false | (Node | string)[])} children
 * @returns {HTMLElement}
 */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'style') throw new Error('no style attributes: the CSP forbids them; use a class');
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  append(el, children);
  return el;
}

/**
 * Appends children (nodes, text, arrays of them) to `el`.
 * @param {Element} el
 * @param {any[]} children
 */
export function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

/**
 * Replaces the children of `el`.
 * @param {Element} el
 * @param {...any} children
 */
export function replace(el, ...children) {
  el.replaceChildren();
  append(el, children);
}
