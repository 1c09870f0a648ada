// @ts-check
/**
 * SHA-256 (FIPS 180-4, §4.1.2, §5.1.1, §6.2) and HMAC-SHA256 (RFC 2104) over `Uint8Array`s,
 * written in plain JavaScript so a page served over plain HTTP on a local network — where
 * `crypto.subtle` does not exist — still hashes commitments, draws and the log's chain.
 *
 * Two providers give the same bytes:
 * - {@link pure}: this file's own implementation, everywhere;
 * - {@link subtleProvider}: the browser's (or Node's) `crypto.subtle`, only where it exists
 *   (HTTPS or localhost).
 * {@link preferred} picks `crypto.subtle` when present and the pure one otherwise.
 *
 * @module sha256
 */

/** The first 32 bits of the fractional parts of the cube roots of the first 64 primes (FIPS 180-4 §4.2.2). */
const K = new Uint32Array(64);
/** The first 32 bits of the fractional parts of the square roots of the first 8 primes (FIPS 180-4 §5.3.3). */
const H0 = new Uint32Array(8);

/**
 * The first 32 bits of the fractional part of `x` (0 < x), exactly: the constants are computed,
 * not copied, and checked against the known first and last words by the tests.
 * @param {number} root a square or cube root, as precise as a double allows
 * @param {number} prime the prime it is the root of
 * @param {number} power 2 or 3
 * @returns {number}
 */
function fractionWord(root, prime, power) {
  // A double holds about 52 bits of the root; its fraction's first 32 bits can be off by one
  // in the last place, so correct the candidate with exact BigInt arithmetic:
  // w is right when (i + w/2^32)^power <= prime < (i + (w+1)/2^32)^power.
  const i = Math.floor(root);
  let w = Math.floor((root - i) * 2 ** 32);
  const scaled = (/** @type {number} */ v) => (BigInt(i) * (1n << 32n) + BigInt(v)) ** BigInt(power);
  const target = BigInt(prime) * (1n << BigInt(32 * power));
  while (w > 0 && scaled(w) > target) w--;
  while (w < 2 ** 32 - 1 && scaled(w + 1) <= target) w++;
  return w >>> 0;
}

(() => {
  /** @type {number[]} */
  const primes = [];
  for (let n = 2; primes.length < 64; n++) {
    if (primes.every((p) => n % p !== 0)) primes.push(n);
  }
  primes.forEach((p, t) => {
    K[t] = fractionWord(Math.cbrt(p), p, 3);
    if (t < 8) H0[t] = fractionWord(Math.sqrt(p), p, 2);
  });
})();

/** The message schedule, reused between blocks (64 words). */
const W = new Uint32Array(64);

/**
 * Processes one 64-byte block of `bytes` at `offset` into the hash value `H` (FIPS 180-4 §6.2.2).
 * @param {Uint32Array} H the eight working words, updated in place
 * @param {Uint8Array} bytes
 * @param {number} offset
 */
