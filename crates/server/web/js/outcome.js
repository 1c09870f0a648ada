// @ts-check
/** @file Who won, as the rules crates say it: a turn's or a Hand's result beside the prompt,
 * and the ending with its summary. Every word comes from the view (Iron Triangle's
 * `turn_result`, No Dice's `hand_result`, every system's `who_won`): nothing here decides who
 * won. Pure, so it is tested under Node. */

/**
 * The latest resolved turn (Iron Triangle) or revealed Hand (No Dice) in a view, as a
 * headline and its lines (the losses in their parts, each pair's Dominances), or null.
 * @param {any} view
 * @returns {{key: string, headline: string, lines: string[]} | null}
 */
export function turnResult(view) {
  const t = view?.turn_result;
  if (t && typeof t.headline === 'string') {
    const lines = (Array.isArray(t.losses) ? t.losses : []).map((/** @type {any} */ l) => String(l?.words ?? '')).filter(Boolean);
    return { key: `turn ${t.turn}`, headline: t.headline, lines };
  }
  const r = view?.hand_result;
  if (r && typeof r.headline === 'string') {
    const lines = (Array.isArray(r.pairs) ? r.pairs : []).map((/** @type {any} */ p) => String(p?.words ?? '')).filter(Boolean);
    return { key: `hand ${r.hand}`, headline: r.headline, lines };
  }
  return null;
}

/**
 * The ending in a view: who won in this viewer's words ("You lost: Kuro's side wins"), whether
 * the viewer won (true, false or null), and the summary's lines; null while the game goes on.
 * @param {any} view
 * @returns {{headline: string, youWon: boolean | null, summary: string[]} | null}
 */
export function ending(view) {
  const w = view?.who_won;
  if (!w || typeof w.headline !== 'string') return null;
  return {
    headline: w.headline,
    youWon: typeof w.you_won === 'boolean' ? w.you_won : null,
    summary: (Array.isArray(w.summary) ? w.summary : []).map(String),
  };
}
