//! The DBT3 commands that differ from the other workloads': `prepare
//! dbt3` (its own report: scale, rows, rows/s) and `check dbt3` (row
//! counts for the scale, orders against line items, and with `--answers`
//! the validation queries' answers against a reference; exit 1 with the
//! offenders when one does not hold).

use super::plan::LoadPlan;
use anyhow::{bail, Context, Result};
use std::collections::BTreeMap;
use std::path::Path;

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
                "rows_per_s": rate, "loaders": loaders, "load_via": rep.load_via(), "pipe_note": rep.pipe_note})
        );
    } else {
        outln!(
            "prepared DBT3 at scale {scale}: {} rows in {:.2} s ({rate:.0} rows/s, {loaders} loaders, {})",
            rep.rows,
            rep.seconds,
            crate::report::load_route(&rep)
        );
    }
    Ok(())
}

/// `check dbt3`: the row counts and order/line-item conditions, and with
/// `--answers DIR` the validation queries' answers against DIR's
/// reference answers (exit 1 when a condition is broken or an answer
/// differs).
pub(super) fn check(p: &LoadPlan) -> Result<i32> {
    let Some(family) = p.dbt3() else {
        bail!("{} is not dbt3", p.workload_name);
    };
    let t = p.existing_target()?;
    crate::lab::block_on(crate::lab::ready(&t, family.as_ref()))??;
    let conditions = crate::lab::check_dbt3(&t, &family)?;
    let answers = match family.opts().answers.as_str() {
        "" => None,
        dir => {
            let refs = reference_answers(Path::new(dir), family.opts())?;
            Some(crate::lab::check_dbt3_answers(&t, &family, &refs)?)
        }
    };
    let broken = conditions
        .iter()
        .filter(|c| !c.violations.is_empty())
        .count();
    let differ = answers
        .iter()
        .flatten()
        .filter(|a| !a.differences.is_empty())
        .count();
    if p.output.json() {
        outln!(
            "{}",
            serde_json::json!({"conditions": conditions, "violated": broken,
                "answers": answers, "answers_differ": differ})
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
        if let Some(a) = &answers {
            out!("{}", answers_text(a, &family.opts().answers));
        }
    }
    Ok(i32::from(broken > 0 || differ > 0))
}

/// The reference answers of the chosen queries: `q1.out` … `q22.out` in
/// `dir`.
fn reference_answers(
    dir: &Path,
    o: &crate::workload::dbt3::Dbt3Opts,
) -> Result<BTreeMap<u32, String>> {
    let mut refs = BTreeMap::new();
    for q in o.chosen(&(1..=22).collect::<Vec<u32>>()) {
        let f = dir.join(format!("q{q}.out"));
        let text = std::fs::read_to_string(&f)
            .with_context(|| format!("--answers: the reference answer of Q{q}, {}", f.display()))?;
        refs.insert(q, text);
    }
    Ok(refs)
}

/// Each query's answer against its reference, and the count that match.
fn answers_text(answers: &[crate::workload::dbt3::AnswerCheck], dir: &str) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    for a in answers {
        if a.differences.is_empty() {
            let _ = writeln!(s, "Q{}: answer matches ({} rows)", a.query, a.rows);
        } else {
            let _ = writeln!(
                s,
                "Q{}: ANSWER DIFFERS: {}",
                a.query,
                a.differences.join(" | ")
            );
        }
    }
    let ok = answers.iter().filter(|a| a.differences.is_empty()).count();
    let _ = writeln!(
        s,
        "answers: {ok} of {} match the reference in {dir}",
        answers.len()
    );
    s
}

