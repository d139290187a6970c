//! Reading a run's latency back as distributions: its full-resolution
//! histograms (all events, and each statement kind's) and each statement
//! kind's per-interval figures. Decodes the stored HDR V2 blobs; computes
//! nothing from them (analyze's).

use super::Store;
use crate::stats::Hist;
use anyhow::Result;
use rusqlite::{params, OptionalExtension};
use serde::Serialize;

/// A run's stored histograms.
#[derive(Debug, Clone, Default)]
pub struct RunHistograms {
    /// All events' latency; None for a run that did not end normally.
    pub all: Option<Hist>,
    /// Each statement kind's latency, in the order stored.
    pub statements: Vec<(String, Hist)>,
}

/// One statement kind's figures in one interval.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StatementSample {
    /// The statement kind, as its workload names it.
    pub statement: String,
    /// The interval's end, seconds since measuring began (samples.t).
    pub t: f64,
    /// Executions in the interval.
    pub count: i64,
    /// Median latency, ms.
    pub lat_p50_ms: Option<f64>,
    /// 95th percentile latency, ms.
    pub lat_p95_ms: Option<f64>,
    /// 99th percentile latency, ms.
    pub lat_p99_ms: Option<f64>,
    /// Slowest execution, ms.
    pub lat_max_ms: Option<f64>,
}

impl Store {
    /// Run `run`'s histograms; a blob that does not decode is left out.
    pub fn run_histograms(&self, run: i64) -> Result<RunHistograms> {
        let all: Option<Vec<u8>> = self
            .conn
            .query_row(
                "SELECT data FROM histograms WHERE run_id = ?1",
                params![run],
                |r| r.get(0),
            )
            .optional()?;
        let mut s = self.conn.prepare(
            "SELECT statement, histogram FROM run_statements WHERE run_id = ?1 AND histogram IS NOT NULL ORDER BY rowid",
        )?;
        let statements = s
            .query_map(params![run], |r| {
                Ok((r.get::<_, String>(0)?, r.get::<_, Vec<u8>>(1)?))
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?
            .into_iter()
            .filter_map(|(name, blob)| Some((name, Hist::from_v2_bytes(&blob)?)))
            .collect();
        Ok(RunHistograms {
            all: all.as_deref().and_then(Hist::from_v2_bytes),
            statements,
        })
    }

    /// Run `run`'s per-interval statement figures, by statement then
    /// time (empty for runs stored before they were kept, and from a
    /// store read before the migration that keeps them ran).
    pub fn statement_samples(&self, run: i64) -> Result<Vec<StatementSample>> {
        if !super::schema::has_table(&self.conn, "sample_statements")? {
            return Ok(Vec::new());
        }
        let mut s = self.conn.prepare(
            "SELECT ss.statement, s.t, ss.count, ss.lat_p50_ms, ss.lat_p95_ms, ss.lat_p99_ms, ss.lat_max_ms
             FROM sample_statements ss JOIN samples s ON s.run_id = ss.run_id AND s.seq = ss.seq
             WHERE ss.run_id = ?1 ORDER BY ss.statement, ss.seq",
        )?;
        let rows = s
            .query_map(params![run], |r| {
                Ok(StatementSample {
                    statement: r.get(0)?,
                    t: r.get(1)?,
                    count: r.get(2)?,
                    lat_p50_ms: r.get(3)?,
                    lat_p95_ms: r.get(4)?,
                    lat_p99_ms: r.get(5)?,
                    lat_max_ms: r.get(6)?,
                })
            })?
            .collect::<rusqlite::Result<_>>()?;
        Ok(rows)
    }
}
