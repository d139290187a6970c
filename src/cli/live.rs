//! The live views over the monitor: `monitor` (per-second lines, stored as
//! a run), `iostat` (inniostat columns), `top` (one screen), and `metrics`
//! (stored snapshots out as CSV/JSON). The sessions are lab's; the lines
//! and screens report's.

use super::args::{AgentLinkArgs, IostatArgs, MetricsArgs, MonitorArgs, MonitorCmdArgs};
use super::fleet_plan::server_agent_alone;
use super::monitor_args::monitor_config;
use super::target::resolve;
use crate::lab::{live_view, monitor_session, probe, RunTags, SessionRecord, Target};
use crate::monitor::{HostReader, Note, NoteKind, SourceId};
use crate::report::live_text::{
    iostat_header, iostat_line, iostat_preface, monitor_line, top_screen, watching, MONITOR_HEADER,
};
use crate::secret::redacted_command_line;
use crate::stats::document::MonitorOptions;
use anyhow::{bail, Result};
use std::sync::Arc;
use std::time::Instant;

fn target_without_db(conn: &super::args::ConnArgs) -> Result<Target> {
    let mut t = resolve(conn, "mysql")?;
    t.opts.db = conn.db.clone();
    Ok(t)
}

fn print_note(n: &Note) {
    if n.kind != NoteKind::Info {
        errln!("-- {}: {}", n.kind.name(), n.text);
    }
}

/// The reader of the server's host: the agent beside it (`--server-agent`),
/// or None (this host's, or a remote server's host sources skipped).
fn host_reader(a: &AgentLinkArgs) -> Result<Option<Arc<dyn HostReader>>> {
    Ok(server_agent_alone(a)?.map(|s| Arc::new(s) as Arc<dyn HostReader>))
}

pub fn monitor(a: &MonitorCmdArgs) -> Result<i32> {
    let host = host_reader(&a.agent)?;
    let t = target_without_db(&a.conn)?;
    let mut cfg = monitor_config(&t.opts, &a.monitor)?;
    cfg.host = host;
    let env = probe(&t)?;
    let store = super::plan::Recording::from_args(&a.record, None).open()?;
    let record = store.as_ref().map(|store| SessionRecord {
        store,
        tags: RunTags {
            label: a.record.label.clone(),
            command_line: redacted_command_line(),
            ..Default::default()
        },
        options: monitor_options(&a.monitor, a.time),
    });
    let every = a.monitor.monitor_interval;
    errln!("{}", watching(&t.describe(), &env.version, every, a.time));
    let mut lines = 0u64;
    let run = monitor_session(&env, cfg, a.time, record, print_note, |live, t| {
        if a.quiet {
            return;
        }
        if lines.is_multiple_of(20) {
            outln!("{MONITOR_HEADER}");
        }
        outln!("{}", monitor_line(live, t));
        crate::out::flush();
        lines += 1;
    })?;
    if let Some(id) = run {
        errln!("Stored as run {id} (qpslab show {id}; qpslab metrics {id}).");
    }
    Ok(0)
}

fn monitor_options(m: &MonitorArgs, time: f64) -> MonitorOptions {
    MonitorOptions {
        time,
        monitor_interval: m.monitor_interval,
        monitor_rates: m.monitor_rates.clone(),
        monitor_off: m.monitor_off.clone(),
    }
}

/// Whether a note concerns one of `sources`: notes name their sources
/// (`disk: …`, `ps_waits, ps_files: …`); a note that names none (the
/// connection lost, say) concerns every view.
fn concerns(n: &Note, sources: &[SourceId]) -> bool {
    if let Some(s) = n.source {
        return sources.contains(&s);
    }
    let head = n.text.split_once(':').map(|(h, _)| h).unwrap_or("");
    let named: Vec<SourceId> = head
        .split(',')
        .filter_map(|w| SourceId::parse(w.trim()))
        .collect();
    named.is_empty() || named.iter().any(|s| sources.contains(s))
}

