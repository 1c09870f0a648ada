// @ts-check
/** @file Playing with the keyboard only (issue 34's quality bar): the focus is moved to a
 * button of the page's prompt by Tab and Shift+Tab, and by the arrow keys among the cards of a
 * hand, then Enter or Space presses it. No mouse event reaches the page: {@link watchPointer}
 * counts them, and the tests check the count stays 0. */

import { BUTTONS } from './play.mjs';

/**
 * What the keyboard did, over a game: each key's presses.
 * @typedef {{Tab: number, 'Shift+Tab': number, ArrowRight: number, ArrowLeft: number, Enter: number, Space: number}} Presses
 */

/** @returns {Presses} */
export function presses() {
  return { Tab: 0, 'Shift+Tab': 0, ArrowRight: 0, ArrowLeft: 0, Enter: 0, Space: 0 };
}

/**
 * Counts, in the page, every pointer and mouse event from now on (`window.__pointerEvents`).
 * @param {import('playwright-core').Page} page
 */
export async function watchPointer(page) {
  await page.evaluate(() => {
    const w = /** @type {any} */ (window);
    if (w.__pointerEvents !== undefined) return;
    w.__pointerEvents = 0;
    for (const type of ['pointerdown', 'mousedown', 'click', 'mouseup', 'pointerup']) {
      window.addEventListener(
        type,
        (e) => {
          // a button pressed by Enter or Space fires a click with no pointer (detail 0)
          if (type === 'click' && /** @type {MouseEvent} */ (e).detail === 0) return;
          w.__pointerEvents += 1;
        },
        true,
      );
    }
  });
}

/**
 * The pointer events the page saw since {@link watchPointer}.
 * @param {import('playwright-core').Page} page
 * @returns {Promise<number>}
 */
export async function pointerEvents(page) {
  return page.evaluate(() => /** @type {any} */ (window).__pointerEvents ?? 0);
}

/**
 * Moves the focus to the prompt's button number `index` (among {@link BUTTONS}) with the
 * keyboard and presses `key` on it. False when the button went away meanwhile (the page drew
 * its prompt again): look again.
 * @param {import('playwright-core').Page} page
 * @param {number} index
 * @param {'Enter' | 'Space'} key
 * @param {Presses} count
 * @returns {Promise<boolean>}
 */
export async function pressButton(page, index, key, count) {
  // The button is marked once; a redraw drops the mark, and the caller looks again.
  const marked = await page.evaluate(
    ([sel, i]) => {
      for (const b of document.querySelectorAll('[data-e2e-target]')) b.removeAttribute('data-e2e-target');
      const b = document.querySelectorAll(/** @type {string} */ (sel))[/** @type {number} */ (i)];
      if (!b) return false;
      b.setAttribute('data-e2e-target', '');
      return true;
    },
    /** @type {[string, number]} */ ([BUTTONS, index]),
  );
  if (!marked) return false;
  for (let i = 0; i < 400; i++) {
    const where = await page.evaluate(() => {
      const target = document.querySelector('[data-e2e-target]');
      if (!target) return 'gone';
      const active = document.activeElement;
      if (active === target) return 'there';
      const hand = target.closest('.hand');
      if (hand && active && hand.contains(active)) {
        const cards = [...hand.querySelectorAll('button')].filter((b) => !(/** @type {HTMLButtonElement} */ (b).disabled));
        return cards.indexOf(/** @type {Element} */ (active)) < cards.indexOf(target) ? 'ArrowRight' : 'ArrowLeft';
      }
      if (active && active !== document.body && target.compareDocumentPosition(active) & Node.DOCUMENT_POSITION_FOLLOWING) {
        return 'Shift+Tab';
      }
      return 'Tab';
    });
    if (where === 'gone') return false;
    if (where === 'there') {
      await page.keyboard.press(key);
      count[key] += 1;
      return true;
    }
    await page.keyboard.press(where);
    count[/** @type {keyof Presses} */ (where)] += 1;
  }
  throw new Error(`the keyboard never reached the prompt's button ${index}`);
}
