//! The TPC-C commands that differ from the other workloads': `prepare
//! tpcc` (its own report: warehouses, rows, seconds per warehouse) and
//! `check tpcc` (the consistency conditions; exit 1 when one is broken).

use super::check_report;
use super::plan::LoadPlan;
use anyhow::{bail, Result};

/// `prepare tpcc`: its loaders, its own report.
pub(super) fn prepare(p: &LoadPlan) -> Result<()> {
    let Some(family) = p.tpcc() else {
        bail!("{} is not tpcc", p.workload_name);
    };
    let loaders = p.loaders()?;
    let json = p.output.json();
    let rep = p.prepare_with_progress(family.as_ref(), loaders)?;
    let o = family.opts();
    let warehouses = f64::from(o.warehouses * o.tables);
    let rate = rep.rows as f64 / rep.seconds.max(1e-9);
    if json {
        outln!(
            "{}",
            serde_json::json!({"table_sets": o.tables, "warehouses": o.warehouses, "rows": rep.rows,
                "seconds": rep.seconds, "rows_per_s": rate, "loaders": loaders})
        );
    } else {
        outln!(
            "prepared {} x {}: {} rows in {:.2} s ({:.0} rows/s, {:.2} s per warehouse, {loaders} loaders)",
            crate::out::counted(o.tables, "table set"),
            crate::out::counted(o.warehouses, "warehouse"),
            rep.rows,
            rep.seconds,
            rate,
            rep.seconds / warehouses.max(1.0)
        );
    }
    Ok(())
}

/// `check tpcc`: the consistency conditions (exit 1 when one is broken).
pub(super) fn check(p: &LoadPlan) -> Result<i32> {
    let Some(family) = p.tpcc() else {
        bail!(
            "`check` knows the consistency conditions of tpcc (`qpslab check tpcc --warehouses N`), linkbench (`qpslab check linkbench`), dbstress (`qpslab check dbstress`) and dbt3 (`qpslab check dbt3 --scale SF`), not of {}",
            p.workload_name
        );
    };
    let t = p.existing_target()?;
    crate::lab::block_on(crate::lab::ready(&t, family.as_ref()))??;
    let conditions = crate::lab::check_tpcc(&t, &family)?;
    let lines: Vec<_> = conditions
        .iter()
        .map(|c| check_report::Condition {
            label: format!("set {} condition {} ({})", c.set, c.number, c.what),
            violations: &c.violations,
        })
        .collect();
    check_report::print(p.output.json(), ("conditions", &conditions), &lines, &[])
}
