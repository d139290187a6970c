//! The dry-run connection (`ConnOpts::dry_run`, sysbench's
//! `--mysql-dry-run`): a stream that answers every request in the process,
//! as if a server had run it and returned nothing — no socket, no byte
//! leaves. What a client then costs is all that a run measures.
//!
//! It owns only the answers: an OK packet (no rows, none affected) to each
//! command that a server answers, a prepare-OK with as many parameters as
//! the statement has `?` placeholders, the LOAD DATA LOCAL exchange; no
//! answer to COM_STMT_CLOSE, COM_QUIT and COM_STMT_SEND_LONG_DATA, which
//! get none from a server either. It must not know about statements,
//! workloads or counting: a run classifies what it is told (an OK with no
//! affected rows is an "other" query, as in sysbench's dry run).

use std::io;

const COM_QUIT: u8 = 0x01;
const COM_QUERY: u8 = 0x03;
const COM_STMT_PREPARE: u8 = 0x16;
const COM_STMT_EXECUTE: u8 = 0x17;
const COM_STMT_SEND_LONG_DATA: u8 = 0x18;
const COM_STMT_CLOSE: u8 = 0x19;

/// OK packet body: header 0, no affected rows, no insert id, status
/// SERVER_STATUS_AUTOCOMMIT, no warnings.
const OK_BODY: [u8; 7] = [0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00];
/// The answer to COM_STMT_EXECUTE: `OK_BODY` as packet 1.
const EXECUTE_OK: [u8; 11] = [7, 0, 0, 1, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00];
/// EOF packet body (no warnings, autocommit).
const EOF_BODY: [u8; 5] = [0xFE, 0x00, 0x00, 0x02, 0x00];
/// A parameter definition of a prepare's answer: read and dropped by the
/// client, so any well-framed packet does (catalog "def", all else empty).
const PARAM_DEF_BODY: [u8; 4] = [0x03, b'd', b'e', b'f'];

/// The local end of a dry-run connection: the answer to the last request,
/// handed out by `read`.
#[derive(Debug, Default)]
pub(crate) struct DryRun {
    /// The answer's bytes (headers included), reused across requests.
    reply: Vec<u8>,
    /// How much of `reply` was read.
    taken: usize,
    /// The id the next prepared statement gets.
    next_stmt: u32,
    /// A LOAD DATA LOCAL is taking rows (Some: how many so far, one a
    /// line): the empty packet ends it.
    loading: Option<u64>,
}

impl DryRun {
    pub(crate) fn new() -> Box<DryRun> {
        Box::new(DryRun {
            reply: Vec::with_capacity(64),
            next_stmt: 1,
            ..DryRun::default()
        })
    }

    /// Takes one request (whole packets, headers included) and readies its
    /// answer.
    pub(crate) fn write(&mut self, buf: &[u8]) {
        let Some(&[l0, l1, l2, seq]) = buf.get(..4) else {
            return;
        };
        let len = usize::from(l0) | usize::from(l1) << 8 | usize::from(l2) << 16;
        let payload = buf
            .get(4..4 + len)
            .unwrap_or(buf.get(4..).unwrap_or_default());
        self.reply.clear();
        self.taken = 0;
        let next = seq.wrapping_add(1);
        if seq != 0 {
            // Rows of a LOAD DATA LOCAL; the empty packet ends them, and
            // the answer says they were all loaded.
            match (self.loading.as_mut(), payload.is_empty()) {
                (Some(rows), false) => {
                    *rows += payload.iter().filter(|&&b| b == b'\n').count() as u64;
                }
                (Some(&mut rows), true) => {
                    self.loading = None;
                    self.loaded(next, rows);
                }
                (None, _) => {}
            }
            return;
        }
        match payload.first().copied() {
            None | Some(COM_QUIT | COM_STMT_CLOSE | COM_STMT_SEND_LONG_DATA) => {}
            Some(COM_STMT_PREPARE) => self.prepared(next, &payload[1..]),
            Some(COM_QUERY) if is_load_data(&payload[1..]) => {
                self.loading = Some(0);
                self.packet(next, &[0xFB]);
            }
            Some(_) => self.packet(next, &OK_BODY),
        }
    }

