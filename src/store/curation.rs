//! Curating stored runs: their tags, note and excluded mark, deleting a
//! run with everything it owns (the schema's ON DELETE CASCADE, foreign
//! keys on), and the baselines pinned per workload and label. Keeps and
//! reads only: which run may be deleted, and what a tag may be, is the
//! caller's to decide (lab).

use super::Store;
use anyhow::{bail, Result};
use rusqlite::{params, OptionalExtension};
use serde::Serialize;

/// A baseline pinned for a workload (and a label; None: any label).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Baseline {
    /// The workload's name, as runs store it.
    pub workload: String,
    /// The label it is pinned for; None: runs of any label.
    pub label: Option<String>,
    /// The baseline run.
    pub run_id: i64,
    /// When it was pinned (RFC 3339, UTC).
    pub pinned_at: String,
}

/// What deleting a run removes with it, counted before it goes.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct RunFootprint {
    /// Per-interval samples.
    pub samples: i64,
    /// The monitor's snapshots.
    pub snapshots: i64,
    /// Folded profile stacks.
    pub stacks: i64,
}

impl Store {
    fn writable(&self) -> Result<()> {
        if self.read_only {
            bail!("the results store was opened read-only");
        }
        Ok(())
    }

    /// Adds `tags` to run `id` (a tag it has already is kept once).
    pub fn add_tags(&self, id: i64, tags: &[String]) -> Result<()> {
        self.writable()?;
        let tx = self.conn.unchecked_transaction()?;
        for t in tags {
            tx.execute(
                "INSERT OR IGNORE INTO run_tags (run_id, tag) VALUES (?1, ?2)",
                params![id, t],
            )?;
        }
        tx.commit()?;
        Ok(())
    }

    /// Removes `tags` from run `id`; returns how many it had.
    pub fn remove_tags(&self, id: i64, tags: &[String]) -> Result<usize> {
        self.writable()?;
        let mut n = 0;
        for t in tags {
            n += self.conn.execute(
                "DELETE FROM run_tags WHERE run_id = ?1 AND tag = ?2",
                params![id, t],
            )?;
        }
        Ok(n)
    }

    /// Sets (Some) or clears (None) the note of run `id`.
    pub fn set_note(&self, id: i64, note: Option<&str>) -> Result<()> {
        self.writable()?;
        self.conn
            .execute("UPDATE runs SET note = ?2 WHERE id = ?1", params![id, note])?;
        Ok(())
    }

    /// Marks run `id` excluded from analyses (or not).
    pub fn set_excluded(&self, id: i64, excluded: bool) -> Result<()> {
        self.writable()?;
        self.conn.execute(
            "UPDATE runs SET excluded = ?2 WHERE id = ?1",
            params![id, excluded],
        )?;
        Ok(())
    }

    /// What run `id` owns (counted), or None for no such run.
    pub fn run_footprint(&self, id: i64) -> Result<Option<RunFootprint>> {
        Ok(self
            .conn
            .query_row(
                "SELECT (SELECT COUNT(*) FROM samples WHERE run_id = ?1),
                        (SELECT COUNT(*) FROM metric_snaps WHERE run_id = ?1),
                        (SELECT COUNT(*) FROM profile_stacks WHERE run_id = ?1)
                 FROM runs WHERE id = ?1",
                [id],
                |r| {
                    Ok(RunFootprint {
                        samples: r.get(0)?,
                        snapshots: r.get(1)?,
                        stacks: r.get(2)?,
                    })
                },
            )
            .optional()?)
    }

    /// Deletes run `id` and everything it owns (samples, statements,
    /// histograms, snapshots, notes, profiles, tags, a baseline pinned to
    /// it). Returns whether it was there.
    pub fn delete_run(&self, id: i64) -> Result<bool> {
        self.writable()?;
        let fk: bool = self
            .conn
            .pragma_query_value(None, "foreign_keys", |r| r.get(0))?;
        if !fk {
            bail!("foreign keys are off on the results store: refusing a delete that would leave a run's rows behind");
        }
        Ok(self.conn.execute("DELETE FROM runs WHERE id = ?1", [id])? > 0)
    }

    /// Pins run `run` as the baseline of `workload` (for `label`; None:
    /// any label), replacing the one pinned before.
    pub fn pin_baseline(&self, workload: &str, label: Option<&str>, run: i64) -> Result<()> {
        self.writable()?;
        self.conn.execute(
            "INSERT OR REPLACE INTO baselines (workload, label, run_id, pinned_at) VALUES (?1, ?2, ?3, ?4)",
            params![workload, label.unwrap_or(""), run, super::write::now()],
        )?;
        Ok(())
    }

