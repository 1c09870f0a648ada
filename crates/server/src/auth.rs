//! Link tokens: 128 random bits, shown once in a link's fragment, kept only as a SHA-256 hash,
//! compared in constant time, never logged.

use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// A new token: 128 bits from the operating system's random source (through the thread's
/// cryptographically secure generator), as 32 hexadecimal digits.
pub fn new_token() -> String {
    hex::encode(rand::random::<[u8; 16]>())
}

/// The hash a token is kept as: SHA-256, hexadecimal.
pub fn hash(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

/// A token derived from the host's key (`facedown serve --table`'s table, docs/hosting.md): the
/// first 128 bits of HMAC-SHA256(key, "facedown link|{table}|{who}|{generation}"), as 32
/// hexadecimal digits, like [`new_token`]'s. The host prints the same links again after a
/// restart while the store keeps only their hashes; a new generation makes new ones.
pub fn derived_token(key: &[u8], table: u64, who: &str, generation: u64) -> String {
    use hmac::{Hmac, Mac};
    // HMAC takes a key of any length.
    let mut mac = Hmac::<Sha256>::new_from_slice(key).unwrap_or_else(|_| unreachable!("any key length"));
    mac.update(format!("facedown link|{table}|{who}|{generation}").as_bytes());
    hex::encode(&mac.finalize().into_bytes()[..16])
}

/// Whether `token` hashes to `stored`, compared in constant time.
pub fn matches(token: &str, stored: &str) -> bool {
    let mine = hash(token);
    bool::from(mine.as_bytes().ct_eq(stored.as_bytes()))
}

/// Whether two secrets are equal, compared in constant time (the admin secret).
pub fn same_secret(a: &str, b: &str) -> bool {
    // Hash both first so the comparison takes the same time whatever their lengths.
    bool::from(Sha256::digest(a.as_bytes()).ct_eq(&Sha256::digest(b.as_bytes())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_is_128_random_bits_kept_as_its_hash() {
        let a = new_token();
        let b = new_token();
        assert_eq!(a.len(), 32);
        assert_ne!(a, b);
        let kept = hash(&a);
        assert!(!kept.contains(&a));
        assert!(matches(&a, &kept));
        assert!(!matches(&b, &kept));
        assert!(same_secret("s3cret", "s3cret"));
        assert!(!same_secret("s3cret", "s3cret "));
    }
}