function compress(H, bytes, offset) {
  for (let t = 0; t < 16; t++) {
    const j = offset + 4 * t;
    W[t] = (bytes[j] << 24) | (bytes[j + 1] << 16) | (bytes[j + 2] << 8) | bytes[j + 3];
  }
  for (let t = 16; t < 64; t++) {
    const x = W[t - 15];
    const y = W[t - 2];
    // σ0 and σ1 of FIPS 180-4 (4.6), (4.7)
    const s0 = ((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3);
    const s1 = ((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10);
    W[t] = (s1 + W[t - 7] + s0 + W[t - 16]) | 0;
  }
  let a = H[0], b = H[1], c = H[2], d = H[3], e = H[4], f = H[5], g = H[6], h = H[7];
  for (let t = 0; t < 64; t++) {
    // Σ1(e), Ch(e,f,g), Σ0(a), Maj(a,b,c) of FIPS 180-4 (4.2)–(4.5)
    const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
    const ch = (e & f) ^ (~e & g);
    const T1 = (h + S1 + ch + K[t] + W[t]) | 0;
    const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
    const maj = (a & b) ^ (a & c) ^ (b & c);
    const T2 = (S0 + maj) | 0;
    h = g;
    g = f;
    f = e;
    e = (d + T1) | 0;
    d = c;
    c = b;
    b = a;
    a = (T1 + T2) | 0;
  }
  H[0] += a; H[1] += b; H[2] += c; H[3] += d; H[4] += e; H[5] += f; H[6] += g; H[7] += h;
}

/**
 * SHA-256 of the concatenation of `parts`, in this file's pure JavaScript.
 * @param {...Uint8Array} parts
 * @returns {Uint8Array} 32 bytes
 */
export function sha256(...parts) {
  const message = concat(...parts);
  const length = message.length;
  // Padding (FIPS 180-4 §5.1.1): 0x80, zeros to 56 mod 64, then the length in bits as 64 bits.
  const padded = new Uint8Array((((length + 8) >> 6) + 1) << 6);
  padded.set(message);
  padded[length] = 0x80;
  const bits = length * 8; // exact below 2^53
  const high = Math.floor(bits / 2 ** 32);
  const low = bits >>> 0;
  const end = padded.length;
  padded[end - 8] = high >>> 24;
  padded[end - 7] = high >>> 16;
  padded[end - 6] = high >>> 8;
  padded[end - 5] = high;
  padded[end - 4] = low >>> 24;
  padded[end - 3] = low >>> 16;
  padded[end - 2] = low >>> 8;
  padded[end - 1] = low;
  const H = H0.slice();
  for (let offset = 0; offset < end; offset += 64) compress(H, padded, offset);
  const out = new Uint8Array(32);
  for (let i = 0; i < 8; i++) {
    out[4 * i] = H[i] >>> 24;
    out[4 * i + 1] = H[i] >>> 16;
    out[4 * i + 2] = H[i] >>> 8;
    out[4 * i + 3] = H[i];
  }
  return out;
}

/** SHA-256's block size in bytes, B of RFC 2104. */
const BLOCK = 64;

/**
 * HMAC-SHA256 (RFC 2104): H((K ⊕ opad) ‖ H((K ⊕ ipad) ‖ message)), the key hashed first when
 * longer than a block and padded with zeros to one; in this file's pure JavaScript.
 * @param {Uint8Array} key
 * @param {...Uint8Array} message the message, in parts
 * @returns {Uint8Array} 32 bytes
 */
export function hmacSha256(key, ...message) {
  const k = new Uint8Array(BLOCK);
  k.set(key.length > BLOCK ? sha256(key) : key);
  const inner = new Uint8Array(BLOCK);
  const outer = new Uint8Array(BLOCK);
  for (let i = 0; i < BLOCK; i++) {
    inner[i] = k[i] ^ 0x36;
    outer[i] = k[i] ^ 0x5c;
  }
  return sha256(outer, sha256(inner, ...message));
}

/**
 * The byte strings one after another.
 * @param {...Uint8Array} parts
 * @returns {Uint8Array}
 */
export function concat(...parts) {
  if (parts.length === 1) return parts[0];
  let size = 0;
  for (const p of parts) size += p.length;
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/**
 * A way to hash: asynchronous, so `crypto.subtle` fits the same shape.
 * @typedef {object} Provider
 * @property {string} name `pure` or `subtle`
 * @property {(...parts: Uint8Array[]) => Promise<Uint8Array>} sha256 SHA-256 of the parts, concatenated
 * @property {(key: Uint8Array, ...message: Uint8Array[]) => Promise<Uint8Array>} hmacSha256 HMAC-SHA256
 */

/** @type {Provider} this file's own SHA-256 and HMAC, available everywhere. */
export const pure = Object.freeze({
  name: 'pure',
  sha256: async (/** @type {Uint8Array[]} */ ...parts) => sha256(...parts),
  hmacSha256: async (/** @type {Uint8Array} */ key, /** @type {Uint8Array[]} */ ...message) =>
    hmacSha256(key, ...message),
});

/**
 * `crypto.subtle`'s SHA-256 and HMAC, or `null` where it does not exist (a page over plain
 * HTTP that is not localhost).
 * @returns {Provider | null}
 */
export function subtleProvider() {
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) return null;
  return Object.freeze({
    name: 'subtle',
    sha256: async (/** @type {Uint8Array[]} */ ...parts) =>
      new Uint8Array(await subtle.digest('SHA-256', /** @type {BufferSource} */ (concat(...parts)))),
    hmacSha256: async (/** @type {Uint8Array} */ key, /** @type {Uint8Array[]} */ ...message) => {
      // HMAC pads a short key with zeros, so an empty key (which some `importKey`s refuse) is
      // the same key as one zero byte.
      const raw = /** @type {BufferSource} */ (key.length === 0 ? new Uint8Array(1) : key);
      const k = await subtle.importKey('raw', raw, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
      return new Uint8Array(await subtle.sign('HMAC', k, /** @type {BufferSource} */ (concat(...message))));
    },
  });
}

/**
 * `crypto.subtle` where present, this file's pure JavaScript otherwise.
 * @returns {Provider}
 */
export function preferred() {
  return subtleProvider() ?? pure;
}

/**
 * `hex(b)` of docs/fairness.md §1: two lowercase hexadecimal digits a byte.
 * @param {Uint8Array} bytes
 * @returns {string}
 */
export function toHex(bytes) {
  let out = '';
  for (const b of bytes) out += (b < 16 ? '0' : '') + b.toString(16);
  return out;
}

/**
 * The bytes of a hexadecimal text of even length in lowercase (docs/fairness.md §1), or
 * `null` when it is not one.
 * @param {string} text
 * @returns {Uint8Array | null}
 */
export function fromHex(text) {
  if (typeof text !== 'string' || text.length % 2 !== 0 || !/^[0-9a-f]*$/.test(text)) return null;
  const out = new Uint8Array(text.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(text.slice(2 * i, 2 * i + 2), 16);
  return out;
}
