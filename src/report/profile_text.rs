//! A profile in the terminal: per kind what was recorded and its
//! collector's cost, the top tables (functions on CPU or where threads
//! block, functions on the stack), syscalls per second and per query by
//! name, Performance Schema wait shares, then the lock families' shares of
//! connection-thread time and the lock that limits.

use crate::analyze::limiter::Profiled;
use crate::profiler::fold::Share;
use crate::profiler::syscalls::Syscalls;
use crate::profiler::waits::Waits;
use crate::profiler::{Data, Folded, Kind, Outcome};
use std::fmt::Write;

fn table(o: &mut String, title: &str, rows: &[Share], unit: &str) {
    let _ = writeln!(o, "\n{title}:");
    if rows.is_empty() {
        o.push_str("    (none)\n");
    }
    for r in rows {
        let _ = writeln!(
            o,
            "    {:>6.2}%  {:>10}{unit}  {}",
            r.pct, r.samples, r.name
        );
    }
}

fn cost(o: &Outcome) -> String {
    o.cost_cpu_s
        .map(|c| {
            format!(
                "; collector CPU {c:.2} s ({:.1}% of one CPU)",
                100.0 * c / o.secs.max(1e-9)
            )
        })
        .unwrap_or_default()
}

/// The note under a profile whose stacks perf could not name (see
/// `Folded::unresolved`); the page says the same.
pub fn unresolved_note(share: f64, dso: &str) -> String {
    format!(
        "{:.0}% of it has a frame perf could not name near its top ([{dso}]): functions the binary does not export need its debug symbols (Debian: mariadb-server-core-dbgsym or mysql-server-core-dbgsym from the debug archive; your own build: -DCMAKE_BUILD_TYPE=RelWithDebInfo)",
        share * 100.0
    )
}

fn stacks(o: &mut String, out: &Outcome, f: &Folded, hz: u32, top: usize) {
    let secs = out.secs;
    if let Some((share, dso)) = f.unresolved() {
        let _ = writeln!(o, "Note: {}", unresolved_note(share, &dso));
    }
    match out.kind {
        Kind::OffCpu => {
            let _ = writeln!(
                o,
                "Off-CPU profile: {:.2} s blocked over {secs:.1} s ({} distinct stacks{})",
                f.total() as f64 / 1e6,
                f.stacks.len(),
                cost(out)
            );
            table(
                o,
                "Where threads block (innermost frame, µs blocked)",
                &f.top_self(top, true),
                " µs",
            );
            table(
                o,
                "Top functions on the stack (total)",
                &f.top_total(top),
                " µs",
            );
        }
        _ => {
            let _ = writeln!(
                o,
                "On-CPU profile: {} samples over {secs:.1} s at {hz} Hz ({} distinct stacks{})",
                f.total(),
                f.stacks.len(),
                cost(out)
            );
            table(
                o,
                "Top functions on CPU (self)",
                &f.top_self(top, false),
                "",
            );
            table(
                o,
                "Top functions on the stack (total)",
                &f.top_total(top),
                "",
            );
        }
    }
}

fn syscalls(o: &mut String, out: &Outcome, s: &Syscalls, queries: Option<u64>, top: usize) {
    let secs = out.secs.max(1e-9);
    let _ = writeln!(
        o,
        "Syscalls: over {:.1} s, 1 in {} entries recorded{}",
        out.secs,
        s.period,
        cost(out)
    );
    let q = queries.filter(|q| *q > 0);
    for (side, title) in [
        ("server", "the server"),
        ("load", "qpslab's load threads"),
        ("qpslab", "qpslab's other threads"),
    ] {
        let total = s.total(side);
        if total == 0 {
            continue;
        }
        let per_q = q
            .map(|q| format!(", {:.2} per query", total as f64 / q as f64))
            .unwrap_or_default();
        let _ = writeln!(o, "\n  {title}: {:.0}/s{per_q}", total as f64 / secs);
        for (name, c) in s.by_name(side).into_iter().take(top) {
            let per_q = q
                .map(|q| format!("  {:>8.3}/query", c as f64 / q as f64))
                .unwrap_or_default();
            let _ = writeln!(o, "    {:>10.0}/s{per_q}  {name}", c as f64 / secs);
        }
    }
}

fn waits(o: &mut String, out: &Outcome, w: &Waits, top: usize) {
    let _ = writeln!(
        o,
        "Performance Schema waits: over {:.1} s, {} of {} wait instruments timed, shares of {} threads' time",
        out.secs, w.timed.0, w.timed.1, w.threads
    );
    let _ = writeln!(o, "\nTop wait events (share of thread time):");
    let shares = w.shares();
    if shares.is_empty() {
        o.push_str("    (none)\n");
    }
    for (name, s) in shares.into_iter().take(top) {
        let _ = writeln!(o, "    {:>6.2}%  {name}", 100.0 * s);
    }
}

/// The whole profile: each kind in turn, then the limiting lock.
pub fn summary(p: &Profiled, top: usize) -> String {
    let mut o = String::new();
    for out in &p.outcomes {
        if !o.is_empty() {
            o.push('\n');
        }
        match &out.result {
            Err(e) => {
                let _ = writeln!(o, "Profile ({}): not recorded: {e}", out.kind.name());
            }
            Ok(Data::Stacks(f)) => stacks(&mut o, out, f, p.hz, top),
            Ok(Data::Syscalls(s)) => syscalls(&mut o, out, s, p.queries, top),
            Ok(Data::Waits(w)) => waits(&mut o, out, w, top),
        }
    }
    if let Some(l) = &p.locks {
        // One name and one definition, as on the run's page and in JSON
        // (`locks`): the share of the connection threads' time.
        let _ = writeln!(
            o,
            "\n{} (from {}):",
            crate::stats::document::LOCK_SHARES_TITLE,
            l.source
        );
        if l.shares.is_empty() {
            o.push_str("    (none)\n");
        }
        for (family, share) in l.shares.iter().take(8) {
            let _ = writeln!(o, "    {:>6.2}%  {family}", 100.0 * share);
        }
        o.push('\n');
        match l.limiter() {
            Some((family, share)) => {
                let _ = writeln!(
                    o,
                    "Limiting lock: {family}, {:.0}% of connection-thread time (from {})",
                    100.0 * share,
                    l.source
                );
                if let Some(s) = &l.top_stack {
                    let _ = writeln!(
                        o,
                        "  top stack (innermost first): {}",
                        crate::analyze::limiter::lock_stack_text(s, 8)
                    );
                }
            }
            None => {
                let top = l
                    .shares
                    .first()
                    .map(|(f, s)| format!("; the most, {f}, {:.1}%", 100.0 * s))
                    .unwrap_or_default();
                let _ = writeln!(
                    o,
                    "Limiting lock: none (no lock family takes {:.0}% of connection-thread time{top})",
                    100.0 * crate::analyze::limiter::LIMITER_SHARE
                );
            }
        }
    }
    o
}
