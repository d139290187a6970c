//! Reading runs, campaigns and their details back. Runs left "running" by
//! a process that no longer exists are seen as failed through recover.rs
//! (which the opener runs before any read).

use super::Store;
use crate::stats::document::{
    sorted, HostDocument, HostTestBlock, OperationFigures, OptionsDocument, SandboxDocument,
    TpccBlock,
};
use anyhow::Result;
use rusqlite::{params, OptionalExtension, Row};
use serde::Serialize;

/// Which runs `Store::list_runs` returns: every condition set must hold.
#[derive(Debug, Default, Clone)]
pub struct RunFilter {
    /// Only runs of this workload (its name, as `run` took it).
    pub workload: Option<String>,
    /// Only runs with exactly this label.
    pub label: Option<String>,
    /// Only runs in this status ("ok", "failed", "aborted", "degraded",
    /// "running").
    pub status: Option<String>,
    /// Only the runs of this campaign or sweep (its id).
    pub campaign: Option<i64>,
    /// At most this many runs: the newest ones (still listed oldest first).
    pub limit: Option<usize>,
    /// Server version containing this text.
    pub server: Option<String>,
    /// Started on or after this date (YYYY-MM-DD or a full timestamp).
    pub since: Option<String>,
    /// Only runs with this tag.
    pub tag: Option<String>,
    /// With `campaign`: also its host characterisation's runs (`[host]`:
    /// host tests, not points of its matrix, so left out otherwise).
    pub host_tests: bool,
}

/// The workloads that are host tests (hostbench::BUILTINS' names; the
/// store does not see hostbench: lab's tests check the two agree).
pub const HOST_TESTS: [&str; 5] = ["fileio", "cpu", "memory", "threads", "mutex"];

/// A campaign (or sweep) and how many runs it has.
#[derive(Debug, Clone)]
pub struct CampaignRow {
    /// The campaign's id in the store.
    pub id: i64,
    /// Its name, from the campaign file or the sweep.
    pub name: String,
    /// "campaign" or "sweep".
    pub kind: String,
    /// When it was first recorded (RFC 3339, UTC).
    pub created_at: String,
    /// How many runs the store holds for it.
    pub runs: i64,
}

/// One line of `qpslab runs`.
#[derive(Debug, Clone, Default, Serialize)]
pub struct RunRow {
    /// The run's id in the store.
    pub id: i64,
    /// The campaign or sweep it belongs to, if any.
    pub campaign_id: Option<i64>,
    /// When it started (RFC 3339, UTC).
    pub started_at: String,
    /// The workload's name (built-in, tpcc or a script path).
    pub workload: String,
    /// Connections (sysbench's --threads).
    pub threads: i64,
    /// The user's label for the run.
    pub label: Option<String>,
    /// The campaign variant it measured.
    pub variant: Option<String>,
    /// "ok", "failed", "aborted", "degraded" or "running" (`RunStatus::word`).
    pub status: String,
    /// Why it did not end "ok", in words.
    pub reason: Option<String>,
    /// The server's version string.
    pub server_version: Option<String>,
    /// MariaDB, MySQL or Percona Server, as the run's environment said.
    pub server_flavor: Option<String>,
    /// The workload's options (data size included) without the thread
    /// count, as JSON text: runs with different ones are not pooled.
    #[serde(skip)]
    pub options_key: Option<String>,
    /// Measured length in seconds (warm-up excluded).
    pub seconds: Option<f64>,
    /// Events (transactions) per second over the measured part.
    pub tps: Option<f64>,
    /// Queries per second over the measured part.
    pub qps: Option<f64>,
    /// 95th percentile event latency, ms.
    pub lat_p95_ms: Option<f64>,
    /// 99th percentile event latency, ms.
    pub lat_p99_ms: Option<f64>,
    /// The whole qpslab process's CPU seconds (load and tool together).
    pub client_cpu_s: Option<f64>,
    /// The load threads' CPU seconds (runs before this field: None).
    pub load_cpu_s: Option<f64>,
    /// Queries in the measured part.
    pub queries: Option<i64>,
    /// From the monitor: server CPU µs and host context switches per query,
    /// and the bottleneck verdict.
    /// Server CPU µs per query (from the monitor).
    pub server_us_per_q: Option<f64>,
    /// Host context switches per query (from the monitor).
    pub csw_per_q: Option<f64>,
    /// The bottleneck verdict, in words.
    pub hint: Option<String>,
    /// TPC-C's New-Orders per minute, from the run's summary.
    pub nopm: Option<f64>,
    /// Lock families' shares of thread time (JSON), when it was profiled.
    pub locks: Option<String>,
    /// The user's tags, sorted.
    pub tags: Vec<String>,
    /// The user's note on the run.
    pub note: Option<String>,
    /// Kept and listed, but left out of analyses (`qpslab exclude`).
    pub excluded: bool,
}

