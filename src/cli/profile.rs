//! `qpslab profile` and `--profile`: what to record (parsed and probed
//! here, before anything runs), and printing what was recorded.

use super::args::{FlamegraphArgs, ProfileArgs, ProfileWaits};
use super::target::resolve;
use crate::lab::{ProfilePlan, Profiled};
use crate::profiler::{parse_kinds, Kind};
use anyhow::{Context, Result};

fn work_dir() -> std::path::PathBuf {
    std::env::temp_dir().join("qpslab-profile")
}

/// A plan for `kinds` on target `t`'s server. The server's process is
/// needed by every kind but waits (found here, or by the agent beside a
/// server on another host, which then records it); without perf, the
/// perf kinds are skipped with a note (said once, here) and the others
/// go on.
pub(super) fn plan(
    kinds: Vec<Kind>,
    hz: u32,
    waits: ProfileWaits,
    t: &crate::lab::Target,
    pid: Option<i32>,
    agent: Option<&crate::lab::agent::ServerAgent>,
) -> Result<ProfilePlan> {
    let perf_kinds = kinds.iter().any(|k| *k != Kind::Waits);
    let agent = agent.filter(|_| perf_kinds && !crate::monitor::on_this_host(&t.opts.endpoint));
    let pid = match (pid, agent) {
        (Some(p), _) => p,
        (None, Some(a)) => crate::lab::server_pid_on(t, a)?,
        (None, None) if perf_kinds => crate::lab::server_pid(t)?,
        (None, None) => 0,
    };
    Ok(ProfilePlan {
        pid,
        kinds,
        hz,
        dir: work_dir(),
        enable_waits: waits == ProfileWaits::Enable,
        agent: agent.cloned(),
    })
}

pub(super) fn profile(a: &ProfileArgs) -> Result<i32> {
    let agent = super::fleet_plan::server_agent_alone(&a.agent)?;
    let kinds = parse_kinds(&a.kind).map_err(|e| anyhow::anyhow!("--kind: {e}"))?;
    if kinds.is_empty() {
        anyhow::bail!("--kind: name at least one of cpu, offcpu, syscalls, waits");
    }
    // perf here: probed before anything else (no server reached or
    // started for a profile that cannot be taken)
    let perf_here = || -> Result<()> {
        if kinds.iter().all(|k| *k != Kind::Waits) {
            if let Err(note) = crate::profiler::probe() {
                anyhow::bail!("cannot profile: {note}");
            }
        }
        Ok(())
    };
    if agent.is_none() {
        perf_here()?;
    }
    // The server is reached for the waits and per-query figures; a --pid
    // of a process that is not a server profiles without them.
    let t = if a.pid.is_none() || kinds.contains(&Kind::Waits) {
        Some(resolve(&a.conn, "sbtest")?)
    } else {
        resolve(&a.conn, "sbtest").ok()
    };
    // The agent beside a server on another host records it there (a
    // server on this host is recorded here whatever --server-agent says).
    let here = t
        .as_ref()
        .is_some_and(|t| crate::monitor::on_this_host(&t.opts.endpoint));
    let agent = match agent {
        Some(_) if here => {
            perf_here()?;
            None
        }
        other => other,
    };
    let p = match &t {
        Some(t) => plan(
            kinds,
            a.profile_hz,
            a.profile_waits,
            t,
            a.pid,
            agent.as_ref(),
        )?,
        None => ProfilePlan {
            pid: a.pid.unwrap_or(0),
            kinds,
            hz: a.profile_hz,
            dir: work_dir(),
            enable_waits: false,
            agent,
        },
    };
    let names: Vec<&str> = p.kinds.iter().map(|k| k.name()).collect();
    let on = p
        .agent
        .as_ref()
        .map(|g| format!(" on the server's host, through the agent at {}", g.addr))
        .unwrap_or_default();
    errln!(
        "recording process {}{on} ({}) for {} s...",
        p.pid,
        names.join(", "),
        a.time
    );
    let conn = t.as_ref().map(|t| &t.opts);
    let profiled = crate::lab::profile(&p, conn, a.time)?;
    if profiled.outcomes.iter().all(|o| o.result.is_err()) {
        let why: Vec<String> = profiled
            .outcomes
            .iter()
            .filter_map(|o| {
                o.result
                    .as_ref()
                    .err()
                    .map(|e| format!("{}: {e}", o.kind.name()))
            })
            .collect();
        anyhow::bail!("nothing was recorded ({})", why.join("; "));
    }
    if let Some(dir) = &a.folded {
        write_folded(dir, &profiled)?;
    }
    if let Some(dir) = &a.flamegraph {
        write_flamegraphs(dir, &profiled)?;
    }
    out!("{}", crate::report::profile_text::summary(&profiled, a.top));
    Ok(0)
}

