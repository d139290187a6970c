//! Round trips: a well-formed packet built by the generators (`gen`)
//! parses back to what was generated. The pure parsers directly (ERR
//! packets, length-encoded integers, OK status, text rows, binary rows of
//! the integer and string types), and over the wire through a real `Conn`
//! against a scripted server (the greeting's server version, an auth
//! switch, caching_sha2's fast-auth "more data", and a text result set
//! with and without EOF packets). The no-panic properties over arbitrary
//! and damaged bytes are in `parsers`, `auth` and `wire`.

use super::against;
use super::gen;
use crate::protocol::conn::{ok_status, text_row};
use crate::protocol::error::ServerError;
use crate::protocol::io::{lenenc_int, put_lenenc_int};
use crate::protocol::rows::{ColType, Rows};
use crate::protocol::Conn;
use proptest::prelude::*;

/// Text without control characters (the ERR parser escapes those), and
/// without NUL (greetings end strings with it).
fn plain(max: usize) -> impl Strategy<Value = String> {
    proptest::collection::vec(prop::char::range(' ', '~'), 0..max)
        .prop_map(|v| v.into_iter().collect())
}

/// A text value as a server sends it: any UTF-8 (a row is no place for
/// escaping), or NULL.
fn text_value() -> impl Strategy<Value = Option<String>> {
    proptest::option::of(prop_oneof![
        plain(40),
        any::<String>(),
        // long enough for the 2- and 3-byte length prefixes
        (0usize..70_000).prop_map(|n| "x".repeat(n)),
    ])
}

/// A binary-protocol cell: (type, unsigned, value bytes, the text it must
/// read back as).
type Cell = (u8, bool, Vec<u8>, String);

/// The integer and string types of the binary protocol, with the text each
/// value must read back as.
fn binary_cell() -> impl Strategy<Value = Cell> {
    prop_oneof![
        (any::<u8>(), any::<bool>()).prop_map(|(v, u)| {
            let t = if u {
                v.to_string()
            } else {
                (v as i8).to_string()
            };
            (0x01, u, vec![v], t)
        }),
        (any::<u16>(), any::<bool>()).prop_map(|(v, u)| {
            let t = if u {
                v.to_string()
            } else {
                (v as i16).to_string()
            };
            (0x02, u, v.to_le_bytes().to_vec(), t)
        }),
        (any::<u32>(), any::<bool>(), any::<bool>()).prop_map(|(v, u, int24)| {
            let t = if u {
                v.to_string()
            } else {
                (v as i32).to_string()
            };
            (
                if int24 { 0x09 } else { 0x03 },
                u,
                v.to_le_bytes().to_vec(),
                t,
            )
        }),
        (any::<u64>(), any::<bool>()).prop_map(|(v, u)| {
            let t = if u {
                v.to_string()
            } else {
                (v as i64).to_string()
            };
            (0x08, u, v.to_le_bytes().to_vec(), t)
        }),
        (
            prop::sample::select(vec![0x0Fu8, 0xFD, 0xFE, 0xFC]),
            plain(300)
        )
            .prop_map(|(ty, s)| {
                let mut v = Vec::new();
                gen::lenenc_bytes(&mut v, s.as_bytes());
                (ty, false, v, s)
            }),
    ]
}

/// A binary row of `cells` (None: NULL): header, NULL bitmap, values.
fn binary_row(cells: &[Option<Cell>]) -> Vec<u8> {
    let mut p = vec![0];
    let at = p.len();
    p.extend(std::iter::repeat_n(0, (cells.len() + 9) / 8));
    for (i, c) in cells.iter().enumerate() {
        match c {
            None => p[at + (i + 2) / 8] |= 1 << ((i + 2) % 8),
            Some((_, _, bytes, _)) => p.extend_from_slice(bytes),
        }
    }
    p
}

/// A client's capabilities as the cases vary them, without optional
/// result metadata (a result then carries a metadata byte).
fn caps(vary: u32) -> u32 {
    gen::CAPS_BASE | (vary & gen::CAPS_VARY & !0x200_0000)
}