/// One stored interval of a run (counts are of that interval only).
#[derive(Debug, Clone, Serialize)]
pub struct SampleRow {
    /// The interval's number in the run, from 0.
    pub seq: i64,
    /// Seconds from the start of measurement to the interval's end
    /// (negative in the warm-up).
    pub t: f64,
    /// The interval's length in seconds (the last may be shorter).
    pub dur: f64,
    /// Whether it fell in the warm-up (left out of totals).
    pub warmup: bool,
    /// Events (transactions) completed.
    pub events: i64,
    /// Read queries.
    pub reads: i64,
    /// Write queries.
    pub writes: i64,
    /// Other queries (BEGIN, COMMIT, …).
    pub others: i64,
    /// Errors by server code, as a JSON object {code: count}.
    pub errors: serde_json::Value,
    /// Connections re-opened.
    pub reconnects: i64,
    /// Rate mode: events due but not yet started at the interval's end.
    pub backlog: i64,
    /// 95th percentile event latency, ms.
    pub lat_p95_ms: Option<f64>,
    /// 99th percentile event latency, ms.
    pub lat_p99_ms: Option<f64>,
    /// qpslab's CPU seconds in the interval.
    pub client_cpu_s: Option<f64>,
    /// Median event latency, ms.
    pub lat_p50_ms: Option<f64>,
    /// Slowest event, ms.
    pub lat_max_ms: Option<f64>,
}

impl SampleRow {
    /// Queries of the interval (sysbench's reads + writes + other).
    pub fn queries(&self) -> i64 {
        self.reads + self.writes + self.others
    }

    /// A count of this interval per second; None for an empty interval.
    /// The one place a stored interval's rates are computed.
    pub fn per_s(&self, count: i64) -> Option<f64> {
        (self.dur > 0.0).then(|| count as f64 / self.dur)
    }

    /// Queries per second; None for an empty interval.
    pub fn qps(&self) -> Option<f64> {
        self.per_s(self.queries())
    }

    /// Events (transactions) per second; None for an empty interval.
    pub fn tps(&self) -> Option<f64> {
        self.per_s(self.events)
    }
}

/// One statement's figures over a run's measured part.
#[derive(Debug, Clone, Serialize)]
pub struct StatementRow {
    /// The statement's name as its workload gives it.
    pub statement: String,
    /// Executions.
    pub count: i64,
    /// Mean latency, ms.
    pub lat_avg_ms: Option<f64>,
    /// 95th percentile latency, ms.
    pub lat_p95_ms: Option<f64>,
    /// 99th percentile latency, ms.
    pub lat_p99_ms: Option<f64>,
    /// Slowest execution, ms.
    pub lat_max_ms: Option<f64>,
}

/// Everything `qpslab show` prints.
#[derive(Debug, Clone, Default, Serialize)]
pub struct RunDetail {
    /// The run's line, as `qpslab runs` lists it.
    pub run: RunRow,
    /// The run's options.
    #[serde(serialize_with = "sorted")]
    pub options: OptionsDocument,
    /// The command line that started it, secrets redacted.
    pub command_line: String,
    /// The qpslab version that ran it.
    pub qpslab_version: String,
    /// The commit qpslab was built from.
    pub git_hash: String,
    /// When it ended (RFC 3339, UTC); None while running.
    pub ended_at: Option<String>,
    /// MariaDB, MySQL or Percona Server.
    pub server_flavor: Option<String>,
    /// The sandbox's my.cnf text, when it ran on a sandbox.
    pub server_cnf: Option<String>,
    /// SHOW GLOBAL VARIABLES at the start, {name: value}.
    pub server_variables: serde_json::Value,
    /// {name: {value, default, origin}}; null where not captured.
    pub server_nondefault: serde_json::Value,
    /// The sandbox's settings; None for other targets.
    #[serde(serialize_with = "sorted")]
    pub sandbox: Option<SandboxDocument>,
    /// The client host.
    #[serde(serialize_with = "sorted")]
    pub host: HostDocument,
    /// Every interval, warm-up included, in order.
    pub samples: Vec<SampleRow>,
    /// Per-statement figures.
    pub statements: Vec<StatementRow>,
    /// A TPC-C run's figures (NOPM, TPM, each transaction type), from
    /// its stored summary; None for other workloads.
    #[serde(serialize_with = "sorted")]
    pub tpcc: Option<TpccBlock>,
    /// A built-in host test's figures (`qpslab run cpu` …), from its
    /// stored summary; None for database runs.
    #[serde(serialize_with = "sorted", skip_serializing_if = "Option::is_none")]
    pub host_test: Option<HostTestBlock>,
    /// Each operation of a LinkBench run (count, share, rate, latency),
    /// from its stored summary; None for other workloads (left out of
    /// the JSON).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub operations: Option<Vec<OperationFigures>>,
    /// An insert benchmark phase's figures, from its stored summary; None
    /// for other runs (left out of the JSON).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ibench_phase: Option<crate::stats::document::IbenchPhase>,
    /// A DBT3 run's figures (per-query seconds, plans, fingerprints), from
    /// its stored summary; None for other runs (left out of the JSON).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dbt3: Option<crate::stats::document::Dbt3Block>,
    /// The full-resolution latency histogram (HDR V2), when the run ended normally.
    #[serde(skip)]
    pub histogram: Option<Vec<u8>>,
}

