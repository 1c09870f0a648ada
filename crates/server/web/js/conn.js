// @ts-check
/** @file One table connection of a page (docs/protocol.md): the WebSocket, its hello with
 * `since`, reconnection by itself with a growing pause, and the protocol's retry rule — a
 * request not yet answered is sent again, unchanged, with the same id after a reconnection, so
 * the server applies it once. */

/** The protocol version this page speaks. */
export const VERSION = 3;

/** How often a ping keeps the connection alive through proxies (ms). */
const PING_EVERY = 25_000;

/**
 * The pause before reconnection attempt `n` (from 1), in ms: 250 ms doubling, at most 5 s
 * (as `facedown join`).
 * @param {number} n
 */
export function backoff(n) {
  const k = Math.min(Math.max(n, 1) - 1, 5);
  return Math.min(250 * 2 ** k, 5000);
}

/**
 * The WebSocket address of the page's server: `http:` becomes `ws:`, `https:` `wss:`.
 * @param {{protocol: string, host: string}} loc
 */
export function wsUrl(loc) {
  return `${loc.protocol === 'https:' ? 'wss:' : 'ws:'}//${loc.host}/ws`;
}

/**
 * Client ids: a random prefix (so two page loads never reuse one) and a counter, which the
 * protocol orders: a link's new request ends in a counter above every one it sent before
 * (docs/protocol.md, Requests and client ids).
 */
export class Ids {
  /** @param {string} [prefix] */
  constructor(prefix) {
    this.prefix = prefix ?? randomPrefix();
    this.count = 0;
  }
  /** The next id. */
  next() {
    this.count += 1;
    return `${this.prefix}-${this.count}`;
  }
  /** The next id is above `last` (a welcome's `last_id`: another page of this link went on).
   * @param {number} last */
  atLeast(last) {
    if (Number.isSafeInteger(last) && last > this.count) this.count = last;
  }
}

/** 8 random bytes as hex. */
function randomPrefix() {
  const b = new Uint8Array(8);
  globalThis.crypto.getRandomValues(b);
  return 'p' + Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
}

/**
 * Where a connection is: `connecting` (the first time), `open` (welcomed), `reconnecting`
 * (lost, trying again), `stopped` (will not reconnect: the link was taken over, revoked or
 * refused).
 * @typedef {'connecting' | 'open' | 'reconnecting' | 'stopped'} Status
 */

/**
 * @typedef {object} ConnectionOptions
 * @property {string} url the WebSocket address
 * @property {string} table the table, as its link names it
 * @property {string} token the link's token (from the fragment)
 * @property {() => number} since the last sequence number the page has seen
 * @property {(message: any) => void} onMessage every message from the server
 * @property {(status: Status, why: string) => void} onStatus the connection's state changed
 * @property {typeof WebSocket} [WebSocketImpl] the WebSocket class (tests)
 * @property {(f: () => void, ms: number) => any} [setTimer] (tests)
 */

/** One table connection that reconnects by itself. */
export class Connection {
  /** @param {ConnectionOptions} options */
  constructor(options) {
    this.options = options;
    /** Requests sent and not yet answered, by id, in the order sent.
     * @type {Map<string, any>} */
    this.pending = new Map();
    /** @type {WebSocket | null} */
    this.ws = null;
    /** @type {Status} */
    this.status = 'connecting';
    this.failures = 0;
    this.welcomed = false;
    this.ids = new Ids();
    /** @type {any} */
    this.pinger = null;
  }

  /** Opens the first connection. */
  start() {
    this.open();
  }

  /** @param {Status} status @param {string} why */
  setStatus(status, why) {
    this.status = status;
    this.options.onStatus(status, why);
  }

  open() {
    const Impl = this.options.WebSocketImpl ?? WebSocket;
    let ws;
    try {
      ws = new Impl(this.options.url);
    } catch (e) {
      this.lost(String(e));
      return;
    }
    this.ws = ws;
    this.welcomed = false;
    ws.onopen = () => {
      this.raw({
        type: 'hello',
        v: VERSION,
        table: this.options.table,
        token: this.options.token,
        since: this.options.since(),
      });
    };
    ws.onmessage = (e) => {
      let m;
      try {
        m = JSON.parse(String(e.data));
      } catch {
        return;
      }
      this.received(m);
    };
    ws.onclose = () => {
      if (this.ws === ws) this.lost('the connection closed');
    };
    ws.onerror = () => {};
  }

  /** @param {any} m */
  received(m) {
    switch (m?.type) {
      case 'welcome':
        this.ids.atLeast(m.last_id ?? 0);
        this.welcomed = true;
        this.failures = 0;
        this.setStatus('open', '');
        this.options.onMessage(m);
        // The retry rule: whatever was not answered goes again, unchanged, with its id.
        for (const request of this.pending.values()) this.raw(request);
        this.startPinging();
        return;
      case 'ack':
        this.pending.delete(m.id);
        break;
      case 'error':
        if (m.id !== undefined && m.id !== null) this.pending.delete(m.id);
        if (!this.welcomed && (m.code === 'unauthorized' || m.code === 'version' || m.code === 'forbidden')) {
          this.stop(m.message ?? m.code);
        }
        break;
      case 'taken_over':
        this.stop('this link was opened on another device, which now holds the seat');
        break;
      case 'revoked':
        this.stop('the GM revoked or reissued this link');
        break;
      case 'closing':
        this.options.onMessage(m);
        this.ws?.close();
        return;
      default:
        break;
    }
    this.options.onMessage(m);
  }

  /** Keeps the connection alive through proxies. */
  startPinging() {
    if (this.pinger !== null) return;
    this.pinger = setInterval(() => {
      if (this.welcomed) this.raw({ type: 'ping' });
    }, PING_EVERY);
  }

  /** @param {string} why */
  lost(why) {
    this.ws = null;
    this.welcomed = false;
    if (this.status === 'stopped') return;
    this.failures += 1;
    this.setStatus('reconnecting', why);
    const timer = this.options.setTimer ?? ((f, ms) => setTimeout(f, ms));
    timer(() => {
      if (this.status !== 'stopped') this.open();
    }, backoff(this.failures) + Math.floor(Math.random() * 100));
  }

  /** Stops for good: no reconnection. @param {string} why */
  stop(why) {
    if (this.pinger !== null) clearInterval(this.pinger);
    this.pinger = null;
    this.setStatus('stopped', why);
    const ws = this.ws;
    this.ws = null;
    ws?.close();
  }

  /** Sends a frame if the socket is open. @param {any} message */
  raw(message) {
    const ws = this.ws;
    if (ws && ws.readyState === 1) ws.send(JSON.stringify(message));
  }

  /**
   * Sends a request (a message with an `id`; one is given when it has none), kept until it is
   * answered and sent again after a reconnection. Returns its id.
   * @param {any} message
   * @returns {string}
   */
  request(message) {
    const id = message.id ?? this.ids.next();
    const m = { ...message, id };
    this.pending.set(id, m);
    if (this.welcomed) this.raw(m);
    return id;
  }
}
