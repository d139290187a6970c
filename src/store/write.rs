//! Writing runs: a row when the run starts (status "running"), a sample row
//! per interval as it arrives, and totals, statements and the histogram when
//! it ends.

use super::Store;
use crate::stats::document::{
    HostDocument, OptionsDocument, ProfileSummary, RunDocument, SandboxDocument,
};
use crate::stats::{RunResult, Sample};
use anyhow::Result;
use rusqlite::params;
use serde_json::Value;

/// What is known of a run before it starts.
#[derive(Default)]
pub struct NewRun {
    /// The campaign or sweep it belongs to, if any.
    pub campaign_id: Option<i64>,
    /// Its campaign point's hash (`campaign::Point::hash`).
    pub point_hash: Option<String>,
    /// The user's label.
    pub label: Option<String>,
    /// The campaign variant it measures.
    pub variant: Option<String>,
    /// The workload's name.
    pub workload: String,
    /// Connections.
    pub threads: u32,
    /// The run's options.
    pub options: OptionsDocument,
    /// MariaDB, MySQL or Percona Server.
    pub server_flavor: Option<String>,
    /// The server's version string.
    pub server_version: Option<String>,
    /// SHOW GLOBAL VARIABLES, {name: value}.
    pub server_variables: Option<Value>,
    /// The sandbox's my.cnf text.
    pub server_cnf: Option<String>,
    /// Variables not at their compiled default: {name: {value, default,
    /// origin}}; None where the server cannot tell (MySQL before 8.0).
    pub server_nondefault: Option<Value>,
    /// The sandbox's settings; None for other targets.
    pub sandbox: Option<SandboxDocument>,
    /// The client host.
    pub host: HostDocument,
    /// The command line, secrets redacted.
    pub command_line: String,
    /// When it started (RFC 3339 UTC); None: now. (A host test is
    /// recorded after it ran.)
    pub started_at: Option<String>,
}

/// A document as the store keeps it: JSON with its keys sorted.
fn document_text(doc: &impl serde::Serialize) -> Result<String> {
    Ok(serde_json::to_value(doc)?.to_string())
}

pub(super) fn now() -> String {
    // RFC 3339 in UTC, milliseconds.
    crate::stats::clock::now_text(crate::stats::clock::Zone::Utc, "%Y-%m-%dT%H:%M:%S%.3fZ")
}

/// This boot's id: a pid from another boot is not this run's process.
pub(crate) fn boot_id() -> String {
    std::fs::read_to_string("/proc/sys/kernel/random/boot_id")
        .map(|s| s.trim().to_string())
        .unwrap_or_default()
}

/// An insert benchmark phase kept in a campaign: (run id, label, variant,
/// figures).
pub type KeptPhase = (
    i64,
    Option<String>,
    Option<String>,
    crate::stats::document::IbenchPhase,
);

/// Sets run `id`'s listed columns (schema v10) from its documents as
/// they are now: after each write of a document they come from.
pub(super) fn fill_listed(conn: &rusqlite::Connection, id: i64) -> Result<()> {
    conn.execute(
        &format!("{} WHERE id = ?1", super::schema::fill_listed()),
        [id],
    )?;
    Ok(())
}

