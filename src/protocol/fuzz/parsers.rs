//! The pure parsers of server bytes, called directly with arbitrary and
//! with mutated valid input: ERR packets, length-encoded integers and
//! strings, column definitions, OK status, text and binary rows.

use super::bounded;
use super::gen::{self, mutations, Mutation};
use crate::protocol::conn::{column_name, ok_status, text_row};
use crate::protocol::error::ServerError;
use crate::protocol::io::lenenc_int;
use crate::protocol::rows::{column_type, lenenc_str, ColType, Rows};
use proptest::prelude::*;

fn bytes(max: usize) -> impl Strategy<Value = Vec<u8>> {
    proptest::collection::vec(any::<u8>(), 0..max)
}

/// Bytes that start like a length-encoded value more often than chance.
fn lenenc_heavy(max: usize) -> impl Strategy<Value = Vec<u8>> {
    (
        prop::sample::select(vec![0xFBu8, 0xFC, 0xFD, 0xFE, 0xFF, 0x00, 0x05]),
        bytes(max),
    )
        .prop_map(|(first, mut rest)| {
            rest.insert(0, first);
            rest
        })
}

fn rows_with(types: &[(u8, bool)], ncols: usize) -> Rows {
    let mut r = Rows::new();
    r.types = types
        .iter()
        .map(|&(ty, unsigned)| ColType { ty, unsigned })
        .collect();
    r.start_result(ncols);
    r
}

/// Reads every cell back through the accessors (their offsets must hold).
fn read_back(r: &Rows) {
    for row in 0..r.len() {
        for col in 0..r.columns() {
            let _ = (r.get(row, col), r.int(row, col), r.float(row, col));
        }
    }
    let _ = r.get(usize::MAX, usize::MAX);
    let _ = r.get(1, r.columns().saturating_sub(1));
}

fn any_ncols() -> impl Strategy<Value = usize> {
    prop_oneof![
        0usize..12,
        Just(usize::MAX),
        Just(usize::MAX - 6),
        any::<usize>()
    ]
}

fn col_types() -> impl Strategy<Value = Vec<(u8, bool)>> {
    proptest::collection::vec((prop::sample::select(gen::TYPES), any::<bool>()), 0..10)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    #[test]
    fn err_packet_arbitrary(p in bytes(64)) {
        let e = bounded(|| ServerError::parse(&p));
        prop_assert!(e.state.len() <= 5 * 3);
    }

    #[test]
    fn lenenc_arbitrary(p in lenenc_heavy(24)) {
        if let Some((_, n)) = lenenc_int(&p) {
            prop_assert!(n <= p.len());
        }
        if let Some((v, n)) = bounded(|| lenenc_str(&p)) {
            prop_assert!(n <= p.len());
            prop_assert!(v.map_or(0, <[u8]>::len) < n);
        }
    }

    #[test]
    fn column_definition_arbitrary(p in bytes(80)) {
        bounded(|| (column_type(&p), column_name(&p)));
    }

    #[test]
    fn column_definition_mutated(
        name in bytes(8), ty in any::<u8>(), flags in any::<u16>(), ms in mutations()
    ) {
        let p = gen::mutate(gen::column_def(&name, ty, flags), &ms);
        bounded(|| (column_type(&p), column_name(&p)));
    }

    #[test]
    fn ok_status_arbitrary(p in lenenc_heavy(24)) {
        ok_status(&p);
    }

    #[test]
    fn text_row_arbitrary(p in lenenc_heavy(48), ncols in any_ncols()) {
        if let Ok(row) = bounded(|| text_row(&p, ncols)) {
            prop_assert_eq!(row.len(), ncols);
        }
        let mut r = rows_with(&[], ncols);
        let _ = bounded(|| r.push_text_row(&p));
        read_back(&r);
    }

    #[test]
    fn text_row_mutated(
        values in proptest::collection::vec(proptest::option::of(bytes(300)), 0..6),
        ms in mutations(),
    ) {
        let p = gen::mutate(gen::text_row(&values), &ms);
        let mut r = rows_with(&[], values.len());
        let _ = bounded(|| r.push_text_row(&p));
        let _ = bounded(|| r.push_text_row(&p));
        read_back(&r);
        let _ = bounded(|| text_row(&p, values.len()));
    }

    #[test]
    fn binary_row_arbitrary(p in bytes(64), types in col_types(), ncols in any_ncols()) {
        let mut r = rows_with(&types, ncols);
        let _ = bounded(|| r.push_binary_row(&p));
        read_back(&r);
    }

    #[test]
    fn binary_row_mutated(
        types in col_types(),
        nulls in proptest::collection::vec(any::<bool>(), 0..10),
        seed in bytes(16),
        ms in mutations(),
        extra_cols in 0usize..3,
    ) {
        let tys: Vec<u8> = types.iter().map(|t| t.0).collect();
        let p = gen::mutate(gen::binary_row(&tys, &nulls, &seed), &ms);
        let unmutated = ms.is_empty();
        let mut r = rows_with(&types, types.len());
        let res = bounded(|| r.push_binary_row(&p));
        if unmutated {
            prop_assert!(res.is_ok(), "a valid binary row was refused: {res:?}");
        }
        read_back(&r);
        // More columns announced than the types known.
        let mut r = rows_with(&types, types.len() + extra_cols);
        let _ = bounded(|| r.push_binary_row(&p));
        read_back(&r);
    }
}

#[test]
fn mutations_reach_every_kind() {
    // The generator's own sanity: each mutation changes a packet.
    let base = gen::ok(1, 2, b"x");
    for m in [
        Mutation::Truncate(3),
        Mutation::Flip(0, 1),
        Mutation::Insert(2, 0xFE),
        Mutation::Lenenc(1, 0),
    ] {
        assert_ne!(
            gen::mutate(base.clone(), std::slice::from_ref(&m)),
            base,
            "{m:?}"
        );
    }
}
