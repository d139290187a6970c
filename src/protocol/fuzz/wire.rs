//! Responses after login, read by a real `Conn` from a scripted server:
//! OK (with info and session-state blocks), ERR, result sets with and
//! without EOF packets (CLIENT_DEPRECATE_EOF) and with and without column
//! definitions, text and binary rows, multi-results, COM_STMT_PREPARE_OK,
//! the LOAD DATA LOCAL request; valid, damaged packet by packet, damaged
//! as a byte stream (headers, sequence ids, split-packet lengths), or
//! arbitrary. Every operation that reads a response is driven, over the
//! reactor and over direct I/O.

use super::against;
use super::gen::{self, mutations, Mutation};
use crate::protocol::rows::ColType;
use crate::protocol::{Conn, Direct, Param, ProtoError, Rows, Stmt};
use proptest::prelude::*;
use std::time::Duration;

fn bytes(max: usize) -> impl Strategy<Value = Vec<u8>> {
    proptest::collection::vec(any::<u8>(), 0..max)
}

const MORE_RESULTS: u16 = 0x0008;

/// One response of the server, before damage.
#[derive(Debug, Clone)]
enum Resp {
    Ok(u64, u16, Vec<u8>, Vec<(u8, Vec<u8>)>),
    Err(u16, Vec<u8>),
    /// Rows (NULL flags and value seed each); the metadata byte that
    /// MARIADB_CLIENT_CACHE_METADATA adds, if any; the final status.
    Result(Vec<(Vec<bool>, Vec<u8>)>, Option<u8>, u16),
    PrepareOk(u32, u16, u16),
    LoadRequest(Vec<u8>),
}

fn resp() -> impl Strategy<Value = Resp> {
    let state = proptest::collection::vec((any::<u8>(), bytes(12)), 0..3);
    let rows = proptest::collection::vec(
        (proptest::collection::vec(any::<bool>(), 0..10), bytes(12)),
        0..4,
    );
    prop_oneof![
        (any::<u64>(), any::<u16>(), bytes(12), state)
            .prop_map(|(a, s, i, st)| Resp::Ok(a, s, i, st)),
        (any::<u16>(), bytes(20)).prop_map(|(c, m)| Resp::Err(c, m)),
        (rows, proptest::option::of(0u8..2), any::<u16>())
            .prop_map(|(r, m, s)| Resp::Result(r, m, s)),
        (any::<u32>(), 0u16..4, 0u16..4).prop_map(|(i, c, p)| Resp::PrepareOk(i, c, p)),
        bytes(12).prop_map(Resp::LoadRequest),
    ]
}

/// The packets of `r` for a session with or without DEPRECATE_EOF;
/// `binary`: rows in the binary protocol, of `types`.
fn packets(r: &Resp, eof: bool, binary: bool, types: &[(u8, bool)]) -> Vec<Vec<u8>> {
    let defs = |n: usize, out: &mut Vec<Vec<u8>>| {
        for i in 0..n {
            let (ty, unsigned) = types.get(i).copied().unwrap_or((0xFD, false));
            out.push(gen::column_def(b"c", ty, if unsigned { 0x20 } else { 0 }));
        }
        if n > 0 && !eof {
            out.push(gen::eof(false, 0));
        }
    };
    let mut out = Vec::new();
    match r {
        Resp::Ok(a, s, info, st) if st.is_empty() => out.push(gen::ok(*a, *s, info)),
        Resp::Ok(_, s, info, st) => out.push(gen::ok_with_state(*s, info, st)),
        Resp::Err(c, m) => out.push(gen::err(*c, m)),
        Resp::Result(rows, meta, status) => {
            let mut h = Vec::new();
            crate::protocol::io::put_lenenc_int(&mut h, types.len() as u64);
            h.extend(meta);
            out.push(h);
            if *meta != Some(0) {
                defs(types.len(), &mut out);
            }
            let tys: Vec<u8> = types.iter().map(|t| t.0).collect();
            for (nulls, seed) in rows {
                out.push(if binary {
                    gen::binary_row(&tys, nulls, seed)
                } else {
                    let vals: Vec<_> = (0..tys.len())
                        .map(|i| (!nulls.get(i).copied().unwrap_or(false)).then(|| seed.clone()))
                        .collect();
                    gen::text_row(&vals)
                });
            }
            out.push(gen::eof(eof, *status));
        }
        Resp::PrepareOk(id, ncols, nparams) => {
            out.push(gen::prepare_ok(*id, *ncols, *nparams));
            defs(usize::from(*nparams), &mut out);
            defs(usize::from(*ncols), &mut out);
        }
        Resp::LoadRequest(name) => {
            let mut p = vec![0xFB];
            p.extend_from_slice(name);
            out.push(p);
            out.push(gen::ok(3, 0, &[]));
        }
    }
    out
}

/// The operations that read a response.
const OPS: u8 = 9;

fn read_back(r: &Rows) {
    for row in 0..r.len() {
        for col in 0..r.columns() {
            let _ = r.str(row, col);
        }
    }
}

