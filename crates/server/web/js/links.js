// @ts-check
/** @file A table link shown to be shared: the link as text, a copy button, and its QR code
 * (drawn by the server's `POST /api/qr` from the link in the body, parsed as SVG and inserted as
 * nodes: the CSP allows no image from elsewhere). */

import { h, replace } from './dom.js';

/**
 * The QR code of `link` as an SVG element, or null.
 * @param {string} link
 * @returns {Promise<Element | null>}
 */
export async function qrCode(link) {
  const r = await fetch('/api/qr', { method: 'POST', body: link, headers: { 'content-type': 'text/plain' } });
  if (!r.ok) return null;
  const doc = new DOMParser().parseFromString(await r.text(), 'image/svg+xml');
  const svg = doc.documentElement;
  if (svg.nodeName !== 'svg' || doc.getElementsByTagName('parsererror').length > 0) return null;
  // Only the drawing: no scripts or links, whatever the server sent.
  for (const bad of [...svg.querySelectorAll('script, foreignObject, a')]) bad.remove();
  for (const node of [svg, ...svg.querySelectorAll('*')]) {
    for (const attr of [...node.attributes]) {
      if (/^on/i.test(attr.name) || /href$/i.test(attr.name)) node.removeAttribute(attr.name);
    }
  }
  const imported = document.importNode(svg, true);
  imported.setAttribute('role', 'img');
  return imported;
}

/**
 * A link with a label, a copy button and its QR code (loaded after).
 * @param {string} label what the link opens ("Ada's seat", "Spectators")
 * @param {string} link
 */
export function linkBox(label, link) {
  const qr = h('div', { class: 'qr', 'aria-label': `QR code of the link: ${label}` });
  const status = h('span', { class: 'copied', role: 'status' });
  const field = /** @type {HTMLInputElement} */ (
    h('input', { type: 'text', readonly: true, value: link, 'aria-label': `${label}: link`, class: 'link' })
  );
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(link);
      replace(status, 'Copied.');
    } catch {
      field.select();
      replace(status, 'Selected: copy it with your keyboard or menu.');
    }
  };
  const box = h(
    'div',
    { class: 'link-box' },
    h('p', { class: 'link-label' }, label),
    h('div', { class: 'link-row' }, field, h('button', { type: 'button', onclick: copy }, `Copy`), ' ', status),
    h('a', { href: link, target: '_blank', rel: 'noopener' }, `Open ${label}`),
    qr,
  );
  void qrCode(link)
    .then((svg) => {
      if (svg) {
        svg.setAttribute('aria-label', `QR code of the link: ${label}`);
        qr.append(svg);
      } else replace(qr, '(no QR code)');
    })
    .catch(() => replace(qr, '(no QR code)'));
  return box;
}

/**
 * A button whose action is asked again before it is done (issue 33 §2: revoking or reissuing
 * a link cannot be taken back): a first click shows the question with a confirming button and
 * a cancel button in its place; the action runs only on the confirming one.
 * @param {string} label the button's text ("Revoke spectator link")
 * @param {string} question what the GM is asked, saying what follows
 * @param {string} yes the confirming button's text
 * @param {() => void} action
 */
export function confirmButton(label, question, yes, action) {
  const box = h('span', { class: 'confirm' });
  const ask = () => {
    const cancel = h('button', { type: 'button', onclick: () => { replace(box, first); first.focus(); } }, 'Cancel');
    const confirm = h('button', { type: 'button', class: 'danger', onclick: () => { replace(box, first); action(); } }, yes);
    replace(box, h('span', { role: 'group', 'aria-label': label }, h('span', { class: 'question' }, question), ' ', confirm, ' ', cancel));
    /** @type {HTMLElement} */ (confirm).focus();
  };
  const first = /** @type {HTMLElement} */ (h('button', { type: 'button', onclick: ask }, label));
  box.append(first);
  return box;
}

// ---- The tables this browser holds links for (issue 34, Lobby) ---------------------------

/** The key of the opt-in: present ('on') only once the player chose to remember links. */
const REMEMBER = 'facedown.lobby.remember';
/** The key of the links remembered, newest first. */
const HELD = 'facedown.lobby.links';
/** At most how many links are remembered (the oldest go first). */
const MAX_HELD = 50;

/**
 * A link this browser remembers: the link itself (its token after the `#`), the table, whose
 * link it is in words ("seat ada", "GM", "spectators"), the rule system, when it was last opened.
 * @typedef {{url: string, table: string, who: string, system: string, at: number}} HeldLink
 */

/** Whether this browser remembers the links it opens (off until the player turns it on). */
export function remembering() {
  try {
    return localStorage.getItem(REMEMBER) === 'on';
  } catch {
    return false;
  }
}

/**
 * Turns remembering on, or off: off forgets every link remembered.
 * @param {boolean} on
 */
export function setRemembering(on) {
  try {
    if (on) localStorage.setItem(REMEMBER, 'on');
    else {
      localStorage.removeItem(REMEMBER);
      localStorage.removeItem(HELD);
    }
  } catch {
    // No storage (a private window that refuses it): nothing is remembered.
  }
}

/** The links remembered, newest first. @returns {HeldLink[]} */
export function heldLinks() {
  if (!remembering()) return [];
  try {
    const all = JSON.parse(localStorage.getItem(HELD) ?? '[]');
    return Array.isArray(all) ? all.filter((l) => l && typeof l.url === 'string' && typeof l.table === 'string') : [];
  } catch {
    return [];
  }
}

/** @param {HeldLink[]} links */
function keepHeld(links) {
  try {
    localStorage.setItem(HELD, JSON.stringify(links.slice(0, MAX_HELD)));
  } catch {
    // Full or refused: the list stays as it was.
  }
}

/**
 * Remembers a link opened in this browser, if the player chose to (else nothing).
 * @param {{url: string, table: string, who: string, system: string}} link
 */
export function rememberLink(link) {
  if (!remembering()) return;
  const others = heldLinks().filter((l) => l.url !== link.url);
  keepHeld([{ ...link, at: Date.now() }, ...others]);
}

/**
 * Forgets a link.
 * @param {string} url
 */
export function forgetLink(url) {
  keepHeld(heldLinks().filter((l) => l.url !== url));
}
