//! Statements whose parameter types are chosen when they are executed, as
//! a script binds them (`stmt:bind_create(type)` after `con:prepare`, a
//! string of any length each time): the binder writes the types and the
//! values of one execution into the statement's reused packet, or renders
//! the SQL text with the values quoted when the statement runs over the
//! text protocol. After the first executions nothing is allocated.

use super::io::put_lenenc_int;
use super::stmt::{Stmt, TextForm};
use std::io::Write;
use std::sync::Arc;

const TYPE_TINY: u8 = 0x01;
const TYPE_SHORT: u8 = 0x02;
const TYPE_LONG: u8 = 0x03;
const TYPE_FLOAT: u8 = 0x04;
const TYPE_DOUBLE: u8 = 0x05;
const TYPE_NULL: u8 = 0x06;
const TYPE_LONGLONG: u8 = 0x08;
const TYPE_STRING: u8 = 0xFE;
/// Header (4), command (1), statement id (4), flags (1), iterations (4).
const FIXED: usize = 14;

/// The wire width of an integer parameter (sysbench's TINYINT, SMALLINT,
/// INT, BIGINT).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IntWidth {
    /// TINYINT, 1 byte.
    Tiny,
    /// SMALLINT, 2 bytes.
    Short,
    /// INT, 4 bytes.
    Long,
    /// BIGINT, 8 bytes.
    LongLong,
}

impl Stmt {
    /// A prepared statement with `nparams` placeholders whose types come
    /// with each execution.
    pub(crate) fn new_dynamic(id: u32, sql: &str, nparams: usize) -> Stmt {
        let mut s = Stmt::new(id, sql, &[]);
        s.dynamic = Some(nparams as u32);
        s
    }

    /// `sql`, to be prepared as a dynamic statement (a script's
    /// `con:prepare`): what `Conn::prepare_like` reads of it, without the
    /// text form that [`Stmt::new_dynamic_text`] builds (`as_text` builds
    /// that where the server refuses to prepare it).
    pub fn to_prepare_dynamic(sql: impl Into<Arc<str>>) -> Stmt {
        let mut s = Stmt::new(0, sql, &[]);
        s.dynamic = Some(0);
        s
    }

    /// The same over the text protocol (`--db-ps-mode disable`, or the
    /// server refused to prepare it).
    pub fn new_dynamic_text(sql: impl Into<Arc<str>>) -> Stmt {
        let mut s = Stmt::new_text(sql, &[]);
        let pieces = s.text.as_ref().map(|t| t.pieces.len()).unwrap_or(1);
        s.dynamic = Some((pieces - 1) as u32);
        s
    }

    /// Starts binding the values of the next execution, in placeholder
    /// order; placeholders left unbound are sent as NULL.
    pub fn binder(&mut self) -> Binder<'_> {
        let n = self.dynamic.unwrap_or(0) as usize;
        match self.text.as_deref_mut() {
            Some(TextForm { buf, .. }) => {
                buf.clear();
                buf.extend_from_slice(&[0, 0, 0, 0, 0x03]);
            }
            None => {
                let p = &mut self.packet;
                p.truncate(FIXED);
                if n > 0 {
                    p.extend(std::iter::repeat_n(0, n.div_ceil(8)));
                    p.push(1); // new types bound
                    p.extend(std::iter::repeat_n(0, 2 * n));
                }
            }
        }
        Binder { s: self, i: 0, n }
    }
}

/// Writes one execution's values into a dynamic statement; finished when
/// dropped.
pub struct Binder<'a> {
    s: &'a mut Stmt,
    i: usize,
    n: usize,
}