    /// Takes request `buf` and hands out its whole answer at once (empty:
    /// none). A statement's execution, the requests a run makes most, is
    /// answered by the one OK packet that never changes.
    #[inline]
    pub(crate) fn exchange(&mut self, buf: &[u8]) -> &[u8] {
        if let [_, _, _, 0, COM_STMT_EXECUTE, ..] = buf {
            if self.loading.is_none() {
                self.reply.clear();
                self.taken = 0;
                return &EXECUTE_OK;
            }
        }
        self.write(buf);
        let left = &self.reply[self.taken..];
        self.taken = self.reply.len();
        left
    }

    /// Hands out the ready answer; Err when there is none (a server would
    /// never answer: a request that gets no answer was not to be read).
    pub(crate) fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let left = &self.reply[self.taken..];
        if left.is_empty() {
            return Err(io::Error::new(
                io::ErrorKind::Unsupported,
                "dry run: nothing to answer",
            ));
        }
        let n = left.len().min(buf.len());
        buf[..n].copy_from_slice(&left[..n]);
        self.taken += n;
        Ok(n)
    }

    /// The answer to COM_STMT_PREPARE of `sql`: a statement with no result
    /// columns and one parameter per placeholder.
    fn prepared(&mut self, mut seq: u8, sql: &[u8]) {
        let id = self.next_stmt;
        self.next_stmt = self.next_stmt.wrapping_add(1);
        let params = placeholders(sql);
        let mut ok = [0u8; 12];
        ok[1..5].copy_from_slice(&id.to_le_bytes());
        ok[7..9].copy_from_slice(&params.to_le_bytes());
        self.packet(seq, &ok);
        if params > 0 {
            for _ in 0..params {
                seq = seq.wrapping_add(1);
                self.packet(seq, &PARAM_DEF_BODY);
            }
            self.packet(seq.wrapping_add(1), &EOF_BODY);
        }
    }

    /// An OK packet that says `rows` rows were affected.
    fn loaded(&mut self, seq: u8, rows: u64) {
        let mut body = [0u8; 15];
        let n = match rows {
            0..=250 => {
                body[0] = rows as u8;
                1
            }
            _ => {
                body[0] = 0xFE;
                body[1..9].copy_from_slice(&rows.to_le_bytes());
                9
            }
        };
        let mut ok = [0u8; 16];
        ok[1..1 + n].copy_from_slice(&body[..n]);
        // (then no insert id, status autocommit, no warnings)
        ok[1 + n + 1] = 0x02;
        self.packet(seq, &ok[..1 + n + 5]);
    }

    fn packet(&mut self, seq: u8, body: &[u8]) {
        let len = body.len() as u32;
        self.reply.extend_from_slice(&len.to_le_bytes()[..3]);
        self.reply.push(seq);
        self.reply.extend_from_slice(body);
    }
}

/// Whether a COM_QUERY's SQL is a LOAD DATA (the server then asks for the
/// file's contents).
fn is_load_data(sql: &[u8]) -> bool {
    let words: Vec<&[u8]> = sql
        .split(|b| b.is_ascii_whitespace())
        .filter(|w| !w.is_empty())
        .take(2)
        .collect();
    matches!(words.as_slice(), [a, b] if a.eq_ignore_ascii_case(b"LOAD") && b.eq_ignore_ascii_case(b"DATA"))
}