/// `run dbt3`: the power or throughput test through the family's own
/// driver, each query printed as it ends, then the per-query table, the
/// geometric mean and the composite, and with `--profile` the server's
/// profile (a power test's per query too); stored like any run.
pub(super) fn run(p: &LoadPlan) -> Result<i32> {
    let Some(family) = p.dbt3() else {
        bail!("{} is not dbt3", p.workload_name);
    };
    let t = p.target()?;
    let json = p.output.json();
    // refused before anything runs
    let profile = p.profile_for(&t)?;
    let (tx, rx) = std::sync::mpsc::channel::<crate::workload::dbt3::Event>();
    let printer = std::thread::spawn(move || {
        for e in rx {
            if !json {
                outln!("{e}");
            }
        }
    });
    let rec = &p.recording;
    let r = crate::lab::run_dbt3(
        &t,
        &family,
        &rec.tags(),
        rec.store.as_deref(),
        rec.no_store,
        tx,
        profile.as_ref(),
    );
    let _ = printer.join();
    let r = r?;
    if json {
        outln!(
            "{}",
            serde_json::json!({"workload": crate::workload::Family::name(family.as_ref()),
                "status": r.status, "run_id": r.id, "dbt3": r.block,
                "profile": r.profile.as_ref().map(|p| crate::lab::profile_summary(&p.run))})
        );
    } else {
        out!("{}", summary_text(&r.block));
        if let Some(prof) = &r.profile {
            super::profile::print_profile(&prof.run);
            out!("{}", windows_text(&r.block, r.id));
        }
        let status = match r.status.reason() {
            Some(why) => format!("{} ({why})", r.status.word()),
            None => r.status.word().to_string(),
        };
        match r.id {
            Some(id) => outln!("status: {status}; stored as run {id}"),
            None => outln!("status: {status}"),
        }
    }
    Ok(match r.status {
        crate::stats::RunStatus::Ok => 0,
        _ => 1,
    })
}

/// Each profiled query's innermost on-CPU functions, and how to draw its
/// flame graph; "" when no query has its own profile.
fn windows_text(b: &crate::stats::document::Dbt3Block, id: Option<i64>) -> String {
    use std::fmt::Write;
    let qs: Vec<_> = crate::report::dbt3_text::ordered(b)
        .into_iter()
        .filter_map(|(q, f)| Some((q, f.cpu.as_ref()?)))
        .collect();
    let Some((first, c)) = qs.first() else {
        return String::new();
    };
    let mut s = String::from("\nOn-CPU, each query's own window (innermost functions):\n");
    for (q, c) in &qs {
        let _ = writeln!(s, "  {q:<4} {:>7} samples  {}", c.samples, c.top_text());
    }
    if let Some(id) = id {
        let _ = writeln!(
            s,
            "a query's flame graph: qpslab flamegraph {id} --kind {} (for {first})",
            c.stacks
        );
    }
    s
}

/// The per-query table and the figures after a run.
fn summary_text(b: &crate::stats::document::Dbt3Block) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "\nDBT3 {} test at scale {} ({} stream(s)):",
        b.test, b.scale, b.streams
    );
    let mut qs: Vec<_> = b.queries.iter().collect();
    qs.sort_by_key(|(k, _)| k[1..].parse::<u32>().unwrap_or(0));
    for (k, f) in qs {
        let mark = if f.timed_out {
            "  timed out"
        } else if f.error.is_some() {
            "  failed"
        } else {
            ""
        };
        let _ = writeln!(s, "  {k:<4} {:>10.3} s{mark}", f.seconds);
    }
    for (k, v) in &b.refresh {
        let _ = writeln!(s, "  {k:<4} {v:>10.3} s");
    }
    let fmt = |v: Option<f64>| v.map_or("n/a".to_string(), |v| format!("{v:.3}"));
    let _ = writeln!(
        s,
        "geometric mean: {} s; elapsed {:.3} s",
        fmt(b.geomean_s),
        b.elapsed_s
    );
    let _ = writeln!(
        s,
        "power@size: {}; throughput@size: {}; {}: {}",
        fmt(b.power),
        fmt(b.throughput),
        b.composite_name,
        fmt(b.composite)
    );
    s
}

/// The name a run's series is shown under: its label and variant, else
/// "run N".
fn series_name(d: &crate::store::RunDetail) -> String {
    let r = &d.run;
    match (&r.label, &r.variant) {
        (Some(l), Some(v)) => format!("{l}/{v}"),
        (Some(n), None) | (None, Some(n)) => n.clone(),
        (None, None) => format!("run {}", r.id),
    }
}