/// What a listing reads: columns only (schema v10 keeps what it shows of
/// the documents as columns), all of them in the `runs_listing` index, so
/// that a list of a year of runs never reads their documents.
const RUN_COLUMNS: &str =
    "id, started_at, workload, threads, label, variant, status, reason, server_version, \
    seconds, tps, qps, lat_p95_ms, lat_p99_ms, client_cpu_s, queries, campaign_id, \
    server_us_per_q, csw_per_q, hint, nopm, locks, server_flavor, options_key, load_cpu_s, note, excluded, \
    (SELECT group_concat(tag, char(10)) FROM (SELECT tag FROM run_tags WHERE run_id = id ORDER BY tag))";

/// How many columns RUN_COLUMNS selects (`run_row` reads them by index;
/// queries that select more read theirs from here on).
const RUN_COLUMN_COUNT: usize = 28;

fn run_row(r: &Row<'_>) -> rusqlite::Result<RunRow> {
    Ok(RunRow {
        id: r.get(0)?,
        started_at: r.get(1)?,
        workload: r.get(2)?,
        threads: r.get(3)?,
        label: r.get(4)?,
        variant: r.get(5)?,
        status: r.get(6)?,
        reason: r.get(7)?,
        server_version: r.get(8)?,
        seconds: r.get(9)?,
        tps: r.get(10)?,
        qps: r.get(11)?,
        lat_p95_ms: r.get(12)?,
        lat_p99_ms: r.get(13)?,
        client_cpu_s: r.get(14)?,
        queries: r.get(15)?,
        campaign_id: r.get(16)?,
        server_us_per_q: r.get(17)?,
        csw_per_q: r.get(18)?,
        hint: r.get(19)?,
        nopm: r.get(20)?,
        locks: r.get(21)?,
        server_flavor: r.get(22)?,
        options_key: r.get(23)?,
        load_cpu_s: r.get(24)?,
        note: r.get(25)?,
        excluded: r.get(26)?,
        tags: r
            .get::<_, Option<String>>(27)?
            .map(|t| t.split('\n').map(str::to_string).collect())
            .unwrap_or_default(),
    })
}

/// A stored document read into its type; its default when absent or
/// unreadable (said in the log: a document that does not read is a bug).
pub(super) fn document<T: serde::de::DeserializeOwned + Default>(s: Option<String>) -> T {
    let Some(text) = s else {
        return T::default();
    };
    serde_json::from_str(&text).unwrap_or_else(|e| {
        log::warn!(
            "a stored document does not read as {}: {e}",
            std::any::type_name::<T>()
        );
        T::default()
    })
}

fn json(s: Option<String>) -> serde_json::Value {
    s.and_then(|s| serde_json::from_str(&s).ok())
        .unwrap_or(serde_json::Value::Null)
}

