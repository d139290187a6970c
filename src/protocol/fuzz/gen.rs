//! Builders of server packets for the fuzz cases: valid greetings, auth
//! exchanges, OK/ERR/EOF packets, column definitions, text and binary
//! rows, COM_STMT_PREPARE_OK; and the mutations (truncation, bit flips,
//! inserted bytes, oversized length-encoded integers) that get random
//! input past the first byte of each parser.

use crate::protocol::io::put_lenenc_int;
use proptest::prelude::*;

/// Frames payloads as packets with sequence ids counting from `seq`.
pub fn frame(payloads: &[Vec<u8>], mut seq: u8) -> Vec<u8> {
    let mut out = Vec::new();
    for p in payloads {
        let len = p.len() as u32;
        out.extend_from_slice(&len.to_le_bytes()[..3]);
        out.push(seq);
        seq = seq.wrapping_add(1);
        out.extend_from_slice(p);
    }
    out
}

pub(crate) fn lenenc_bytes(out: &mut Vec<u8>, b: &[u8]) {
    put_lenenc_int(out, b.len() as u64);
    out.extend_from_slice(b);
}

/// One way of damaging a packet; positions wrap around its length.
#[derive(Debug, Clone)]
pub(crate) enum Mutation {
    Truncate(usize),
    Flip(usize, u8),
    Insert(usize, u8),
    /// An oversized length-encoded integer (0xFC/0xFD/0xFE and all ones,
    /// or a lone prefix byte) written over the packet at a position.
    Lenenc(usize, u8),
}

pub(crate) fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        any::<usize>().prop_map(Mutation::Truncate),
        (any::<usize>(), 0u8..8).prop_map(|(i, b)| Mutation::Flip(i, b)),
        (any::<usize>(), any::<u8>()).prop_map(|(i, b)| Mutation::Insert(i, b)),
        (any::<usize>(), 0u8..6).prop_map(|(i, k)| Mutation::Lenenc(i, k)),
    ]
}

pub(crate) fn mutations() -> impl Strategy<Value = Vec<Mutation>> {
    proptest::collection::vec(mutation(), 0..4)
}

pub(crate) fn apply(p: &mut Vec<u8>, m: &Mutation) {
    let at = |i: usize, len: usize| if len == 0 { 0 } else { i % len };
    match *m {
        Mutation::Truncate(i) => p.truncate(at(i, p.len() + 1)),
        Mutation::Flip(i, bit) => {
            if !p.is_empty() {
                let i = at(i, p.len());
                p[i] ^= 1 << bit;
            }
        }
        Mutation::Insert(i, b) => p.insert(at(i, p.len() + 1), b),
        Mutation::Lenenc(i, k) => {
            let big: &[u8] = match k {
                0 => &[0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF],
                1 => &[0xFE, 0, 0, 0, 0, 0, 0, 0, 0x80],
                2 => &[0xFD, 0xFF, 0xFF, 0xFF],
                3 => &[0xFC, 0xFF, 0xFF],
                4 => &[0xFE],
                _ => &[0xFB],
            };
            let i = at(i, p.len() + 1);
            let end = (i + big.len()).min(p.len());
            p.splice(i..end, big.iter().copied());
        }
    }
}

pub(crate) fn mutate(mut p: Vec<u8>, ms: &[Mutation]) -> Vec<u8> {
    for m in ms {
        apply(&mut p, m);
    }
    p
}

/// Capability bits of a greeting (CLIENT_LONG_PASSWORD clear: MariaDB).
pub(crate) const CAPS_BASE: u32 = 0x0000_0200 | 0x0000_8000 | 0x0008_0000 | 0x0020_0000;
/// Bits the cases switch on and off: LONG_PASSWORD, CONNECT_WITH_DB,
/// MULTI_RESULTS, PS_MULTI_RESULTS, SESSION_TRACK, DEPRECATE_EOF,
/// OPTIONAL_RESULTSET_METADATA.
pub(crate) const CAPS_VARY: u32 =
    0x1 | 0x8 | 0x2_0000 | 0x4_0000 | 0x80_0000 | 0x100_0000 | 0x200_0000;
pub(crate) const DEPRECATE_EOF: u32 = 0x100_0000;

