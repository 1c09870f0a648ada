// @ts-check
/** @file The cards on the page: every card is the card renderer's own SVG (crates/cards, served
 * as `/cards/{version}/{key}.svg`), inlined so that its text uses the cards' web font ("Facedown
 * Cards", `/cards/{version}/font.woff2`: an SVG shown as an `<img>` cannot use a page font).
 *
 * A card is drawn at once as an empty frame of the card's shape and filled when its SVG has
 * come: the cards load after the page has shown what the server awaits (the first prompt's
 * bytes stay small), and once loaded a card is drawn again from memory. The art is decoration
 * (`aria-hidden`): the card's name is written beside it as text, so a button's accessible
 * name is the name the player sees.
 *
 * An Iron Triangle character names its own moves (the view's `moves`); the renderer's card
 * says the generic name ("Grapple Earth"), so the page writes the character's name over it
 * ({@link cardArt}'s `name`). Nothing here decides a rule: which cards a seat holds comes from
 * the prompt's choices and the view. */

/** The short prefix of each system's card keys (crates/cards' `System::prefix`). */
export const PREFIX = /** @type {Record<string, string>} */ ({
  'iron-triangle': 'it',
  nodice: 'nd',
  'inciting-incident': 'ii',
});

/**
 * The key of a system's card back: `it-back`.
 * @param {string} system
 */
export function backKey(system) {
  return `${PREFIX[system] ?? system}-back`;
}

/** The manifest (`/cards/manifest.json`) once asked for. @type {Promise<any> | null} */
let manifest = null;
/** The SVG text of each card, by key, once fetched. @type {Map<string, string>} */
const svgs = new Map();
/** Each card's SVG parsed, by key. @type {Map<string, Element>} */
const elements = new Map();
/** The fetches on their way, by key. @type {Map<string, Promise<void>>} */
const fetching = new Map();

/** Whether the page can fetch at all (not under Node's tests). */
const browser = typeof document !== 'undefined' && typeof fetch === 'function';

/** The manifest, fetched once; the cards' font is registered with it. */
function loadManifest() {
  if (!manifest) {
    manifest = fetch('/cards/manifest.json')
      .then((r) => (r.ok ? r.json() : null))
      .then((m) => {
        if (m && typeof m.font === 'string' && typeof FontFace === 'function') {
          // The font's own URL (same origin, the CSP's 'self'): no inline style needed.
          const face = new FontFace('Facedown Cards', `url("${m.font}")`);
          face.load().then((f) => document.fonts.add(f)).catch(() => {});
        }
        return m;
      })
      .catch(() => null);
  }
  return manifest;
}

/**
 * Fetches a card's SVG once; every frame waiting for it is filled when it comes.
 * @param {string} key
 */
function load(key) {
  if (svgs.has(key) || fetching.has(key) || !browser) return;
  const p = loadManifest()
    .then((m) => {
      const known = m && Object.values(m.systems ?? {}).some((/** @type {any} */ s) => s.back === key || (s.cards ?? []).includes(key));
      if (!known) return null;
      return fetch(`${m.base}${key}.svg`).then((r) => (r.ok ? r.text() : null));
    })
    .then((text) => {
      fetching.delete(key);
      if (typeof text !== 'string') return;
      svgs.set(key, text);
      for (const frame of document.querySelectorAll(`.card-art[data-card="${CSS.escape(key)}"]`)) fill(/** @type {HTMLElement} */ (frame));
    })
    .catch(() => {
      fetching.delete(key);
    });
  fetching.set(key, p);
}

/** The cards asked for before the page has drawn its first prompt, fetched just after. @type {Set<string>} */
const later = new Set();
let scheduled = false;

/** Fetches the cards drawn so far once the page has been painted with them (the first
 * question is on the screen before any card's bytes are asked for). */
function schedule() {
  if (scheduled || !browser) return;
  scheduled = true;
  const run = () => {
    scheduled = false;
    for (const k of later) load(k);
    later.clear();
  };
  if (typeof requestAnimationFrame === 'function') requestAnimationFrame(() => setTimeout(run, 0));
  else setTimeout(run, 0);
}

/**
 * The card's SVG as an element of this document (parsed as SVG, never as HTML; scripts,
 * listeners and outside references are dropped, though the server drew it).
 * @param {string} text
 * @returns {Element | null}
 */
