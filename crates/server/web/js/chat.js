// @ts-check
/** @file The table's chat: its last lines, read by every page (the spectators' too), written
 * from a seat's page or the GM screen; the GM mutes a seat here. Lines are text, never markup.
 */

import { h, replace } from './dom.js';

/** The most lines drawn (the server keeps as many for a welcome). */
const SHOWN = 100;

export class Chat {
  /**
   * @param {(message: any) => string | null} request sends a request, giving its id
   */
  constructor(request) {
    this.request = request;
    /** @type {{n: number, seat?: number, text: string}[]} */
    this.lines = [];
    /** @type {any[]} */
    this.seats = [];
    this.canWrite = false;
    this.isGm = false;
    this.list = h('ol', { class: 'chat-lines', 'aria-live': 'polite', 'aria-relevant': 'additions' });
    this.input = /** @type {HTMLInputElement} */ (
      h('input', { type: 'text', id: 'chat-line', maxlength: 500, autocomplete: 'off' })
    );
    this.form = h(
      'form',
      { class: 'chat-form', hidden: true },
      h('label', { for: 'chat-line', class: 'visually-hidden' }, 'Say to the table'),
      this.input,
      ' ',
      h('button', { type: 'submit' }, 'Send'),
    );
    this.form.addEventListener('submit', (e) => {
      e.preventDefault();
      const text = this.input.value.trim();
      if (!text) return;
      if (this.request({ type: 'chat', text }) !== null) this.input.value = '';
    });
    this.mutes = h('div', { class: 'chat-mutes' });
    this.el = h(
      'section',
      { class: 'chat', 'aria-labelledby': 'chat-h' },
      h('h2', { id: 'chat-h' }, 'Chat'),
      this.list,
      this.form,
      this.mutes,
    );
  }

  /**
   * Who this page is, and the seats (names, display names, who is muted).
   * @param {{canWrite: boolean, isGm: boolean, seats: any[]}} who
   */
  configure({ canWrite, isGm, seats }) {
    this.canWrite = canWrite;
    this.isGm = isGm;
    this.seats = seats;
    this.form.hidden = !canWrite;
    this.drawMutes();
    this.draw();
  }

  /** @param {{n: number, seat?: number, text: string}[]} lines the welcome's */
  reset(lines) {
    this.lines = (lines ?? []).slice(-SHOWN);
    this.draw();
  }

  /** @param {{n: number, seat?: number, text: string}} line */
  add(line) {
    if (this.lines.some((l) => l.n === line.n)) return;
    this.lines.push(line);
    if (this.lines.length > SHOWN) this.lines.shift();
    this.list.append(this.item(line));
    while (this.list.childElementCount > SHOWN) this.list.firstElementChild?.remove();
  }

  /** @param {number | undefined} seat */
  who(seat) {
    if (seat === undefined || seat === null) return 'GM';
    const s = this.seats.find((x) => x.seat === seat);
    if (!s) return `seat ${seat}`;
    return s.display_name ? `${s.name} (${s.display_name})` : s.name;
  }

  /** @param {{n: number, seat?: number, text: string}} line */
  item(line) {
    return h('li', null, h('strong', null, `${this.who(line.seat)}: `), line.text);
  }

  draw() {
    replace(this.list, this.lines.map((l) => this.item(l)));
  }

  drawMutes() {
    if (!this.isGm) {
      replace(this.mutes);
      return;
    }
    replace(
      this.mutes,
      this.seats.map((s) =>
        h(
          'button',
          {
            type: 'button',
            class: 'chat-mute',
            onclick: () => this.request({ type: 'mute', seat: s.seat, muted: !s.muted }),
          },
          s.muted ? `Let ${s.name} chat` : `Mute ${s.name}`,
        ),
      ),
    );
  }
}
