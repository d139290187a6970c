//! Rows a workload reads back (a TPC-C transaction needs `d_next_o_id`, a
//! script its `SELECT` results): decoded from the text or the binary
//! protocol into one reusable buffer, every value as the text the server
//! would have sent over the text protocol. After the first few results the
//! buffers are warm and decoding allocates nothing.

use super::error::ProtoError;
use super::io::lenenc_int;
use std::io::Write;

/// A column's wire type, as the prepare (or the result's metadata) said.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ColType {
    pub ty: u8,
    pub unsigned: bool,
}

/// Reads the type and the UNSIGNED flag from a column definition packet.
pub(crate) fn column_type(col: &[u8]) -> ColType {
    let mut pos = 0;
    // catalog, schema, table, org_table, name, org_name
    for _ in 0..6 {
        match lenenc_str(&col[pos.min(col.len())..]) {
            Some((_, n)) => pos += n,
            None => {
                return ColType {
                    ty: 0xFD,
                    unsigned: false,
                }
            }
        }
    }
    // lenenc length of the fixed fields, charset(2), length(4), type(1), flags(2)
    let Some((_, n)) = lenenc_int(&col[pos.min(col.len())..]) else {
        return ColType {
            ty: 0xFD,
            unsigned: false,
        };
    };
    let fixed = &col[(pos + n).min(col.len())..];
    ColType {
        ty: fixed.get(6).copied().unwrap_or(0xFD),
        unsigned: fixed.get(7).is_some_and(|f| f & 0x20 != 0),
    }
}

pub(crate) fn lenenc_str(b: &[u8]) -> Option<(Option<&[u8]>, usize)> {
    if b.first() == Some(&0xFB) {
        return Some((None, 1));
    }
    let (len, n) = lenenc_int(b)?;
    let end = usize::try_from(len).ok()?.checked_add(n)?;
    Some((Some(b.get(n..end)?), end))
}

#[derive(Debug, Clone, Copy)]
#[allow(dead_code)]
struct Cell {
    start: u32,
    /// u32::MAX for NULL.
    end: u32,
}

/// The rows of one result, every value as text.
///
/// The first families that read rows are TPC-C and sysbench Lua scripts
/// (their own issues); the OLTP family only counts them, so the accessors
/// are not called from the binary yet.
#[derive(Debug, Default)]
pub struct Rows {
    buf: Vec<u8>,
    cells: Vec<Cell>,
    ncols: usize,
    /// The column types of the result being read (binary protocol).
    pub(crate) types: Vec<ColType>,
}

#[allow(dead_code)]
impl Rows {
    /// An empty buffer (it grows to the largest result set it holds).
    pub fn new() -> Rows {
        Rows::default()
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.cells.len().checked_div(self.ncols).unwrap_or(0)
    }

    /// Whether the last result set had no rows.
    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }

    /// Columns of the last result set.
    pub fn columns(&self) -> usize {
        self.ncols
    }

    /// The value at (row, col) as the server's text, None for NULL (or out of range).
    pub fn get(&self, row: usize, col: usize) -> Option<&[u8]> {
        if col >= self.ncols {
            return None;
        }
        let c = self
            .cells
            .get(row.checked_mul(self.ncols)?.checked_add(col)?)?;
        if c.end == u32::MAX {
            return None;
        }
        self.buf.get(c.start as usize..c.end as usize)
    }

    /// The value as UTF-8 text; None for NULL, out of range or not UTF-8.
    pub fn str(&self, row: usize, col: usize) -> Option<&str> {
        self.get(row, col).and_then(|b| std::str::from_utf8(b).ok())
    }

    /// The value as an integer; None for NULL or text that is not one.
    pub fn int(&self, row: usize, col: usize) -> Option<i64> {
        self.str(row, col)?.parse().ok()
    }

    /// The value as a float; None for NULL or text that is not one.
    pub fn float(&self, row: usize, col: usize) -> Option<f64> {
        self.str(row, col)?.parse().ok()
    }

    pub(crate) fn clear(&mut self) {
        self.buf.clear();
        self.cells.clear();
        self.ncols = 0;
    }

    pub(crate) fn start_result(&mut self, ncols: usize) {
        self.clear();
        self.ncols = ncols;
    }

    fn push(&mut self, v: Option<&[u8]>) -> Result<(), ProtoError> {
        match v {
            Some(b) => {
                let start = offset(self.buf.len())?;
                self.buf.extend_from_slice(b);
                let end = offset(self.buf.len())?;
                self.cells.push(Cell { start, end });
            }
            None => self.cells.push(Cell {
                start: 0,
                end: u32::MAX,
            }),
        }
        Ok(())
    }

    /// Appends a text-protocol row.
    pub(crate) fn push_text_row(&mut self, pkt: &[u8]) -> Result<(), ProtoError> {
        let mut pos = 0;
        for _ in 0..self.ncols {
            let (v, n) = lenenc_str(&pkt[pos.min(pkt.len())..]).ok_or_else(bad_row)?;
            self.push(v)?;
            pos += n;
        }
        Ok(())
    }

    /// Appends a binary-protocol row (a COM_STMT_EXECUTE result), rendering
    /// each value as the text protocol would.
    pub(crate) fn push_binary_row(&mut self, pkt: &[u8]) -> Result<(), ProtoError> {
        let n = self.ncols;
        // The column count comes from the server: checked, not wrapped.
        let bitmap_len = n.checked_add(7 + 2).ok_or_else(bad_row)? / 8;
        if pkt.first() != Some(&0) || pkt.len() <= bitmap_len || self.types.len() < n {
            return Err(bad_row());
        }
        let bitmap = &pkt[1..1 + bitmap_len];
        let mut pos = 1 + bitmap_len;
        for i in 0..n {
            let bit = i + 2;
            if bitmap[bit / 8] & (1 << (bit % 8)) != 0 {
                self.push(None)?;
                continue;
            }
            let t = self.types[i];
            let rest = pkt.get(pos..).ok_or_else(bad_row)?;
            let start = offset(self.buf.len())?;
            let used = render_binary(&mut self.buf, t, rest)?;
            pos += used;
            let end = offset(self.buf.len())?;
            self.cells.push(Cell { start, end });
        }
        Ok(())
    }
}

