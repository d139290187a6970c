//! The dbSTRESS commands that differ from the other workloads': `prepare
//! dbstress` (its own report: objects, history rows, seconds) and `check
//! dbstress` (the consistency conditions; exit 1 when one is broken), and
//! `prepare insert-benchmark` (the table and its indexes).

use super::check_report;
use super::plan::LoadPlan;
use anyhow::{bail, Result};

/// `prepare dbstress`: its loaders, its own report.
pub(super) fn prepare(p: &LoadPlan) -> Result<()> {
    let Some(family) = p.dbstress() else {
        bail!("{} is not dbstress", p.workload_name);
    };
    let loaders = p.loaders()?;
    let json = p.output.json();
    let rep = p.prepare_with_progress(family.as_ref(), loaders)?;
    let o = family.opts();
    let rate = rep.rows as f64 / rep.seconds.max(1e-9);
    if json {
        outln!(
            "{}",
            serde_json::json!({"objects": o.objects, "history_per_object": o.history_per_object,
                "history_tables": o.history_tables, "rows": rep.rows, "seconds": rep.seconds,
                "rows_per_s": rate, "loaders": loaders})
        );
    } else {
        outln!(
            "prepared {} with {} each over {}: {} rows in {:.2} s ({:.0} rows/s, {loaders} loaders)",
            crate::out::counted(o.objects, "object"),
            crate::out::counted(o.history_per_object, "history row"),
            crate::out::counted(o.history_tables, "history table"),
            rep.rows,
            rep.seconds,
            rate,
        );
    }
    Ok(())
}

/// `check dbstress`: the consistency conditions (exit 1 when one is
/// broken).
pub(super) fn check(p: &LoadPlan) -> Result<i32> {
    let Some(family) = p.dbstress() else {
        bail!("{} is not dbstress", p.workload_name);
    };
    let t = p.existing_target()?;
    let rep = crate::lab::check_dbstress(&t, &family)?;
    let lines: Vec<_> = rep
        .conditions
        .iter()
        .map(|c| check_report::Condition {
            label: c.what.clone(),
            violations: &c.violations,
        })
        .collect();
    let writes = format!("write transactions recorded on the objects: {}", rep.writes);
    check_report::print(p.output.json(), ("check", &rep), &lines, &[writes])
}

/// `prepare insert-benchmark`: the table and its secondary indexes (the
/// rows come from runs), with the index build timed.
pub(super) fn prepare_ibench(p: &LoadPlan) -> Result<()> {
    let Some(family) = p.ibench() else {
        bail!("{} is not insert-benchmark", p.workload_name);
    };
    let t = p.target()?;
    let json = p.output.json();
    let rep = crate::lab::prepare(&t, family.as_ref(), 1, &mut |_| {})?;
    let indexes = family.opts().num_secondary_indexes;
    if json {
        outln!(
            "{}",
            serde_json::json!({"table": "purchases_index", "secondary_indexes": indexes, "seconds": rep.seconds})
        );
    } else {
        outln!(
            "prepared purchases_index with {indexes} secondary {} in {:.2} s",
            if indexes == 1 { "index" } else { "indexes" },
            rep.seconds
        );
    }
    Ok(())
}
