// @ts-check
/** @file The table page (`/t/{table}#TOKEN`): one seat's, the GM's or a spectator's view of a
 * table, speaking docs/protocol.md over one WebSocket. What it shows comes from the server's
 * frames (the view, the prompt and its legal choices, the log); a system module
 * (systems/<system>.js) draws them where it can, and the generic rendering here does the rest. */

import { h, replace } from './dom.js';
import { Connection, wsUrl } from './conn.js';
import { SealStore, lostChoices, ownBranch, pageStorage, toReveal } from './sealing.js';
import { turnResult, ending, rematchOffer } from './outcome.js';
import { referenceElement, withoutSections } from './reference.js';
import { itemText, isMachinery, andList, drawText, groupTitle, isMine, RollDraws, rollDrawsText } from './log.js';
import { Notices } from './notice.js';
import { confirmButton, forgetLink, linkBox, rememberLink } from './links.js';
import { Chat } from './chat.js';
import { systemModule } from './systems/index.js';
import { layTable, tableCard, turnedCard } from './cards.js';
import { clientSeedFromPhrase, commitment, randomNonce, verifyLog } from './fairness.js';
import { canonical } from './canonical.js';
import { rememberHead } from './heads.js';

/** @typedef {{seat: number, name: string, role: string, side: number, controller: {kind: string, bot?: string}, connected: boolean, mode?: string}} Seat */

const app = /** @type {HTMLElement} */ (document.getElementById('app'));

/** The systems' names as the books write them, until the system module gives its own. */
const TITLES = /** @type {Record<string, string>} */ ({
  'iron-triangle': 'Iron Triangle',
  nodice: 'No Dice',
  'inciting-incident': 'Inciting Incident',
});

/** The system's name. */
function systemTitle() {
  return state.module?.title ?? TITLES[state.ruleset] ?? state.ruleset;
}

