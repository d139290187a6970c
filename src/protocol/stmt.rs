//! A server-side prepared statement and its COM_STMT_EXECUTE packet template.
//!
//! The template is built once, with the parameter types bound and fixed-size
//! value slots; each execution patches the slots in place (integers as 4-byte
//! little-endian, CHAR values of a length fixed at prepare time) and sends the
//! bytes as they are. Nothing is allocated per execution.

/// A statement parameter as the workload declares it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Param {
    /// A 32-bit signed integer (MYSQL_TYPE_LONG), like sysbench's INT.
    Int,
    /// A string of exactly this many bytes (MYSQL_TYPE_STRING).
    Char(usize),
}

use super::rows::ColType;
use std::sync::Arc;

const MYSQL_TYPE_LONG: u8 = 0x03;
const MYSQL_TYPE_STRING: u8 = 0xFE;
const COM_STMT_EXECUTE: u8 = 0x17;

/// A prepared statement and its COM_STMT_EXECUTE packet, built once and
/// patched in place with each execution's values.
///
/// A connection holds one per statement its workload prepares (sysbench's
/// read_write: 38 a connection with 4 tables), so its size counts a
/// thousand times over: the text is shared (the connections of a shard
/// prepare the same SQL), the lists are exact, and the text protocol's
/// parts, which prepared statements never use, are boxed
/// (footprint.rs, `a_statement_stays_small`).
#[derive(Debug, Clone)]
pub struct Stmt {
    /// The statement's text, with `?` placeholders (shared with the
    /// statement it was prepared like).
    pub sql: Arc<str>,
    pub(super) params: Box<[Param]>,
    /// Offset of each parameter's value bytes inside `packet`.
    pub(super) offsets: Box<[usize]>,
    /// The whole framed packet: 4-byte header followed by the payload.
    pub(super) packet: Vec<u8>,
    /// Text mode (`--db-ps-mode disable`, or the server refused to prepare):
    /// the SQL split at its placeholders, and the COM_QUERY packet rendered
    /// from the template's values before each execution.
    pub(super) text: Option<Box<TextForm>>,
    /// The result's column types, known once prepared (binary rows need them).
    pub(super) columns: Box<[ColType]>,
    /// A statement whose parameter types come with each execution
    /// ([`Stmt::binder`]): its number of placeholders.
    pub(super) dynamic: Option<u32>,
}

/// A text-protocol statement's parts: the SQL split at its placeholders,
/// and the COM_QUERY packet rendered from them.
#[derive(Debug, Clone)]
pub(super) struct TextForm {
    pub(super) pieces: Vec<String>,
    pub(super) buf: Vec<u8>,
}

/// The bytes `put_lenenc_int` writes for `v`.
fn lenenc_len(v: usize) -> usize {
    match v {
        0..251 => 1,
        251..0x1_0000 => 3,
        0x1_0000..0x100_0000 => 4,
        _ => 9,
    }
}

/// The COM_STMT_EXECUTE packet's length for `params`, header included.
fn packet_len(params: &[Param]) -> usize {
    let values: usize = params
        .iter()
        .map(|p| match *p {
            Param::Int => 4,
            Param::Char(n) => lenenc_len(n) + n,
        })
        .sum();
    let bound = if params.is_empty() {
        0
    } else {
        params.len().div_ceil(8) + 1 + 2 * params.len()
    };
    14 + bound + values
}

impl Stmt {
    pub(crate) fn new(id: u32, sql: impl Into<Arc<str>>, params: &[Param]) -> Stmt {
        let mut p = Vec::with_capacity(packet_len(params));
        p.extend_from_slice(&[0, 0, 0, 0, COM_STMT_EXECUTE]);
        p.extend_from_slice(&id.to_le_bytes());
        p.push(0); // CURSOR_TYPE_NO_CURSOR
        p.extend_from_slice(&1u32.to_le_bytes()); // iteration count
        let mut offsets = Vec::with_capacity(params.len());
        if !params.is_empty() {
            p.extend(std::iter::repeat_n(0, params.len().div_ceil(8))); // NULL bitmap
            p.push(1); // new params bound
            for prm in params {
                let ty = match prm {
                    Param::Int => MYSQL_TYPE_LONG,
                    Param::Char(_) => MYSQL_TYPE_STRING,
                };
                p.extend_from_slice(&[ty, 0]);
            }
            for prm in params {
                match *prm {
                    Param::Int => {
                        offsets.push(p.len());
                        p.extend_from_slice(&[0; 4]);
                    }
                    Param::Char(n) => {
                        super::io::put_lenenc_int(&mut p, n as u64);
                        offsets.push(p.len());
                        p.extend(std::iter::repeat_n(b' ', n));
                    }
                }
            }
        }
        debug_assert_eq!(p.len(), packet_len(params));
        let len = (p.len() - 4) as u32;
        p[..3].copy_from_slice(&len.to_le_bytes()[..3]);
        Stmt {
            sql: sql.into(),
            params: params.into(),
            offsets: offsets.into_boxed_slice(),
            packet: p,
            text: None,
            columns: Box::default(),
            dynamic: None,
        }
    }

