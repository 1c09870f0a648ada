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

/**
 * What the ending offers after the game (issue 34, Rematch): to the GM link, "Rematch" until it
 * made one, then the new table's GM and spectator links and the seats whose link went to
 * nobody; to a seat, "Play again" once the GM made a rematch (its new link came to this page
 * alone); nothing to a spectator.
 * @param {{kind: string, seat?: number} | null} you who this page is
 * @param {{table: string, seat: number, url: string} | null} rematch this seat's new link, if it came
 * @param {{table: string, gm: string, spectator: string, sent: number[], unsent: number[], bots: number[]} | null} rematched the GM's answer, if it came
 * @param {(seat: number) => string} seatName a seat's name as the page shows it
 * @returns {{kind: 'ask'} | {kind: 'made', table: string, gm: string, spectator: string, nobody: string[]} | {kind: 'play-again', table: string, url: string} | null}
 */
export function rematchOffer(you, rematch, rematched, seatName) {
  if (you?.kind === 'gm') {
    if (!rematched) return { kind: 'ask' };
    return {
      kind: 'made',
      table: String(rematched.table),
      gm: rematched.gm,
      spectator: rematched.spectator,
      nobody: (rematched.unsent ?? []).map(seatName),
    };
  }
  if (you?.kind === 'seat' && rematch && typeof rematch.url === 'string') {
    return { kind: 'play-again', table: String(rematch.table), url: rematch.url };
  }
  return null;
}
