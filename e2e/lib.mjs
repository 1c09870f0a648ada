// @ts-check
/** @file The harness of the browser table's tests: a `facedown serve` of its own on
 * 127.0.0.1 port 0 with a throwaway database, Debian's Chromium driven by playwright-core, and
 * a recorder per page (every WebSocket frame it received, every request it made, the bytes it
 * loaded, its DOM after each click). Nothing here writes outside a temporary folder.
 */

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before } from 'node:test';
import { chromium } from 'playwright-core';

/** Debian's Chromium (`FACEDOWN_CHROMIUM` names another). */
export const CHROMIUM = process.env.FACEDOWN_CHROMIUM || '/usr/bin/chromium';

/** Chromium's flags: headless in a container, and nothing that calls another host. */
export const BROWSER_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** How long the server may take to print its start-up line. */
const START_LIMIT_MS = 60_000;

/**
 * A `facedown serve --json` of the test's own: its address and a throwaway database.
 */
export class Server {
  /**
   * @param {import('node:child_process').ChildProcess} child
   * @param {any} started its start-up line
   * @param {string} dir its temporary folder (the database)
   * @param {() => string} stderr what it wrote to standard error so far
   */
  constructor(child, started, dir, stderr) {
    this.child = child;
    this.started = started;
    /** @type {string} host:port */
    this.addr = started.addr;
    /** @type {string} http://host:port */
    this.base = `http://${started.addr}`;
    this.dir = dir;
    this.stderr = stderr;
  }

  /**
   * An API call from the server's own machine: (status, parsed JSON or text).
   * @param {string} method
   * @param {string} path
   * @param {{body?: any, token?: string}} [opts]
   */
  async api(method, path, opts = {}) {
    /** @type {Record<string, string>} */
    const headers = {};
    if (opts.body !== undefined) headers['content-type'] = 'application/json';
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    const res = await fetch(this.base + path, {
      method,
      headers,
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await res.text();
    let body;
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
    return { status: res.status, body, headers: res.headers };
  }

  /**
   * Creates a table (POST /api/tables) and returns the `CreatedTable`.
   * @param {any} request a `CreateTable`
   */
  async createTable(request) {
    const { status, body } = await this.api('POST', '/api/tables', { body: request });
    if (status !== 201) throw new Error(`POST /api/tables answered ${status}: ${JSON.stringify(body)}`);
    return body;
  }

  /**
   * The whole log of `table` as the link's viewer sees it (GET /api/tables/{t}/log).
   * @param {string} table
   * @param {string} link a seat's, the GM's or the spectators' link
   */
  async log(table, link) {
    const { status, body } = await this.api('GET', `/api/tables/${table}/log`, { token: tokenOf(link) });
    if (status !== 200) throw new Error(`the log of table ${table} answered ${status}: ${JSON.stringify(body)}`);
    return body;
  }

  /** Stops the server (SIGTERM, then SIGKILL) and removes its folder. */
  async stop() {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      const exited = new Promise((resolve) => this.child.once('exit', resolve));
      this.child.kill('SIGTERM');
      const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * Starts the server binary `FACEDOWN_BIN` on 127.0.0.1 port 0 with a temporary `--db`, and
 * waits (bounded) for its JSON start-up line.
 * @param {string[]} [extra] more flags of `facedown serve`
 * @returns {Promise<Server>}
 */
export async function startServer(extra = []) {
  const bin = process.env.FACEDOWN_BIN;
  if (!bin) throw new Error('FACEDOWN_BIN names no facedown binary (e.g. target/debug/facedown)');
  const dir = mkdtempSync(join(tmpdir(), 'facedown-e2e-server-'));
  const env = { ...process.env };
  delete env.FACEDOWN_ADMIN_SECRET;
  // Every table and every page of a test comes from 127.0.0.1, at a machine's pace: the
  // per-address limits must not bind.
  const unbound = ['--tables-per-minute-per-address', '100000', '--max-connections-per-address', '100000',
    '--messages-per-second-per-address', '100000', '--burst-per-address', '100000'];
  const child = spawn(bin, ['serve', '--listen', '127.0.0.1:0', '--json', '--db', join(dir, 'tables.db'), ...unbound, ...extra], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env,
  });
  let err = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (d) => {
    err = (err + d).slice(-20_000);
  });
  const lines = createInterface({ input: /** @type {import('node:stream').Readable} */ (child.stdout) });
  const first = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`facedown serve printed no start-up line in ${START_LIMIT_MS} ms: ${err}`)), START_LIMIT_MS);
    lines.once('line', (line) => {
      clearTimeout(timer);
      resolve(line);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`facedown serve stopped (${code}) before serving: ${err}`));
    });
  });
  // The rest of its standard output is not read: drained so that it never blocks.
  child.stdout?.resume();
  return new Server(child, JSON.parse(first), dir, () => err);
}

