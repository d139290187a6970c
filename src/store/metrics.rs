//! The monitor's snapshots in the store. Each (run, source) has a key
//! dictionary; a snapshot is a blob of (key index, value) pairs where each
//! value is the difference from the same key's previous value (zigzag
//! varints; non-integral values as tagged f64). Unchanged counters cost two
//! bytes, and reading a run back decodes a source's snapshots in order.

use super::Store;
use anyhow::Result;
use rusqlite::{params, OptionalExtension};
use std::collections::HashMap;

/// The monitor's figures a run row keeps in columns (for listings and
/// filters), beside the whole document.
#[derive(Debug, Default, Clone)]
pub struct MonitorColumns {
    /// Server CPU µs per query.
    pub server_us_per_q: Option<f64>,
    /// Host context switches per query.
    pub csw_per_q: Option<f64>,
    /// Bytes the server read from storage per query.
    pub read_bytes_per_q: Option<f64>,
    /// Bytes it wrote per query.
    pub write_bytes_per_q: Option<f64>,
    /// InnoDB redo bytes per transaction.
    pub redo_bytes_per_trx: Option<f64>,
    /// The bottleneck verdict.
    pub hint: Option<String>,
}

/// Per-run encoder state: dictionaries and previous values per source.
#[derive(Default)]
pub struct MetricWriter {
    sources: HashMap<String, SourceState>,
}

#[derive(Default)]
struct SourceState {
    keys: HashMap<String, u32>,
    prev: Vec<f64>,
    seq: i64,
}

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn get_varint(b: &[u8], pos: &mut usize) -> Option<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let byte = *b.get(*pos)?;
        *pos += 1;
        v |= u64::from(byte & 0x7f) << shift;
        if byte < 0x80 {
            return Some(v);
        }
    }
    None
}

const EXACT: f64 = 9_007_199_254_740_992.0; // 2^53

fn integral(v: f64) -> bool {
    v.fract() == 0.0 && v.abs() < EXACT
}

/// Appends one value as a delta from `prev`.
fn put_value(out: &mut Vec<u8>, v: f64, prev: f64) {
    if integral(v) && integral(prev) {
        let d = v as i64 - prev as i64;
        let zz = ((d << 1) ^ (d >> 63)) as u64;
        put_varint(out, zz << 1);
    } else {
        put_varint(out, 1);
        out.extend_from_slice(&v.to_le_bytes());
    }
}

fn get_value(b: &[u8], pos: &mut usize, prev: f64) -> Option<f64> {
    let tag = get_varint(b, pos)?;
    if tag & 1 == 1 {
        let bytes: [u8; 8] = b.get(*pos..*pos + 8)?.try_into().ok()?;
        *pos += 8;
        return Some(f64::from_le_bytes(bytes));
    }
    let zz = tag >> 1;
    let d = ((zz >> 1) as i64) ^ -((zz & 1) as i64);
    let base = if integral(prev) { prev as i64 } else { 0 };
    Some((base + d) as f64)
}

/// A source's snapshots of one run, decoded.
#[derive(Debug, Default)]
pub struct MetricTable {
    /// The source's value names, in column order.
    pub names: Vec<String>,
    /// (t, took_us, value per name; None where the snapshot lacks the key)
    pub rows: Vec<(f64, u64, Vec<Option<f64>>)>,
}

impl Store {
    /// Stores one snapshot of `source` at run time `t`.
    pub fn add_snapshot(
        &self,
        w: &mut MetricWriter,
        run: i64,
        source: &str,
        t: f64,
        took_us: u64,
        values: &[(String, f64)],
    ) -> Result<()> {
        let st = w.sources.entry(source.to_string()).or_default();
        let mut data = Vec::with_capacity(values.len() * 3);
        let mut new_keys = Vec::new();
        for (name, v) in values {
            let idx = match st.keys.get(name) {
                Some(i) => *i,
                None => {
                    let i = st.keys.len() as u32;
                    st.keys.insert(name.clone(), i);
                    st.prev.push(0.0);
                    new_keys.push((i, name.as_str()));
                    i
                }
            };
            put_varint(&mut data, u64::from(idx));
            put_value(&mut data, *v, st.prev[idx as usize]);
            st.prev[idx as usize] = *v;
        }
        let tx = self.conn.unchecked_transaction()?;
        for (i, name) in new_keys {
            tx.execute(
                "INSERT INTO metric_keys (run_id, source, idx, name) VALUES (?1, ?2, ?3, ?4)",
                params![run, source, i, name],
            )?;
        }
        tx.execute(
            "INSERT INTO metric_snaps (run_id, source, seq, t, took_us, data) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![run, source, st.seq, t, took_us as i64, data],
        )?;
        tx.commit()?;
        st.seq += 1;
        Ok(())
    }

    /// Stores a monitor note of run `run` at `t` seconds since measuring
    /// began (`kind` in words, as `NoteKind::name`).
    pub fn add_note(
        &self,
        run: i64,
        t: f64,
        source: Option<&str>,
        kind: &str,
        text: &str,
    ) -> Result<()> {
        self.conn.execute(
            "INSERT INTO monitor_notes (run_id, t, source, kind, text) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![run, t, source, kind, text],
        )?;
        Ok(())
    }

