//! The LinkBench commands that differ from the other workloads':
//! `prepare linkbench` (its own report: nodes, rows, rows/s, the load
//! method) and `check linkbench` (counttable against the visible links;
//! exit 1 with the first offenders when it does not hold).

use super::check_report;
use super::plan::LoadPlan;
use anyhow::{bail, Result};

/// `prepare linkbench`: its loaders, its own report.
pub(super) fn prepare(p: &LoadPlan) -> Result<()> {
    let Some(family) = p.linkbench() else {
        bail!("{} is not linkbench", p.workload_name);
    };
    let loaders = match family.opts().loaders {
        0 => p.loaders()?,
        n => n as usize,
    };
    let json = p.output.json();
    let rep = p.prepare_with_progress(family.as_ref(), loaders)?;
    let o = family.opts();
    let rate = rep.rows as f64 / rep.seconds.max(1e-9);
    let method = if o.load_infile { "infile" } else { "insert" };
    if json {
        outln!(
            "{}",
            serde_json::json!({"nodes": o.nodes(), "rows": rep.rows, "seconds": rep.seconds,
                "rows_per_s": rate, "loaders": loaders, "load_method": method,
                "load_via": o.load_infile.then(|| rep.load_via()), "pipe_note": rep.pipe_note})
        );
    } else {
        let method = if o.load_infile {
            crate::report::load_route(&rep)
        } else {
            "multi-row INSERTs".into()
        };
        outln!(
            "prepared a LinkBench graph of {} nodes: {} rows in {:.2} s ({rate:.0} rows/s, {loaders} loaders, {method})",
            o.nodes(),
            rep.rows,
            rep.seconds
        );
    }
    Ok(())
}

/// `check linkbench`: the count conditions (exit 1 when one is broken).
pub(super) fn check(p: &LoadPlan) -> Result<i32> {
    let Some(family) = p.linkbench() else {
        bail!("{} is not linkbench", p.workload_name);
    };
    let t = p.existing_target()?;
    crate::lab::block_on(crate::lab::ready(&t, family.as_ref()))??;
    let conditions = crate::lab::check_linkbench(&t, &family)?;
    let lines: Vec<_> = conditions
        .iter()
        .map(|c| check_report::Condition {
            label: c.what.to_string(),
            violations: &c.violations,
        })
        .collect();
    check_report::print(p.output.json(), ("conditions", &conditions), &lines, &[])
}