pub fn iostat(a: &IostatArgs) -> Result<i32> {
    let host = host_reader(&a.agent)?;
    let t = target_without_db(&a.conn)?;
    let sources = [SourceId::Status, SourceId::Disk];
    let note = |n: &Note| {
        if concerns(n, &sources) {
            print_note(n)
        }
    };
    live_view(&t, host, a.interval, &sources, a.count, note, |l, n| {
        // the device columns: this host's, or the server's host's agent's
        let local = l.caps().is_some_and(|c| c.local || c.host_reader.is_some());
        if n == 0 {
            errln!("{}", iostat_preface(&t.describe(), l.caps()));
        }
        if n.is_multiple_of(20) {
            outln!("{}", iostat_header(local));
        }
        outln!("{}", iostat_line(l, local));
        crate::out::flush();
        Ok(())
    })?;
    Ok(0)
}

pub fn top(a: &IostatArgs) -> Result<i32> {
    let host = host_reader(&a.agent)?;
    let t = target_without_db(&a.conn)?;
    let sources = [
        SourceId::Status,
        SourceId::PsWaits,
        SourceId::Cpu,
        SourceId::ServerProc,
    ];
    // The client figure counts the processes connected to this server
    // (found again each screen: connections come and go), each from the
    // first screen it was seen on: this host's server only (another
    // host's clients are not here).
    let server = crate::monitor::on_this_host(&t.opts.endpoint)
        .then(|| crate::lab::server_pid(&t).ok())
        .flatten();
    let mut seen: std::collections::HashMap<i32, f64> = Default::default();
    let mut prev_at: Option<Instant> = None;
    let who = t.describe();
    let note = |n: &Note| {
        if concerns(n, &sources) {
            print_note(n)
        }
    };
    live_view(&t, host, a.interval, &sources, a.count, note, |l, _| {
        let now = Instant::now();
        let client = server.and_then(|pid| {
            let pids = crate::monitor::clients::connected_pids(pid).ok()?;
            let mut used = 0.0;
            let mut next = std::collections::HashMap::new();
            for p in pids {
                let s = crate::monitor::clients::cpu_seconds(&[p]);
                used += seen.get(&p).map_or(0.0, |before| (s - before).max(0.0));
                next.insert(p, s);
            }
            seen = next;
            let window = prev_at.map(|t| now.duration_since(t).as_secs_f64().max(1e-3));
            window.map(|w| used / w)
        });
        prev_at = Some(now);
        out!("\x1b[H\x1b[2J{}", top_screen(l, &who, client));
        crate::out::flush();
        Ok(())
    })?;
    Ok(0)
}

/// `metrics RUN [--source S]`: stored snapshots out as CSV or JSON.
pub fn metrics(a: &MetricsArgs) -> Result<()> {
    let store = crate::lab::read_store(a.store.path())?;
    let Some(source) = &a.source else {
        let srcs = store.metric_sources(a.run)?;
        if srcs.is_empty() {
            bail!("run {} has no monitor snapshots (run without the monitor, or an unknown run id: see `qpslab runs`)", a.run);
        }
        outln!("source,snapshots");
        for (s, n) in srcs {
            outln!("{s},{n}");
        }
        return Ok(());
    };
    let tab = store.metric_table(a.run, source)?;
    if tab.rows.is_empty() {
        bail!(
            "run {} has no snapshots of '{source}'; `qpslab metrics {}` lists its sources",
            a.run,
            a.run
        );
    }
    let view = crate::analyze::counters::metric_view(&tab, a.name.as_deref(), a.rate);
    let t0 =
        crate::analyze::run_figures::MonitorFigures::load(&store, a.run)?.and_then(|m| m.t0_unix);
    if a.format == super::args::DumpFormat::Json {
        let doc = crate::report::metrics::json(a.run, source, a.rate, t0, &view);
        outln!("{}", serde_json::to_string_pretty(&doc)?);
        return Ok(());
    }
    out!("{}", crate::report::metrics::csv(&view, t0));
    Ok(())
}
