//! Vetting of RSA public keys (PEM) before mysql_common encrypts a password
//! with one (caching_sha2_password and sha256_password full auth over plain
//! TCP).
//!
//! The key comes from the server (or a file the user names), and
//! mysql_common's DER reader indexes and slices its input without checking
//! lengths, pads with `k - 2*20 - 1` (k the modulus size in bytes) without
//! checking for underflow, and takes the modulus to `modpow` unchecked: a
//! malformed or tiny key panics (or asks for an impossible allocation), a
//! zero modulus panics, and a huge one or a huge exponent costs seconds of
//! CPU. `check` walks the same structure with every length checked and
//! bounds the sizes, so that what it accepts mysql_common handles.
//!
//! Owns: that check. Must not touch: the auth exchange itself (auth.rs).

use mysql_common::crypto::der::{pem_to_der, PubKeyFileType};
use mysql_common::crypto::rsa::PublicKey;

/// Modulus sizes accepted, in bits (real keys: 2048 to 4096).
const MIN_MODULUS_BITS: u64 = 512;
const MAX_MODULUS_BITS: u64 = 16384;
/// Largest exponent accepted, in bits (real keys: 65537, 17 bits).
const MAX_EXPONENT_BITS: u64 = 256;
/// SHA-1 OAEP overhead: the message may take up to k - 42 bytes.
const OAEP_OVERHEAD: usize = 2 * 20 + 2;

/// Whether `pem` is an RSA public key that can encrypt a password of
/// `password_len` bytes (plus its NUL); Err says what is wrong with it.
pub fn check(pem: &[u8], password_len: usize) -> Result<(), String> {
    let (der, kind) = pem_to_der(pem).map_err(|e| e.to_string())?;
    let ok = match kind {
        PubKeyFileType::Pkcs1 => pkcs1(&der),
        PubKeyFileType::Pkcs8 => pkcs8(&der),
    };
    if ok.is_none() {
        return Err("malformed DER in the RSA public key".into());
    }
    // The structure is sound: mysql_common's own reading cannot panic now.
    let key = PublicKey::from_pem(pem).map_err(|e| e.to_string())?;
    let bits = key.modulus().bits();
    if !(MIN_MODULUS_BITS..=MAX_MODULUS_BITS).contains(&bits) {
        return Err(format!(
            "an RSA modulus of {bits} bits (expected {MIN_MODULUS_BITS} to {MAX_MODULUS_BITS})"
        ));
    }
    let e_bits = key.exponent().bits();
    if e_bits > MAX_EXPONENT_BITS {
        return Err(format!(
            "an RSA exponent of {e_bits} bits (expected at most {MAX_EXPONENT_BITS})"
        ));
    }
    let room = key.num_octets().saturating_sub(OAEP_OVERHEAD);
    if password_len.saturating_add(1) > room {
        return Err(format!(
            "the password is too long for a {bits}-bit RSA key (at most {} bytes)",
            room.saturating_sub(1)
        ));
    }
    Ok(())
}

/// A DER length as mysql_common reads it (the low 64 bits of a long
/// form), and what follows it; None where its reader would index past the
/// end.
fn len(der: &[u8]) -> Option<(usize, &[u8])> {
    let first = *der.first()?;
    if first & 0x80 == 0 {
        return Some((usize::from(first), der.get(1..)?));
    }
    let n = usize::from(first & 0x7F);
    let bytes = der.get(1..n.checked_add(1)?)?;
    let low = bytes
        .iter()
        .rev()
        .take(8)
        .enumerate()
        .fold(0u64, |v, (i, &b)| v | u64::from(b) << (8 * i));
    Some((usize::try_from(low).ok()?, der.get(n + 1..)?))
}

/// A tag, its length and contents: (contents, rest).
fn element(der: &[u8], tag: u8) -> Option<(&[u8], &[u8])> {
    if *der.first()? != tag {
        return None;
    }
    let (n, rest) = len(der.get(1..)?)?;
    Some((rest.get(..n)?, rest.get(n..)?))
}

/// SEQUENCE { INTEGER modulus, INTEGER exponent }.
fn pkcs1(der: &[u8]) -> Option<()> {
    let (fields, _) = element(der, 0x30)?;
    let (_, rest) = element(fields, 0x02)?;
    element(rest, 0x02).map(drop)
}

/// SEQUENCE { SEQUENCE algorithm, BIT STRING { 0 unused bits, PKCS#1 } }.
fn pkcs8(der: &[u8]) -> Option<()> {
    let (outer, _) = element(der, 0x30)?;
    let (_, rest) = element(outer, 0x30)?;
    let (bits, _) = element(rest, 0x03)?;
    // mysql_common reads the unused-bits byte, then bits[1..n]: n >= 1.
    match bits.split_first()? {
        (0, key) => pkcs1(key),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::fuzz::gen;

    #[test]
    fn accepts_a_real_key_in_both_forms() {
        assert_eq!(check(gen::PEM, 6), Ok(()));
        assert_eq!(check(&gen::pem_of(&gen::der()[24..], true), 6), Ok(()));
    }

    #[test]
    fn refuses_a_password_longer_than_the_key_takes() {
        // 2048 bits: 256 - 42 = 214 bytes with the NUL.
        assert_eq!(check(gen::PEM, 213), Ok(()));
        assert!(check(gen::PEM, 214).unwrap_err().contains("too long"));
    }
}