    /// Unpins the baseline of `workload` for `label` (None: the one for any
    /// label); returns whether there was one.
    pub fn clear_baseline(&self, workload: &str, label: Option<&str>) -> Result<bool> {
        self.writable()?;
        Ok(self.conn.execute(
            "DELETE FROM baselines WHERE workload = ?1 AND label = ?2",
            params![workload, label.unwrap_or("")],
        )? > 0)
    }

    /// Every pinned baseline, by workload then label.
    pub fn baselines(&self) -> Result<Vec<Baseline>> {
        let mut st = self.conn.prepare(
            "SELECT workload, label, run_id, pinned_at FROM baselines ORDER BY workload, label",
        )?;
        let rows = st.query_map([], |r| {
            let label: String = r.get(1)?;
            Ok(Baseline {
                workload: r.get(0)?,
                label: (!label.is_empty()).then_some(label),
                run_id: r.get(2)?,
                pinned_at: r.get(3)?,
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// The baseline of a run of `workload` with `label`: the one pinned
    /// for that label, else the one for any label.
    pub fn baseline_for(&self, workload: &str, label: Option<&str>) -> Result<Option<i64>> {
        Ok(self
            .conn
            .query_row(
                "SELECT run_id FROM baselines WHERE workload = ?1 AND label IN (?2, '')
                 ORDER BY label = '' LIMIT 1",
                params![workload, label.unwrap_or("")],
                |r| r.get(0),
            )
            .optional()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{NewRun, RunFilter};

    fn store(name: &str) -> (Store, std::path::PathBuf) {
        let dir = std::env::temp_dir().join(format!("qpslab-cur-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        (Store::open(&dir.join("s.db")).unwrap(), dir)
    }

    fn run(s: &Store, workload: &str, label: Option<&str>) -> i64 {
        s.begin_run(&NewRun {
            workload: workload.into(),
            label: label.map(str::to_string),
            ..Default::default()
        })
        .unwrap()
    }

    #[test]
    fn tags_note_and_excluded_read_back_and_filter() {
        let (s, dir) = store("tags");
        let (a, b) = (
            run(&s, "oltp_point_select", None),
            run(&s, "oltp_read_only", None),
        );
        s.add_tags(a, &["slow".into(), "io".into(), "slow".into()])
            .unwrap();
        s.add_tags(b, &["io".into()]).unwrap();
        s.set_note(a, Some("disk was full")).unwrap();
        s.set_excluded(b, true).unwrap();
        let all = s.list_runs(&RunFilter::default()).unwrap();
        assert_eq!(all[0].tags, vec!["io", "slow"]);
        assert_eq!(all[0].note.as_deref(), Some("disk was full"));
        assert!(!all[0].excluded && all[1].excluded);
        let slow = s
            .list_runs(&RunFilter {
                tag: Some("slow".into()),
                ..Default::default()
            })
            .unwrap();
        assert_eq!(slow.iter().map(|r| r.id).collect::<Vec<_>>(), vec![a]);
        assert_eq!(
            s.remove_tags(a, &["slow".into(), "nope".into()]).unwrap(),
            1
        );
        s.set_note(a, None).unwrap();
        let r = &s.list_runs(&RunFilter::default()).unwrap()[0];
        assert_eq!(
            (r.tags.clone(), r.note.clone()),
            (vec!["io".to_string()], None)
        );
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn delete_cascades_and_baselines_fall_back_to_any_label() {
        let (s, dir) = store("del");
        let a = run(&s, "oltp_point_select", Some("v1"));
        let b = run(&s, "oltp_point_select", None);
        s.add_tags(a, &["x".into()]).unwrap();
        s.pin_baseline("oltp_point_select", None, b).unwrap();
        s.pin_baseline("oltp_point_select", Some("v1"), a).unwrap();
        assert_eq!(
            s.baseline_for("oltp_point_select", Some("v1")).unwrap(),
            Some(a)
        );
        assert_eq!(
            s.baseline_for("oltp_point_select", Some("v2")).unwrap(),
            Some(b)
        );
        assert_eq!(s.baselines().unwrap().len(), 2);
        assert!(s.run_footprint(a).unwrap().is_some());
        assert!(s.delete_run(a).unwrap());
        assert!(!s.delete_run(a).unwrap());
        assert_eq!(s.run_footprint(a).unwrap(), None);
        // its tags and its pin went with it
        let tags: i64 = s
            .conn
            .query_row("SELECT COUNT(*) FROM run_tags", [], |r| r.get(0))
            .unwrap();
        assert_eq!(tags, 0);
        assert_eq!(
            s.baseline_for("oltp_point_select", Some("v1")).unwrap(),
            Some(b)
        );
        assert!(s.clear_baseline("oltp_point_select", None).unwrap());
        assert_eq!(s.baseline_for("oltp_point_select", None).unwrap(), None);
        std::fs::remove_dir_all(&dir).ok();
    }
}