/// The DBT3 blocks of `d`'s repeats (its campaign point's runs; itself
/// alone outside a campaign).
fn series_blocks(
    store: &crate::store::Store,
    d: &crate::store::RunDetail,
) -> Result<Vec<crate::stats::document::Dbt3Block>> {
    let mut blocks = Vec::new();
    for r in store.repeats_of(d.run.id)? {
        if r.id == d.run.id || !r.excluded {
            if let Some(b) = store.run_detail(r.id)?.and_then(|x| x.dbt3) {
                blocks.push(b);
            }
        }
    }
    Ok(blocks)
}

/// `compare A B` of two DBT3 runs: each query's time ratio of B's series
/// over A's (min/median/max over the repeats), plan changes flagged; as
/// text, or one JSON document with `json`.
pub(super) fn comparison(
    store: &crate::store::Store,
    a: &crate::store::RunDetail,
    b: &crate::store::RunDetail,
    json: bool,
) -> Result<String> {
    let (sa, sb) = (series_blocks(store, a)?, series_blocks(store, b)?);
    let (ra, rb): (Vec<_>, Vec<_>) = (sa.iter().collect(), sb.iter().collect());
    let ratios = crate::analyze::dbt3_compare::compare(&ra, &rb);
    if ratios.is_empty() {
        bail!(
            "runs {} and {} have no DBT3 query in common that completed",
            a.run.id,
            b.run.id
        );
    }
    let render = if json {
        crate::report::dbt3_text::comparison_json
    } else {
        crate::report::dbt3_text::comparison_text
    };
    Ok(render(
        (&series_name(a), sa.len()),
        (&series_name(b), sb.len()),
        &ratios,
    ))
}

/// The DBT3 runs of a campaign (`runs`, its finished ones) compared per
/// query: for each server label and scale, every variant's series
/// against the `reference` variant's (ratios with min/median/max over
/// the repeats, plan changes flagged); "" when it has none, text or one
/// JSON array with `json`.
pub(super) fn campaign_ratios(
    store: &crate::store::Store,
    runs: &[crate::store::RunRow],
    reference: &str,
    json: bool,
) -> Result<String> {
    type Series = BTreeMap<String, Vec<crate::stats::document::Dbt3Block>>;
    let mut groups: BTreeMap<(String, String), Series> = BTreeMap::new();
    for r in runs.iter().filter(|r| {
        r.workload.starts_with(crate::workload::dbt3::NAME) && r.status == "ok" && !r.excluded
    }) {
        if let Some(b) = store.run_detail(r.id)?.and_then(|d| d.dbt3) {
            let key = (r.label.clone().unwrap_or_default(), r.workload.clone());
            let variant = r.variant.clone().unwrap_or_default();
            groups
                .entry(key)
                .or_default()
                .entry(variant)
                .or_default()
                .push(b);
        }
    }
    let mut text = String::new();
    let mut docs = Vec::new();
    for ((label, workload), series) in &groups {
        let Some(base) = series.get(reference) else {
            continue;
        };
        let base: Vec<_> = base.iter().collect();
        for (variant, blocks) in series.iter().filter(|(v, _)| *v != reference) {
            let other: Vec<_> = blocks.iter().collect();
            let ratios = crate::analyze::dbt3_compare::compare(&base, &other);
            let name = |v: &str| format!("{label}/{v} {workload}");
            let (a, b) = ((name(reference), base.len()), (name(variant), other.len()));
            if json {
                docs.push(serde_json::json!({"label": label, "workload": workload,
                    "reference": reference, "variant": variant, "queries": ratios}));
            } else {
                text.push('\n');
                text.push_str(&crate::report::dbt3_text::comparison_text(
                    (&a.0, a.1),
                    (&b.0, b.1),
                    &ratios,
                ));
            }
        }
    }
    Ok(if json {
        serde_json::Value::Array(docs).to_string()
    } else {
        text
    })
}