    pub(crate) fn with_columns(mut self, columns: Vec<ColType>) -> Stmt {
        self.columns = columns.into_boxed_slice();
        self
    }

    /// The same statement with `sql` as its text (the one it was prepared
    /// like: one copy of the text for every connection that prepares it).
    pub(crate) fn with_sql(mut self, sql: &Arc<str>) -> Stmt {
        debug_assert_eq!(*self.sql, **sql);
        self.sql = sql.clone();
        self
    }

    pub(crate) fn columns(&self) -> &[ColType] {
        &self.columns
    }

    /// A statement executed over the text protocol with the same setters.
    pub fn new_text(sql: impl Into<Arc<str>>, params: &[Param]) -> Stmt {
        let mut s = Stmt::new(0, sql, params);
        let pieces: Vec<String> = s.sql.split('?').map(str::to_string).collect();
        s.text = Some(Box::new(TextForm {
            pieces,
            buf: Vec::with_capacity(s.sql.len() + 256),
        }));
        s
    }

    /// The same statement over the text protocol (the server refused to
    /// prepare it, or prepared statements are off).
    pub fn as_text(&self) -> Stmt {
        let mut t = if self.dynamic.is_some() {
            Stmt::new_dynamic_text(self.sql.clone())
        } else {
            Stmt::new_text(self.sql.clone(), &self.params)
        };
        t.columns = self.columns.clone();
        t
    }

    /// The server's id of a prepared statement (None over the text protocol).
    pub fn id(&self) -> Option<u32> {
        if self.is_text() {
            return None;
        }
        let p = &self.packet;
        Some(u32::from_le_bytes([p[5], p[6], p[7], p[8]]))
    }

    pub(crate) fn is_text(&self) -> bool {
        self.text.is_some()
    }

    /// Renders the COM_QUERY packet (header included) from the current values.
    pub(crate) fn render_text(&mut self) -> &[u8] {
        use std::io::Write;
        let Some(TextForm { pieces, buf }) = self.text.as_deref_mut() else {
            return &self.packet;
        };
        if self.dynamic.is_some() {
            // Rendered by the binder.
            return buf;
        }
        buf.clear();
        buf.extend_from_slice(&[0, 0, 0, 0, 0x03]);
        for (i, piece) in pieces.iter().enumerate() {
            buf.extend_from_slice(piece.as_bytes());
            let Some(prm) = self.params.get(i) else {
                continue;
            };
            let o = self.offsets[i];
            match prm {
                Param::Int => {
                    let v = i32::from_le_bytes([
                        self.packet[o],
                        self.packet[o + 1],
                        self.packet[o + 2],
                        self.packet[o + 3],
                    ]);
                    let _ = write!(buf, "{v}");
                }
                Param::Char(n) => {
                    buf.push(b'\'');
                    for &b in &self.packet[o..o + n] {
                        if b == b'\'' || b == b'\\' {
                            buf.push(b'\\');
                        }
                        buf.push(b);
                    }
                    buf.push(b'\'');
                }
            }
        }
        let len = (buf.len() - 4) as u32;
        buf[..3].copy_from_slice(&len.to_le_bytes()[..3]);
        buf
    }

    /// Sets integer parameter `i`.
    #[inline]
    pub fn set_int(&mut self, i: usize, v: i32) {
        debug_assert_eq!(self.params[i], Param::Int);
        let o = self.offsets[i];
        self.packet[o..o + 4].copy_from_slice(&v.to_le_bytes());
    }

    /// The bytes of CHAR parameter `i`, to be filled in place.
    #[inline]
    pub fn char_slot(&mut self, i: usize) -> &mut [u8] {
        let Param::Char(n) = self.params[i] else {
            panic!("parameter {i} of `{}` is not a CHAR", self.sql)
        };
        let o = self.offsets[i];
        &mut self.packet[o..o + n]
    }

    pub(crate) fn framed(&self) -> &[u8] {
        &self.packet
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn template_layout() {
        let mut s = Stmt::new(7, "x", &[Param::Int, Param::Char(3)]);
        s.set_int(0, -2);
        s.char_slot(1).copy_from_slice(b"abc");
        let p = s.framed();
        let len = u32::from_le_bytes([p[0], p[1], p[2], 0]) as usize;
        assert_eq!(len, p.len() - 4);
        assert_eq!(p[4], 0x17);
        assert_eq!(&p[5..9], &7u32.to_le_bytes());
        // header(4) cmd(1) id(4) flags(1) iter(4) bitmap(1) bound(1) types(4)
        assert_eq!(&p[20..24], &(-2i32).to_le_bytes());
        assert_eq!(p[24], 3);
        assert_eq!(&p[25..28], b"abc");
    }

    #[test]
    fn text_mode_renders_values() {
        let mut s = Stmt::new_text("UPDATE t SET c=? WHERE id=?", &[Param::Char(3), Param::Int]);
        s.char_slot(0).copy_from_slice(b"a'b");
        s.set_int(1, 42);
        let p = s.render_text().to_vec();
        assert_eq!(&p[4..], b"\x03UPDATE t SET c='a\\'b' WHERE id=42");
    }
}