function parse(text) {
  const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
  const svg = doc.documentElement;
  if (!svg || svg.nodeName !== 'svg' || doc.querySelector('parsererror')) return null;
  for (const bad of svg.querySelectorAll('script, foreignObject, style')) bad.remove();
  for (const e of [svg, ...svg.querySelectorAll('*')]) {
    for (const a of [...e.attributes]) {
      if (/^on/i.test(a.name) || /href$/i.test(a.name)) e.removeAttribute(a.name);
    }
  }
  // decoration: the name is written beside it
  svg.removeAttribute('role');
  svg.removeAttribute('aria-label');
  svg.querySelector('title')?.remove();
  svg.setAttribute('aria-hidden', 'true');
  svg.setAttribute('focusable', 'false');
  svg.removeAttribute('width');
  svg.removeAttribute('height');
  return document.importNode(svg, true);
}

/**
 * Fills a frame with its card, the name written over the renderer's when it has one.
 * @param {HTMLElement} frame
 */
function fill(frame) {
  const key = frame.getAttribute('data-card') ?? '';
  const text = svgs.get(key);
  if (!text || frame.firstElementChild) return;
  // parsed once a card; each frame gets its own copy
  let parsed = elements.get(key);
  if (!parsed) {
    parsed = parse(text) ?? undefined;
    if (!parsed) return;
    elements.set(key, parsed);
  }
  const svg = /** @type {Element} */ (parsed.cloneNode(true));
  const name = frame.getAttribute('data-name');
  if (name) renameCard(svg, name);
  frame.append(svg);
}

/**
 * Writes `name` over the card's own name (its bold title line under the banner), shrunk to
 * fit the card when long.
 * @param {Element} svg
 * @param {string} name
 */
export function renameCard(svg, name) {
  const texts = [...svg.querySelectorAll('text')];
  const title = texts.find((t) => t.getAttribute('font-weight') === 'bold' && Number(t.getAttribute('font-size')) >= 40);
  if (!title) return;
  title.textContent = name;
  const size = Number(title.getAttribute('font-size')) || 50;
  // about 0.6 em a character across the card's 560 units
  const fits = Math.floor(560 / (0.6 * Math.max(1, [...name].length)));
  if (fits < size) title.setAttribute('font-size', String(Math.max(24, fits)));
}

/**
 * A card's art: a frame of the card's shape (`.card-art`), filled with the card's SVG now if
 * it is loaded, else when it comes. Hidden from screen readers: write the name beside it.
 * @param {string} key the card's key (`it-move-grapple-earth`, `nd-bid-3`, `ii-back`)
 * @param {{name?: string | null}} [opts] a name written over the card's own (a character's move)
 * @returns {HTMLElement}
 */
export function cardArt(key, opts = {}) {
  const frame = document.createElement('span');
  frame.className = 'card-art';
  frame.setAttribute('data-card', key);
  frame.setAttribute('aria-hidden', 'true');
  if (opts.name) frame.setAttribute('data-name', opts.name);
  if (svgs.has(key)) fill(frame);
  else {
    later.add(key);
    schedule();
  }
  return frame;
}

/**
 * A card as the player sees it on the table (not a button): its art and its name or what it
 * stands for beside it. Face down, the art is the system's back and `caption` says whose it is
 * ("Kuro has chosen"); `name` then is the face only its owner may know ("your card: …").
 * @param {{key: string | null, system: string, caption: string, down?: boolean, blank?: boolean, name?: string | null, className?: string}} card
 *   `blank`: a place for a card not played yet
 * @returns {HTMLElement}
 */
export function tableCard(card) {
  const down = Boolean(card.down) || !card.key;
  const el = document.createElement('figure');
  el.className = `table-card ${card.blank ? 'empty' : down ? 'face-down' : 'face-up'} ${card.className ?? ''}`.trim();
  if (card.blank) {
    // a place for a card not played yet: the card's shape, empty
    const frame = document.createElement('span');
    frame.className = 'card-art';
    frame.setAttribute('aria-hidden', 'true');
    el.append(frame);
  } else el.append(cardArt(down ? backKey(card.system) : /** @type {string} */ (card.key), { name: down ? null : card.name }));
  const cap = document.createElement('figcaption');
  cap.textContent = card.caption;
  el.append(cap);
  return el;
}

/**
 * A card turned over at the reveal: its back and its face, back to back; the face is shown,
 * turned in a short flip when `turning` (no motion under `prefers-reduced-motion`: css/cards.css).
 * @param {{key: string, system: string, caption: string, name?: string | null, turning?: boolean, className?: string}} card
 * @returns {HTMLElement}
 */
