// @ts-check
/** @file The table's log in readable text: each item of a viewer's log (docs/protocol.md,
 * Changes and sequence numbers) as a line, for every kind of item, in the words `facedown join`
 * prints them. Items are never dropped, only blanked, so every viewer's log counts alike. */

/**
 * The text of one log item; `name` gives a seat's name by number.
 * @param {any} item
 * @param {(seat: number) => string} name
 * @returns {string}
 */
export function itemText(item, name) {
  const seat = (/** @type {string} */ key) => (typeof item?.[key] === 'number' ? name(item[key]) : '?');
  switch (item?.kind) {
    case 'event':
      return typeof item.text === 'string' ? item.text : '';
    case 'took_back':
      return `${seat('seat')} takes back a face-down choice.`;
    case 'forced':
      return `${seat('seat')}'s decision is forced: the rules' default is taken.`;
    case 'undone':
      return `${seat('by')} undoes ${seat('seat')}'s last command.`;
    case 'bound': {
      const n = Array.isArray(item.commitments) ? item.commitments.length : 0;
      return `Every choice is sealed (${n} commitment${n === 1 ? '' : 's'}): now they are revealed.`;
    }
    case 'fault':
      return `${seat('seat')} faulted (${faultText(item)}).`;
    case 'opened':
      return `${seat('seat')}'s commitment opened.`;
    case 'client_seed':
      return `${seat('seat')} gives a client seed for the draws.`;
    case 'mix':
      return 'The round\u2019s nonces are mixed into the draws.';
    case 'draw': {
      const d = item.draw ?? {};
      return `Draw #${d.counter ?? '?'}: ${d.value ?? '?'} of 0\u2013${d.n !== undefined ? Number(d.n) - 1 : '?'} (verifiable).`;
    }
    case 'server_seed':
      return 'The game is over: the server seed is revealed, every draw can be checked.';
    case 'setup':
      return 'The setup is revealed, every sheet included: it can be checked against its commitment.';
    case 'record':
      return 'The game\u2019s commands are revealed, so that the command facedown verify --replay can replay the rules from them.';
    default:
      return '';
  }
}

/**
 * A fault item's fault in words (`wrong_nonce`, `illegal` with the rules' `reason`, `no_reveal` with
 * the reason `secret_lost` or none).
 * @param {any} item
 */
export function faultText(item) {
  const fault = item?.fault;
  if (fault === 'wrong_nonce') return 'its reveal did not open its commitment';
  if (fault === 'no_reveal' && item?.reason === 'secret_lost') return 'its secret was lost: its face-down choice could not be revealed';
  if (fault === 'no_reveal') return 'no reveal in time';
  if (fault === 'illegal') return `the rules refuse its choice: ${item?.reason ?? 'no reason given'}`;
  if (fault && typeof fault === 'object') return faultText({ ...fault, fault: fault.fault });
  return String(fault ?? '?');
}

/**
 * Whether an item is the verifiable-draw machinery (shown small, not narration).
 * @param {any} item
 */
export function isMachinery(item) {
  return ['bound', 'opened', 'client_seed', 'mix', 'draw', 'server_seed', 'setup', 'record'].includes(item?.kind);
}

/**
 * The seats a page's notice names: "Ada and Kuro", "Ada, Bao and Kuro".
 * @param {string[]} names
 */
export function andList(names) {
  if (names.length <= 1) return names.join('');
  return `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}
