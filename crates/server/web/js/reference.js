// @ts-check
/** @file The quick reference as structured HTML: headings, lists, the legend as a table, and a
 * search. It reads the shape every ruleset's quick reference shares (crates/table's
 * reference.rs: a title, then sections — a heading line, its lines indented by two spaces, a
 * longer line going on indented by four — and the LEGEND, a symbol then its meaning), and
 * leaves out the citations of the rules reference's sections (§5.2), a file players do not
 * have. Nothing of a rule is decided here. The parser is pure, tested under Node. */

import { h } from './dom.js';

/**
 * A reference's text without its section citations: "(§5.3)", ", §6)", "(§ = …)".
 * @param {string} text
 */
export function withoutSections(text) {
  return text
    .replace(/\s*\(§[^)]*\)/g, '')
    .replace(/,\s*§[0-9.]+(?:\s+steps?\s+[0-9.–-]+)?\)/g, ')')
    .replace(/\s*§[0-9.]+(?:\s+steps?\s+[0-9.–-]+)?/g, '')
    .trim();
}

/**
 * A heading in sentence case, without citations: "ONE TURN (§5.2)" → "One turn",
 * "ACTIONS (§2): each beats one" → "Actions: each beats one".
 * @param {string} line
 */
export function headingText(line) {
  const t = withoutSections(line);
  const [caps, ...rest] = t.split(':');
  const head = caps.charAt(0) + caps.slice(1).toLowerCase();
  return rest.length ? `${head}:${rest.join(':')}` : head;
}

/**
 * Parses a quick reference's text into its title and sections; the legend's lines as
 * [symbol, meaning] rows. Citations of sections are left out; the legend's row for § too.
 * @param {string} text
 * @returns {{title: string, sections: {id: string, heading: string, lines: string[], legend: [string, string][] | null}[]}}
 */
export function parseReference(text) {
  const blocks = String(text ?? '').split(/\n\s*\n/).map((b) => b.split('\n').filter((l) => l.trim() !== '')).filter((b) => b.length > 0);
  const title = blocks.length ? headingText(blocks[0].join(' ')) : '';
  const sections = blocks.slice(1).map((b) => {
    const heading = b[0].trim();
    /** @type {string[]} */
    const lines = [];
    for (const raw of b.slice(1)) {
      if (/^ {4,}/.test(raw) && lines.length) lines[lines.length - 1] += ` ${raw.trim()}`;
      else lines.push(raw.trim());
    }
    const isLegend = heading === 'LEGEND';
    const legend = isLegend
      ? /** @type {[string, string][]} */ (
          lines
            .map((l) => {
              const m = /^(\S+)\s+(.*)$/.exec(l);
              return m ? [m[1], m[2]] : [l, ''];
            })
            .filter(([sym]) => sym !== '§')
        )
      : null;
    const shown = headingText(heading);
    return {
      id: `ref-${shown.split(':')[0].toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '')}`,
      heading: isLegend ? 'Legend' : shown,
      lines: isLegend ? [] : lines.map(withoutSections).filter((l) => l !== ''),
      legend,
    };
  });
  return { title, sections };
}

/**
 * The quick reference drawn: a search field, then each section under its heading (the legend
 * as a table). Typing in the search hides the lines, rows and sections that do not match.
 * @param {string} text
 */
export function referenceElement(text) {
  const { sections } = parseReference(text);
  const body = h(
    'div',
    { class: 'ref-sections' },
    sections.map((s) =>
      h(
        'section',
        { class: 'ref-section', id: s.id, 'aria-labelledby': `${s.id}-h` },
        h('h3', { id: `${s.id}-h` }, s.heading),
        s.legend
          ? h('table', { class: 'legend' }, h('thead', null, h('tr', null, h('th', { scope: 'col' }, 'Symbol'), h('th', { scope: 'col' }, 'Meaning'))), h('tbody', null, s.legend.map(([sym, meaning]) => h('tr', null, h('td', { class: 'symbol' }, sym), h('td', null, meaning)))))
          : h('ul', null, s.lines.map((l) => h('li', null, l))),
      ),
    ),
  );
  const search = /** @type {HTMLInputElement} */ (h('input', { type: 'search', id: 'ref-search', placeholder: 'a word, a symbol…' }));
  search.addEventListener('input', () => {
    const q = search.value.trim().toLowerCase();
    for (const sec of body.querySelectorAll('.ref-section')) {
      let any = false;
      for (const item of sec.querySelectorAll('li, tbody tr')) {
        const hit = q === '' || (item.textContent ?? '').toLowerCase().includes(q) || (sec.querySelector('h3')?.textContent ?? '').toLowerCase().includes(q);
        /** @type {HTMLElement} */ (item).hidden = !hit;
        any ||= hit;
      }
      /** @type {HTMLElement} */ (sec).hidden = !any;
    }
  });
  return h('div', { class: 'quick-reference' }, h('p', { class: 'ref-search' }, h('label', { for: 'ref-search' }, 'Search the reference '), search), body);
}