    /// The sources a run has snapshots of, with their snapshot counts.
    pub fn metric_sources(&self, run: i64) -> Result<Vec<(String, i64)>> {
        let mut st = self.conn.prepare(
            "SELECT source, COUNT(*) FROM metric_snaps WHERE run_id = ?1 GROUP BY source ORDER BY source",
        )?;
        let rows = st.query_map([run], |r| Ok((r.get(0)?, r.get(1)?)))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Decodes every snapshot of `source` in run `run`.
    pub fn metric_table(&self, run: i64, source: &str) -> Result<MetricTable> {
        let mut t = MetricTable::default();
        let mut st = self.conn.prepare(
            "SELECT idx, name FROM metric_keys WHERE run_id = ?1 AND source = ?2 ORDER BY idx",
        )?;
        for r in st.query_map(params![run, source], |r| r.get::<_, String>(1))? {
            t.names.push(r?);
        }
        let mut prev = vec![0.0; t.names.len()];
        let mut st = self.conn.prepare(
            "SELECT t, took_us, data FROM metric_snaps WHERE run_id = ?1 AND source = ?2 ORDER BY seq",
        )?;
        let mut rows = st.query(params![run, source])?;
        while let Some(r) = rows.next()? {
            let data: Vec<u8> = r.get(2)?;
            let mut vals = vec![None; t.names.len()];
            let mut pos = 0;
            while pos < data.len() {
                let Some(idx) = get_varint(&data, &mut pos).map(|i| i as usize) else {
                    break;
                };
                let Some(v) = get_value(&data, &mut pos, prev.get(idx).copied().unwrap_or(0.0))
                else {
                    break;
                };
                if idx < vals.len() {
                    vals[idx] = Some(v);
                    prev[idx] = v;
                }
            }
            t.rows.push((r.get(0)?, r.get::<_, i64>(1)? as u64, vals));
        }
        Ok(t)
    }

    /// Records the monitor's figures of a run: the whole document (JSON,
    /// read back by whoever knows its type) and the columns runs are
    /// listed and filtered by.
    pub fn set_run_monitor(&self, run: i64, cols: &MonitorColumns, document: &str) -> Result<()> {
        self.conn.execute(
            "UPDATE runs SET server_us_per_q = ?2, csw_per_q = ?3, read_bytes_per_q = ?4, write_bytes_per_q = ?5,
                redo_bytes_per_trx = ?6, hint = ?7, monitor = ?8 WHERE id = ?1",
            params![
                run,
                cols.server_us_per_q,
                cols.csw_per_q,
                cols.read_bytes_per_q,
                cols.write_bytes_per_q,
                cols.redo_bytes_per_trx,
                cols.hint.as_deref(),
                document,
            ],
        )?;
        Ok(())
    }

    /// Ends a run that has no load result (a standalone monitor session).
    pub fn end_run(
        &self,
        run: i64,
        status: &str,
        reason: Option<&str>,
        seconds: f64,
    ) -> Result<()> {
        self.conn.execute(
            "UPDATE runs SET status = ?2, reason = ?3, seconds = ?4, ended_at = ?5 WHERE id = ?1",
            params![run, status, reason, seconds, super::write::now()],
        )?;
        Ok(())
    }

    /// The monitor's figures document of a run (JSON), if any.
    pub fn run_monitor(&self, run: i64) -> Result<Option<String>> {
        let s: Option<Option<String>> = self
            .conn
            .query_row("SELECT monitor FROM runs WHERE id = ?1", [run], |r| {
                r.get(0)
            })
            .optional()?;
        Ok(s.flatten())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_round_trip() {
        let cases = [
            (0.0, 0.0),
            (5.0, 3.0),
            (3.0, 5.0),
            (1e15, 2.0),
            (0.25, 7.0),
            (7.0, 0.25),
            (-4.0, 9.0),
        ];
        for (v, prev) in cases {
            let mut b = Vec::new();
            put_value(&mut b, v, prev);
            let mut pos = 0;
            assert_eq!(get_value(&b, &mut pos, prev), Some(v), "{v} after {prev}");
            assert_eq!(pos, b.len());
        }
    }

    #[test]
    fn snapshots_round_trip_with_new_and_missing_keys() {
        let dir = std::env::temp_dir().join(format!("qpslab-metrics-{}", std::process::id()));
        let store = Store::open(&dir.join("r.db")).unwrap();
        let run = store
            .begin_run(&crate::store::NewRun {
                workload: "monitor".into(),
                ..Default::default()
            })
            .unwrap();
        let mut w = MetricWriter::default();
        let s1 = vec![("a".to_string(), 10.0), ("b".to_string(), 0.5)];
        let s2 = vec![("a".to_string(), 12.0), ("c".to_string(), 1e12)];
        store
            .add_snapshot(&mut w, run, "status", 0.0, 900, &s1)
            .unwrap();
        store
            .add_snapshot(&mut w, run, "status", 1.0, 800, &s2)
            .unwrap();
        let t = store.metric_table(run, "status").unwrap();
        assert_eq!(t.names, vec!["a", "b", "c"]);
        assert_eq!(t.rows[0].2, vec![Some(10.0), Some(0.5), None]);
        assert_eq!(t.rows[1].2, vec![Some(12.0), None, Some(1e12)]);
        assert_eq!(t.rows[1].1, 800);
        std::fs::remove_dir_all(&dir).ok();
    }
}