/// A cell offset into the kept rows' bytes (u32::MAX marks NULL).
fn offset(len: usize) -> Result<u32, ProtoError> {
    u32::try_from(len)
        .ok()
        .filter(|&o| o != u32::MAX)
        .ok_or_else(|| ProtoError::Protocol("a result too large to keep (over 4 GiB)".into()))
}

fn bad_row() -> ProtoError {
    ProtoError::Protocol("malformed result row".into())
}

fn fixed<const N: usize>(b: &[u8]) -> Result<[u8; N], ProtoError> {
    b.get(..N)
        .and_then(|s| s.try_into().ok())
        .ok_or_else(bad_row)
}

/// Writes one binary value as text into `out`; returns the bytes it took.
fn render_binary(out: &mut Vec<u8>, t: ColType, b: &[u8]) -> Result<usize, ProtoError> {
    let u = t.unsigned;
    match t.ty {
        // TINY
        0x01 => {
            let [v] = fixed::<1>(b)?;
            let _ = if u {
                write!(out, "{v}")
            } else {
                write!(out, "{}", v as i8)
            };
            Ok(1)
        }
        // SHORT, YEAR
        0x02 | 0x0D => {
            let v = fixed::<2>(b)?;
            let _ = if u {
                write!(out, "{}", u16::from_le_bytes(v))
            } else {
                write!(out, "{}", i16::from_le_bytes(v))
            };
            Ok(2)
        }
        // LONG, INT24
        0x03 | 0x09 => {
            let v = fixed::<4>(b)?;
            let _ = if u {
                write!(out, "{}", u32::from_le_bytes(v))
            } else {
                write!(out, "{}", i32::from_le_bytes(v))
            };
            Ok(4)
        }
        // LONGLONG
        0x08 => {
            let v = fixed::<8>(b)?;
            let _ = if u {
                write!(out, "{}", u64::from_le_bytes(v))
            } else {
                write!(out, "{}", i64::from_le_bytes(v))
            };
            Ok(8)
        }
        // FLOAT, DOUBLE
        0x04 => {
            let _ = write!(out, "{}", f32::from_le_bytes(fixed::<4>(b)?));
            Ok(4)
        }
        0x05 => {
            let _ = write!(out, "{}", f64::from_le_bytes(fixed::<8>(b)?));
            Ok(8)
        }
        // TIMESTAMP, DATE, DATETIME
        0x07 | 0x0A | 0x0C => {
            let len = *b.first().ok_or_else(bad_row)? as usize;
            let v = b.get(1..1 + len).ok_or_else(bad_row)?;
            let g = |i: usize| v.get(i).copied().unwrap_or(0) as u32;
            let year = if len >= 2 {
                u16::from_le_bytes([v[0], v[1]])
            } else {
                0
            };
            let _ = write!(out, "{year:04}-{:02}-{:02}", g(2), g(3));
            if t.ty != 0x0A {
                let _ = write!(out, " {:02}:{:02}:{:02}", g(4), g(5), g(6));
                if len >= 11 {
                    let us = u32::from_le_bytes([v[7], v[8], v[9], v[10]]);
                    let _ = write!(out, ".{us:06}");
                }
            }
            Ok(1 + len)
        }
        // TIME
        0x0B => {
            let len = *b.first().ok_or_else(bad_row)? as usize;
            let v = b.get(1..1 + len).ok_or_else(bad_row)?;
            let g = |i: usize| v.get(i).copied().unwrap_or(0) as u32;
            let neg = g(0) == 1;
            let days = if len >= 5 {
                u64::from(u32::from_le_bytes([v[1], v[2], v[3], v[4]]))
            } else {
                0
            };
            let sign = if neg { "-" } else { "" };
            let _ = write!(
                out,
                "{sign}{:02}:{:02}:{:02}",
                days * 24 + u64::from(g(5)),
                g(6),
                g(7)
            );
            if len >= 12 {
                let us = u32::from_le_bytes([v[8], v[9], v[10], v[11]]);
                let _ = write!(out, ".{us:06}");
            }
            Ok(1 + len)
        }
        // NULL type: no bytes
        0x06 => Ok(0),
        // DECIMAL, strings, blobs, BIT, JSON, ENUM, SET, GEOMETRY: length-encoded
        _ => {
            let (v, n) = lenenc_str(b).ok_or_else(bad_row)?;
            out.extend_from_slice(v.unwrap_or_default());
            Ok(n)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(types: &[(u8, bool)]) -> Rows {
        let mut r = Rows::new();
        r.types = types
            .iter()
            .map(|&(ty, unsigned)| ColType { ty, unsigned })
            .collect();
        r.start_result(types.len());
        r
    }

    #[test]
    fn binary_row_renders_as_text() {
        // INT -5, BIGINT UNSIGNED 2^63, NULL, DECIMAL "12.50", DATETIME, DATE, TIME -26:03:04
        let mut r = rows(&[
            (0x03, false),
            (0x08, true),
            (0xFD, false),
            (0xF6, false),
            (0x0C, false),
            (0x0A, false),
            (0x0B, false),
        ]);
        let mut p = vec![0u8, 0b0001_0000, 0];
        p.extend_from_slice(&(-5i32).to_le_bytes());
        p.extend_from_slice(&(1u64 << 63).to_le_bytes());
        p.extend_from_slice(b"\x0512.50");
        p.extend_from_slice(&[7, 0xEA, 0x07, 11, 22, 5, 6, 7]);
        p.extend_from_slice(&[4, 0xEA, 0x07, 1, 2]);
        p.extend_from_slice(&[8, 1, 1, 0, 0, 0, 2, 3, 4]);
        r.push_binary_row(&p).unwrap();
        assert_eq!(r.len(), 1);
        assert_eq!(r.int(0, 0), Some(-5));
        assert_eq!(r.str(0, 1), Some("9223372036854775808"));
        assert_eq!(r.get(0, 2), None);
        assert_eq!(r.str(0, 3), Some("12.50"));
        assert_eq!(r.str(0, 4), Some("2026-11-22 05:06:07"));
        assert_eq!(r.str(0, 5), Some("2026-01-02"));
        assert_eq!(r.str(0, 6), Some("-26:03:04"));
    }

    #[test]
    fn text_rows_and_truncation() {
        let mut r = rows(&[(0xFD, false), (0x03, false)]);
        r.push_text_row(b"\x03abc\xFB").unwrap();
        r.push_text_row(b"\x01x\x0242").unwrap();
        assert_eq!((r.len(), r.columns()), (2, 2));
        assert_eq!(r.str(0, 0), Some("abc"));
        assert_eq!(r.get(0, 1), None);
        assert_eq!(r.int(1, 1), Some(42));
        assert!(r.push_binary_row(&[0, 0, 3, 1]).is_err());
    }

    #[test]
    fn column_definition_type_and_flags() {
        let mut c = Vec::new();
        for s in ["def", "db", "t", "t", "c", "c"] {
            c.push(s.len() as u8);
            c.extend_from_slice(s.as_bytes());
        }
        c.extend_from_slice(&[0x0C, 63, 0, 20, 0, 0, 0, 0x08, 0x20, 0, 0, 0, 0]);
        assert_eq!(
            column_type(&c),
            ColType {
                ty: 0x08,
                unsigned: true
            }
        );
    }
}
