//! Reading a run's profile back: its folded stacks by kind, its
//! per-second series, its summary.

use super::Store;
use crate::stats::document::ProfileSummary;
use anyhow::Result;
use rusqlite::{params, OptionalExtension};
use std::collections::BTreeMap;

impl Store {
    /// Run `run`'s folded stacks of `kind` (empty when none were kept).
    pub fn profile_stacks(&self, run: i64, kind: &str) -> Result<BTreeMap<String, u64>> {
        let mut s = self
            .conn
            .prepare("SELECT stack, weight FROM profile_stacks WHERE run_id = ?1 AND kind = ?2")?;
        let rows = s
            .query_map(params![run, kind], |r| {
                Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?.max(0) as u64))
            })?
            .collect::<rusqlite::Result<_>>()?;
        Ok(rows)
    }

    /// Run `run`'s series of `kind`: name → value per second (0 where
    /// nothing was kept).
    pub fn profile_series(&self, run: i64, kind: &str) -> Result<BTreeMap<String, Vec<f64>>> {
        let mut s = self.conn.prepare(
            "SELECT series, t, value FROM profile_series WHERE run_id = ?1 AND kind = ?2 ORDER BY series, t",
        )?;
        let mut out: BTreeMap<String, Vec<f64>> = BTreeMap::new();
        let rows = s.query_map(params![run, kind], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, i64>(1)?,
                r.get::<_, f64>(2)?,
            ))
        })?;
        for row in rows {
            let (name, t, v) = row?;
            let series = out.entry(name).or_default();
            let t = t.max(0) as usize;
            if series.len() <= t {
                series.resize(t + 1, 0.0);
            }
            series[t] = v;
        }
        Ok(out)
    }

    /// Run `run`'s profile summary, if it was profiled (and its summary
    /// reads as one: an unreadable summary is left out, as a missing one is).
    pub fn run_profile(&self, run: i64) -> Result<Option<ProfileSummary>> {
        let text: Option<String> = self
            .conn
            .query_row(
                "SELECT profile FROM runs WHERE id = ?1",
                params![run],
                |r| r.get(0),
            )
            .optional()?
            .flatten();
        Ok(text.and_then(|t| serde_json::from_str(&t).ok()))
    }
}
