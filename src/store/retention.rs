//! Retention: which runs a prune deletes (`prune_plan`: started before a
//! date, with what is kept where asked), deleting them (`prune`), and
//! giving the freed pages back to the file system (`vacuum`). Decides
//! nothing by itself: the date and what to keep are the caller's, and
//! nothing is deleted but the plan it is handed.

use super::Store;
use anyhow::{bail, Result};
use rusqlite::params;
use serde::Serialize;

/// What `prune_plan` keeps besides the runs started on or after its date.
#[derive(Debug, Clone, Default)]
pub struct PruneKeep {
    /// Keep every run that belongs to a campaign or a sweep.
    pub campaigns: bool,
    /// Keep every run with a tag.
    pub tagged: bool,
}

/// What a prune deletes, counted before anything goes.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct PrunePlan {
    /// The runs (ids), oldest first.
    pub runs: Vec<i64>,
    /// Their per-interval samples.
    pub samples: i64,
    /// Their monitor snapshots.
    pub snapshots: i64,
    /// The bytes of their rows' values, every table together (the file
    /// shrinks by about this much once vacuumed).
    pub bytes: i64,
    /// Campaigns (and sweeps) created before the date left with no run:
    /// deleted with them.
    pub campaigns: Vec<i64>,
    /// Runs started before the date and kept: pinned baselines.
    pub kept_baselines: i64,
    /// ... in a campaign (`PruneKeep::campaigns`).
    pub kept_in_campaigns: i64,
    /// ... tagged (`PruneKeep::tagged`).
    pub kept_tagged: i64,
    /// ... still being recorded.
    pub kept_running: i64,
}

/// The store file's size before and after a vacuum, in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Vacuumed {
    /// Pages in use and free before.
    pub before: i64,
    /// After.
    pub after: i64,
}

/// The runs started before `?1` (a date or timestamp, compared as text
/// with `started_at`'s RFC 3339).
const BEFORE: &str = "started_at < ?1";

impl Store {
    /// The runs started before `before` (YYYY-MM-DD, or a timestamp in
    /// the store's RFC 3339 form) that a prune would delete: not pinned
    /// as a baseline, not still running, and not kept by `keep`; with
    /// what they hold (nothing is written).
    pub fn prune_plan(&self, before: &str, keep: &PruneKeep) -> Result<PrunePlan> {
        let count = |cond: &str| -> Result<i64> {
            Ok(self.conn.query_row(
                &format!("SELECT COUNT(*) FROM runs WHERE {BEFORE} AND {cond}"),
                [before],
                |r| r.get(0),
            )?)
        };
        let baseline = "id IN (SELECT run_id FROM baselines)";
        let running = "status = 'running'";
        let in_campaign = "campaign_id IS NOT NULL";
        let tagged = "id IN (SELECT run_id FROM run_tags)";
        let mut kept = vec![baseline, running];
        if keep.campaigns {
            kept.push(in_campaign);
        }
        if keep.tagged {
            kept.push(tagged);
        }
        let mut plan = PrunePlan {
            kept_baselines: count(baseline)?,
            kept_running: count(&format!("{running} AND NOT {baseline}"))?,
            ..Default::default()
        };
        let not_kept = |c: &str| format!("{c} AND NOT ({baseline} OR {running})");
        if keep.campaigns {
            plan.kept_in_campaigns = count(&not_kept(in_campaign))?;
        }
        if keep.tagged {
            let not_campaign = if keep.campaigns {
                format!(" AND NOT {in_campaign}")
            } else {
                String::new()
            };
            plan.kept_tagged = count(&format!("{}{not_campaign}", not_kept(tagged)))?;
        }
        let mut st = self.conn.prepare(&format!(
            "SELECT id FROM runs WHERE {BEFORE} AND NOT ({}) ORDER BY id",
            kept.join(" OR ")
        ))?;
        plan.runs = st
            .query_map([before], |r| r.get(0))?
            .collect::<rusqlite::Result<_>>()?;
        if plan.runs.is_empty() {
            return Ok(plan);
        }
        let ids = serde_json::to_string(&plan.runs)?;
        self.conn
            .execute_batch("DROP TABLE IF EXISTS temp.prune_ids")?;
        self.conn.execute(
            "CREATE TEMP TABLE prune_ids AS SELECT value AS id FROM json_each(?1)",
            [&ids],
        )?;
        let (samples, snapshots): (i64, i64) = self.conn.query_row(
            "SELECT (SELECT COUNT(*) FROM samples WHERE run_id IN (SELECT id FROM temp.prune_ids)),
                    (SELECT COUNT(*) FROM metric_snaps WHERE run_id IN (SELECT id FROM temp.prune_ids))",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )?;
        plan.samples = samples;
        plan.snapshots = snapshots;
        plan.bytes = self.rows_bytes()?;
        let mut st = self.conn.prepare(
            "SELECT c.id FROM campaigns c WHERE c.created_at < ?1
               AND EXISTS (SELECT 1 FROM runs r WHERE r.campaign_id = c.id)
               AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.campaign_id = c.id
                               AND r.id NOT IN (SELECT id FROM temp.prune_ids))
             ORDER BY c.id",
        )?;
        plan.campaigns = st
            .query_map([before], |r| r.get(0))?
            .collect::<rusqlite::Result<_>>()?;
        self.conn.execute_batch("DROP TABLE temp.prune_ids")?;
        Ok(plan)
    }