async fn op(mut c: Conn, which: u8, direct: bool, types: Vec<ColType>) -> Result<(), ProtoError> {
    if direct {
        let limits = Direct {
            ring: false,
            limit: Duration::from_secs(60),
            give_up: Box::new(|_| false),
        };
        c.set_direct(Some(limits)).map_err(ProtoError::Io)?;
    }
    let stmt = || Stmt::new(1, "SELECT ?", &[Param::Int]).with_columns(types.clone());
    let mut rows = Rows::new();
    match which % OPS {
        0 => c.exec("SELECT 1").await.map(drop),
        1 => c.query("SELECT 1").await.map(drop),
        2 => c.query_into("SELECT 1", &mut rows).await.map(drop),
        3 => c.execute(&mut stmt()).await.map(drop),
        4 => c.execute(&mut stmt().as_text()).await.map(drop),
        5 => c.execute_into(&mut stmt(), &mut rows).await.map(drop),
        6 => c.prepare("SELECT ?", &[Param::Int]).await.map(drop),
        7 => c.prepare_dynamic("SELECT ?").await.map(drop),
        _ => c
            .load_data("LOAD DATA LOCAL INFILE 'x' INTO TABLE t", |b| {
                b.extend_from_slice(b"1\n");
                false
            })
            .await
            .map(drop),
    }?;
    read_back(&rows);
    Ok(())
}

/// Logs in (`caps` varied), then answers the operation with `response`.
fn run(caps: u32, response: Vec<u8>, which: u8, direct: bool, types: &[(u8, bool)]) {
    let caps = gen::CAPS_BASE | (caps & gen::CAPS_VARY);
    let mut script = gen::login(caps);
    script.extend(response);
    let types: Vec<ColType> = types
        .iter()
        .map(|&(ty, unsigned)| ColType { ty, unsigned })
        .collect();
    let _ = against(script, |opts| async move {
        let c = Conn::connect(&opts).await?;
        op(c, which, direct, types).await
    });
}

fn col_types() -> impl Strategy<Value = Vec<(u8, bool)>> {
    proptest::collection::vec((prop::sample::select(gen::TYPES), any::<bool>()), 0..6)
}

/// Responses in a row, all but the last announcing more results.
fn responses() -> impl Strategy<Value = Vec<(Resp, Vec<Mutation>)>> {
    proptest::collection::vec((resp(), mutations()), 1..4)
}

fn framed(rs: &[(Resp, Vec<Mutation>)], caps: u32, which: u8, types: &[(u8, bool)]) -> Vec<u8> {
    let eof = caps & gen::DEPRECATE_EOF != 0;
    let binary = matches!(which % OPS, 3 | 5);
    let mut payloads = Vec::new();
    for (i, (r, ms)) in rs.iter().enumerate() {
        let mut r = r.clone();
        if let Resp::Result(_, _, s) | Resp::Ok(_, s, _, _) = &mut r {
            if i + 1 < rs.len() {
                *s |= MORE_RESULTS;
            } else {
                *s &= !MORE_RESULTS;
            }
        }
        let mut ps = packets(&r, eof, binary, types);
        if let (Some(first), false) = (ms.first(), ps.is_empty()) {
            // The damage lands in one packet of the response, chosen by
            // the first mutation's position.
            let k = match *first {
                Mutation::Truncate(i)
                | Mutation::Flip(i, _)
                | Mutation::Insert(i, _)
                | Mutation::Lenenc(i, _) => i,
            } % ps.len();
            for m in ms {
                gen::apply(&mut ps[k], m);
            }
        }
        payloads.extend(ps);
    }
    gen::frame(&payloads, 1)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn response_arbitrary_bytes(caps in any::<u32>(), junk in bytes(120), which in 0..OPS, direct in any::<bool>()) {
        run(caps, junk, which, direct, &[(0x03, false)]);
    }

    #[test]
    fn response_arbitrary_packets(
        caps in any::<u32>(),
        packets in proptest::collection::vec(bytes(40), 1..6),
        which in 0..OPS,
        types in col_types(),
    ) {
        run(caps, gen::frame(&packets, 1), which, false, &types);
    }

    #[test]
    fn response_mutated(
        caps in any::<u32>(),
        rs in responses(),
        which in 0..OPS,
        direct in any::<bool>(),
        types in col_types(),
    ) {
        let script = framed(&rs, caps, which, &types);
        run(caps, script, which, direct, &types);
    }

    #[test]
    fn response_stream_damaged(
        caps in any::<u32>(),
        rs in responses(),
        which in 0..OPS,
        types in col_types(),
        damage in mutations(),
        header in proptest::option::of((any::<usize>(), prop::sample::select(vec![0xFF_FFFFu32, 0xFF_FFFE, 0x1_0001, 0]))),
    ) {
        let mut script = gen::mutate(framed(&rs, caps, which, &types), &damage);
        if let (Some((at, len)), false) = (header, script.is_empty()) {
            // A packet header claiming another length (split packets,
            // a long packet cut short).
            let at = at % script.len();
            let end = (at + 3).min(script.len());
            script.splice(at..end, len.to_le_bytes()[..3].iter().copied());
        }
        run(caps, script, which, false, &types);
    }
}
