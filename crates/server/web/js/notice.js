// @ts-check
/** @file The notice that the table waits on this page's seat: the tab's title gains a prefix,
 * and, when the person turned them on (off by default, remembered in localStorage), a short
 * beep (WebAudio) and a vibration. */

import { h } from './dom.js';

/** The title's prefix while the table waits on this seat. */
export const PREFIX = '● Your turn — ';

const SOUND = 'facedown/notice/sound';
const VIBRATE = 'facedown/notice/vibrate';

/** @param {string} key */
function remembered(key) {
  try {
    return globalThis.localStorage?.getItem(key) === 'on';
  } catch {
    return false;
  }
}

/** @param {string} key @param {boolean} on */
function remember(key, on) {
  try {
    globalThis.localStorage?.setItem(key, on ? 'on' : 'off');
  } catch {
    /* private mode: not remembered */
  }
}

/** The notice of one page. */
export class Notices {
  constructor() {
    /** The title without the prefix. */
    this.base = typeof document !== 'undefined' ? document.title : '';
    this.waiting = false;
    this.sound = remembered(SOUND);
    this.vibrate = remembered(VIBRATE);
    /** @type {AudioContext | null} */
    this.audio = null;
  }

  /**
   * Whether the table waits on this seat now: sets the title, and beeps and vibrates when it
   * starts to.
   * @param {boolean} waiting
   */
  update(waiting) {
    const started = waiting && !this.waiting;
    this.waiting = waiting;
    document.title = waiting ? PREFIX + this.base : this.base;
    if (!started) return;
    if (this.sound) this.beep();
    if (this.vibrate) globalThis.navigator?.vibrate?.(200);
  }

  beep() {
    try {
      const Ctx = globalThis.AudioContext ?? /** @type {any} */ (globalThis).webkitAudioContext;
      if (!Ctx) return;
      this.audio ??= new Ctx();
      const a = /** @type {AudioContext} */ (this.audio);
      const osc = a.createOscillator();
      const gain = a.createGain();
      osc.frequency.value = 660;
      gain.gain.value = 0.08;
      osc.connect(gain).connect(a.destination);
      osc.start();
      osc.stop(a.currentTime + 0.15);
    } catch {
      /* no sound on this device */
    }
  }

  /** The two toggles, as labelled checkboxes. */
  controls() {
    const box = (/** @type {string} */ id, /** @type {string} */ text, /** @type {boolean} */ on, /** @type {(v: boolean) => void} */ set) =>
      h(
        'label',
        { for: id, class: 'toggle' },
        h('input', {
          id,
          type: 'checkbox',
          checked: on,
          onchange: (/** @type {Event} */ e) => set(/** @type {HTMLInputElement} */ (e.target).checked),
        }),
        ' ',
        text,
      );
    return h(
      'fieldset',
      { class: 'notices' },
      h('legend', null, 'When the table waits on you'),
      box('notice-sound', 'Beep', this.sound, (v) => {
        this.sound = v;
        remember(SOUND, v);
        if (v) this.beep();
      }),
      box('notice-vibrate', 'Vibrate', this.vibrate, (v) => {
        this.vibrate = v;
        remember(VIBRATE, v);
      }),
    );
  }
}
