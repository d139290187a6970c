//! `qpslab profile`: a server's on-CPU stacks for a while, as top tables
//! (functions on CPU, on the stack, lock families), and the folded stacks
//! to a file when asked.

use super::args::ProfileArgs;
use super::target::resolve;
use anyhow::{Context, Result};

pub(super) fn profile(a: &ProfileArgs) -> Result<i32> {
    if let Err(note) = crate::profiler::probe() {
        anyhow::bail!("cannot profile: {note}");
    }
    let pid = match a.pid {
        Some(p) => p,
        None => {
            let t = resolve(&a.conn, "sbtest")?;
            crate::lab::server_pid(&t)?
        }
    };
    let work = std::env::temp_dir().join("qpslab-profile");
    let kind = crate::profiler::Kind::from(a.kind);
    eprintln!(
        "recording process {pid} ({}) for {} s...",
        kind.name(),
        a.time
    );
    let (folded, secs) = crate::lab::profile(kind, pid, a.profile_hz, a.time, &work)?;
    if let Some(path) = &a.folded {
        std::fs::write(path, folded.text())
            .with_context(|| format!("writing the folded stacks to {}", path.display()))?;
    }
    print!(
        "{}",
        crate::report::profile::summary(&folded, kind, secs, a.profile_hz, a.top)
    );
    if let Some(path) = &a.folded {
        println!("folded stacks: {}", path.display());
    }
    Ok(0)
}

/// `run --profile`: what to record, or None; a kind that cannot be
/// recorded is refused before the run with how to make it possible.
pub(super) fn plan_for(
    a: &super::args::LoadArgs,
    t: &crate::lab::Target,
) -> Result<Option<crate::lab::ProfilePlan>> {
    use crate::profiler::Kind;
    if a.profile.trim().is_empty() {
        return Ok(None);
    }
    let mut kinds = Vec::new();
    for k in a.profile.split(',').map(str::trim) {
        kinds.push(match k {
            "cpu" => Kind::Cpu,
            "offcpu" => Kind::OffCpu,
            "syscalls" | "waits" => {
                anyhow::bail!("--profile {k}: not built yet; cpu and offcpu are")
            }
            other => anyhow::bail!("--profile: '{other}' is not cpu or offcpu"),
        });
    }
    if kinds.len() > 1 {
        // Two perf sessions on one process starve one another (the
        // on-CPU one got a single sample beside an off-CPU one).
        anyhow::bail!("--profile takes one kind per run so far (cpu or offcpu)");
    }
    if let Err(note) = crate::profiler::probe() {
        anyhow::bail!("--profile: {note}");
    }
    let pid = crate::lab::server_pid(t)?;
    Ok(Some(crate::lab::ProfilePlan {
        pid,
        kinds,
        hz: a.profile_hz,
        dir: std::env::temp_dir().join("qpslab-profile"),
    }))
}

/// The profiles recorded beside a run, summed up after its summary.
pub(super) fn print_profiles(profiles: &[crate::lab::ProfileOutcome], hz: u32) {
    for p in profiles {
        match &p.result {
            Ok((f, secs)) => print!(
                "\n{}",
                crate::report::profile::summary(f, p.kind, *secs, hz, 10)
            ),
            Err(e) => println!("\nProfile ({}): not recorded: {e}", p.kind.name()),
        }
    }
}

/// The profiles as JSON (counts, top functions, families).
pub(super) fn profiles_json(profiles: &[crate::lab::ProfileOutcome]) -> serde_json::Value {
    profiles
        .iter()
        .map(|p| match &p.result {
            Ok((f, secs)) => serde_json::json!({
                "kind": p.kind.name(), "seconds": secs, "weight": f.total(), "stacks": f.stacks.len(),
                "top_self": f.top_self(10, p.kind == crate::profiler::Kind::OffCpu),
                "families": f.families(),
            }),
            Err(e) => serde_json::json!({"kind": p.kind.name(), "error": e}),
        })
        .collect()
}