/// The `?` placeholders of a statement: those outside quotes, backquotes
/// and comments (the server's count, for the statements a workload sends).
fn placeholders(sql: &[u8]) -> u16 {
    let mut n = 0u16;
    let mut i = 0;
    while i < sql.len() {
        match sql[i] {
            q @ (b'\'' | b'"' | b'`') => {
                i += 1;
                while i < sql.len() && sql[i] != q {
                    if sql[i] == b'\\' && q != b'`' {
                        i += 1;
                    }
                    i += 1;
                }
            }
            b'-' if sql.get(i + 1) == Some(&b'-') => {
                while i < sql.len() && sql[i] != b'\n' {
                    i += 1;
                }
            }
            b'#' => {
                while i < sql.len() && sql[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if sql.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i + 1 < sql.len() && !(sql[i] == b'*' && sql[i + 1] == b'/') {
                    i += 1;
                }
                i += 1;
            }
            b'?' => n = n.saturating_add(1),
            _ => {}
        }
        i += 1;
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(seq: u8, payload: &[u8]) -> Vec<u8> {
        let mut v = (payload.len() as u32).to_le_bytes()[..3].to_vec();
        v.push(seq);
        v.extend_from_slice(payload);
        v
    }

    fn answer(d: &mut DryRun) -> Vec<u8> {
        let mut buf = [0u8; 256];
        let n = d.read(&mut buf).unwrap_or(0);
        buf[..n].to_vec()
    }

    #[test]
    fn a_query_gets_an_ok_with_nothing_affected() {
        let mut d = DryRun::new();
        d.write(&request(0, b"\x03SELECT 1"));
        let a = answer(&mut d);
        assert_eq!(&a[..4], &[7, 0, 0, 1]);
        assert_eq!(&a[4..], &OK_BODY);
        assert!(d.read(&mut [0u8; 8]).is_err(), "one answer per request");
    }

    #[test]
    fn an_execute_gets_the_ok_a_query_gets() {
        let mut d = DryRun::new();
        let ok = d
            .exchange(&request(0, &[COM_STMT_EXECUTE, 1, 0, 0, 0]))
            .to_vec();
        assert_eq!(&ok[..4], &[7, 0, 0, 1]);
        assert_eq!(&ok[4..], &OK_BODY);
        assert!(d.read(&mut [0u8; 8]).is_err(), "handed out once");
        let q = d.exchange(&request(0, b"\x03SELECT 1")).to_vec();
        assert_eq!(q, ok);
    }

    #[test]
    fn close_and_quit_get_no_answer() {
        let mut d = DryRun::new();
        d.write(&request(0, &[COM_STMT_CLOSE, 1, 0, 0, 0]));
        assert!(d.read(&mut [0u8; 8]).is_err());
        d.write(&request(0, &[COM_QUIT]));
        assert!(d.read(&mut [0u8; 8]).is_err());
    }

    #[test]
    fn a_prepare_counts_placeholders_outside_quotes() {
        assert_eq!(placeholders(b"SELECT c FROM t WHERE id=?"), 1);
        assert_eq!(
            placeholders(b"INSERT INTO t VALUES (?, '?', \"?\", `?`, ?)"),
            2
        );
        assert_eq!(placeholders(b"SELECT 1 -- ?\n, ? /* ? */ # ?"), 1);
        assert_eq!(placeholders(b"SELECT 'it\\'s ?', ?"), 1);
        let mut d = DryRun::new();
        d.write(&request(0, b"\x16UPDATE t SET k=k+1 WHERE id=? AND c=?"));
        let a = answer(&mut d);
        // prepare-OK, two parameter definitions, EOF.
        assert_eq!(a[3], 1);
        assert_eq!(u16::from_le_bytes([a[4 + 7], a[4 + 8]]), 2);
        let ids = (a[5], a[6]);
        assert_eq!(ids, (1, 0));
        assert_eq!(a.len(), 16 + 2 * 8 + 9);
        assert_eq!(a[a.len() - 5], 0xFE);
    }

    #[test]
    fn load_data_asks_for_rows_and_answers_their_end() {
        let mut d = DryRun::new();
        d.write(&request(
            0,
            b"\x03 load  data LOCAL INFILE 'x' INTO TABLE t",
        ));
        assert_eq!(answer(&mut d), vec![1, 0, 0, 1, 0xFB]);
        d.write(&request(2, b"1,2\n3,4\n"));
        assert!(d.read(&mut [0u8; 8]).is_err());
        d.write(&request(3, b"5,6\n"));
        d.write(&request(4, b""));
        let ok = answer(&mut d);
        assert_eq!(ok[3], 5);
        assert_eq!((ok[4], ok[5]), (0x00, 3), "three rows loaded");
        let mut many = DryRun::new();
        many.loaded(1, 1000);
        assert_eq!(&many.reply[4..14], &[0, 0xFE, 0xE8, 3, 0, 0, 0, 0, 0, 0]);
    }
}
