//! The parts of stored runs a page that lists many runs needs of each (a
//! campaign's pre-flight checks, its operations), read alone: without
//! `run_detail`'s whole row, samples, statements and histogram, and
//! without parsing the documents they come from. A campaign page of 500
//! points read each run's detail twice (four-fifths of its time), then
//! each run's host and 30 KB summary documents (issue 37 item 5); the
//! parts are now columns (schema v11), a campaign's in one partial
//! index (`schema::HAS_PARTS`).

use super::read::document;
use super::Store;
use crate::stats::document::{OperationFigures, Preflight};
use anyhow::Result;
use rusqlite::{params, OptionalExtension};
use std::collections::BTreeMap;

/// What a campaign page reads of one run besides its listed columns.
#[derive(Debug, Clone, Default)]
pub struct RunParts {
    /// The pre-flight check of the run's round (the idle host's noise).
    pub preflight: Option<Preflight>,
    /// The figures of each operation (LinkBench, the insert benchmark…).
    pub operations: Option<Vec<OperationFigures>>,
}

impl Store {
    /// A run's pre-flight check (the host's idle noise before its round),
    /// None when the run had none or does not exist.
    pub fn run_preflight(&self, id: i64) -> Result<Option<Preflight>> {
        self.run_part(id, "preflight")
    }

    /// A run's operations (LinkBench, the insert benchmark…), None when
    /// it has none or does not exist.
    pub fn run_operations(&self, id: i64) -> Result<Option<Vec<OperationFigures>>> {
        self.run_part(id, "operations")
    }

    /// The parts of campaign `id`'s runs, by run id: the runs that have
    /// a pre-flight check or operations (the others are not in the map).
    /// One query, answered from an index in a store of schema v11.
    pub fn campaign_parts(&self, id: i64) -> Result<BTreeMap<i64, RunParts>> {
        let mut st = self.conn.prepare(&format!(
            "SELECT id, preflight, operations FROM runs WHERE campaign_id = ?1 AND {}",
            super::schema::HAS_PARTS
        ))?;
        let rows = st.query_map(params![id], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, Option<String>>(1)?,
                r.get::<_, Option<String>>(2)?,
            ))
        })?;
        let mut out = BTreeMap::new();
        for row in rows {
            let (run, preflight, operations) = row?;
            out.insert(
                run,
                RunParts {
                    preflight: document::<Option<Preflight>>(preflight),
                    operations: document::<Option<Vec<OperationFigures>>>(operations),
                },
            );
        }
        Ok(out)
    }

    /// Column `col` (JSON text) of run `id`, read into its type.
    fn run_part<T: serde::de::DeserializeOwned>(&self, id: i64, col: &str) -> Result<Option<T>> {
        let text: Option<Option<String>> = self
            .conn
            .query_row(
                &format!("SELECT {col} FROM runs WHERE id = ?1"),
                params![id],
                |r| r.get(0),
            )
            .optional()?;
        Ok(document::<Option<T>>(text.flatten()))
    }
}