impl Binder<'_> {
    fn types_at(&self) -> usize {
        FIXED + self.n.div_ceil(8) + 1
    }

    /// Binary: sets the type of the next value and returns the packet to
    /// append it to; text: appends the SQL up to the next placeholder.
    fn next(&mut self, ty: u8, unsigned: bool) -> Option<&mut Vec<u8>> {
        if self.i >= self.n {
            return None;
        }
        let i = self.i;
        self.i += 1;
        let at = self.types_at() + 2 * i;
        let s = &mut *self.s;
        match s.text.as_deref_mut() {
            Some(TextForm { pieces, buf }) => {
                buf.extend_from_slice(pieces[i].as_bytes());
                Some(buf)
            }
            None => {
                s.packet[at] = ty;
                s.packet[at + 1] = if unsigned { 0x80 } else { 0 };
                Some(&mut s.packet)
            }
        }
    }

    fn is_text(&self) -> bool {
        self.s.text.is_some()
    }

    /// Binds the next parameter to the integer `v`, sent as `width`.
    pub fn int(&mut self, v: i64, width: IntWidth) {
        let text = self.is_text();
        let ty = match width {
            IntWidth::Tiny => TYPE_TINY,
            IntWidth::Short => TYPE_SHORT,
            IntWidth::Long => TYPE_LONG,
            IntWidth::LongLong => TYPE_LONGLONG,
        };
        // A value wider than its declared type goes as BIGINT.
        let (ty, width) = match width {
            IntWidth::Tiny if i8::try_from(v).is_err() => (TYPE_LONGLONG, IntWidth::LongLong),
            IntWidth::Short if i16::try_from(v).is_err() => (TYPE_LONGLONG, IntWidth::LongLong),
            IntWidth::Long if i32::try_from(v).is_err() => (TYPE_LONGLONG, IntWidth::LongLong),
            w => (ty, w),
        };
        let Some(out) = self.next(ty, false) else {
            return;
        };
        if text {
            let _ = write!(out, "{v}");
            return;
        }
        match width {
            IntWidth::Tiny => out.push(v as i8 as u8),
            IntWidth::Short => out.extend_from_slice(&(v as i16).to_le_bytes()),
            IntWidth::Long => out.extend_from_slice(&(v as i32).to_le_bytes()),
            IntWidth::LongLong => out.extend_from_slice(&v.to_le_bytes()),
        }
    }

    /// Binds the next parameter to `v`, as FLOAT when `single`, else DOUBLE.
    pub fn double(&mut self, v: f64, single: bool) {
        let text = self.is_text();
        let ty = if single { TYPE_FLOAT } else { TYPE_DOUBLE };
        let Some(out) = self.next(ty, false) else {
            return;
        };
        if text {
            let _ = write!(out, "{v}");
        } else if single {
            out.extend_from_slice(&(v as f32).to_le_bytes());
        } else {
            out.extend_from_slice(&v.to_le_bytes());
        }
    }

    /// Binds the next parameter to the string `v` (quoted in place on a
    /// text statement).
    pub fn bytes(&mut self, v: &[u8]) {
        let text = self.is_text();
        let Some(out) = self.next(TYPE_STRING, false) else {
            return;
        };
        if text {
            super::literal::push_string_literal(out, v);
        } else {
            put_lenenc_int(out, v.len() as u64);
            out.extend_from_slice(v);
        }
    }

    /// Binds the next parameter to NULL.
    pub fn null(&mut self) {
        let (text, i) = (self.is_text(), self.i);
        let bitmap = FIXED + i / 8;
        let Some(out) = self.next(TYPE_NULL, false) else {
            return;
        };
        if text {
            out.extend_from_slice(b"NULL");
        } else {
            out[bitmap] |= 1 << (i % 8);
        }
    }
}

impl Drop for Binder<'_> {
    fn drop(&mut self) {
        while self.i < self.n {
            self.null();
        }
        let s = &mut *self.s;
        let out = match s.text.as_deref_mut() {
            Some(TextForm { pieces, buf }) => {
                if let Some(last) = pieces.last() {
                    buf.extend_from_slice(last.as_bytes());
                }
                buf
            }
            None => &mut s.packet,
        };
        let len = (out.len() - 4) as u32;
        out[..3].copy_from_slice(&len.to_le_bytes()[..3]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binary_values_carry_their_types() {
        let mut s = Stmt::new_dynamic(9, "x", 3);
        {
            let mut b = s.binder();
            b.int(5, IntWidth::Long);
            b.bytes(b"ab");
            // the third is left unbound: NULL
        }
        let p = s.framed().to_vec();
        assert_eq!(
            u32::from_le_bytes([p[0], p[1], p[2], 0]) as usize,
            p.len() - 4
        );
        assert_eq!(&p[5..9], &9u32.to_le_bytes());
        assert_eq!(p[14], 0b100, "NULL bitmap");
        assert_eq!(p[15], 1, "types bound");
        assert_eq!(&p[16..22], &[TYPE_LONG, 0, TYPE_STRING, 0, TYPE_NULL, 0]);
        assert_eq!(&p[22..], &[5, 0, 0, 0, 2, b'a', b'b']);
        // A second execution with a longer string reuses the packet.
        s.binder().int(1 << 40, IntWidth::Long);
        let p = s.framed();
        assert_eq!(&p[16..18], &[TYPE_LONGLONG, 0]);
        assert_eq!(&p[22..30], &(1i64 << 40).to_le_bytes());
    }

    #[test]
    fn text_values_are_quoted_in_place() {
        let mut s = Stmt::new_dynamic_text("SELECT c FROM t WHERE id=? AND c=? OR d=?");
        {
            let mut b = s.binder();
            b.int(-3, IntWidth::Long);
            b.bytes(b"a'b");
        }
        let p = s.render_text().to_vec();
        assert_eq!(
            &p[4..],
            b"\x03SELECT c FROM t WHERE id=-3 AND c='a\\'b' OR d=NULL"
        );
    }
}
