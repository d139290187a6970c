//! Recovering runs left "running" by a process that no longer exists
//! (killed, crashed, host rebooted): marked failed, with totals computed
//! from the samples they kept (`mark_dead_runs`, a write), or shown so to a
//! read-only open by a TEMP view that shadows the runs table
//! (`overlay_dead_runs`, nothing written).

use super::db::{IsAlive, Store};
use super::write::boot_id;
use anyhow::Result;
use rusqlite::params;

/// Why a run still "running" in the store is not: its process is gone.
const DEAD_REASON: &str =
    "the qpslab process ended before the run finished (killed or crashed); totals are from its samples";

/// The columns a dead run's row gets from `compute_dead_runs`.
const DEAD_COLUMNS: [&str; 15] = [
    "status",
    "reason",
    "ended_at",
    "seconds",
    "transactions",
    "queries",
    "reads",
    "writes",
    "others",
    "reconnects",
    "tps",
    "qps",
    "client_cpu_s",
    "lat_p95_ms",
    "lat_p99_ms",
];

/// True when the run's process (pid on boot `boot`) is no longer running.
fn process_gone(pid: i64, boot: &str, this_boot: &str, alive: IsAlive) -> bool {
    let mine = pid == i64::from(std::process::id()) && boot == this_boot;
    !(mine || (boot == this_boot && alive(pid)))
}

impl Store {
    /// Runs still "running" in the store whose process is gone.
    fn dead_run_ids(&self, alive: IsAlive) -> Result<Vec<i64>> {
        let boot = boot_id();
        let mut stmt = self
            .conn
            .prepare("SELECT id, pid, boot_id FROM main.runs WHERE status = 'running'")?;
        let running: Vec<(i64, i64, String)> = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
            .collect::<rusqlite::Result<_>>()?;
        Ok(running
            .into_iter()
            .filter(|(_, pid, b)| process_gone(*pid, b, &boot, alive))
            .map(|(id, _, _)| id)
            .collect())
    }

    /// Fills the TEMP table `dead_runs` with how each of `ids` reads once
    /// known dead: failed, totals from its measured samples, ended at its
    /// last sample.
    fn compute_dead_runs(&self, ids: &[i64]) -> Result<()> {
        self.conn
            .execute_batch("DROP TABLE IF EXISTS temp.dead_runs")?;
        self.conn.execute(
            "CREATE TEMP TABLE dead_runs AS
             SELECT r.id AS id, 'failed' AS status, ?1 AS reason,
                    strftime('%Y-%m-%dT%H:%M:%fZ', r.started_at, '+' || COALESCE(a.dur, 0) || ' seconds') AS ended_at,
                    s.secs AS seconds, s.ev AS transactions, s.q AS queries, s.r AS reads, s.w AS writes,
                    s.o AS others, s.rc AS reconnects, s.ev / s.secs AS tps, s.q / s.secs AS qps,
                    s.cpu AS client_cpu_s, s.p95 AS lat_p95_ms, s.p99 AS lat_p99_ms
             FROM main.runs r
             LEFT JOIN (SELECT run_id, SUM(dur) AS secs, SUM(events) AS ev, SUM(reads + writes + others) AS q,
                               SUM(reads) AS r, SUM(writes) AS w, SUM(others) AS o, SUM(reconnects) AS rc,
                               SUM(client_cpu_s) AS cpu, MAX(lat_p95_ms) AS p95, MAX(lat_p99_ms) AS p99
                        FROM main.samples WHERE warmup = 0 GROUP BY run_id) s ON s.run_id = r.id
             LEFT JOIN (SELECT run_id, SUM(dur) AS dur FROM main.samples GROUP BY run_id) a ON a.run_id = r.id
             WHERE r.id IN (SELECT value FROM json_each(?2))",
            params![DEAD_REASON, serde_json::to_string(ids)?],
        )?;
        Ok(())
    }

    /// Marks runs whose process is gone as failed (see `compute_dead_runs`).
    /// A read-only store is never written: `overlay_dead_runs` shows it so.
    pub fn mark_dead_runs(&self, alive: IsAlive) -> Result<usize> {
        if self.read_only {
            return Ok(0);
        }
        let ids = self.dead_run_ids(alive)?;
        if ids.is_empty() {
            return Ok(0);
        }
        self.compute_dead_runs(&ids)?;
        let cols = DEAD_COLUMNS.join(", ");
        self.conn.execute(
            &format!(
                "UPDATE main.runs SET ({cols}) = (SELECT {cols} FROM temp.dead_runs d WHERE d.id = main.runs.id)
                 WHERE id IN (SELECT id FROM temp.dead_runs)"
            ),
            [],
        )?;
        self.conn.execute_batch("DROP TABLE temp.dead_runs")?;
        Ok(ids.len())
    }

    /// For a read-only store: a TEMP view named `runs` shadows the table
    /// for this connection only, showing dead runs as `mark_dead_runs`
    /// would write them, with the columns an older schema lacks (`added`:
    /// name, SQL value; see `schema::read_compat`). Nothing reaches the
    /// file.
    pub(super) fn overlay_dead_runs(
        &self,
        alive: IsAlive,
        added: &[(String, String)],
    ) -> Result<()> {
        let ids = self.dead_run_ids(alive)?;
        if ids.is_empty() && added.is_empty() {
            return Ok(());
        }
        self.compute_dead_runs(&ids)?;
        let mut st = self
            .conn
            .prepare("SELECT name FROM pragma_table_info('runs', 'main')")?;
        let cols: Vec<String> = st
            .query_map([], |r| r.get(0))?
            .collect::<rusqlite::Result<_>>()?;
        let select: Vec<String> = cols
            .iter()
            .map(|c| {
                if DEAD_COLUMNS.contains(&c.as_str()) {
                    format!("CASE WHEN d.id IS NULL THEN r.{c} ELSE d.{c} END AS {c}")
                } else {
                    format!("r.{c} AS {c}")
                }
            })
            .chain(added.iter().map(|(c, v)| format!("{v} AS {c}")))
            .collect();
        self.conn.execute_batch(&format!(
            "CREATE TEMP VIEW runs AS SELECT {} FROM main.runs r LEFT JOIN temp.dead_runs d ON d.id = r.id",
            select.join(", ")
        ))?;
        Ok(())
    }
}
