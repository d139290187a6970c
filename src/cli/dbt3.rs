//! The DBT3 commands that differ from the other workloads': `prepare
//! dbt3` (its own report: scale, rows, rows/s) and `check dbt3` (row
//! counts for the scale, orders against line items; exit 1 with the
//! offenders when one does not hold).

use super::plan::LoadPlan;
use anyhow::{bail, Result};

/// `prepare dbt3`: its loaders, its own report.
pub(super) fn prepare(p: &LoadPlan) -> Result<()> {
    let Some(family) = p.dbt3() else {
        bail!("{} is not dbt3", p.workload_name);
    };
    let loaders = match family.opts().loaders {
        0 => p.loaders()?,
        n => n as usize,
    };
    let rep = p.prepare_with_progress(family.as_ref(), loaders)?;
    let rate = rep.rows as f64 / rep.seconds.max(1e-9);
    let scale = family.opts().scale_text();
    if p.output.json() {
        outln!(
            "{}",
            serde_json::json!({"scale": family.opts().scale, "rows": rep.rows, "seconds": rep.seconds,
                "rows_per_s": rate, "loaders": loaders})
        );
    } else {
        outln!(
            "prepared DBT3 at scale {scale}: {} rows in {:.2} s ({rate:.0} rows/s, {loaders} loaders, LOAD DATA LOCAL)",
            rep.rows,
            rep.seconds
        );
    }
    Ok(())
}

/// `check dbt3`: the row counts and order/line-item conditions (exit 1
/// when one is broken).
pub(super) fn check(p: &LoadPlan) -> Result<i32> {
    let Some(family) = p.dbt3() else {
        bail!("{} is not dbt3", p.workload_name);
    };
    let t = p.target()?;
    crate::lab::block_on(crate::lab::ready(&t, family.as_ref()))??;
    let conditions = crate::lab::check_dbt3(&t, &family)?;
    let broken = conditions
        .iter()
        .filter(|c| !c.violations.is_empty())
        .count();
    if p.output.json() {
        outln!(
            "{}",
            serde_json::json!({"conditions": conditions, "violated": broken})
        );
    } else {
        for c in &conditions {
            if c.violations.is_empty() {
                outln!("{}: ok", c.what);
            } else {
                outln!("{}: VIOLATED, e.g. {}", c.what, c.violations.join(" | "));
            }
        }
        if broken == 0 {
            outln!("consistent: all {} conditions hold", conditions.len());
        } else {
            outln!(
                "INCONSISTENT: {broken} of {} conditions violated",
                conditions.len()
            );
        }
    }
    Ok(i32::from(broken > 0))
}