/// The folded stacks, one file per kind (`cpu.folded`, `offcpu.folded`):
/// with one kind, `path` may name the file itself.
fn write_folded(path: &std::path::Path, p: &Profiled) -> Result<()> {
    let stacks: Vec<_> = p
        .outcomes
        .iter()
        .filter_map(|o| Some((o.kind, o.stacks()?)))
        .collect();
    for (kind, f) in &stacks {
        let file = if stacks.len() == 1 && !path.is_dir() {
            path.to_path_buf()
        } else {
            std::fs::create_dir_all(path)
                .with_context(|| format!("creating {}", path.display()))?;
            path.join(format!("{}.folded", kind.name()))
        };
        std::fs::write(&file, f.text())
            .with_context(|| format!("writing the folded stacks to {}", file.display()))?;
        outln!("folded stacks ({}): {}", kind.name(), file.display());
    }
    Ok(())
}

/// Flame graphs, one SVG per kind with stacks, into directory `dir`.
fn write_flamegraphs(dir: &std::path::Path, p: &Profiled) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    for o in &p.outcomes {
        let Some(f) = o.stacks() else { continue };
        let file = dir.join(format!("{}.svg", o.kind.name()));
        let svg = crate::report::flame::svg(f, o.kind, &format!("{} profile", o.kind.name()))?;
        std::fs::write(&file, svg).with_context(|| format!("writing {}", file.display()))?;
        outln!("flame graph ({}): {}", o.kind.name(), file.display());
    }
    Ok(())
}

/// The profile recorded beside a run, summed up after its summary.
pub(super) fn print_profile(p: &Profiled) {
    out!("\n{}", crate::report::profile_text::summary(p, 10));
}

/// `qpslab flamegraph RUN [--diff OTHER]`.
pub(super) fn flamegraph(a: &FlamegraphArgs) -> Result<()> {
    // cpu, offcpu, or one DBT3 query's own (cpu-Q9)
    let base = |k: &str| {
        k.split_once('-')
            .map_or(k.to_string(), |(b, _)| b.to_string())
    };
    if let Some(k) = a
        .kind
        .as_deref()
        .filter(|k| !matches!(base(k).as_str(), "cpu" | "offcpu"))
    {
        anyhow::bail!("--kind: '{k}' has no stacks; use cpu or offcpu (or a DBT3 query's, cpu-Q9)");
    }
    let store = crate::lab::read_store(a.store.path())?;
    crate::lab::stored_run(&store, a.run)?;
    // Without --kind: the run's on-CPU stacks, else its off-CPU ones.
    let kind = match &a.kind {
        Some(k) => k.clone(),
        None if store.profile_stacks(a.run, "cpu")?.is_empty()
            && !store.profile_stacks(a.run, "offcpu")?.is_empty() =>
        {
            "offcpu".to_string()
        }
        None => "cpu".to_string(),
    };
    for run in std::iter::once(a.run).chain(a.diff) {
        crate::lab::stored_run(&store, run)?;
        if store.profile_stacks(run, &kind)?.is_empty() {
            anyhow::bail!(
                "run {run} has no {kind} stacks: record them with `qpslab run … --profile {kind}`"
            );
        }
    }
    let svg = match a.diff {
        Some(before) => crate::ui::profile_section::diff_svg(&store, before, a.run, &kind)?,
        None => crate::ui::profile_section::flame_svg(&store, a.run, &kind)?,
    }
    .unwrap_or_default();
    let output = a.output.clone().unwrap_or_else(|| {
        let from = a.diff.map(|b| format!("-from-{b}")).unwrap_or_default();
        format!("qpslab-run-{}-flame-{kind}{from}.svg", a.run).into()
    });
    std::fs::write(&output, svg).with_context(|| format!("writing {}", output.display()))?;
    outln!("Flame graph written to {}", output.display());
    Ok(())
}