pub(crate) const PLUGINS: &[&str] = &[
    "mysql_native_password",
    "caching_sha2_password",
    "client_ed25519",
    "sha256_password",
    "unix_socket",
    "mysql_clear_password",
    "mysql_old_password",
    "parsec",
    "no_such_plugin",
    "",
];

/// A protocol-10 greeting.
pub(crate) fn greeting(
    version: &[u8],
    caps: u32,
    scramble: &[u8; 20],
    plugin: &str,
    ext: u32,
) -> Vec<u8> {
    let mut p = vec![10];
    p.extend_from_slice(version);
    p.push(0);
    p.extend_from_slice(&7u32.to_le_bytes());
    p.extend_from_slice(&scramble[..8]);
    p.push(0);
    p.extend_from_slice(&(caps as u16).to_le_bytes());
    p.push(45);
    p.extend_from_slice(&2u16.to_le_bytes());
    p.extend_from_slice(&((caps >> 16) as u16).to_le_bytes());
    p.push(21);
    p.extend_from_slice(&[0; 6]);
    p.extend_from_slice(&ext.to_le_bytes());
    p.extend_from_slice(&scramble[8..]);
    p.push(0);
    p.extend_from_slice(plugin.as_bytes());
    p.push(0);
    p
}

/// A greeting that a client logs in to at once (with the OK after it).
pub fn login(caps: u32) -> Vec<u8> {
    let g = greeting(
        b"5.5.5-10.11.6-MariaDB",
        caps,
        &[7; 20],
        "mysql_native_password",
        0,
    );
    let mut out = frame(&[g], 0);
    out.extend_from_slice(&frame(&[ok(0, 2, &[])], 2));
    out
}

pub fn ok(affected: u64, status: u16, extra: &[u8]) -> Vec<u8> {
    let mut p = vec![0];
    put_lenenc_int(&mut p, affected);
    put_lenenc_int(&mut p, 0);
    p.extend_from_slice(&status.to_le_bytes());
    p.extend_from_slice(&0u16.to_le_bytes());
    p.extend_from_slice(extra);
    p
}

/// OK with info text and a session-state-change block (SESSION_TRACK).
pub(crate) fn ok_with_state(status: u16, info: &[u8], state: &[(u8, Vec<u8>)]) -> Vec<u8> {
    let mut extra = Vec::new();
    lenenc_bytes(&mut extra, info);
    let mut block = Vec::new();
    for (ty, data) in state {
        block.push(*ty);
        lenenc_bytes(&mut block, data);
    }
    lenenc_bytes(&mut extra, &block);
    ok(1, status | 0x4000, &extra)
}

pub fn err(code: u16, msg: &[u8]) -> Vec<u8> {
    let mut p = vec![0xFF];
    p.extend_from_slice(&code.to_le_bytes());
    p.extend_from_slice(b"#28000");
    p.extend_from_slice(msg);
    p
}

/// The end of a result: EOF, or an OK with the 0xFE header (DEPRECATE_EOF).
pub(crate) fn eof(deprecate: bool, status: u16) -> Vec<u8> {
    if deprecate {
        let mut p = ok(0, status, &[]);
        p[0] = 0xFE;
        p
    } else {
        let mut p = vec![0xFE, 0, 0];
        p.extend_from_slice(&status.to_le_bytes());
        p
    }
}

pub(crate) fn column_def(name: &[u8], ty: u8, flags: u16) -> Vec<u8> {
    let mut c = Vec::new();
    for s in [&b"def"[..], b"db", b"t", b"t", name, name] {
        lenenc_bytes(&mut c, s);
    }
    c.push(0x0C);
    c.extend_from_slice(&63u16.to_le_bytes());
    c.extend_from_slice(&20u32.to_le_bytes());
    c.push(ty);
    c.extend_from_slice(&flags.to_le_bytes());
    c.extend_from_slice(&[0, 0, 0]);
    c
}

pub(crate) fn prepare_ok(id: u32, ncols: u16, nparams: u16) -> Vec<u8> {
    let mut p = vec![0];
    p.extend_from_slice(&id.to_le_bytes());
    p.extend_from_slice(&ncols.to_le_bytes());
    p.extend_from_slice(&nparams.to_le_bytes());
    p.push(0);
    p.extend_from_slice(&0u16.to_le_bytes());
    p
}