impl Store {
    /// Every campaign (sweeps included), newest first.
    pub fn list_campaigns(&self) -> Result<Vec<CampaignRow>> {
        let mut st = self.conn.prepare(
            "SELECT c.id, c.name, c.kind, c.created_at, (SELECT COUNT(*) FROM runs r WHERE r.campaign_id = c.id)
             FROM campaigns c ORDER BY c.id DESC",
        )?;
        let rows = st.query_map([], |r| {
            Ok(CampaignRow {
                id: r.get(0)?,
                name: r.get(1)?,
                kind: r.get(2)?,
                created_at: r.get(3)?,
                runs: r.get(4)?,
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// The definition campaign `id` was created with (a campaign file's
    /// TOML, or a sweep's JSON); None for no such campaign.
    pub fn campaign_definition(&self, id: i64) -> Result<Option<String>> {
        use rusqlite::OptionalExtension;
        Ok(self
            .conn
            .query_row(
                "SELECT definition FROM campaigns WHERE id = ?1",
                [id],
                |r| r.get(0),
            )
            .optional()?)
    }

    /// The finished repeats of run `id`'s point (same campaign and point
    /// hash, status ok; the excluded ones too, marked), itself included;
    /// just itself outside a campaign.
    pub fn repeats_of(&self, id: i64) -> Result<Vec<RunRow>> {
        let sql = format!(
            "SELECT {RUN_COLUMNS} FROM runs r WHERE r.id = ?1 OR (r.status = 'ok' AND EXISTS (SELECT 1 FROM runs o \
             WHERE o.id = ?1 AND o.campaign_id IS NOT NULL AND o.point_hash IS NOT NULL \
             AND o.campaign_id = r.campaign_id AND o.point_hash = r.point_hash)) ORDER BY r.id"
        );
        let mut st = self.conn.prepare(&sql)?;
        let rows = st.query_map(params![id], run_row)?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// The runs `f` selects, oldest first.
    pub fn list_runs(&self, f: &RunFilter) -> Result<Vec<RunRow>> {
        let mut sql = format!("SELECT {RUN_COLUMNS} FROM runs WHERE 1=1");
        let mut args: Vec<Box<dyn rusqlite::ToSql>> = Vec::new();
        if let Some(w) = &f.workload {
            sql.push_str(" AND (workload = ? OR workload = 'oltp_' || ?)");
            args.push(Box::new(w.clone()));
            args.push(Box::new(w.clone()));
        }
        if let Some(l) = &f.label {
            sql.push_str(" AND label = ?");
            args.push(Box::new(l.clone()));
        }
        if let Some(s) = &f.status {
            sql.push_str(" AND status = ?");
            args.push(Box::new(s.clone()));
        }
        if let Some(c) = f.campaign {
            sql.push_str(" AND campaign_id = ?");
            args.push(Box::new(c));
            if !f.host_tests {
                let names: Vec<String> = HOST_TESTS.iter().map(|t| format!("'{t}'")).collect();
                sql.push_str(&format!(" AND workload NOT IN ({})", names.join(", ")));
            }
        }
        if let Some(s) = &f.server {
            sql.push_str(" AND server_version LIKE '%' || ? || '%'");
            args.push(Box::new(s.clone()));
        }
        if let Some(d) = &f.since {
            sql.push_str(" AND started_at >= ?");
            args.push(Box::new(d.clone()));
        }
        if let Some(t) = &f.tag {
            sql.push_str(" AND EXISTS (SELECT 1 FROM run_tags WHERE run_id = id AND tag = ?)");
            args.push(Box::new(t.clone()));
        }
        sql.push_str(" ORDER BY id");
        if let Some(n) = f.limit {
            sql = format!("SELECT * FROM ({sql} DESC LIMIT {n}) ORDER BY id");
        }
        let mut stmt = self.conn.prepare(&sql)?;
        let rows = stmt.query_map(
            rusqlite::params_from_iter(args.iter().map(|a| a.as_ref())),
            run_row,
        )?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// The insert benchmark phases kept in a campaign, in the order they
    /// ran: (run id, label, variant, figures).
    pub fn campaign_phases(&self, campaign: i64) -> Result<Vec<super::KeptPhase>> {
        let mut s = self.conn.prepare(
            "SELECT id, label, variant, json_extract(summary, '$.ibench_phase') FROM runs
             WHERE campaign_id = ?1 AND json_extract(summary, '$.ibench_phase') IS NOT NULL ORDER BY id",
        )?;
        let rows = s.query_map(params![campaign], |r| {
            let text: String = r.get(3)?;
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, text))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (id, label, variant, text) = row?;
            if let Ok(p) = serde_json::from_str(&text) {
                out.push((id, label, variant, p));
            }
        }
        Ok(out)
    }

    /// Everything stored about run `id`; None when there is no such run.
    pub fn run_detail(&self, id: i64) -> Result<Option<RunDetail>> {
        let sql = format!(
            "SELECT {RUN_COLUMNS}, options, command_line, qpslab_version, git_hash, ended_at, server_cnf,
                    server_variables, sandbox, host, json_extract(summary, '$.tpcc'), server_nondefault,
                    json_extract(summary, '$.host_test'), operations,
                    json_extract(summary, '$.ibench_phase'), json_extract(summary, '$.dbt3')
             FROM runs WHERE id = ?1"
        );
        let Some(mut d) = self
            .conn
            .query_row(&sql, params![id], |r| {
                // the columns after RUN_COLUMNS'
                let n = RUN_COLUMN_COUNT;
                Ok(RunDetail {
                    run: run_row(r)?,
                    options: document(r.get(n)?),
                    command_line: r.get(n + 1)?,
                    qpslab_version: r.get(n + 2)?,
                    git_hash: r.get(n + 3)?,
                    ended_at: r.get(n + 4)?,
                    server_flavor: r.get(22)?,
                    server_cnf: r.get(n + 5)?,
                    server_variables: json(r.get(n + 6)?),
                    sandbox: document(r.get(n + 7)?),
                    host: document(r.get(n + 8)?),
                    samples: Vec::new(),
                    statements: Vec::new(),
                    tpcc: document(r.get(n + 9)?),
                    server_nondefault: json(r.get(n + 10)?),
                    host_test: document(r.get(n + 11)?),
                    operations: document(r.get(n + 12)?),
                    ibench_phase: document(r.get(n + 13)?),
                    dbt3: document(r.get(n + 14)?),
                    histogram: None,
                })
            })
            .optional()?
        else {
            return Ok(None);
        };
        d.samples = self.run_samples(id)?;
        let mut s = self.conn.prepare(
            "SELECT statement, count, lat_avg_ms, lat_p95_ms, lat_p99_ms, lat_max_ms FROM run_statements WHERE run_id = ?1 ORDER BY rowid",
        )?;
        d.statements = s
            .query_map(params![id], |r| {
                Ok(StatementRow {
                    statement: r.get(0)?,
                    count: r.get(1)?,
                    lat_avg_ms: r.get(2)?,
                    lat_p95_ms: r.get(3)?,
                    lat_p99_ms: r.get(4)?,
                    lat_max_ms: r.get(5)?,
                })
            })?
            .collect::<rusqlite::Result<_>>()?;
        d.histogram = self
            .conn
            .query_row(
                "SELECT data FROM histograms WHERE run_id = ?1",
                params![id],
                |r| r.get(0),
            )
            .optional()?;
        Ok(Some(d))
    }

    /// Run `id`'s per-interval samples, in order (what `run_detail` holds
    /// of them, without the rest: a campaign report's charts of each run).
    pub fn run_samples(&self, id: i64) -> Result<Vec<SampleRow>> {
        let mut s = self.conn.prepare(
            "SELECT seq, t, dur, warmup, events, reads, writes, others, errors, reconnects, backlog, lat_p95_ms, lat_p99_ms, client_cpu_s,
                    lat_p50_ms, lat_max_ms
             FROM samples WHERE run_id = ?1 ORDER BY seq",
        )?;
        let rows = s
            .query_map(params![id], |r| {
                Ok(SampleRow {
                    seq: r.get(0)?,
                    t: r.get(1)?,
                    dur: r.get(2)?,
                    warmup: r.get(3)?,
                    events: r.get(4)?,
                    reads: r.get(5)?,
                    writes: r.get(6)?,
                    others: r.get(7)?,
                    errors: json(r.get(8)?),
                    reconnects: r.get(9)?,
                    backlog: r.get(10)?,
                    lat_p95_ms: r.get(11)?,
                    lat_p99_ms: r.get(12)?,
                    client_cpu_s: r.get(13)?,
                    lat_p50_ms: r.get(14)?,
                    lat_max_ms: r.get(15)?,
                })
            })?
            .collect::<rusqlite::Result<_>>()?;
        Ok(rows)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_column_count_matches_run_columns() {
        let dir = std::env::temp_dir().join(format!("qpslab-read-{}", std::process::id()));
        let store = Store::open(&dir.join("r.db")).unwrap();
        let st = store
            .conn
            .prepare(&format!("SELECT {RUN_COLUMNS} FROM runs"))
            .unwrap();
        assert_eq!(st.column_count(), RUN_COLUMN_COUNT);
        drop(st);
        // A list reads the listing index alone, never a run's row (its
        // documents): a column added to RUN_COLUMNS goes in the index too.
        let plan: Vec<String> = store
            .conn
            .prepare(&format!(
                "EXPLAIN QUERY PLAN SELECT {RUN_COLUMNS} FROM runs WHERE status = 'ok' ORDER BY id"
            ))
            .unwrap()
            .query_map([], |r| r.get(3))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        assert!(
            plan.iter()
                .any(|p| p.contains("SCAN runs USING COVERING INDEX runs_listing")),
            "{plan:?}"
        );
        drop(store);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
