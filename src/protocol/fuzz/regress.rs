//! Fixed byte strings that once panicked, allocated without bound or read
//! wrong values, one or more per fix, kept as regression cases.

use super::against;
use super::gen;
use crate::protocol::conn::text_row;
use crate::protocol::pubkey;
use crate::protocol::rows::{ColType, Rows};
use crate::protocol::{Conn, ProtoError};

/// A PEM body that decodes to the single DER byte 0x30 (a SEQUENCE tag
/// with no length): mysql_common's reader indexed past the end.
const PEM_TRUNCATED: &[u8] = b"-----BEGIN PUBLIC KEY-----\nMA==\n-----END PUBLIC KEY-----\n";

/// A PKCS#1 key with modulus 3: mysql_common's OAEP padding computed
/// `k - 41` with k = 1 and asked for a buffer of ~2^64 bytes.
fn pem_tiny_modulus() -> Vec<u8> {
    gen::pem_of(&[0x30, 0x06, 0x02, 0x01, 0x03, 0x02, 0x01, 0x03], true)
}

/// A caching_sha2_password login over TCP that goes to full auth and gets
/// `key` as the server's public key.
fn full_auth_with_key(key: &[u8]) -> Result<(), ProtoError> {
    let caps = gen::CAPS_BASE;
    let g = gen::greeting(b"8.0.36", caps, &[0x41; 20], "caching_sha2_password", 0);
    let mut more_key = vec![0x01];
    more_key.extend_from_slice(key);
    let script = gen::frame(&[g, vec![0x01, 0x04], more_key, gen::ok(0, 2, &[])], 0);
    against(script, |opts| async move {
        Conn::connect(&opts).await.map(drop)
    })
}

#[test]
fn server_key_with_truncated_der_is_an_auth_error() {
    let e = full_auth_with_key(PEM_TRUNCATED).unwrap_err();
    assert!(
        matches!(&e, ProtoError::Auth(m) if m.contains("unusable RSA public key")),
        "{e}"
    );
}

#[test]
fn server_key_with_tiny_modulus_is_an_auth_error() {
    let e = full_auth_with_key(&pem_tiny_modulus()).unwrap_err();
    assert!(
        matches!(&e, ProtoError::Auth(m) if m.contains("RSA modulus of 2 bits")),
        "{e}"
    );
}

#[test]
fn a_sound_server_key_still_logs_in() {
    full_auth_with_key(gen::PEM).expect("full auth with a valid 2048-bit key");
}

#[test]
fn user_key_file_with_bad_der_is_an_auth_error() {
    let caps = gen::CAPS_BASE;
    let g = gen::greeting(b"8.0.36", caps, &[0x41; 20], "caching_sha2_password", 0);
    let script = gen::frame(&[g, vec![0x01, 0x04], gen::ok(0, 2, &[])], 0);
    let e = against(script, |mut opts| async move {
        opts.server_public_key = Some(PEM_TRUNCATED.to_vec());
        Conn::connect(&opts).await.map(drop)
    })
    .unwrap_err();
    assert!(
        matches!(&e, ProtoError::Auth(m) if m.contains("--server-public-key")),
        "{e}"
    );
}

#[test]
fn key_checks() {
    assert!(pubkey::check(PEM_TRUNCATED, 6).is_err());
    assert!(pubkey::check(&pem_tiny_modulus(), 6).is_err());
    // A BIT STRING of length 0 (mysql_common sliced [1..0]).
    let der = [0x30, 0x07, 0x30, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00];
    assert!(pubkey::check(&gen::pem_of(&der, false), 6).is_err());
}

#[test]
fn text_row_with_a_huge_column_count_is_malformed() {
    // Vec::with_capacity(usize::MAX) panicked ("capacity overflow").
    assert!(text_row(b"\x01a", usize::MAX).is_err());
    assert!(text_row(b"\x01a", 2).is_err());
    assert_eq!(
        text_row(b"\x01a\xFB", 2).unwrap(),
        vec![Some("a".into()), None]
    );
}

#[test]
fn result_without_metadata_and_a_huge_column_count() {
    // Column count 2^64-1, then MARIADB_CLIENT_CACHE_METADATA's "no
    // metadata" byte, a row, EOF: the text query path reserved a row of
    // 2^64-1 values.
    let mut header = vec![0xFE];
    header.extend_from_slice(&[0xFF; 8]);
    header.push(0);
    let mut script = gen::login(gen::CAPS_BASE);
    script.extend(gen::frame(
        &[header, b"\x01a".to_vec(), gen::eof(false, 0)],
        1,
    ));
    let e = against(script, |opts| async move {
        let mut c = Conn::connect(&opts).await?;
        c.query("SELECT 1").await.map(drop)
    })
    .unwrap_err();
    assert!(e.to_string().contains("malformed result row"), "{e}");
}

#[test]
fn rows_get_with_an_overflowing_index_is_none() {
    let mut r = Rows::new();
    r.start_result(2);
    r.push_text_row(b"\x01a\x01b").unwrap();
    // row * 2 wrapped to 0 and read row 0.
    assert_eq!(r.get(1 << 63, 0), None);
    assert_eq!(r.get(0, 1), Some(&b"b"[..]));
}

#[test]
fn time_with_many_days_does_not_wrap() {
    let mut r = Rows::new();
    r.types = vec![ColType {
        ty: 0x0B,
        unsigned: false,
    }];
    r.start_result(1);
    // 178956971 days: days * 24 overflowed u32.
    let mut p = vec![0, 0, 8, 0];
    p.extend_from_slice(&178_956_971u32.to_le_bytes());
    p.extend_from_slice(&[0, 0, 0]);
    r.push_binary_row(&p).unwrap();
    assert_eq!(r.str(0, 0), Some("4294967304:00:00"));
}
