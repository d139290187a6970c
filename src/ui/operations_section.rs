//! The campaign page's per-operation table, for families whose events
//! are operations (LinkBench's ten, TPC-C's five): for each workload,
//! series (label/variant) and user count, the median over repeats of each
//! operation's rate (ops/s) and p99, and the total ops/s. Renders; reads
//! only the runs' stored `operations` blocks (`Store::campaign_parts`).

use super::page::num;
use crate::stats::document::OperationFigures;
use crate::store::{RunParts, RunRow};
use maud::{html, Markup};
use std::collections::BTreeMap;

/// A row: workload, series, users.
type RowKey = (String, String, i64);

/// A row and each of its repeats' operations.
type Row<'a> = (&'a RowKey, &'a Vec<Vec<OperationFigures>>);

/// The median of `v`; None for none.
fn median(v: Vec<f64>) -> Option<f64> {
    (!v.is_empty()).then(|| crate::analyze::spread::median(&v))
}

/// The section; empty when no run of `ok` has operations.
/// `parts`: the campaign's runs' parts (`Store::campaign_parts`).
pub fn campaign_section(parts: &BTreeMap<i64, RunParts>, ok: &[RunRow]) -> Markup {
    // per row: each repeat's operations
    let mut rows: BTreeMap<RowKey, Vec<Vec<OperationFigures>>> = BTreeMap::new();
    for r in ok {
        let Some(ops) = parts.get(&r.id).and_then(|p| p.operations.clone()) else {
            continue;
        };
        if ops.is_empty() {
            continue;
        }
        rows.entry((
            r.workload.clone(),
            super::dbt3_section::series_of(r),
            r.threads,
        ))
        .or_default()
        .push(ops);
    }
    if rows.is_empty() {
        return html! {};
    }
    let mut workloads: BTreeMap<&str, Vec<Row>> = BTreeMap::new();
    for (k, v) in &rows {
        workloads.entry(k.0.as_str()).or_default().push((k, v));
    }
    html! {
        h2 { "Operations" }
        p.meta { "Each operation's rate (ops/s) and p99 (ms), the median over a point's repeats." }
        @for (workload, rows) in &workloads {
            @let names = op_names(rows);
            h3 { (workload) }
            table.operations {
                tr {
                    th.l { "series" } th { "users" } th { "ops/s" }
                    @for n in &names { th { (n) " ops/s" } th { (n) " p99" } }
                }
                @for (key, repeats) in rows {
                    @let total = median(repeats.iter().map(|ops| ops.iter().map(|o| o.per_s).sum()).collect());
                    tr {
                        td.l { (key.1) } td { (key.2) } td { (num(total, 4)) }
                        @for n in &names {
                            @let of = |f: fn(&OperationFigures) -> Option<f64>| median(repeats.iter()
                                .filter_map(|ops| ops.iter().find(|o| &o.op == n).and_then(f)).collect());
                            td { (num(of(|o| Some(o.per_s)), 4)) }
                            td { (num(of(|o| o.latency_ms.percentiles.get("p99").copied()), 3)) }
                        }
                    }
                }
            }
        }
    }
}

/// The operations' names, in the order the first run gives them.
fn op_names(rows: &[Row]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for (_, repeats) in rows {
        for ops in repeats.iter() {
            for o in ops {
                if !names.contains(&o.op) {
                    names.push(o.op.clone());
                }
            }
        }
    }
    names
}