/** The table and token of this page's link: `/t/{table}#TOKEN`. */
function fromLocation() {
  const m = /^\/t\/([^/]+)$/.exec(location.pathname);
  const token = location.hash.replace(/^#/, '');
  return { table: m ? decodeURIComponent(m[1]) : '', token };
}

const { table } = fromLocation();
/** This page's token: the link's, or the GM link's new one once this page reissued it. */
let { token } = fromLocation();

/** Everything the page knows of the table. */
const state = {
  /** @type {string} */ ruleset: '',
  /** @type {{kind: string, seat?: number} | null} */ you: null,
  /** @type {Seat[]} */ seats: [],
  /** @type {Record<string, any>} */ options: {},
  /** @type {Record<string, any>} */ rules: {},
  /** @type {string | null} */ serverSeedCommitment: null,
  seq: 0,
  /** @type {any[]} */ log: [],
  /** @type {any} */ view: null,
  /** @type {any} */ prompt: null,
  /** @type {number[]} */ awaiting: [],
  over: false,
  /** @type {string | null} */ head: null,
  /** The seats that committed in the open sealed round (never what). @type {number[]} */
  sealedSeats: [],
  /** The seats the open round asked (those awaited while it was open). @type {Set<number>} */
  asked: new Set(),
  /** The bound commitments of the open round, once bound. @type {{seat: number, commitment: string}[] | null} */
  bound: null,
  /** Whether the open round is the table's opening round. */
  opening: false,
  /** The commitments this page revealed in the open round (no longer kept). @type {Set<string>} */
  revealed: new Set(),
  /** This seat's choice sent and not yet resolved: its label and whether face down (and the
   * command, to show its card face down).
   * @type {{label: string, private: boolean, id: string, kind: string, commitment?: string, ackSeq?: number, command?: any} | null} */
  chosen: null,
  /** The last refusal or note for this seat. */
  note: '',
  /** @type {any} */ module: null,
  /** @type {any} */ catalogue: null,
  /** The decision timers the server runs, each seat's end (ms since the epoch, by this
   * page's clock) as the last change told it. @type {{seat: number, at: number}[]} */
  timers: [],
  /** The links the GM has made anew, by seat (or 'spectators', or 'gm' for this page's own),
   * shown once: the server keeps only their hashes. @type {Map<string, string>} */
  newLinks: new Map(),
  /** Why this page no longer plays (its link was taken over, revoked or refused), or ''. */
  stopped: '',
  /** The latest turn's or Hand's result the view gave (the rules crate's words), kept beside
   * the prompt until the next one. @type {{key: string, headline: string, lines: string[]} | null} */
  lastResult: null,
  /** Whether this page's connection is open (welcomed): while it is not, what the server last
   * said of the seats' connections is stale, and shown as unknown. */
  live: false,
  /** This seat's link at the GM's rematch, once it came. @type {{table: string, seat: number, url: string} | null} */
  rematch: null,
  /** The GM's rematch, once made (its new GM and spectator links, shown once). @type {any} */
  rematched: null,
  /** The cards of the last round turned over (the system module's `tableCards` once every card
   * was face up), kept on the table until this seat plays again. @type {any} */
  lastReveal: null,
};

/** @type {SealStore | null} */
let store = null;
/** @type {Connection | null} */
let conn = null;
const notices = new Notices();
/** The table's chat. */
const chat = new Chat((message) => (conn ? conn.request(message) : null));

// ---- The page's parts -------------------------------------------------------------------

const el = {
  title: h('h1', null, 'facedown'),
  who: h('p', { class: 'who' }),
  banner: h('p', { class: 'banner', role: 'status', 'aria-live': 'polite', hidden: true }),
  prompt: h('section', { class: 'prompt', 'data-testid': 'prompt', 'aria-labelledby': 'prompt-h' }),
  timer: h('p', { class: 'timer', role: 'timer', hidden: true }),
  view: h('section', { class: 'view', 'aria-label': 'The table' }),
  seats: h('section', { class: 'seats', 'aria-label': 'Seats' }),
  name: h('form', { class: 'name-form', hidden: true }),
  gm: h('section', { class: 'gm', 'aria-label': 'GM screen', hidden: true }),
  rulings: h('section', { class: 'rulings', 'aria-labelledby': 'rulings-h', hidden: true }),
  log: h('ol', { class: 'log', 'aria-live': 'polite', 'aria-relevant': 'additions' }),
  tools: h('section', { class: 'tools', 'aria-label': 'Reference and the verifiable log' }),
};

function layout() {
  replace(
    app,
    h('header', { class: 'top' }, el.title, el.who, el.banner),
    h(
      'div',
      { class: 'columns' },
      h('div', { class: 'main' }, el.prompt, el.timer, el.gm, el.rulings, el.view),
      h(
        'div',
        { class: 'side' },
        el.seats,
        el.name,
        chat.el,
        h('section', { class: 'logbox', 'aria-labelledby': 'log-h' }, h('h2', { id: 'log-h' }, 'Log'), logFilter, el.log),
        el.tools,
      ),
    ),
  );
}

// ---- Helpers --------------------------------------------------------------------------

/** @param {number} seat */
function seatName(seat) {
  return state.seats.find((s) => s.seat === seat)?.name ?? `seat ${seat}`;
}

function mySeat() {
  return state.you?.kind === 'seat' && typeof state.you.seat === 'number' ? state.you.seat : null;
}

function mySeatInfo() {
  const s = mySeat();
  return s === null ? null : state.seats.find((x) => x.seat === s) ?? null;
}

/** The rules' GM seat's number (the seat whose role is `gm`), or null when the rules have none. */
function gmSeat() {
  return state.seats.find((s) => s.role === 'gm')?.seat ?? null;
}

/** Who this page is to the system modules: a seat its own; the GM link the rules' GM seat,
 * whose redaction it receives (its characters are "mine" there); a spectator nobody. */
function moduleYou() {
  const you = state.you ?? { kind: 'spectator' };
  if (you.kind !== 'gm') return you;
  const gm = gmSeat();
  return gm === null ? { kind: 'gm' } : { kind: 'gm', seat: gm };
}

/** Whether this page may force and undo: the GM link, or the rules' GM seat. */
function isGm() {
  return state.you?.kind === 'gm' || mySeatInfo()?.role === 'gm';
}

/** When the note was written (ms). */
let noteAt = 0;

/** @param {string} text */
function say(text) {
  state.note = text;
  noteAt = Date.now();
  renderPrompt();
}

/** The system's context for its module. */
function ctx() {
  return {
    system: state.ruleset,
    you: moduleYou(),
    seats: state.seats,
    rules: state.rules,
    serverSeedCommitment: state.serverSeedCommitment,
    choose: (/** @type {any} */ command) => {
      void choose(command);
    },
    // A public ruling the rules allow beside the prompt (No Dice's justification line, the GM's
    // rulings): always a plain command, never sealed, whether or not the seat is asked now; from
    // the GM link the server gives it on the GM seat's behalf.
    ruling: (/** @type {any} */ command, /** @type {string} */ done) => gmRequest({ type: 'command', command }, done),
    announce: (/** @type {Element} */ node) => {
      replace(liveNote, node.textContent ?? '');
    },
  };
}

const liveNote = h('p', { class: 'visually-hidden', 'aria-live': 'assertive' });

// ---- Choosing, sealing, revealing ------------------------------------------------------

/**
 * Sends this seat's choice: as `seal` with the commitment when the seat plays sealed and the
 * choice is face down, else as `command`.
 * @param {any} command
 */
async function choose(command) {
  const seat = mySeat();
  const prompt = state.prompt;
  if (seat === null || !prompt || !conn) return;
  if (state.chosen && !state.chosen.ackSeq) return; // one request at a time
  let choice = null;
  try {
    const key = canonical(command);
    choice = (prompt.choices ?? []).find((/** @type {any} */ c) => canonical(c.command) === key) ?? null;
  } catch {
    choice = null;
  }
  const label = choice?.label ?? 'your choice';
  const faceDown = Boolean(prompt.private || choice?.private);
  const sealed = mySeatInfo()?.mode === 'sealed' && faceDown;
  state.note = '';
  if (sealed && store) {
    if (!(await seal(command, label, 'This choice'))) return;
  } else {
    const id = conn.request({ type: 'command', command });
    state.chosen = { label, private: faceDown, id, kind: 'command', command };
  }
  renderPrompt();
}

function takeBack() {
  if (!conn) return;
  const id = conn.request({ type: 'take_back' });
  takingBack = { id, sealed: state.chosen?.kind === 'seal', commitment: state.chosen?.commitment ?? null, lost: false, bound: false };
  say('Taking back…');
}

/** This seat's face-down choice in the open round that this page cannot reveal (made on another
 * device, or this browser's storage was cleared): the server's count of its commitments against
 * what this page keeps ({@link lostChoices}). */
function lost() {
  const seat = mySeat();
  if (seat === null || !store || mySeatInfo()?.mode !== 'sealed' || state.over) return { lost: 0, bound: false };
  if ([...(conn?.pending.values() ?? [])].some((r) => r.type === 'seal' || r.type === 'take_back')) return { lost: 0, bound: Boolean(state.bound) };
  return lostChoices(store.all(), { sealed: state.sealedSeats, bound: state.bound, revealing: state.bound ? state.awaiting : [] }, seat, state.revealed);
}

/**
 * Gives up a lost face-down choice (docs/fairness.md §3, "A lost secret"): `take_back` with
 * `lost`. Before the binding it is a take-back like any other (no fault), and the seat chooses
 * again; once bound, the seat's missed reveal is a fault at once, with the reason that its
 * secret was lost, so the table need not wait for the reveal timer.
 */
function giveUpLost() {
  if (!conn) return;
  const id = conn.request({ type: 'take_back', lost: true });
  takingBack = { id, sealed: true, commitment: null, lost: true, bound: Boolean(state.bound) };
  say(state.bound ? 'Giving up the reveal…' : 'Taking back…');
}
/** The take-back on its way: whether it takes back a sealed choice, which, whether lost, and
 * whether the round was bound when it was sent (a give-up then, whatever came before its ack).
 * @type {{id: string, sealed: boolean, commitment: string | null, lost: boolean, bound: boolean} | null} */
let takingBack = null;

/** Reveals this seat's next sealed choice once the round is bound, if it holds every commitment. */
function revealNext() {
  const seat = mySeat();
  if (seat === null || !store || !conn || !state.bound) return;
  const decision = toReveal(store.all(), state.bound, seat, [...state.asked]);
  if ('refuse' in decision) {
    say(`Not revealing: the bound commitments are incomplete (${decision.refuse}).`);
    return;
  }
  const next = decision.reveal[0];
  if (!next) return;
  if (next.revealId && conn.pending.has(next.revealId)) return; // on its way
  const id = conn.request({ type: 'reveal', id: next.revealId, command: next.command, nonce: next.nonce });
  store.markRevealing(next.commitment, id);
  state.revealed.add(next.commitment);
}

// ---- Messages ------------------------------------------------------------------------

/** Messages are taken in one at a time, in order (a welcome waits for its system module). */
let queue = Promise.resolve();

/** @param {any} m */
function onMessage(m) {
  queue = queue.then(() => handle(m)).catch((e) => console.error(e));
}

/** @param {any} m */
async function handle(m) {
  switch (m.type) {
    case 'welcome':
      await welcome(m);
      break;
    case 'update':
      change(m);
      break;
    case 'chat':
      if (m.line) chat.add(m.line);
      break;
    case 'seats':
      state.seats = m.seats ?? state.seats;
      renderSeats();
      renderGm();
      renderView();
      renderRulings();
      break;
    case 'sealed':
      // Who has committed, and who the round waits for now: an update follows only when
      // this seat's own prompt changed.
      state.sealedSeats = m.seats ?? [];
      if (Array.isArray(m.awaiting)) state.awaiting = m.awaiting;
      for (const s of state.sealedSeats) state.asked.add(s);
      if (!state.bound) for (const s of state.awaiting) state.asked.add(s);
      renderAll();
      break;
    case 'bound':
      state.bound = m.commitments ?? [];
      revealNext();
      renderPrompt();
      break;
    case 'ack':
      answered(m.id, null, m.seq);
      break;
    case 'error':
      if (m.id !== undefined && m.id !== null) answered(m.id, m, state.seq);
      else say(`The server says: ${m.message ?? m.code}`);
      break;
    case 'link':
      if (m.who?.kind === 'gm') {
        ownLinkReissued(m.url);
      } else {
        state.newLinks.set(m.seat === null || m.seat === undefined ? 'spectators' : String(m.seat), m.url);
      }
      renderGm();
      break;
    case 'rematch':
      state.rematch = { table: String(m.table), seat: m.seat, url: m.url };
      renderPrompt();
      break;
    case 'rematched':
      state.rematched = m;
      renderPrompt();
      break;
    case 'closing':
      break;
    default:
      break;
  }
}

/** @param {any} m */
async function welcome(m) {
  const first = state.you === null;
  state.ruleset = m.ruleset;
  state.you = m.you;
  state.seats = m.seats ?? [];
  state.options = m.options ?? {};
  state.rules = m.rules ?? {};
  state.serverSeedCommitment = m.server_seed_commitment ?? null;
  chat.reset(m.chat ?? []);
  const seat = mySeat();
  if (seat !== null && !store) store = new SealStore(pageStorage(), table, token);
  // The home page lists this link among the tables this browser holds, if the player chose so.
  rememberLink({ url: location.href, table: String(table), who: whoWords(), system: String(m.ruleset ?? '') });
  if (first) {
    state.module = await systemModule(state.ruleset);
    document.title = `${systemTitle()} — table ${table} — facedown`;
    notices.base = document.title;
    void loadCatalogue();
  }
  change(m);
  // The open round, as the server holds it.
  const round = m.round ?? null;
  state.sealedSeats = round?.sealed ?? [];
  state.bound = round?.bound ? round.commitments ?? [] : null;
  state.asked = new Set([...state.sealedSeats, ...(round?.revealing ?? [])]);
  state.opening = Boolean(round?.opening);
  if (!round) state.revealed = new Set();
  if (!round?.bound) for (const s of state.awaiting) state.asked.add(s);
  if (store && seat !== null) {
    const mine = round?.sealed?.includes(seat) ?? false;
    const sealing = [...(conn?.pending.values() ?? [])].some((r) => r.type === 'seal');
    if (state.over || (!mine && !sealing)) {
      // Nothing of this seat's is sealed at the server: what this browser kept is stale.
      store.clear();
    } else if (mine && !state.chosen && !state.prompt) {
      // The seat is asked nothing more in the round (its reveal, or the others' choices, are
      // awaited): its choice is shown as chosen. A seat asked again (a GM declaring for its next
      // fighter) is shown that question: the page offers what the server awaits.
      const kept = store.all();
      const last = kept[kept.length - 1];
      if (last) {
        state.chosen = { label: last.label, private: true, id: '', kind: 'seal', commitment: last.commitment, ackSeq: state.seq, command: last.command };
      }
    }
  }
  if (round?.opening && !round.bound && seat !== null && state.awaiting.includes(seat)) void sealOpening();
  revealNext();
  renderAll();
}

/** What the page shows for this seat's part of the opening round. */
const OPENING_LABEL = 'Your part of the opening round';

/**
 * The table's opening round (docs/fairness.md §8): a sealed seat commits to the empty command
 * `{}` with a nonce of this device's own before the rules' first step, so no die of the game is
 * known before it reveals. Asked of nobody: the page does it on its own, and reveals once bound.
 */
async function sealOpening() {
  if (!store || !conn || mySeatInfo()?.mode !== 'sealed') return;
  if ([...conn.pending.values()].some((r) => r.type === 'seal')) return;
  if (await seal({}, OPENING_LABEL, 'The opening round')) renderAll();
}

/**
 * Seals `command` for this seat: a fresh nonce, the commitment kept with the choice in the
 * tab's store, and `seal` sent. Says why not (naming `what`) and returns false when it cannot.
 * @param {any} command
 * @param {string} label
 * @param {string} what
 * @returns {Promise<boolean>}
 */
async function seal(command, label, what) {
  if (!store || !conn) return false;
  let nonce;
  let c;
  try {
    nonce = randomNonce();
    c = await commitment(command, nonce);
  } catch (e) {
    say(`${what} could not be sealed: ${e instanceof Error ? e.message : String(e)}`);
    return false;
  }
  store.add({ command, nonce, commitment: c, label, round: state.seq });
  const id = conn.request({ type: 'seal', commitment: c });
  state.chosen = { label, private: true, id, kind: 'seal', commitment: c, command };
  return true;
}

/** @param {any} m a welcome or an update */
function change(m) {
  const fresh = (m.updates ?? []).filter((/** @type {any} */ u) => typeof u.seq === 'number' && u.seq > state.seq);
  let resolved = false;
  for (const u of fresh) {
    state.log.push(u);
    if (u.kind === 'bound') {
      state.bound = u.commitments ?? [];
      continue;
    }
    // A sealed round writes no item before it is bound: any other item means the round, if
    // there was one, is over, and the next starts from nothing.
    if (u.kind === 'mix' || u.kind === 'opened') {
      state.bound = null;
      state.sealedSeats = [];
      state.opening = false;
      state.revealed = new Set();
    }
    state.asked = new Set();
    if (u.kind === 'opened' && u.seat === mySeat() && store) {
      const kept = store.all().find((k) => canonicalEq(k.command, u.command) && k.nonce === u.nonce);
      if (kept) store.drop(kept.commitment);
    }
    if (u.kind === 'event' || u.kind === 'opened' || u.kind === 'forced') resolved = true;
  }
  // A note gives way to the table's next news after a while.
  if (fresh.length > 0 && state.note && Date.now() - noteAt > 8000) state.note = '';
  state.seq = Math.max(state.seq, m.seq ?? state.seq);
  state.view = m.view ?? state.view;
  const result = turnResult(state.view);
  if (result && result.key !== state.lastResult?.key) {
    state.lastResult = result;
    replace(liveNote, result.headline);
  }
  // A sealed seat asked again in a round answers the question after its own earlier choices.
  state.prompt = store ? ownBranch(m.prompt ?? null, store.all().filter((k) => !k.revealId)) : m.prompt ?? null;
  state.awaiting = m.awaiting ?? [];
  state.over = Boolean(m.over);
  if (state.over && store) store.clear();
  if (m.head) {
    state.head = m.head;
    rememberHead(`${table}/${state.you?.kind ?? ''}/${state.you?.seat ?? ''}`, m.head);
  }
  if (!state.bound) for (const s of [...state.awaiting, ...state.sealedSeats]) state.asked.add(s);
  const c = state.chosen;
  if (c?.ackSeq !== undefined) {
    const mineOpened = fresh.some((/** @type {any} */ u) => u.kind === 'opened' && u.seat === mySeat());
    if (state.prompt || state.over || (c.kind === 'command' && resolved) || (c.kind === 'seal' && mineOpened)) {
      state.chosen = null;
    }
  }
  restartTimer(m.timers ?? []);
  appendLog(fresh);
  renderAll();
}

/** Whether two commands are the same (their canonical JSON). @param {any} a @param {any} b */
function canonicalEq(a, b) {
  try {
    return canonical(a) === canonical(b);
  } catch {
    return false;
  }
}

/**
 * A request was answered: an ack (`error` null) or a refusal.
 * @param {string} id
 * @param {any} error
 * @param {number} seq
 */
function answered(id, error, seq) {
  const chosen = state.chosen;
  if (takingBack?.id === id) {
    const { sealed, commitment, lost: gaveUp, bound: wasBound } = takingBack;
    takingBack = null;
    if (error) say(`Not taken back: ${error.message}`);
    else {
      if (sealed && store && commitment) store.drop(commitment);
      else if (sealed && store && !gaveUp) store.dropLatest();
      state.chosen = null;
      say(gaveUp && wasBound ? 'Given up: the rules\u2019 default is taken for you.' : 'Taken back: choose again.');
      // The opening round asks nobody: the page seals its part again on its own.
      if (state.opening && !state.bound) void sealOpening();
    }
    return;
  }
  if (chosen && chosen.id === id) {
    if (error) {
      if (chosen.kind === 'seal' && store && chosen.commitment) store.drop(chosen.commitment);
      state.chosen = null;
      say(`Not accepted: ${error.message}`);
    } else {
      chosen.ackSeq = seq;
      // The change it made came before its ack: a new question there is the next one.
      if (state.prompt || state.over) state.chosen = null;
      renderAll();
    }
    return;
  }
  // A reveal's answer: the choice is no longer kept.
  if (store) {
    const revealed = store.all().find((k) => k.revealId === id);
    if (revealed) {
      store.drop(revealed.commitment);
      if (error) say(error.code === 'wrong_nonce' ? `Your reveal was a fault: ${error.message}` : `The reveal was refused: ${error.message}`);
      revealNext();
      return;
    }
  }
  if (naming === id) {
    naming = null;
    say(error ? `Name not set: ${error.message}` : 'Name set.');
    return;
  }
  if (error) say(`Refused: ${error.message}`);
  else if (gmActions.has(id)) {
    say(gmActions.get(id) ?? 'Done.');
  }
  gmActions.delete(id);
}

// ---- Rendering -------------------------------------------------------------------------

function renderAll() {
  renderHeader();
  renderPrompt();
  renderView();
  renderSeats();
  renderGm();
  renderRulings();
  renderTools();
  notices.update((Boolean(state.prompt) || lost().lost > 0) && !state.over && state.awaiting.includes(mySeat() ?? -1));
}

function renderHeader() {
  const system = systemTitle();
  replace(el.title, `${system} — table ${table}`);
  const you = state.you;
  const who =
    you?.kind === 'seat'
      ? `You play ${playing()}${mySeatInfo()?.mode === 'sealed' ? ' (sealed: your face-down choices leave this device only as commitments until the reveal)' : ''}.`
      : you?.kind === 'gm'
        ? gmSeat() === null
          ? 'GM link: you see what is public and manage the table.'
          : `GM link: you see what the GM seat ${seatName(gmSeat() ?? -1)} sees, give the GM\u2019s rulings and manage the table.`
        : 'Spectator: you see what is public.';
  replace(el.who, who);
}

/** Who this seat plays, in the header: its characters as the book names them, then the seat
 * ("Ada (seat ada)"), or the seat alone while the view names no character. */
function playing() {
  const seat = seatName(mySeat() ?? -1);
  const names = myNames();
  return names.length > 0 ? `${names.join(', ')} (seat ${seat})` : `seat ${seat}`;
}

/** The names of the awaited seats. */
function awaitingNames() {
  return andList(state.awaiting.map(seatName));
}

/** What the prompt last drew (drawn again only when it changes: focus stays where it is). */
let promptDrawn = '';

function renderPrompt() {
  const gone = lost();
  const end = state.over ? ending(state.view) : null;
  const onTable = cardsOnTable();
  const key = JSON.stringify([state.prompt, state.chosen, state.note, state.awaiting, state.over, Boolean(state.bound), state.seats.map((s) => s.name), Boolean(state.module), state.stopped, gone, state.lastResult?.key, end, state.rematch, state.rematched, onTable]);
  if (key === promptDrawn) return;
  const wasOver = promptDrawn !== '' && JSON.parse(promptDrawn)[4] === true;
  promptDrawn = key;
  /** @type {Element[]} */
  const parts = [h('h2', { id: 'prompt-h', tabindex: '-1', class: end ? `ending${end.youWon === true ? ' won' : end.youWon === false ? ' lost' : ''}` : null, 'data-testid': end ? 'ending' : null }, end ? end.headline : state.over ? 'The game is over' : 'Now')];
  if (end && end.summary.length > 0) {
    parts.push(h('ul', { class: 'ending-summary', 'data-testid': 'ending-summary' }, end.summary.map((l) => h('li', null, l))));
  }
  if (end && !wasOver) replace(liveNote, end.headline);
  if (state.over && !state.stopped) {
    const offer = rematchOffer(state.you, state.rematch, state.rematched, seatName);
    if (offer?.kind === 'ask') {
      parts.push(h('p', { class: 'controls' }, h('button', { type: 'button', 'data-testid': 'rematch', onclick: () => gmRequest({ type: 'manage', action: { action: 'rematch' } }, 'A new table of the same setup and seats: each player who has this table open is sent their new link.') }, 'Rematch')));
    } else if (offer?.kind === 'made') {
      parts.push(
        h('div', { class: 'rematch', 'data-testid': 'rematched' },
          h('p', null, `Rematch: table ${offer.table}. Each player who had this table open was sent their new link.`),
          offer.nobody.length > 0
            ? h('p', { class: 'note' }, `Nobody had ${offer.nobody.join(', ')}’s link open, so nobody got their new one: open the new table with its GM link and give them a new link from the GM screen.`)
            : null,
          h('p', null, h('a', { href: offer.gm, 'data-testid': 'rematch-gm' }, 'Open the new table (GM link)')),
          linkBox('New table: GM link (shown only now)', offer.gm),
          linkBox('New table: spectator link', offer.spectator),
        ),
      );
    } else if (offer?.kind === 'play-again') {
      parts.push(h('p', { class: 'controls' }, h('button', { type: 'button', 'data-testid': 'play-again', onclick: () => location.assign(offer.url) }, 'Play again')));
    }
  }
  // The turn's result where the player is looking, until the next one: beside the cards of
  // the reveal while they are on the table.
  const result =
    !state.over && state.lastResult
      ? h(
          'div',
          { class: 'turn-result', 'data-testid': 'turn-result' },
          h('p', { class: 'result-headline' }, state.lastResult.headline),
          state.lastResult.lines.length > 0 ? h('ul', null, state.lastResult.lines.map((l) => h('li', null, l))) : null,
        )
      : null;
  const cards = tableElements(onTable);
  if (cards.reveal) parts.push(h('div', { class: 'reveal-table', 'data-testid': 'reveal' }, cards.reveal, result));
  else if (result) parts.push(result);
  if (cards.now) parts.push(cards.now);
  const seat = mySeat();
  const prompt = state.prompt;
  const chosen = state.chosen;
  if (state.stopped) {
    parts.push(h('p', { class: 'note' }, `This page no longer plays: ${state.stopped}. Ask the GM for a link if you should.`));
  } else if (state.over) {
    parts.push(
      h('p', null, 'The log tells how it went; download it, or verify it here: every commitment and draw.'),
      h('p', null, h('button', { type: 'button', 'data-testid': 'replay-button', onclick: () => void openReplay() }, 'Replay')),
    );
  } else if (gone.lost > 0 && !gone.bound) {
    parts.push(
      h('p', { class: 'note', 'data-testid': 'lost' }, 'Your face-down choice was made on another device, or this browser no longer holds it, so it cannot be revealed. Take it back and choose again: nobody has chosen everything yet, so this is no fault.'),
      h('p', null, h('button', { type: 'button', 'data-testid': 'take-back-lost', onclick: giveUpLost }, 'Take back and choose again')),
    );
  } else if (gone.lost > 0) {
    parts.push(
      h('p', { class: 'note', 'data-testid': 'lost' }, 'Your face-down choice was made on another device, or this browser no longer holds it, so it cannot be revealed now that everyone has chosen. Give it up and the rules\u2019 default is taken for you (a fault, shown to everyone); else the table waits for the reveal timer.'),
      h('p', null, h('button', { type: 'button', 'data-testid': 'give-up', onclick: giveUpLost }, 'Give up my choice')),
    );
  } else if (chosen) {
    const waiting = state.awaiting.filter((s) => s !== seat);
    const sent = chosen.ackSeq === undefined ? 'sending…' : 'chosen';
    parts.push(
      h(
        'p',
        { class: 'chosen' },
        h('span', { 'aria-hidden': 'true' }, '✓ '),
        `${chosen.label} — ${sent}${chosen.private ? ' (face down)' : ''}`,
        waiting.length > 0 ? ` — waiting for ${andList(waiting.map(seatName))}.` : '.',
      ),
    );
    const bound = Boolean(state.bound);
    if (chosen.label === OPENING_LABEL) {
      parts.push(
        h('p', { class: 'hint' }, 'Before play, every seat commits to a secret number of its own, revealed together: no die of this game can be known, not even by the host, before then.'),
      );
    } else if (chosen.private && chosen.ackSeq !== undefined && !bound) {
      parts.push(
        h(
          'p',
          null,
          h('button', { type: 'button', 'data-testid': 'take-back', onclick: takeBack }, 'Take back'),
          ' ',
          h('span', { class: 'hint' }, 'until everyone has chosen'),
        ),
      );
    } else if (bound && chosen.kind === 'seal') {
      parts.push(h('p', { class: 'hint' }, 'Every seat has committed: revealing your choice…'));
    }
  } else if (prompt && seat !== null) {
    parts.push(h('p', { class: 'your-turn' }, h('span', { 'aria-hidden': 'true' }, '● '), 'Your turn.'));
    let drawn = null;
    try {
      drawn = state.module?.renderPrompt?.(prompt, state.view, ctx()) ?? null;
    } catch (e) {
      console.error(e);
      drawn = null;
    }
    parts.push(drawn instanceof Element ? drawn : genericPrompt(prompt));
  } else if (state.awaiting.length > 0) {
    parts.push(h('p', null, `Waiting for ${awaitingNames()}.`));
  } else {
    parts.push(h('p', null, 'Nobody is asked anything just now.'));
  }
  if (state.note) {
    // The rules' words cite the rules reference's sections (§5.2), a file players do not have:
    // the note leaves them out and offers the in-page quick reference instead.
    const cited = /§/.test(state.note);
    parts.push(
      h(
        'p',
        { class: 'note', role: 'alert' },
        withoutSections(state.note),
        cited ? ' ' : null,
        cited ? h('button', { type: 'button', class: 'link', 'data-testid': 'look-up', onclick: openReference }, 'Look it up in the quick reference') : null,
      ),
    );
  }
  keepingFocus(el.prompt, () => replace(el.prompt, ...parts, liveNote));
}

// ---- The cards on the table ---------------------------------------------------------------

/** The cards already turned over on this page (`round|who|index`): a card turns once. @type {Set<string>} */
const turned = new Set();

/**
 * The cards on the table as this page shows them: the system module's `tableCards` of the
 * view (the round's cards as this viewer sees them), laid by cards.js's `layTable` with what
 * the view cannot say (the seats that committed sealed, this page's own choice). The last
 * round whose cards were all turned over stays (`reveal`) until this seat plays again.
 * @returns {{now: any, reveal: any} | null}
 */
function cardsOnTable() {
  const mod = state.module;
  if (typeof mod?.tableCards !== 'function' || !state.view) return null;
  /** @type {any} */
  let now = null;
  try {
    now = mod.tableCards(state.view);
  } catch (e) {
    console.error(e);
    now = null;
  }
  const me = mySeatInfo()?.name ?? null;
  const chosen = state.chosen;
  /** @type {any} */
  let own = null;
  if (chosen?.private && chosen.command !== undefined && typeof mod.cardOf === 'function') {
    try {
      own = mod.cardOf(chosen.command, state.view);
    } catch {
      own = null;
    }
  }
  if (now) {
    const number = (/** @type {string} */ name) => state.seats.find((x) => x.name === name)?.seat;
    const laid = layTable(now, {
      me,
      own,
      committed: (name) => {
        const n = number(name);
        return n !== undefined && state.sealedSeats.includes(n);
      },
      awaited: (name) => {
        const n = number(name);
        return n !== undefined && state.awaiting.includes(n);
      },
    });
    if (laid.revealed) {
      // every card turned over: the reveal, with the result beside it
      state.lastReveal = laid.table;
      return { now: null, reveal: laid.table };
    }
    now = laid.table;
  }
  // The last reveal stays until this seat plays again.
  const mineDown = now?.seats.some((/** @type {any} */ s) => s.mine && s.cards.some((/** @type {any} */ c) => c.state === 'down'));
  const showReveal = state.lastReveal && !mineDown && !(state.chosen && state.chosen.label !== OPENING_LABEL) ? state.lastReveal : null;
  return { now, reveal: showReveal };
}

/**
 * The cards on the table drawn (cards.js): each seat's cards with its name over them, a back
 * for a face-down card ("Kuro has chosen"; this seat's own says which it is), a blank for one
 * not played yet, and the face for one turned over (turning the first time it is drawn).
 * @param {{now: any, reveal: any} | null} onTable
 * @returns {{now: HTMLElement | null, reveal: HTMLElement | null}}
 */
function tableElements(onTable) {
  const system = state.ruleset;
  /** @param {any} t @param {boolean} revealed */
  const draw = (t, revealed) =>
    h(
      'div',
      { class: 'card-table', 'data-testid': revealed ? 'revealed-cards' : 'table-cards' },
      t.seats.map((/** @type {any} */ s) =>
        h(
          'section',
          { class: `seat-cards${s.winner ? ' winner' : ''}${s.mine ? ' mine' : ''}`, 'aria-label': s.mine ? `${s.who} (yours)` : s.who },
          h('h3', null, s.who, s.mine ? ' (you)' : '', s.winner ? ' \u2014 wins' : ''),
          h(
            'div',
            { class: 'cards' },
            s.cards.map((/** @type {any} */ c, /** @type {number} */ j) => {
              if (c.state === 'up') {
                const id = `${t.round}|${s.who}|${j}`;
                const turning = !turned.has(id);
                turned.add(id);
                return turnedCard({ key: c.key ?? '', system, caption: c.name, turning });
              }
              if (c.state === 'down') {
                const caption = s.mine ? (c.name ? `Your ${c.name}, face down` : 'Yours, face down') : `${s.who} has chosen`;
                return tableCard({ key: null, system, caption, down: true });
              }
              const waiting = s.awaited ? (s.mine ? 'Yours to choose' : `${s.who} is choosing`) : 'Not played';
              return tableCard({ key: null, system, caption: waiting, blank: true });
            }),
          ),
        ),
      ),
    );
  if (!onTable) return { now: null, reveal: null };
  const roundName = (/** @type {string} */ r) => r.charAt(0).toUpperCase() + r.slice(1);
  return {
    reveal: onTable.reveal
      ? h('div', { class: 'revealed' }, h('h3', { class: 'table-title' }, `${roundName(onTable.reveal.round)}: the cards turned over`), draw(onTable.reveal, true))
      : null,
    now: onTable.now
      ? h('div', { class: 'on-table' }, h('h3', { class: 'table-title' }, `On the table, ${onTable.now.round}`), draw(onTable.now, false))
      : null,
  };
}

/** The prompt as a question and one button per choice. @param {any} prompt */
function genericPrompt(prompt) {
  const choices = Array.isArray(prompt.choices) ? prompt.choices : [];
  return h(
    'div',
    { class: 'generic-prompt' },
    h('p', { class: 'question' }, String(prompt.question ?? 'Your decision:')),
    prompt.private
      ? h('p', { class: 'hint' }, 'Face down: the others see that you chose, not what, until the reveal.')
      : null,
    h(
      'ul',
      { class: 'choices' },
      choices.map((/** @type {any} */ c) =>
        h('li', null, h('button', { type: 'button', class: 'choice', 'data-testid': 'choice', onclick: () => void choose(c.command) }, String(c.label ?? '?'))),
      ),
    ),
  );
}

function renderView() {
  let drawn = null;
  try {
    drawn = state.view ? state.module?.renderView?.(state.view, ctx()) ?? null : null;
  } catch (e) {
    console.error(e);
    drawn = null;
  }
  if (drawn instanceof Element) {
    replace(el.view, drawn);
    return;
  }
  const v = state.view ?? {};
  const open = el.view.querySelector('details.raw')?.hasAttribute('open') ?? false;
  replace(
    el.view,
    typeof v.waiting_for === 'string' ? h('p', null, `${v.waiting_for.charAt(0).toUpperCase()}${v.waiting_for.slice(1)}.`) : null,
    h('details', { class: 'raw', open }, h('summary', null, 'What this seat sees (the view, as data)'), h('pre', null, JSON.stringify(v, null, 2))),
  );
}

/**
 * Whether a seat's player is connected, as far as this page knows: what the server last said
 * while this page's own connection is open; unknown while it is not (the server may be down).
 * @param {Seat} s
 */
function presence(s) {
  if (!state.live) return 'connection unknown (this page is offline)';
  return s.connected ? 'connected' : 'not connected';
}

/** Whose link this page holds, in words: "seat ada", "GM", "spectators". */
function whoWords() {
  const you = state.you;
  if (you?.kind === 'seat') return `seat ${seatName(you.seat ?? -1)}`;
  return you?.kind === 'gm' ? 'GM' : 'spectators';
}

function renderSeats() {
  const committed = new Set(state.sealedSeats);
  const rows = state.seats.map((s) => {
    const waiting = state.awaiting.includes(s.seat);
    const bits = [
      s.controller?.kind === 'bot' ? `bot (${s.controller.bot})` : 'person',
      s.controller?.kind === 'bot' ? null : presence(s),
      s.mode === 'sealed' && s.controller?.kind !== 'bot' ? 'sealed' : null,
    ].filter(Boolean);
    return h(
      'li',
      { class: waiting ? 'seat is-awaited' : 'seat' },
      h('span', { class: 'seat-name' }, s.name, s.display_name ? ` \u2014 ${s.display_name}` : '', s.seat === mySeat() ? ' (you)' : ''),
      ' ',
      h('span', { class: 'seat-role' }, s.role),
      ' · ',
      h('span', { class: 'seat-bits' }, bits.join(', ')),
      waiting ? h('span', { class: 'seat-badge' }, state.bound ? ' — waiting for its reveal' : ' — waiting for this seat') : null,
      committed.has(s.seat) && !state.bound ? h('span', { class: 'seat-badge' }, ' ✓ committed') : null,
    );
  });
  replace(el.seats, h('h2', null, 'Seats'), h('ul', { class: 'seat-list' }, rows));
  renderName();
  chat.configure({ canWrite: (mySeat() !== null || state.you?.kind === 'gm') && !state.stopped, isGm: state.you?.kind === 'gm', seats: state.seats });
}

/** The id of the display name request in flight. @type {string | null} */
let naming = null;

/** A seat's form for its player's display name, drawn once (what is typed is kept while the
 * seats are drawn again) and shown to a seat's link only. */
function renderName() {
  const seat = mySeat();
  el.name.hidden = seat === null || seat === undefined || state.stopped;
  if (el.name.hidden || el.name.firstChild) return;
  const input = h('input', { type: 'text', id: 'display-name', maxlength: 32, autocomplete: 'nickname', spellcheck: 'false' });
  const mine = state.seats.find((s) => s.seat === seat);
  /** @type {HTMLInputElement} */ (input).value = mine?.display_name ?? '';
  replace(
    el.name,
    h('label', { for: 'display-name' }, 'Your name at this table'),
    ' ',
    input,
    ' ',
    h('button', { type: 'submit' }, 'Set name'),
    h('p', { class: 'hint' }, 'Shown to everyone beside your seat, up to 32 characters; empty to clear it.'),
  );
  el.name.addEventListener('submit', (e) => {
    e.preventDefault();
    if (!conn) return;
    naming = conn.request({ type: 'name', name: /** @type {HTMLInputElement} */ (input).value });
  });
}

/** Requests from the GM screen, with what to say once they are applied. @type {Map<string, string>} */
const gmActions = new Map();

/** @param {any} message @param {string} done */
function gmRequest(message, done) {
  if (!conn) return;
  const id = conn.request(message);
  gmActions.set(id, done);
}

/**
 * The GM link this page holds was reissued at its request: the page goes on with the new
 * token (its reconnects, its address, its log downloads) and shows the new link once.
 * @param {string} url
 */
function ownLinkReissued(url) {
  const fresh = new URL(url, location.href);
  const newToken = fresh.hash.replace(/^#/, '');
  if (!/^[0-9a-f]{32}$/i.test(newToken)) return;
  forgetLink(location.href);
  rememberLink({ url: fresh.href, table: String(table), who: 'GM', system: String(state.ruleset ?? '') });
  token = newToken;
  if (conn) conn.options.token = newToken;
  history.replaceState(null, '', `${location.pathname}${location.search}#${newToken}`);
  state.newLinks.set('gm', url);
}

/** What the GM screen last drew, so that it is drawn again only when it changes (a focused
 * button or a chosen bot kind is kept). */
let gmDrawn = '';
/** The bot kind chosen per seat on the GM screen. @type {Map<number, string>} */
const botChoice = new Map();

function renderGm() {
  if (!isGm() || state.stopped) {
    el.gm.hidden = true;
    return;
  }
  el.gm.hidden = false;
  const key = JSON.stringify([state.seats, state.awaiting, [...state.newLinks], Boolean(state.catalogue), state.you, state.live]);
  if (key === gmDrawn) return;
  gmDrawn = key;
  const gmLink = state.you?.kind === 'gm';
  const bots = /** @type {string[]} */ (state.catalogue?.systems?.find((/** @type {any} */ s) => s.system === state.ruleset)?.bots ?? []);
  const rows = state.seats.map((s) => {
    const controls = [];
    if (state.awaiting.includes(s.seat)) {
      controls.push(
        h('button', { type: 'button', onclick: () => gmRequest({ type: 'force', seat: s.seat }, `${s.name}'s decision forced.`) }, `Force ${s.name}'s decision`),
      );
    }
    if (gmLink) {
      controls.push(
        h('button', { type: 'button', onclick: () => gmRequest({ type: 'manage', action: { action: 'reissue', seat: s.seat } }, `A new link for ${s.name}.`) }, 'New link'),
        h('button', { type: 'button', onclick: () => gmRequest({ type: 'manage', action: { action: 'revoke', seat: s.seat } }, `${s.name}'s link revoked.`) }, 'Revoke link'),
      );
      if (s.controller?.kind === 'bot') {
        controls.push(
          h('button', { type: 'button', onclick: () => gmRequest({ type: 'manage', action: { action: 'person', seat: s.seat } }, `${s.name} is a person's again.`) }, 'Back to a person'),
        );
      } else if (bots.length > 0) {
        const id = `bot-${s.seat}`;
        const select = /** @type {HTMLSelectElement} */ (
          h(
            'select',
            { id, onchange: (/** @type {Event} */ e) => botChoice.set(s.seat, /** @type {HTMLSelectElement} */ (e.target).value) },
            bots.map((b) => h('option', { value: b, selected: botChoice.get(s.seat) === b }, b)),
          )
        );
        controls.push(
          h('label', { for: id, class: 'visually-hidden' }, `Bot kind for ${s.name}`),
          select,
          h('button', { type: 'button', onclick: () => gmRequest({ type: 'manage', action: { action: 'bot', seat: s.seat, kind: select.value } }, `${s.name} is played by a bot.`) }, 'Hand to bot'),
        );
      }
    }
    const link = state.newLinks.get(String(s.seat));
    return h(
      'li',
      { class: 'gm-seat' },
      h('p', null, h('strong', null, s.name), ` — ${s.role}, ${s.controller?.kind === 'bot' ? `bot (${s.controller.bot})` : 'person'}, ${presence(s)}, ${s.controller?.kind === 'bot' ? 'plain' : s.mode ?? 'plain'}`, state.awaiting.includes(s.seat) ? ' — awaited' : ''),
      h('div', { class: 'controls' }, controls),
      link ? linkBox(`New link for ${s.name}`, link) : null,
    );
  });
  const spectators = state.newLinks.get('spectators');
  const ownGm = state.newLinks.get('gm');
  keepingFocus(el.gm, () => replace(
    el.gm,
    h('h2', { tabindex: '-1' }, 'GM screen'),
    gmLink ? h('p', { class: 'hint' }, gmLinkHint()) : null,
    h('ul', { class: 'gm-seats' }, rows),
    h(
      'p',
      { class: 'controls' },
      h('button', { type: 'button', onclick: () => gmRequest({ type: 'undo' }, 'The last public command is undone.') }, 'Undo the last public command'),
      gmLink
        ? h('button', { type: 'button', onclick: () => gmRequest({ type: 'manage', action: { action: 'reissue', seat: null } }, 'A new spectator link.') }, 'New spectator link')
        : null,
      gmLink
        ? confirmButton(
          'Revoke spectator link',
          'Every spectator is disconnected and the link stops working until you make a new one.',
          'Yes, revoke it',
          () => gmRequest({ type: 'manage', action: { action: 'revoke', seat: null } }, 'The spectator link is revoked.'),
        )
        : null,
      gmLink
        ? confirmButton(
          'New GM link',
          'This page moves to the new link; the old GM link stops working, wherever it is open.',
          'Yes, make a new GM link',
          () => gmRequest({ type: 'manage', action: { action: 'reissue_gm' } }, 'A new GM link: keep it, it is shown only now.'),
        )
        : null,
    ),
    spectators ? linkBox('New spectator link', spectators) : null,
    ownGm ? linkBox('New GM link (this page\u2019s own; shown only now)', ownGm) : null,
  ));
}

/** What the GM link sees and does, in words. */
function gmLinkHint() {
  const gm = gmSeat();
  if (gm === null) return 'These rules have no GM seat: this link sees what is public, and manages the table.';
  const name = seatName(gm);
  return `This link sees what the rules\u2019 GM seat ${name} sees: its characters\u2019 sheets and stacks, and their face-down choices once committed. It is asked nothing: ${name}\u2019s decisions are given from its own link or by its bot. The GM\u2019s rulings below are given on ${name}\u2019s behalf, in the public log with their reason.`;
}

/** What the rulings panel last drew (drawn again only when it changes). */
let rulingsDrawn = '';

/** The GM's rulings panel (each system's `renderRulings`): on the GM link and on the rules' GM
 * seat's page. Its forms keep what was typed in them when the view changes. */
function renderRulings() {
  const module = state.module;
  const shown = isGm() && !state.stopped && state.view && typeof module?.renderRulings === 'function';
  if (!shown) {
    el.rulings.hidden = true;
    if (rulingsDrawn) replace(el.rulings);
    rulingsDrawn = '';
    return;
  }
  const key = JSON.stringify([state.view, state.seats, state.you, state.over]);
  if (key === rulingsDrawn) return;
  rulingsDrawn = key;
  let drawn = null;
  try {
    drawn = module.renderRulings(state.view, ctx());
  } catch (e) {
    console.error(e);
    drawn = null;
  }
  if (!(drawn instanceof Element)) {
    el.rulings.hidden = true;
    replace(el.rulings);
    return;
  }
  el.rulings.hidden = false;
  const gm = gmSeat();
  keepingForms(el.rulings, () =>
    replace(
      el.rulings,
      h('h2', { id: 'rulings-h', tabindex: '-1' }, 'GM rulings'),
      h(
        'p',
        { class: 'hint' },
        state.you?.kind === 'gm' && gm !== null
          ? `Given on ${seatName(gm)}\u2019s behalf; public, with the reason, in everyone\u2019s log. The rules may still refuse one (shown above).`
          : 'Public, with the reason, in everyone\u2019s log. The rules may still refuse one (shown above).',
      ),
      drawn,
    ),
  );
}

/**
 * Draws `section` again keeping what was changed in its forms: each field's value (and each
 * box's tick) the person changed, by its id, the selects first (their `change` lets a form fill what depends on them), and the
 * focus on the field of the same id — else on the section's heading, as {@link keepingFocus}.
 * @param {HTMLElement} section
 * @param {() => void} draw
 */
function keepingForms(section, draw) {
  /** @type {Map<string, {value: string, checked: boolean}>} */
  const kept = new Map();
  for (const f of section.querySelectorAll('input[id], select[id], textarea[id]')) {
    const x = /** @type {HTMLInputElement} */ (f);
    // what the person changed: a select's choice; a field's text or a box's tick unlike its default
    const changed = f instanceof HTMLSelectElement || (x.type === 'checkbox' || x.type === 'radio' ? x.checked !== x.defaultChecked : x.value !== x.defaultValue);
    if (changed) kept.set(x.id, { value: x.value, checked: x.checked });
  }
  const focused = document.activeElement;
  const focusId = focused instanceof HTMLElement && section.contains(focused) ? focused.id : '';
  keepingFocus(section, draw);
  for (const f of section.querySelectorAll('select[id]')) {
    const x = /** @type {HTMLSelectElement} */ (f);
    const k = kept.get(x.id);
    if (k && [...x.options].some((o) => o.value === k.value) && x.value !== k.value) {
      x.value = k.value;
      x.dispatchEvent(new Event('change'));
    }
  }
  for (const f of section.querySelectorAll('input[id], textarea[id]')) {
    const x = /** @type {HTMLInputElement} */ (f);
    const k = kept.get(x.id);
    if (!k) continue;
    if (x.type === 'checkbox' || x.type === 'radio') x.checked = k.checked;
    else x.value = k.value;
  }
  if (focusId) {
    const again = document.getElementById(focusId);
    if (again instanceof HTMLElement && section.contains(again)) again.focus({ preventScroll: true });
  }
}

/**
 * Draws `section` again; if the focus was in it (on a button just pressed, now gone), it goes
 * to the section's heading — never lost to the page's top for a keyboard or screen-reader user,
 * and never onto another control that a second key press would set off.
 * @param {HTMLElement} section
 * @param {() => void} draw
 */
function keepingFocus(section, draw) {
  const focused = document.activeElement;
  const had = focused instanceof HTMLElement && section.contains(focused);
  draw();
  if (!had || section.contains(document.activeElement)) return;
  const heading = section.querySelector('h2');
  if (heading instanceof HTMLElement) heading.focus({ preventScroll: true });
}

/** The log's new items, appended. @param {any[]} items */
/** The log's open group: a turn, a Hand or a round, collapsible. @type {{details: HTMLDetailsElement, list: HTMLElement} | null} */
let logGroup = null;
/** The line holding the run of draws just logged, while no other item has come. @type {HTMLElement | null} */
let drawRun = null;
/** The log's rolls, each with its line's place for its verifiable draws. @type {RollDraws<HTMLElement>} */
const rollDraws = new RollDraws();

/** The log's filter: everything, or only this seat's own items. */
const logFilter = h(
  'fieldset',
  { class: 'log-filter' },
  h('legend', { class: 'visually-hidden' }, 'Show in the log'),
  ...[
    ['everything', 'Everything'],
    ['mine', 'Mine'],
  ].map(([value, text]) =>
    h(
      'label',
      { class: 'toggle' },
      h('input', {
        type: 'radio',
        name: 'log-filter',
        value,
        checked: value === 'everything',
        onchange: () => el.log.classList.toggle('only-mine', value === 'mine'),
      }),
      ` ${text}`,
    ),
  ),
);

/** This seat's characters' names, from the view (every system's view lists them with their seat). */
function myNames() {
  const me = mySeatInfo()?.name;
  if (!me) return [];
  const v = state.view ?? {};
  const all = [...(Array.isArray(v.fighters) ? v.fighters : []), ...(Array.isArray(v.actors) ? v.actors : [])];
  return all.filter((f) => f?.seat === me && typeof f.name === 'string').map((f) => f.name);
}

/** Opens a new group of the log, closing the one before (it can be opened again). @param {string} title */
function openLogGroup(title) {
  if (logGroup) logGroup.details.open = false;
  const list = h('ol', { class: 'entries' });
  const details = /** @type {HTMLDetailsElement} */ (h('details', { open: true }, h('summary', null, title), list));
  el.log.append(h('li', { class: 'group' }, details));
  logGroup = { details, list };
  drawRun = null;
}

function appendLog(items) {
  const names = myNames();
  for (const item of items) {
    const title = groupTitle(item);
    if (title) openLogGroup(title);
    if (!logGroup) openLogGroup('Before play');
    const list = /** @type {{list: HTMLElement}} */ (logGroup).list;
    // A roll's draws go on the roll's own line; any other run of draws is one line.
    const roll = rollDraws.owner(item);
    if (roll) {
      replace(roll.at, ` (${rollDrawsText(roll.counters)})`);
      continue;
    }
    if (item.kind === 'draw') {
      if (drawRun && drawRun.parentElement === list && list.lastElementChild === drawRun) {
        drawRun.append(`, ${drawText(item)}`);
      } else {
        drawRun = h('li', { class: 'item machinery draws', value: item.seq }, `Dice drawn (verifiable): ${drawText(item)}`);
        list.append(drawRun);
      }
      continue;
    }
    let drawn = null;
    // Every item, not only events: a module may follow the draws (Inciting Incident checks
    // its dice once the server seed is revealed); it returns null for what it does not draw.
    try {
      drawn = state.module?.renderEvent?.(item, ctx()) ?? null;
    } catch (e) {
      console.error(e);
      drawn = null;
    }
    const text = itemText(item, seatName);
    if (!drawn && !text) continue;
    const draws = h('span', { class: 'roll-draws' });
    rollDraws.add(item, draws);
    list.append(
      h(
        'li',
        { class: `item${isMachinery(item) ? ' machinery' : ''}${isMine(item, mySeat(), names) ? ' mine' : ''}`, value: item.seq },
        drawn instanceof Element ? drawn : h('span', { class: 'text' }, text.trim()),
        draws,
      ),
    );
  }
  // The log scrolls within its box; the page stays where the person is.
  if (items.length > 0) el.log.scrollTop = el.log.scrollHeight;
}

// ---- Timer ---------------------------------------------------------------------------

let timerHandle = /** @type {any} */ (null);

/**
 * Follows the decision timers the server runs, as a change reports them (`timers`: each
 * seat's milliseconds left when the change was sent): the page counts down from there.
 * @param {{seat: number, ms: number}[]} timers
 */
function restartTimer(timers) {
  const now = Date.now();
  state.timers = state.over ? [] : timers.map((t) => ({ seat: t.seat, at: now + t.ms }));
  tick();
  if (timerHandle === null) timerHandle = setInterval(tick, 1000);
}

function tick() {
  if (state.timers.length === 0) {
    el.timer.hidden = true;
    return;
  }
  el.timer.hidden = false;
  const parts = state.timers.map((t) => {
    const left = Math.max(0, Math.round((t.at - Date.now()) / 1000));
    const mm = Math.floor(left / 60);
    const ss = String(left % 60).padStart(2, '0');
    const who = t.seat === mySeat() ? 'you' : seatName(t.seat);
    return `${who} ${mm}:${ss}`;
  });
  // Once the round is bound the timers are the reveals' (a sealed table times them even with no
  // decision timer: docs/protocol.md, Sealed choices).
  if (state.bound) replace(el.timer, `Time to reveal: ${parts.join(', ')} left — a choice not revealed by then is a fault, and the rules\u2019 default is taken`);
  else replace(el.timer, `Timer: ${parts.join(', ')} left — then the rules\u2019 default is taken`);
}

// ---- Tools: reference, options, notices, the verifiable log -----------------------------

async function loadCatalogue() {
  try {
    const r = await fetch('/api/systems');
    if (r.ok) state.catalogue = await r.json();
  } catch {
    state.catalogue = null;
  }
  renderTools();
  renderGm();
}

const verifyOut = h('div', { class: 'verify-out', 'aria-live': 'polite' });

/** What the tools last drew (they are drawn again only when it changes: an open panel stays open). */
let toolsDrawn = '';

/** Opens the quick reference and puts the cursor in its search. */
function openReference() {
  const ref = /** @type {HTMLDetailsElement | null} */ (el.tools.querySelector('details.reference'));
  if (!ref) return;
  ref.open = true;
  ref.scrollIntoView({ block: 'start' });
  /** @type {HTMLInputElement | null} */ (ref.querySelector('input[type="search"]'))?.focus();
}

function renderTools() {
  const reference = state.catalogue?.systems?.find((/** @type {any} */ s) => s.system === state.ruleset)?.reference;
  const rules = Object.entries(state.rules ?? {});
  const opts = state.options ?? {};
  const key = JSON.stringify([typeof reference, state.rules, opts, state.you]);
  if (key === toolsDrawn) return;
  toolsDrawn = key;
  const open = new Set([...el.tools.querySelectorAll('details[open]')].map((d) => d.className));
  replace(
    el.tools,
    h(
      'details',
      { class: 'reference', open: open.has('reference') },
      h('summary', null, 'Quick reference and symbol legend'),
      typeof reference === 'string' ? referenceElement(reference) : h('p', null, 'Loading…'),
    ),
    h(
      'details',
      { class: 'rules', open: open.has('rules') },
      h('summary', null, 'This table\u2019s options'),
      h(
        'dl',
        null,
        rules.flatMap(([k, v]) => [h('dt', null, k), h('dd', null, typeof v === 'string' ? v : JSON.stringify(v))]),
        h('dt', null, 'decision timer'),
        h('dd', null, opts.decision_seconds ? `${opts.decision_seconds} s` : 'none'),
        h('dt', null, 'bots think'),
        h('dd', null, `${opts.think_ms ?? 0} ms`),
      ),
    ),
    mySeat() !== null ? notices.controls() : null,
    h(
      'div',
      { class: 'fair' },
      h('h2', null, 'Verifiable log'),
      h(
        'p',
        { class: 'controls' },
        h('button', { type: 'button', onclick: () => void download() }, 'Download the log'),
        h('button', { type: 'button', onclick: () => void verify() }, 'Verify it here'),
      ),
      verifyOut,
      mySeat() !== null && state.serverSeedCommitment ? clientSeedForm() : null,
    ),
  );
}

/** A seat's own randomness for the draws (docs/protocol.md, Verifiable draws): a phrase's
 * SHA-256, or random bytes, sent as its client seed; public at once, in the draws from the next
 * mix on. */
function clientSeedForm() {
  const phrase = /** @type {HTMLInputElement} */ (h('input', { type: 'text', id: 'client-seed', autocomplete: 'off' }));
  const out = h('span', { role: 'status' });
  const send = async (/** @type {Event} */ e) => {
    e.preventDefault();
    if (!conn) return;
    let seed;
    try {
      if (phrase.value) seed = await clientSeedFromPhrase(phrase.value);
      else seed = randomNonce();
    } catch (err) {
      replace(out, `No seed: ${err instanceof Error ? err.message : String(err)}`);
      return;
    }
    const id = conn.request({ type: 'client_seed', seed });
    gmActions.set(id, 'Your client seed is in the draws from the next reveal on.');
    phrase.value = '';
    replace(out, 'Sent.');
  };
  return h(
    'form',
    { class: 'client-seed', onsubmit: send },
    h('label', { for: 'client-seed' }, 'Your own randomness for the draws (a phrase, or leave empty for random bytes)'),
    h('div', { class: 'controls' }, phrase, h('button', { type: 'submit' }, 'Add to the draws'), out),
  );
}

/** The viewer's verifiable log's text. */
async function fairLog() {
  const r = await fetch(`/api/tables/${encodeURIComponent(table)}/log?format=fair`, {
    headers: { Authorization: `Bearer ${token}` },
  });
  const text = await r.text();
  if (!r.ok) {
    let message = text;
    try {
      message = JSON.parse(text).message ?? text;
    } catch {
      /* the text as it is */
    }
    throw new Error(message);
  }
  return text;
}

/** The finished game stepped through (replay.js, loaded only now), below the prompt. */
async function openReplay() {
  let box = document.getElementById('replay-box');
  if (!box) {
    box = h('div', { id: 'replay-box' });
    el.prompt.after(box);
  }
  try {
    const [text, replay] = await Promise.all([fairLog(), import('./replay.js')]);
    await replay.showReplay(text, box);
  } catch (e) {
    replace(box, h('p', { class: 'note', role: 'alert' }, `No replay: ${e instanceof Error ? e.message : String(e)}`));
  }
}

async function download() {
  try {
    const text = await fairLog();
    const blob = new Blob([text], { type: 'application/jsonl' });
    const url = URL.createObjectURL(blob);
    const a = h('a', { href: url, download: `table-${table}.jsonl` });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
    replace(verifyOut, h('p', null, `Saved table-${table}.jsonl.`));
  } catch (e) {
    replace(verifyOut, h('p', { class: 'note' }, `No log: ${e instanceof Error ? e.message : String(e)}`));
  }
}

async function verify() {
  replace(verifyOut, h('p', null, 'Verifying…'));
  try {
    const text = await fairLog();
    const report = await verifyLog(text);
    const lines = [];
    if (report.ok) {
      lines.push(h('p', { class: 'ok' }, '✓ The log verifies: every commitment, draw and link of the hash chain.'));
      // This page has no rules engine: the rules' replay is the command line's.
      lines.push(
        h(
          'p',
          null,
          'This page does not replay the rules: that every opened choice was legal, that every event and draw follows from the choices, and that nothing was revealed late is checked by the command facedown verify --replay on this log once the game is over.',
        ),
      );
    } else {
      lines.push(h('p', { class: 'bad' }, `✗ The log does not verify: line ${report.mismatch?.line}: ${report.mismatch?.what}`));
    }
    lines.push(
      h(
        'p',
        null,
        `${report.entries} entries, ${report.commitments} commitments checked, ${report.draws} draws`,
        report.seedRevealed ? ' (re-derived from the revealed server seed).' : ' (their outcomes can be checked once the game is over and the server seed revealed).',
      ),
    );
    if (state.head) {
      const same = report.head === state.head;
      const seen = report.hashes?.includes(state.head);
      lines.push(
        h(
          'p',
          { class: same || seen ? 'ok' : 'bad' },
          same
            ? `✓ Its last hash is the head this page last saw (${state.head.slice(0, 16)}…).`
            : seen
              ? `✓ The head this page last saw (${state.head.slice(0, 16)}…) is in it; the log has gone on since.`
              : `✗ The head this page last saw (${state.head.slice(0, 16)}…) is not in this log (its last: ${report.head.slice(0, 16)}…).`,
        ),
      );
    }
    replace(verifyOut, ...lines);
  } catch (e) {
    replace(verifyOut, h('p', { class: 'bad' }, `Could not verify: ${e instanceof Error ? e.message : String(e)}`));
  }
}

// ---- The connection's banner ------------------------------------------------------------

/** @param {import('./conn.js').Status} status @param {string} why */
function onStatus(status, why) {
  const b = el.banner;
  const live = status === 'open';
  if (live !== state.live) {
    state.live = live;
    renderSeats();
    renderGm();
  }
  if (status === 'open') {
    b.hidden = true;
    replace(b);
  } else if (status === 'reconnecting') {
    b.hidden = false;
    b.className = 'banner';
    replace(b, '⟳ Reconnecting…', why ? ` (${why})` : '');
  } else if (status === 'stopped') {
    state.stopped = why;
    renderPrompt();
    renderGm();
    b.hidden = false;
    b.className = 'banner stopped';
    replace(b, '✗ Disconnected: ', why);
  } else {
    b.hidden = false;
    b.className = 'banner';
    replace(b, 'Connecting…');
  }
}

// ---- Start ---------------------------------------------------------------------------

function start() {
  layout();
  if (!table || !/^[0-9a-f]{32}$/i.test(token)) {
    replace(
      el.prompt,
      h('h2', null, 'This link opens nothing'),
      h('p', null, 'A table link looks like http://host:port/t/TABLE#TOKEN: the part after # is the seat\u2019s secret. Ask the GM for your link again.'),
    );
    return;
  }
  renderAll();
  conn = new Connection({
    url: wsUrl(location),
    table,
    token,
    since: () => state.seq,
    onMessage,
    onStatus,
  });
  onStatus('connecting', '');
  conn.start();
}

start();
