//! `run insert-benchmark --phases …`: the insert benchmark's phase
//! sequence, each phase a stored run of one campaign (lab::insert_phases),
//! a line per phase as it ends, the settle step's readings, then the
//! per-phase table (text or JSON) and, when the campaign holds several
//! series, each phase's rate as a ratio to the first series'.

use super::plan::LoadPlan;
use crate::lab::insert_phases::{PhaseEvent, PhasesPlan};
use crate::lab::{block_on, ready};
use crate::report::ibench_text;
use crate::report::table::Format;
use crate::stats::document::IbenchPhase;
use crate::workload::ibench::phases::{Phase, PhaseKind};
use crate::workload::ibench::Ibench;
use anyhow::{bail, Result};

/// Runs the phases `--phases` names; returns the exit code.
pub(super) fn run_phases(p: &LoadPlan, family: &Ibench) -> Result<i32> {
    let o = family.opts();
    let phases = Phase::list(&o.phases).map_err(anyhow::Error::msg)?;
    let Some(&inserters) = p.threads.first() else {
        bail!("--threads is empty: give the inserters' count, e.g. --threads 1");
    };
    if p.threads.len() > 1 {
        bail!("--phases runs one inserter count: give --threads N once (sweep the counts with one sequence each)");
    }
    let timed = phases
        .iter()
        .any(|ph| matches!(ph.kind, PhaseKind::Insert | PhaseKind::Query));
    let time = if o.duration > 0 {
        f64::from(o.duration)
    } else {
        p.config.time
    };
    if timed && time <= 0.0 {
        bail!("--time 0: the l.i1, l.i2 and query phases each run for --duration (else --time) seconds: give e.g. --duration 300");
    }
    // One query thread per inserter unless told (the benchmark's clients
    // each have one of each).
    let query_threads = if o.query_threads > 0 {
        o.query_threads
    } else {
        inserters
    };
    if p.recording.no_store {
        bail!("--phases keeps each phase as a run of one campaign: drop --no-store");
    }
    let t = p.target()?;
    if phases.first().is_some_and(|ph| ph.kind == PhaseKind::Load) {
        crate::lab::insert_phases::fresh_table(&t, o)?;
    }
    let cfg0 = p.run_config(inserters, &t.opts)?;
    let env = block_on(ready(&t, cfg0.workload.as_ref()))??;
    let Some(store) = p.recording.open()? else {
        bail!("--phases keeps each phase as a run of one campaign: drop --no-store");
    };
    let name = format!(
        "insert-benchmark {} rows={} time={} threads={inserters}",
        o.phases, o.rows, time
    );
    let definition = serde_json::json!({"phases": o.phases, "rows": o.rows, "time": time,
        "inserters": inserters, "query_threads": query_threads, "options": family.opts()});
    let campaign = store.find_or_create_campaign(&name, "phases", &definition.to_string())?;
    let json = p.output.json();
    let say = |line: String| {
        if json {
            errln!("{line}");
        } else {
            outln!("{line}");
        }
    };
    say(format!(
        "insert benchmark on {}: phases {} ({}, {} in query phases), campaign {campaign}",
        t.describe(),
        phases
            .iter()
            .map(|ph| ph.name.as_str())
            .collect::<Vec<_>>()
            .join(","),
        crate::out::counted(inserters, "inserter"),
        crate::out::counted(query_threads, "query thread"),
    ));
    let plan = PhasesPlan {
        env: &env,
        store: &store,
        campaign,
        phases: &phases,
        base: o,
        inserters,
        query_threads,
        time,
        tags: p.recording.tags(),
    };
    let config_for = |th: u32| Ok((p.run_config(th, &t.opts)?, p.monitor_for(&t)));
    let out = crate::lab::insert_phases::run_phases(&plan, config_for, |ev| match ev {
        PhaseEvent::Start(ph, threads) => say(format!(
            "phase {} starts: {threads} connection{}",
            ph.name,
            if threads == 1 { "" } else { "s" }
        )),
        PhaseEvent::Settle {
            secs,
            history,
            dirty,
            last,
            calm,
        } => {
            if last || (secs as u64).is_multiple_of(10) {
                say(ibench_text::settle_line(secs, history, dirty, last, calm));
            }
        }
        PhaseEvent::Done(_, run_id, fig, status) => {
            let mut line = ibench_text::phase_line(fig, run_id);
            if !matches!(status, crate::stats::RunStatus::Ok) {
                line.push_str(&format!(" [{}]", status.word()));
            }
            say(line);
        }
    })?;
    if json {
        let docs: Vec<_> = out
            .phases
            .iter()
            .map(|(id, f)| serde_json::json!({"run_id": id, "phase": f}))
            .collect();
        outln!(
            "{}",
            serde_json::json!({"campaign": campaign, "phases": docs, "exit_code": out.code})
        );
    } else {
        let label = p.recording.label.clone().unwrap_or_default();
        let rows: Vec<(String, &IbenchPhase)> =
            out.phases.iter().map(|(_, f)| (label.clone(), f)).collect();
        out!("\n{}", ibench_text::phase_table(&rows, Format::Text));
        out!("{}", campaign_comparison(&store, campaign)?);
        outln!("The phases are runs of campaign {campaign} (qpslab runs --campaign {campaign}).");
    }
    Ok(out.code)
}

/// `check insert-benchmark`: each secondary index against the rows, and
/// CHECK TABLE (exit 1 when a condition is broken).
pub(super) fn check(p: &LoadPlan) -> Result<i32> {
    let t = p.existing_target()?;
    let rep = crate::lab::check_ibench(&t)?;
    let conditions: Vec<_> = rep
        .conditions
        .iter()
        .map(|c| super::check_report::Condition {
            label: c.what.clone(),
            violations: &c.violations,
        })
        .collect();
    let indexes = if rep.indexes.is_empty() {
        "none".to_string()
    } else {
        rep.indexes.join(", ")
    };
    let notes = [format!("{} rows, secondary indexes: {indexes}", rep.rows)];
    super::check_report::print(p.output.json(), ("check", &rep), &conditions, &notes)
}

/// When the campaign holds more than one series (label/variant), each
/// phase's main rate as a ratio to the first series' (its latest run of
/// the phase); empty otherwise.
fn campaign_comparison(store: &crate::store::Store, campaign: i64) -> Result<String> {
    let kept = store.campaign_phases(campaign)?;
    let (series, table) = crate::analyze::phase_figures::series_rates(&kept);
    if series.len() < 2 {
        return Ok(String::new());
    }
    Ok(format!(
        "\nEach phase's rate as a ratio to {}'s (rows/s; queries/s in query phases; l.x: 1/time):\n{}",
        series[0],
        ibench_text::ratio_table(&series, &table, Format::Text)
    ))
}
