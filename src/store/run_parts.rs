//! One part of a stored run, read alone: what a page that lists many runs
//! needs of each (a campaign's pre-flight checks, its operations), without
//! `run_detail`'s whole row, samples, statements and histogram. A
//! campaign page of 500 points read each run's detail twice, four-fifths
//! of its time (issue 37 item 5).

use super::read::document;
use super::Store;
use crate::stats::document::{OperationFigures, Preflight};
use anyhow::Result;
use rusqlite::{params, OptionalExtension};

impl Store {
    /// A run's pre-flight check (the host's idle noise before its round),
    /// None when the run had none or does not exist.
    pub fn run_preflight(&self, id: i64) -> Result<Option<Preflight>> {
        self.run_part(id, "json_extract(host, '$.preflight')")
    }

    /// A run's operations (LinkBench, the insert benchmark…), None when
    /// it has none or does not exist.
    pub fn run_operations(&self, id: i64) -> Result<Option<Vec<OperationFigures>>> {
        self.run_part(id, "json_extract(summary, '$.operations')")
    }

    /// The JSON text `expr` selects from run `id`, read into its type.
    fn run_part<T: serde::de::DeserializeOwned>(&self, id: i64, expr: &str) -> Result<Option<T>> {
        let text: Option<Option<String>> = self
            .conn
            .query_row(
                &format!("SELECT {expr} FROM runs WHERE id = ?1"),
                params![id],
                |r| r.get(0),
            )
            .optional()?;
        Ok(document::<Option<T>>(text.flatten()))
    }
}