/**
 * Launches headless Chromium. playwright gives each launch a fresh profile of its own, in a
 * temporary folder it removes on close (it refuses `--user-data-dir` among the flags): so
 * `TMPDIR` decides where that profile lives.
 */
export async function launchBrowser() {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: BROWSER_ARGS,
    timeout: 60_000,
  });
}

/**
 * The server and browser one test file shares: started before its tests, stopped after them
 * (node:test's `before` and `after` of the file). Read `env.server` and `env.browser` inside a
 * test, once they are started.
 * @returns {{server: Server, browser: import('playwright-core').Browser}}
 */
export function serverAndBrowser() {
  const env = /** @type {{server: Server, browser: import('playwright-core').Browser}} */ (/** @type {unknown} */ ({}));
  before(async () => {
    env.server = await startServer();
    env.browser = await launchBrowser();
  });
  after(async () => {
    await env.browser?.close();
    await env.server?.stop();
  });
  return env;
}

/**
 * The token of a link (its fragment).
 * @param {string} link
 */
export function tokenOf(link) {
  const i = link.indexOf('#');
  return i < 0 ? '' : link.slice(i + 1);
}

/**
 * The greatest `seq` a received frame carries (a change's `seq`, its items'), or -1.
 * @param {any} msg
 */
export function seqOf(msg) {
  let best = -1;
  if (!msg || typeof msg !== 'object') return best;
  if (typeof msg.seq === 'number' && (msg.type === 'update' || msg.type === 'welcome')) best = msg.seq;
  for (const u of msg.updates ?? []) if (typeof u?.seq === 'number') best = Math.max(best, u.seq);
  return best;
}

/**
 * @typedef {object} Frame
 * @property {number} at milliseconds since the recorder started
 * @property {number} before the greatest seq the page held before this frame
 * @property {number} seq the greatest seq it holds with this frame
 * @property {string} text the frame as received
 * @property {any} msg the frame parsed (null when not JSON)
 */

/**
 * @typedef {object} Snapshot
 * @property {number} seq the greatest seq the page's frames had brought when it was taken
 * @property {string} html the page's DOM (`outerHTML`) and the values of its fields
 * @property {string} after what was just clicked (on which page)
 */

/**
 * Everything one page received and loaded, recorded from the moment it is attached.
 */
export class Recorder {
  /**
   * @param {import('playwright-core').Page} page
   * @param {string} name who this page is, for the messages
   * @param {string} host the server's host:port: every request must go there
   */
  constructor(page, name, host) {
    this.page = page;
    this.name = name;
    this.host = host;
    this.start = Date.now();
    /** @type {Frame[]} */
    this.frames = [];
    /** @type {any[]} messages the page sent */
    this.sent = [];
    /** @type {number[]} for each message sent, how many frames the page had received then */
    this.sentAt = [];
    /** @type {string[]} every URL the page asked for */
    this.requests = [];
    /** @type {{url: string, encoded: number, decoded: number}[]} */
    this.responses = [];
    /** @type {Snapshot[]} */
    this.snapshots = [];
    /** @type {string[]} the page's uncaught errors and console errors */
    this.errors = [];
    /** the greatest seq received so far */
    this.seq = 0;
    /** @type {any} the latest change (welcome or update) */
    this.change = null;
    /** @type {any} the welcome's `you` */
    this.you = null;
    /** @type {Promise<void>[]} body reads still running */
    this.pending = [];
    page.on('websocket', (ws) => {
      ws.on('framereceived', ({ payload }) => this.received(String(payload)));
      ws.on('framesent', ({ payload }) => {
        let msg;
        try {
          msg = JSON.parse(String(payload));
        } catch {
          msg = String(payload);
        }
        this.sent.push(msg);
        this.sentAt.push(this.frames.length);
      });
    });
    page.on('request', (r) => this.requests.push(r.url()));
    page.on('response', (r) => {
      this.pending.push(
        (async () => {
          let decoded = 0;
          let encoded = 0;
          try {
            decoded = (await r.body()).length;
          } catch {
            // A redirect or a closed page: no body.
          }
          try {
            encoded = (await r.request().sizes()).responseBodySize;
          } catch {
            encoded = decoded;
          }
          this.responses.push({ url: r.url(), encoded, decoded });
        })(),
      );
    });
    page.on('pageerror', (e) => this.errors.push(`${e.name}: ${e.message}`));
    page.on('console', (m) => {
      if (m.type() === 'error') this.errors.push(`console: ${m.text()}`);
    });
  }