impl Store {
    /// Records the start of a run; returns its id.
    pub fn begin_run(&self, r: &NewRun) -> Result<i64> {
        self.conn.execute(
            "INSERT INTO runs (campaign_id, point_hash, label, variant, workload, threads, options,
                server_flavor, server_version, server_variables, server_cnf, sandbox, host,
                qpslab_version, git_hash, command_line, started_at, status, pid, boot_id, server_nondefault, uid)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, 'running', ?18, ?19, ?20,
                     lower(hex(randomblob(16))))",
            params![
                r.campaign_id,
                r.point_hash,
                r.label,
                r.variant,
                r.workload,
                r.threads,
                document_text(&r.options)?,
                r.server_flavor,
                r.server_version,
                r.server_variables.as_ref().map(Value::to_string),
                r.server_cnf,
                r.sandbox.as_ref().map(document_text).transpose()?,
                document_text(&r.host)?,
                env!("CARGO_PKG_VERSION"),
                env!("QPSLAB_GIT_HASH"),
                r.command_line,
                r.started_at.clone().unwrap_or_else(now),
                std::process::id(),
                boot_id(),
                r.server_nondefault.as_ref().map(Value::to_string),
            ],
        )?;
        let id = self.conn.last_insert_rowid();
        fill_listed(&self.conn, id)?;
        Ok(id)
    }

    /// The newest campaign of this name and kind, if any (reads only).
    pub fn find_campaign(&self, name: &str, kind: &str) -> Result<Option<i64>> {
        Ok(rusqlite::OptionalExtension::optional(self.conn.query_row(
            "SELECT id FROM campaigns WHERE name = ?1 AND kind = ?2 ORDER BY id DESC LIMIT 1",
            params![name, kind],
            |r| r.get(0),
        ))?)
    }

    /// The id of the newest campaign (or sweep: `kind`) named `name`, its
    /// `definition` (the file's text) replaced; created when there is none.
    pub fn find_or_create_campaign(&self, name: &str, kind: &str, definition: &str) -> Result<i64> {
        match self.find_campaign(name, kind)? {
            Some(id) => {
                self.conn.execute(
                    "UPDATE campaigns SET definition = ?2 WHERE id = ?1",
                    params![id, definition],
                )?;
                Ok(id)
            }
            None => self.create_campaign(name, kind, definition),
        }
    }

    /// Points of a campaign that have a finished ("ok") run: point hash → run id.
    pub fn done_points(&self, campaign: i64) -> Result<std::collections::HashMap<String, i64>> {
        let mut s = self.conn.prepare("SELECT point_hash, MAX(id) FROM runs WHERE campaign_id = ?1 AND status = 'ok' AND point_hash IS NOT NULL GROUP BY point_hash")?;
        let rows = s.query_map(params![campaign], |r| Ok((r.get(0)?, r.get(1)?)))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Creates a campaign (a sweep or a campaign file's matrix); returns its id.
    pub fn create_campaign(&self, name: &str, kind: &str, definition: &str) -> Result<i64> {
        self.conn.execute(
            "INSERT INTO campaigns (name, kind, definition, created_at, uid)
             VALUES (?1, ?2, ?3, ?4, lower(hex(randomblob(16))))",
            params![name, kind, definition, now()],
        )?;
        Ok(self.conn.last_insert_rowid())
    }

    /// Keeps a run's folded stacks of one kind.
    pub fn add_profile(
        &self,
        run: i64,
        kind: &str,
        stacks: &std::collections::BTreeMap<String, u64>,
    ) -> Result<()> {
        let tx = self.conn.unchecked_transaction()?;
        {
            let mut s = tx.prepare(
                "INSERT OR REPLACE INTO profile_stacks (run_id, kind, stack, weight) VALUES (?1, ?2, ?3, ?4)",
            )?;
            for (stack, w) in stacks {
                s.execute(params![run, kind, stack, *w as i64])?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// Keeps a run's per-second profile series of one kind: (series
    /// name, value per second).
    pub fn add_profile_series(
        &self,
        run: i64,
        kind: &str,
        series: &[(String, Vec<f64>)],
    ) -> Result<()> {
        let tx = self.conn.unchecked_transaction()?;
        {
            let mut s = tx.prepare(
                "INSERT OR REPLACE INTO profile_series (run_id, kind, series, t, value) VALUES (?1, ?2, ?3, ?4, ?5)",
            )?;
            for (name, values) in series {
                for (t, v) in values.iter().enumerate().filter(|(_, v)| **v != 0.0) {
                    s.execute(params![run, kind, name, t as i64, v])?;
                }
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// Keeps a run's profile summary (as JSON).
    pub fn set_run_profile(&self, run: i64, summary: &ProfileSummary) -> Result<()> {
        let text = document_text(summary)?;
        self.conn.execute(
            "UPDATE runs SET profile = ?2 WHERE id = ?1",
            params![run, text],
        )?;
        fill_listed(&self.conn, run)
    }

    /// Keeps an insert benchmark phase's figures in its run's summary
    /// (its `ibench_phase` block), after the run is finished.
    pub fn set_run_phase(
        &self,
        run: i64,
        phase: &crate::stats::document::IbenchPhase,
    ) -> Result<()> {
        let text = document_text(phase)?;
        self.conn.execute(
            "UPDATE runs SET summary = json_set(COALESCE(summary, '{}'), '$.ibench_phase', json(?2)) WHERE id = ?1",
            params![run, text],
        )?;
        Ok(())
    }

    /// Stores one interval as soon as it is complete, with the latency of
    /// each statement kind it ran (`kinds` names the first of
    /// `s.iv.kinds`: the workload's statement kinds).
    pub fn add_sample(&self, run: i64, seq: usize, s: &Sample, kinds: &[String]) -> Result<()> {
        let iv = &s.iv;
        let errors: serde_json::Map<String, Value> = iv
            .errors
            .0
            .iter()
            .map(|(c, n)| (c.to_string(), Value::from(*n)))
            .collect();
        let tx = self.conn.unchecked_transaction()?;
        tx.execute(
            "INSERT INTO samples (run_id, seq, t, dur, warmup, events, reads, writes, others, errors, reconnects, backlog,
                lat_p50_ms, lat_p95_ms, lat_p99_ms, lat_max_ms, client_cpu_s, host_cpu_s, host_busy,
                failed_events, failed_connects)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21)",
            params![
                run,
                seq as i64,
                s.t,
                s.dur,
                s.warmup,
                iv.events as i64,
                iv.reads as i64,
                iv.writes as i64,
                iv.others as i64,
                Value::Object(errors).to_string(),
                iv.reconnects as i64,
                iv.backlog as i64,
                iv.hist.quantile_ms(0.50),
                iv.hist.quantile_ms(0.95),
                iv.hist.quantile_ms(0.99),
                iv.hist.max_ms(),
                s.client_cpu_s,
                s.host_cpu_s,
                s.host_busy,
                iv.failed as i64,
                iv.failed_connects as i64,
            ],
        )?;
        let mut add = tx.prepare_cached(
            "INSERT INTO sample_statements (run_id, statement, seq, count, lat_p50_ms, lat_p95_ms, lat_p99_ms, lat_max_ms)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        )?;
        for (name, h) in kinds.iter().zip(&iv.kinds).filter(|(_, h)| h.count() > 0) {
            add.execute(params![
                run,
                name,
                seq as i64,
                h.count() as i64,
                h.quantile_ms(0.50),
                h.quantile_ms(0.95),
                h.quantile_ms(0.99),
                h.max_ms(),
            ])?;
        }
        drop(add);
        tx.commit()?;
        Ok(())
    }

    /// Records how the run ended, its totals, statements and histogram.
    pub fn finish_run(&self, run: i64, r: &RunResult, summary: &RunDocument) -> Result<()> {
        let (status, reason) = (r.status.word(), r.status.reason());
        let t = &r.total;
        let secs = r.elapsed.max(1e-9);
        let tx = self.conn.unchecked_transaction()?;
        tx.execute(
            "UPDATE runs SET ended_at = ?2, status = ?3, reason = ?4, seconds = ?5, transactions = ?6, queries = ?7,
                reads = ?8, writes = ?9, others = ?10, errors = ?11, reconnects = ?12, tps = ?13, qps = ?14,
                lat_p50_ms = ?15, lat_p95_ms = ?16, lat_p99_ms = ?17, lat_p999_ms = ?18, lat_max_ms = ?19,
                client_cpu_s = ?20, host_cpu_s = ?21, summary = ?22, server_version = COALESCE(server_version, ?23),
                failed_events = ?24, failed_connects = ?25, unreachable_s = ?26
             WHERE id = ?1",
            params![
                run,
                now(),
                status,
                reason,
                secs,
                t.events as i64,
                t.queries() as i64,
                t.reads as i64,
                t.writes as i64,
                t.others as i64,
                t.errors.total() as i64,
                t.reconnects as i64,
                r.tps(),
                r.qps(),
                t.hist.quantile_ms(0.50),
                t.hist.quantile_ms(0.95),
                t.hist.quantile_ms(0.99),
                t.hist.quantile_ms(0.999),
                t.hist.max_ms(),
                r.client_cpu_s,
                r.host_cpu_s,
                document_text(summary)?,
                r.server_version,
                t.failed as i64,
                t.failed_connects as i64,
                r.unreachable_s,
            ],
        )?;
        for k in &r.kinds {
            tx.execute(
                "INSERT OR REPLACE INTO run_statements (run_id, statement, count, lat_avg_ms, lat_p95_ms, lat_p99_ms, lat_max_ms, histogram)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                params![
                    run,
                    k.name,
                    k.count as i64,
                    k.hist.mean_ms(),
                    k.hist.quantile_ms(0.95),
                    k.hist.quantile_ms(0.99),
                    k.hist.max_ms(),
                    k.hist.to_v2_bytes(),
                ],
            )?;
        }
        tx.execute(
            "INSERT OR REPLACE INTO histograms (run_id, unit, encoding, data) VALUES (?1, 'us', 'hdr-v2', ?2)",
            params![run, t.hist.to_v2_bytes()],
        )?;
        fill_listed(&tx, run)?;
        tx.commit()?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn timestamps_are_rfc3339() {
        let t = super::now();
        assert_eq!(t.len(), 24, "{t}");
        assert!(t.ends_with('Z') && t.as_bytes()[10] == b'T', "{t}");
        assert!(t.as_str() > "2024-01-01");
    }
}