    /// The bytes of the values of the runs in `temp.prune_ids`, every
    /// table that holds a run's rows (a value's length; a number counted
    /// as 8 bytes, a row's header as 4).
    fn rows_bytes(&self) -> Result<i64> {
        let tables: Vec<String> = self
            .conn
            .prepare("SELECT name FROM main.sqlite_master WHERE type = 'table' ORDER BY name")?
            .query_map([], |r| r.get(0))?
            .collect::<rusqlite::Result<_>>()?;
        let mut total = 0i64;
        for t in tables {
            let cols: Vec<(String, String)> = self
                .conn
                .prepare(&format!(
                    "SELECT name, type FROM pragma_table_info('{t}', 'main')"
                ))?
                .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
                .collect::<rusqlite::Result<_>>()?;
            let key = match (t.as_str(), cols.iter().any(|(c, _)| c == "run_id")) {
                ("runs", _) => "id",
                (_, true) => "run_id",
                _ => continue,
            };
            let sizes: Vec<String> = cols
                .iter()
                .map(|(c, ty)| match ty.to_ascii_uppercase().as_str() {
                    "INTEGER" | "REAL" => "8".to_string(),
                    _ => format!("COALESCE(octet_length(\"{c}\"), 0)"),
                })
                .collect();
            let n: Option<i64> = self.conn.query_row(
                &format!(
                    "SELECT SUM(4 + {}) FROM main.\"{t}\" WHERE {key} IN (SELECT id FROM temp.prune_ids)",
                    sizes.join(" + ")
                ),
                [],
                |r| r.get(0),
            )?;
            total += n.unwrap_or(0);
        }
        Ok(total)
    }

    /// Deletes the runs of `plan` with everything they own (the schema's
    /// cascades) and its emptied campaigns, in one transaction; returns
    /// how many runs went. A run the plan names that is gone, pinned or
    /// running since is left alone.
    pub fn prune(&self, plan: &PrunePlan) -> Result<usize> {
        if self.read_only {
            bail!("the results store was opened read-only");
        }
        let fk: bool = self
            .conn
            .pragma_query_value(None, "foreign_keys", |r| r.get(0))?;
        if !fk {
            bail!("foreign keys are off on the results store: refusing a prune that would leave runs' rows behind");
        }
        let tx = self.conn.unchecked_transaction()?;
        let n = tx.execute(
            "DELETE FROM runs WHERE id IN (SELECT value FROM json_each(?1))
               AND status <> 'running' AND id NOT IN (SELECT run_id FROM baselines)",
            [serde_json::to_string(&plan.runs)?],
        )?;
        tx.execute(
            "DELETE FROM campaigns WHERE id IN (SELECT value FROM json_each(?1))
               AND NOT EXISTS (SELECT 1 FROM runs WHERE campaign_id = campaigns.id)",
            [serde_json::to_string(&plan.campaigns)?],
        )?;
        tx.commit()?;
        Ok(n)
    }

    /// Rewrites the store without its free pages (SQLite's VACUUM, after
    /// a checkpoint of the WAL); its size before and after. Needs free
    /// disk space about the store's size while it runs.
    pub fn vacuum(&self) -> Result<Vacuumed> {
        if self.read_only {
            bail!("the results store was opened read-only");
        }
        let size = |conn: &rusqlite::Connection| -> Result<i64> {
            Ok(conn.query_row(
                "SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()",
                params![],
                |r| r.get(0),
            )?)
        };
        self.conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE)")?;
        let before = size(&self.conn)?;
        self.conn.execute_batch("VACUUM")?;
        self.conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE)")?;
        Ok(Vacuumed {
            before,
            after: size(&self.conn)?,
        })
    }
}