  /** @param {string} text */
  received(text) {
    let msg = null;
    try {
      msg = JSON.parse(text);
    } catch {
      // Kept as text: the checks search it all the same.
    }
    const before = this.seq;
    const s = seqOf(msg);
    if (s > this.seq) this.seq = s;
    this.frames.push({ at: Date.now() - this.start, before, seq: this.seq, text, msg });
    if (msg?.type === 'welcome') this.you = msg.you;
    if (msg?.type === 'welcome' || msg?.type === 'update') this.change = msg;
  }

  /** Waits for the response bodies still being read. */
  async settle() {
    await Promise.all(this.pending);
  }

  /**
   * Takes a snapshot of the DOM (with the fields' values, which `outerHTML` leaves out).
   * @param {string} after what was just clicked
   */
  async snapshot(after) {
    if (this.page.isClosed()) return;
    let html = '';
    try {
      html = await this.page.evaluate(() => {
        const values = Array.from(document.querySelectorAll('input, select, textarea'))
          .map((e) => /** @type {HTMLInputElement} */ (e).value)
          .join('\n');
        return `${document.documentElement.outerHTML}\n${values}\n${document.title}`;
      });
    } catch {
      // A page navigating (a reload) has no DOM to read for a moment.
      return;
    }
    // Read after the DOM: a frame the page already drew was reported before this answer.
    this.snapshots.push({ seq: this.seq, html, after });
  }

  /** The URLs this page asked for on another host than the server's (`data:`/`blob:` aside). */
  foreignRequests() {
    return this.requests.filter((u) => {
      const url = new URL(u);
      if (url.protocol === 'data:' || url.protocol === 'blob:') return false;
      return url.host !== this.host;
    });
  }

  /** The bytes of the response bodies this page loaded: as sent (encoded) and decoded. */
  bytes() {
    let encoded = 0;
    let decoded = 0;
    for (const r of this.responses) {
      encoded += r.encoded;
      decoded += r.decoded;
    }
    return { encoded, decoded };
  }
}

/**
 * Opens `url` in a fresh browser context (its own cookies and storage: another device) with a
 * recorder attached before the first request.
 * @param {import('playwright-core').Browser} browser
 * @param {string} url
 * @param {string} name
 * @param {{width: number, height: number}} [viewport]
 */
export async function openPage(browser, url, name, viewport = { width: 1280, height: 800 }) {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  const rec = new Recorder(page, name, new URL(url).host);
  const response = await page.goto(url, { waitUntil: 'load', timeout: 30_000 });
  return { context, page, rec, response };
}

/**
 * Runs `fn` with a temporary folder that is removed after.
 * @template T
 * @param {(dir: string) => Promise<T>} fn
 */
export async function withTempDir(fn) {
  const dir = mkdtempSync(join(tmpdir(), 'facedown-e2e-'));
  try {
    return await fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Waits until `cond()` holds, polling; throws naming `what` after `ms`.
 * @param {() => boolean | Promise<boolean>} cond
 * @param {number} ms
 * @param {string} what
 */
export async function waitFor(cond, ms, what) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await cond()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out after ${ms} ms waiting for ${what}`);
}

/** One table of each system the page tests open: (system, example, the bots' seats). */
export const TABLES = [
  { system: 'iron-triangle', example: 'duel', bots: { gm: 'greedy' } },
  { system: 'nodice', example: 'pc-vs-bandit', bots: {} },
  { system: 'inciting-incident', example: 'cover-up', bots: {} },
];