/// Column types the binary protocol knows, and a few it does not.
pub(crate) const TYPES: &[u8] = &[
    0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x0F, 0x10,
    0xF5, 0xF6, 0xF7, 0xFC, 0xFD, 0xFE, 0xFF, 0x42,
];

/// A binary-protocol value of type `ty` built from `seed` bytes.
pub(crate) fn binary_value(ty: u8, seed: &[u8]) -> Vec<u8> {
    let take = |n: usize| {
        let mut v = seed.iter().copied().cycle().take(n).collect::<Vec<_>>();
        v.resize(n, 0);
        v
    };
    let pick = |opts: &[usize]| opts[seed.first().map_or(0, |b| usize::from(*b)) % opts.len()];
    match ty {
        0x01 => take(1),
        0x02 | 0x0D => take(2),
        0x03 | 0x09 | 0x04 => take(4),
        0x08 | 0x05 => take(8),
        0x06 => Vec::new(),
        0x07 | 0x0A | 0x0C => {
            let n = pick(&[0, 4, 7, 11]);
            let mut v = vec![n as u8];
            v.extend(take(n));
            v
        }
        0x0B => {
            let n = pick(&[0, 8, 12]);
            let mut v = vec![n as u8];
            v.extend(take(n));
            v
        }
        _ => {
            let mut v = Vec::new();
            lenenc_bytes(&mut v, seed);
            v
        }
    }
}

/// A binary row: header, NULL bitmap (offset 2), then the non-NULL values.
pub(crate) fn binary_row(types: &[u8], nulls: &[bool], seed: &[u8]) -> Vec<u8> {
    let mut p = vec![0];
    let at = p.len();
    p.extend(std::iter::repeat_n(0, (types.len() + 9) / 8));
    for (i, &ty) in types.iter().enumerate() {
        if nulls.get(i).copied().unwrap_or(false) {
            p[at + (i + 2) / 8] |= 1 << ((i + 2) % 8);
        } else {
            p.extend(binary_value(ty, seed));
        }
    }
    p
}

pub(crate) fn text_row(values: &[Option<Vec<u8>>]) -> Vec<u8> {
    let mut p = Vec::new();
    for v in values {
        match v {
            Some(b) => lenenc_bytes(&mut p, b),
            None => p.push(0xFB),
        }
    }
    p
}

/// A well-formed PKCS#8 PEM RSA public key (2048 bits, exponent 65537).
pub(crate) const PEM: &[u8] = b"-----BEGIN PUBLIC KEY-----
MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAxSKOcxiet8lLMn8ImyUE
bGGKob5EdRz/4wdiw12ED0GfKKTKhVnodFCfm1mdy7bKOX5QxL9skrvYodpW43eR
R5bfOzIgy1qIB8RYb6qOXRBw1oA4snBDqtUjDv/lbHLJN+IbzM4oU+e3Lt9rXyLX
VY289ewONPweXHqSCnTL91w+wkU1peIFV2QhZ+upUCdCtwOn5hnJPNgxtbklFoya
C8W3Z7Xx7He2QDJsEWAqX197efw0L6j8X8Tyd8Uwb7zUB1tfMGhHfm9EwejPAtzx
4GztQNtNMtGS2oGZLQBLV9hib4dDL92iiZeckg2LAf4GsJofLLR8mcHCRoqVbQJ1
YQIDAQAB
-----END PUBLIC KEY-----";

/// The DER inside `PEM`.
pub(crate) fn der() -> Vec<u8> {
    use base64::Engine;
    let body: Vec<u8> = PEM
        .split(|&b| b == b'\n')
        .filter(|l| !l.starts_with(b"-----"))
        .flatten()
        .copied()
        .collect();
    base64::engine::general_purpose::STANDARD
        .decode(body)
        .expect("the test key's base64")
}

/// DER bytes wrapped as a PEM public key (PKCS#8 or PKCS#1 header).
pub(crate) fn pem_of(der: &[u8], pkcs1: bool) -> Vec<u8> {
    use base64::Engine;
    let kind = if pkcs1 {
        "RSA PUBLIC KEY"
    } else {
        "PUBLIC KEY"
    };
    let body = base64::engine::general_purpose::STANDARD.encode(der);
    format!("-----BEGIN {kind}-----\n{body}\n-----END {kind}-----\n").into_bytes()
}