/// The packets of a text result set: column count, definitions, EOF
/// unless `deprecate_eof`, rows, and the end (EOF or its OK form).
fn text_result(
    names: &[String],
    rows: &[Vec<Option<String>>],
    deprecate_eof: bool,
) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut h = Vec::new();
    put_lenenc_int(&mut h, names.len() as u64);
    out.push(h);
    for n in names {
        out.push(gen::column_def(n.as_bytes(), 0xFD, 0));
    }
    if !deprecate_eof {
        out.push(gen::eof(false, 2));
    }
    for r in rows {
        let vals: Vec<Option<Vec<u8>>> = r
            .iter()
            .map(|v| v.as_ref().map(|s| s.as_bytes().to_vec()))
            .collect();
        out.push(gen::text_row(&vals));
    }
    out.push(gen::eof(deprecate_eof, 2));
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn err_packet_round_trip(code in any::<u16>(), state in "[0-9A-Z]{5}", msg in plain(200)) {
        let mut p = vec![0xFF];
        p.extend_from_slice(&code.to_le_bytes());
        p.push(b'#');
        p.extend_from_slice(state.as_bytes());
        p.extend_from_slice(msg.as_bytes());
        let e = ServerError::parse(&p);
        prop_assert_eq!(e.code, code);
        prop_assert_eq!(e.state, state);
        prop_assert_eq!(e.message, msg);
        // the generator's own ERR packet
        let e = ServerError::parse(&gen::err(code, b"Access denied"));
        prop_assert_eq!((e.code, e.state.as_str(), e.message.as_str()), (code, "28000", "Access denied"));
    }

    #[test]
    fn lenenc_int_round_trip(v in prop_oneof![any::<u64>(), 0u64..300, 0u64..70_000, 0u64..(1 << 24) + 5], tail in proptest::collection::vec(any::<u8>(), 0..4)) {
        let mut b = Vec::new();
        put_lenenc_int(&mut b, v);
        let n = b.len();
        b.extend(tail);
        prop_assert_eq!(lenenc_int(&b), Some((v, n)));
    }

    #[test]
    fn ok_status_round_trip(affected in any::<u64>(), status in any::<u16>(), info in proptest::collection::vec(any::<u8>(), 0..12)) {
        for p in [gen::ok(affected, status, &info), gen::eof(true, status)] {
            // the status follows the header byte, affected rows and the
            // last insert id
            let (_, n) = lenenc_int(&p[1..]).expect("affected rows");
            prop_assert_eq!(ok_status(&p[1 + n..]), status);
        }
    }

    #[test]
    fn text_row_round_trip(values in proptest::collection::vec(text_value(), 1..8)) {
        let vals: Vec<Option<Vec<u8>>> = values.iter().map(|v| v.as_ref().map(|s| s.as_bytes().to_vec())).collect();
        let p = gen::text_row(&vals);
        prop_assert_eq!(&text_row(&p, values.len()).expect("a well-formed row"), &values);
        // into a result buffer, twice, read back through its accessors
        let mut r = Rows::new();
        r.start_result(values.len());
        r.push_text_row(&p).expect("a well-formed row");
        r.push_text_row(&p).expect("a well-formed row");
        prop_assert_eq!(r.len(), 2);
        for row in 0..2 {
            for (col, v) in values.iter().enumerate() {
                prop_assert_eq!(r.str(row, col), v.as_deref());
            }
        }
    }

    #[test]
    fn binary_row_round_trip(cells in proptest::collection::vec(proptest::option::of(binary_cell()), 1..12)) {
        let mut r = Rows::new();
        r.types = cells
            .iter()
            .map(|c| c.as_ref().map_or(ColType { ty: 0x08, unsigned: false }, |(ty, u, _, _)| ColType { ty: *ty, unsigned: *u }))
            .collect();
        r.start_result(cells.len());
        r.push_binary_row(&binary_row(&cells)).expect("a well-formed binary row");
        prop_assert_eq!(r.len(), 1);
        for (col, c) in cells.iter().enumerate() {
            prop_assert_eq!(r.str(0, col), c.as_ref().map(|(_, _, _, t)| t.as_str()));
            if let Some((ty @ (0x01 | 0x02 | 0x03 | 0x09), _, _, t)) = c {
                prop_assert_eq!(r.int(0, col), t.parse::<i64>().ok(), "type {:#x}", ty);
            }
        }
    }
}