export function turnedCard(card) {
  const el = document.createElement('figure');
  el.className = `table-card face-up revealed ${card.turning ? 'turning' : ''} ${card.className ?? ''}`.trim();
  const inner = document.createElement('span');
  inner.className = 'card-turn';
  const back = cardArt(backKey(card.system));
  back.classList.add('card-back-side');
  const face = cardArt(card.key, { name: card.name });
  face.classList.add('card-face-side');
  inner.append(face, back);
  el.append(inner);
  const cap = document.createElement('figcaption');
  cap.textContent = card.caption;
  el.append(cap);
  return el;
}

/**
 * A card on the table as a system module gives it (`tableCards`): face up, face down, or not
 * played yet, its key and name when this viewer knows them.
 * @typedef {{state: 'empty' | 'down' | 'up', key: string | null, name: string}} TableCard
 */

/**
 * The round's cards as the page lays them, from a system module's `tableCards(view)`: pure.
 * - A sealed seat's choice is not at the server before its reveal (the view shows no card):
 *   a seat that has committed (`committed`) gets a card face down in its first empty place;
 *   so does this page's own choice (`own`, named from the page's copy), unless the view already
 *   knows this seat's card (a plain seat).
 * - A row of cards (the stances, the moves…) is face up only once every card of it is: before,
 *   this seat's own known card lies face down too.
 * - A row nobody has played (the moves while the stances are chosen) is left out.
 * `revealed`: every card is face up (the reveal); `table` is null when nothing is played.
 * @param {{round: string, seats: {who: string, seat: string, winner: boolean, cards: TableCard[]}[]}} now
 * @param {{me: string | null, own: {key: string | null, name: string} | null, committed: (seat: string) => boolean, awaited: (seat: string) => boolean}} opts
 * @returns {{revealed: boolean, table: any}}
 */
export function layTable(now, opts) {
  const seats = now.seats.map((s) => ({ ...s, cards: s.cards.map((c) => ({ ...c })), mine: opts.me !== null && s.seat === opts.me, awaited: opts.awaited(s.seat) }));
  const rows = Math.max(0, ...seats.map((s) => s.cards.length));
  const open = [...Array(rows).keys()].map((j) => seats.every((s) => s.cards[j]?.state === 'up'));
  for (const s of seats) {
    const first = s.cards.findIndex((c) => c.state === 'empty');
    // the view knows this seat's own card already (a plain seat's, committed at the server)
    const knownOwn = s.mine && s.cards.some((c, j) => c.state === 'up' && !open[j]);
    const ownHere = s.mine && opts.own !== null && !knownOwn;
    if (first >= 0 && (ownHere || (opts.committed(s.seat) && !knownOwn))) {
      s.cards[first] = { state: 'down', key: null, name: ownHere && opts.own ? opts.own.name : '' };
    }
  }
  for (let j = 0; j < rows; j++) {
    for (const s of seats) {
      const c = s.cards[j];
      // known to this viewer (its own), still face down on the table
      if (c && c.state === 'up' && !open[j]) c.state = 'down';
    }
  }
  const revealed = seats.length > 0 && seats.every((s) => s.cards.every((c) => c.state === 'up'));
  if (revealed) return { revealed, table: { round: now.round, seats } };
  const played = [...Array(rows).keys()].filter((j) => seats.some((s) => s.cards[j] && s.cards[j].state !== 'empty'));
  for (const s of seats) s.cards = played.map((j) => s.cards[j]).filter(Boolean);
  return { revealed, table: played.length > 0 ? { round: now.round, seats } : null };
}

/**
 * Arrow keys move the focus among a hand's cards (Tab and Shift+Tab too, as buttons do);
 * Home and End go to the first and the last. Enter and Space choose: they are buttons.
 * @param {HTMLElement} hand a container of buttons
 * @returns {HTMLElement} the same container
 */
export function arrowKeys(hand) {
  hand.addEventListener('keydown', (e) => {
    const keys = ['ArrowLeft', 'ArrowRight', 'ArrowUp', 'ArrowDown', 'Home', 'End'];
    if (!keys.includes(e.key) || e.altKey || e.ctrlKey || e.metaKey) return;
    const buttons = /** @type {HTMLButtonElement[]} */ ([...hand.querySelectorAll('button')].filter((b) => !b.disabled));
    const at = buttons.indexOf(/** @type {HTMLButtonElement} */ (document.activeElement));
    if (at < 0 || buttons.length === 0) return;
    e.preventDefault();
    const n = buttons.length;
    const next =
      e.key === 'Home' ? 0 : e.key === 'End' ? n - 1 : e.key === 'ArrowLeft' || e.key === 'ArrowUp' ? (at - 1 + n) % n : (at + 1) % n;
    buttons[next].focus();
  });
  return hand;
}

/** For the tests: forget the loaded cards. */
export function forget() {
  svgs.clear();
  elements.clear();
  manifest = null;
}