proptest! {
    // Each case is a connection to a scripted server on loopback.
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn greeting_round_trip(version in "[0-9][0-9.]{0,10}(-[A-Za-z0-9.-]{1,20})?", vary in any::<u32>(), scramble in any::<[u8; 20]>()) {
        let scramble = scramble.map(|b| b.max(1));
        let g = gen::greeting(version.as_bytes(), caps(vary), &scramble, "mysql_native_password", 0);
        let mut script = gen::frame(&[g], 0);
        script.extend(gen::frame(&[gen::ok(0, 2, &[])], 2));
        let seen = against(script, |opts| async move {
            let c = Conn::connect(&opts).await?;
            Ok(c.server_version().to_string())
        });
        let seen = seen.expect("login to a well-formed greeting");
        // MariaDB's "5.5.5-" replication prefix is not part of the version
        prop_assert_eq!(seen.as_str(), version.strip_prefix("5.5.5-").unwrap_or(&version));
    }

    #[test]
    fn auth_switch_round_trip(
        from in prop::sample::select(vec!["mysql_native_password", "caching_sha2_password"]),
        vary in any::<u32>(),
        data in any::<[u8; 20]>(),
    ) {
        // a plugin that takes the greeting's 20-byte scramble announced,
        // then a switch to mysql_native_password with a fresh scramble:
        // the client answers it and is logged in (a greeting naming
        // client_ed25519 with a 20-byte scramble is not well-formed: its
        // nonce is 32 bytes)
        let g = gen::greeting(b"10.11.6-MariaDB", caps(vary), &[9; 20], from, 0);
        let mut switch = vec![0xFE];
        switch.extend_from_slice(b"mysql_native_password\0");
        switch.extend(data.map(|b| b.max(1)));
        switch.push(0);
        // greeting 0, the client's login 1, the switch 2, its answer 3, OK 4
        let mut script = gen::frame(&[g], 0);
        script.extend(gen::frame(&[switch], 2));
        script.extend(gen::frame(&[gen::ok(0, 2, &[])], 4));
        let r = against(script, |opts| async move { Conn::connect(&opts).await.map(drop) });
        prop_assert!(r.is_ok(), "{:?}", r.err());
    }

    #[test]
    fn auth_more_data_fast_auth_round_trip(vary in any::<u32>(), scramble in any::<[u8; 20]>()) {
        // caching_sha2_password's fast path: "more data" 0x03 (the
        // password's hash was cached), then OK
        let scramble = scramble.map(|b| b.max(1));
        let g = gen::greeting(b"8.0.36", caps(vary), &scramble, "caching_sha2_password", 0);
        // greeting 0, the client's login 1, then more data and OK (2, 3)
        let mut script = gen::frame(&[g], 0);
        script.extend(gen::frame(&[vec![0x01, 0x03], gen::ok(0, 2, &[])], 2));
        let r = against(script, |opts| async move { Conn::connect(&opts).await.map(drop) });
        prop_assert!(r.is_ok(), "{:?}", r.err());
    }

    #[test]
    fn text_result_round_trip(
        vary in any::<u32>(),
        names in proptest::collection::vec(plain(12), 1..5),
        rows in proptest::collection::vec(proptest::collection::vec(proptest::option::of(plain(30)), 5), 0..6),
    ) {
        let caps = caps(vary);
        let rows: Vec<Vec<Option<String>>> = rows.into_iter().map(|mut r| { r.truncate(names.len()); r }).collect();
        let mut script = gen::login(caps);
        script.extend(gen::frame(&text_result(&names, &rows, caps & gen::DEPRECATE_EOF != 0), 1));
        let got = against(script, |opts| async move {
            let mut c = Conn::connect(&opts).await?;
            c.query("SELECT 1").await
        })
        .expect("a well-formed result set");
        prop_assert_eq!(&got.columns, &names);
        prop_assert_eq!(&got.rows, &rows);
    }
}
