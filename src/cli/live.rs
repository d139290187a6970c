//! The live views over the monitor: `monitor` (per-second lines, stored as
//! a run), `iostat` (inniostat columns), `top` (one screen), and `metrics`
//! (stored snapshots out as CSV/JSON).

use super::args::{IostatArgs, MetricsArgs, MonitorArgs, MonitorCmdArgs};
use super::monitor_args::monitor_config;
use super::secret::redacted_command_line;
use super::target::resolve;
use crate::analyze::bottleneck::top_waits;
use crate::analyze::counters::{Counters, Keep};
use crate::analyze::efficiency::{CpuSplit, IoRates};
use crate::exec::interrupted;
use crate::lab::{block_on, capture, check, open_store, Target, Watch};
use crate::monitor::{Caps, Event, MonitorConfig, NoteKind, SourceId, ALL_SOURCES};
use crate::report::monitor::IO_COLUMNS;
use crate::report::num;
use anyhow::{bail, Result};
use serde_json::json;
use std::collections::HashMap;
use std::io::Write;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

/// The latest two snapshots of each source, for rates between them.
#[derive(Default)]
struct Live {
    cur: HashMap<SourceId, (f64, HashMap<String, f64>)>,
    prev: HashMap<SourceId, (f64, HashMap<String, f64>)>,
    caps: Option<Caps>,
}

impl Live {
    /// Takes an event; returns the source of a new snapshot.
    fn feed(&mut self, ev: &Event, t0: Instant) -> Option<SourceId> {
        match ev {
            Event::Snapshot(s) => {
                let t = s.at.saturating_duration_since(t0).as_secs_f64();
                let vals = s.values.iter().cloned().collect();
                if let Some(old) = self.cur.insert(s.source, (t, vals)) {
                    self.prev.insert(s.source, old);
                }
                Some(s.source)
            }
            Event::Caps(c) => {
                self.caps = Some(c.clone());
                None
            }
            Event::Note(_) => None,
        }
    }

    fn value(&self, s: SourceId, name: &str) -> Option<f64> {
        self.cur.get(&s)?.1.get(name).copied()
    }

    /// Per-second rate of a counter between the last two snapshots.
    fn rate(&self, s: SourceId, name: &str) -> Option<f64> {
        let (tc, c) = self.cur.get(&s)?;
        let (tp, p) = self.prev.get(&s)?;
        let d = c.get(name)? - p.get(name)?;
        (*tc > *tp && d >= 0.0).then(|| d / (tc - tp))
    }

    fn rate_sum(&self, s: SourceId, names: &[&str]) -> Option<f64> {
        names.iter().map(|n| self.rate(s, n)).sum()
    }

    /// The host CPU split between the last two polls.
    fn cpu_split(&self) -> Option<CpuSplit> {
        let (c, a, b) = self.counters(&[SourceId::Cpu, SourceId::ServerProc]);
        CpuSplit::over(&c, a, b)
    }

    /// The last two snapshots of `sources` as counters, and the window
    /// they share.
    fn counters(&self, sources: &[SourceId]) -> (Counters, f64, f64) {
        let mut c = Counters::default();
        let (mut a, mut b) = (f64::MIN, f64::MAX);
        for s in sources {
            if let (Some((tp, p)), Some((tc, cur))) = (self.prev.get(s), self.cur.get(s)) {
                a = a.max(*tp);
                b = b.min(*tc);
                for (k, v) in p {
                    c.push(format!("{}.{k}", s.name()), Keep::All, *tp, *v);
                }
                for (k, v) in cur {
                    c.push(format!("{}.{k}", s.name()), Keep::All, *tc, *v);
                }
            }
        }
        (c, a, b)
    }
}

fn target_without_db(conn: &super::args::ConnArgs) -> Result<Target> {
    let mut t = resolve(conn, "mysql")?;
    t.opts.db = conn.db.clone();
    Ok(t)
}

fn only(cfg: &mut MonitorConfig, keep: &[SourceId]) {
    cfg.off = ALL_SOURCES
        .iter()
        .copied()
        .filter(|s| !keep.contains(s))
        .collect();
}

fn print_note(ev: &Event) {
    if let Event::Note(n) = ev {
        if n.kind != NoteKind::Info {
            eprintln!("-- {}: {}", n.kind.name(), n.text);
        }
    }
}

pub fn monitor(a: &MonitorCmdArgs) -> Result<i32> {
    let t = target_without_db(&a.conn)?;
    let cfg = monitor_config(&t.opts, &a.monitor)?;
    let env = block_on(async {
        let mut c = check(&t).await?;
        let env = capture(&t, &mut c).await;
        c.quit().await;
        env
    })??;
    let store = if a.no_store {
        None
    } else {
        Some(open_store(a.store.path())?)
    };
    let run = match &store {
        Some(s) => {
            let tags = crate::lab::RunTags {
                label: a.label.clone(),
                command_line: redacted_command_line(),
                ..Default::default()
            };
            let options = monitor_options(&a.monitor, a.time);
            Some(s.begin_run(&env.new_run(&tags, "monitor", 0, options))?)
        }
        None => None,
    };
    let sink = store.as_ref().zip(run);
    eprintln!(
        "Watching {} ({}) every {} s{}; Ctrl-C stops.",
        t.describe(),
        env.version,
        a.monitor.monitor_interval,
        if a.time > 0.0 {
            format!(" for {} s", a.time)
        } else {
            String::new()
        }
    );
    let clock = Arc::new(OnceLock::new());
    let t0 = Instant::now();
    let _ = clock.set(t0);
    let mut watch = Watch::start(cfg, clock, 0.0)?;
    let mut live = Live::default();
    let mut lines = 0u64;
    let _ctrl_c = crate::exec::Cooperative::enter();
    while !interrupted() && (a.time == 0.0 || t0.elapsed().as_secs_f64() < a.time) {
        for ev in watch.pump(sink, Duration::from_millis(100)) {
            print_note(&ev);
            if live.feed(&ev, t0) == Some(SourceId::Status)
                && !a.quiet
                && live.prev.contains_key(&SourceId::Status)
            {
                if lines.is_multiple_of(20) {
                    println!("{}", MONITOR_HEADER);
                }
                println!("{}", monitor_line(&live, t0.elapsed().as_secs_f64()));
                let _ = std::io::stdout().flush();
                lines += 1;
            }
        }
    }
    let f = watch.finish(sink);
    if let (Some(s), Some(id)) = (&store, run) {
        f.session_figures().store(s, id)?;
        s.end_run(id, "ok", None, t0.elapsed().as_secs_f64())?;
        eprintln!("Stored as run {id} (qpslab show {id}; qpslab metrics {id}).");
    }
    Ok(0)
}

fn monitor_options(m: &MonitorArgs, time: f64) -> serde_json::Value {
    json!({"time": time, "monitor_interval": m.monitor_interval, "monitor_rates": m.monitor_rates, "monitor_off": m.monitor_off})
}

const MONITOR_HEADER: &str =
    "    time        qps        tps  thr_run  thr_conn   srv cpu%  host busy%  iowait%  innodb r/s  innodb w/s   hist len  ckpt age MB";

fn monitor_line(l: &Live, t: f64) -> String {
    let st = SourceId::Status;
    let f = num;
    let cpu = l.cpu_split();
    let pct = |v: Option<f64>| v.map(|x| x * 100.0);
    let server = cpu
        .filter(|_| l.cur.contains_key(&SourceId::ServerProc))
        .map(|c| c.server);
    format!(
        "{:>8.1} {:>10} {:>10} {:>8} {:>9} {:>10} {:>11} {:>8} {:>11} {:>11} {:>10} {:>12}",
        t,
        f(l.rate(st, "Questions"), 0),
        f(l.rate_sum(st, &["Com_commit", "Com_rollback"]), 0),
        f(l.value(st, "Threads_running"), 0),
        f(l.value(st, "Threads_connected"), 0),
        f(pct(server), 1),
        f(pct(cpu.map(|c| 1.0 - c.idle - c.iowait)), 1),
        f(pct(cpu.map(|c| c.iowait)), 1),
        f(l.rate(st, "Innodb_data_reads"), 0),
        f(l.rate(st, "Innodb_data_writes"), 0),
        f(l.value(st, "Innodb_history_list_length"), 0),
        f(
            l.value(st, "Innodb_checkpoint_age").map(|v| v / 1048576.0),
            1
        ),
    )
}

/// Runs a live view: calls `draw` after each new status snapshot.
fn live_loop(
    a: &IostatArgs,
    sources: &[SourceId],
    mut draw: impl FnMut(&Live, &Target, u64) -> Result<()>,
) -> Result<i32> {
    let t = target_without_db(&a.conn)?;
    block_on(async {
        check(&t).await?.quit().await;
        Ok::<_, anyhow::Error>(())
    })??;
    let mut cfg = MonitorConfig::new(t.opts.clone());
    cfg.base = a.interval;
    only(&mut cfg, sources);
    for s in sources {
        cfg.every.insert(*s, a.interval);
    }
    let clock = Arc::new(OnceLock::new());
    let t0 = Instant::now();
    let _ = clock.set(t0);
    let mut watch = Watch::start(cfg, clock, 0.0)?;
    let mut live = Live::default();
    let mut n = 0u64;
    let _ctrl_c = crate::exec::Cooperative::enter();
    while !interrupted() && (a.count == 0 || n < a.count) {
        for ev in watch.pump(None, Duration::from_millis(100)) {
            print_note(&ev);
            if live.feed(&ev, t0) == Some(SourceId::Status)
                && live.prev.contains_key(&SourceId::Status)
            {
                // The OS sources of the same tick come right after status.
                for ev in watch.pump(None, Duration::from_millis(30)) {
                    print_note(&ev);
                    live.feed(&ev, t0);
                }
                draw(&live, &t, n)?;
                let _ = std::io::stdout().flush();
                n += 1;
            }
        }
    }
    watch.finish(None);
    Ok(0)
}

pub fn iostat(a: &IostatArgs) -> Result<i32> {
    let mut phys_note = false;
    live_loop(a, &[SourceId::Status, SourceId::Disk], |l, t, n| {
        let local = l.caps.as_ref().is_some_and(|c| c.local);
        if !local && !phys_note {
            eprintln!(
                "note: the server at {} is not on this host: physical columns left out",
                t.describe()
            );
            phys_note = true;
        }
        let cols: Vec<_> = IO_COLUMNS.iter().filter(|c| local || !c.physical).collect();
        if n.is_multiple_of(20) {
            let mut h = format!("{:>8}", "time");
            for c in &cols {
                h += &format!("{:>11}", c.header);
            }
            if local {
                h += &format!("{:>8}", "util%");
            }
            println!("{h}");
        }
        let (c, a0, b0) = l.counters(&[SourceId::Status, SourceId::Disk]);
        let disk = l.caps.as_ref().and_then(|c| c.disk.as_deref());
        let io = IoRates::over(&c, a0, b0, disk);
        let mut line = format!("{:>8}", clock_time());
        for col in &cols {
            line += &format!("{:>11}", num((col.get)(&io), col.decimals));
        }
        if local {
            line += &format!("{:>8}", num(io.disk_busy.map(|x| x * 100.0), 1));
        }
        println!("{line}");
        Ok(())
    })
}

fn clock_time() -> String {
    let s = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
        % 86_400;
    format!("{:02}:{:02}:{:02}", s / 3600, s % 3600 / 60, s % 60)
}

pub fn top(a: &IostatArgs) -> Result<i32> {
    let sources = [
        SourceId::Status,
        SourceId::PsWaits,
        SourceId::Cpu,
        SourceId::ServerProc,
    ];
    let mut gen_prev: Option<(Instant, f64)> = None;
    live_loop(a, &sources, |l, t, _| {
        let now = Instant::now();
        let gen = crate::monitor::load_generator_cpu_s();
        let client =
            gen_prev.map(|(t, c)| (gen - c) / now.duration_since(t).as_secs_f64().max(1e-3));
        gen_prev = Some((now, gen));
        print!("\x1b[H\x1b[2J{}", top_screen(l, t, client));
        Ok(())
    })
}

fn top_screen(l: &Live, t: &Target, client_cpus: Option<f64>) -> String {
    use std::fmt::Write as _;
    let st = SourceId::Status;
    let r = |n: &str| l.rate(st, n).unwrap_or(0.0);
    let mut o = String::new();
    let version = l.caps.as_ref().map(|c| c.version.as_str()).unwrap_or("");
    let _ = writeln!(
        o,
        "qpslab top  {}  {}  {}   (Ctrl-C quits)\n",
        t.describe(),
        version,
        clock_time()
    );
    let cpus = l.value(SourceId::Cpu, "cpus").unwrap_or(1.0);
    if let Some(cpu) = l.cpu_split() {
        let pct = |v: f64| format!("{:.0}%", v * 100.0);
        let server = l
            .cur
            .contains_key(&SourceId::ServerProc)
            .then_some(cpu.server);
        // The load generators are other processes: their share is measured
        // here, not by the monitor.
        let client = client_cpus.map(|c| c / cpus.max(1.0));
        let other = 1.0 - cpu.idle - cpu.iowait - server.unwrap_or(0.0) - client.unwrap_or(0.0);
        let _ = writeln!(
            o,
            "CPU ({cpus} CPUs)   server {}  client {}  other {}  idle {}  iowait {}",
            server.map(pct).unwrap_or_else(|| "-".into()),
            client.map(pct).unwrap_or_else(|| "-".into()),
            pct(other.max(0.0)),
            pct(cpu.idle),
            pct(cpu.iowait)
        );
    }
    let _ = writeln!(
        o,
        "Queries/s         total {:.0}   select {:.0}  insert {:.0}  update {:.0}  delete {:.0}  commit {:.0}  rollback {:.0}",
        r("Questions"),
        r("Com_select"),
        r("Com_insert"),
        r("Com_update"),
        r("Com_delete"),
        r("Com_commit"),
        r("Com_rollback")
    );
    let _ = writeln!(
        o,
        "Threads           connected {:.0}  running {:.0}  created/s {:.1}  aborted connects/s {:.1}",
        l.value(st, "Threads_connected").unwrap_or(0.0),
        l.value(st, "Threads_running").unwrap_or(0.0),
        r("Threads_created"),
        r("Aborted_connects")
    );
    let (rows, label) = if l.value(st, "Innodb_rows_read").is_some() {
        (
            [
                r("Innodb_rows_read"),
                r("Innodb_rows_inserted"),
                r("Innodb_rows_updated"),
                r("Innodb_rows_deleted"),
            ],
            "InnoDB rows/s",
        )
    } else {
        let read = l
            .rate_sum(
                st,
                &[
                    "Handler_read_key",
                    "Handler_read_next",
                    "Handler_read_prev",
                    "Handler_read_first",
                    "Handler_read_last",
                    "Handler_read_rnd",
                    "Handler_read_rnd_next",
                ],
            )
            .unwrap_or(0.0);
        (
            [
                read,
                r("Handler_write"),
                r("Handler_update"),
                r("Handler_delete"),
            ],
            "Rows/s (Handler)",
        )
    };
    let _ = writeln!(
        o,
        "{label:<18}read {:.0}  inserted {:.0}  updated {:.0}  deleted {:.0}",
        rows[0], rows[1], rows[2], rows[3]
    );
    let req = r("Innodb_buffer_pool_read_requests");
    let miss = r("Innodb_buffer_pool_reads");
    let _ = writeln!(
        o,
        "Buffer pool       reads/s {:.0}  read-ahead/s {:.0}  flushed/s {:.0}  dirty {:.0}  free {:.0}  hit {}",
        miss,
        crate::analyze::efficiency::READ_AHEAD.iter().map(|n| r(n)).sum::<f64>(),
        r("Innodb_buffer_pool_pages_flushed"),
        l.value(st, "Innodb_buffer_pool_pages_dirty").unwrap_or(0.0),
        l.value(st, "Innodb_buffer_pool_pages_free").unwrap_or(0.0),
        if req > 0.0 { format!("{:.2}%", 100.0 * (1.0 - miss / req)) } else { "-".into() }
    );
    let _ = writeln!(
        o,
        "Redo              {:.2} MB/s  log writes/s {:.0}  fsyncs/s {:.0}  checkpoint age {:.1} MB  history list {:.0}",
        r("Innodb_os_log_written") / 1048576.0,
        r("Innodb_log_writes"),
        r("Innodb_data_fsyncs"),
        l.value(st, "Innodb_checkpoint_age").unwrap_or(0.0) / 1048576.0,
        l.value(st, "Innodb_history_list_length").unwrap_or(0.0)
    );
    let _ = writeln!(o);
    if l.caps.as_ref().is_some_and(|c| c.ps_on) {
        let (c, a0, b0) = l.counters(&[SourceId::PsWaits]);
        let waits = top_waits(&c, a0, b0, 10);
        let _ = writeln!(o, "Top waits (performance_schema, share of wait time)");
        for (name, share) in waits {
            let per_s = l
                .rate(SourceId::PsWaits, &format!("{name}.count"))
                .unwrap_or(0.0);
            let _ = writeln!(o, "  {:>5.1}%  {:>10.0}/s  {name}", share * 100.0, per_s);
        }
    } else {
        let _ = writeln!(
            o,
            "Top waits: performance_schema is OFF (performance_schema=ON in my.cnf, then restart)"
        );
    }
    o
}

/// `metrics RUN [--source S]`: stored snapshots out as CSV or JSON.
pub fn metrics(a: &MetricsArgs) -> Result<()> {
    let store = crate::lab::read_store(a.store.path())?;
    let Some(source) = &a.source else {
        let srcs = store.metric_sources(a.run)?;
        if srcs.is_empty() {
            bail!("run {} has no monitor snapshots (run without the monitor, or an unknown run id: see `qpslab runs`)", a.run);
        }
        println!("source,snapshots");
        for (s, n) in srcs {
            println!("{s},{n}");
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
    let filter = a.name.as_deref().map(str::to_lowercase);
    let cols: Vec<usize> = (0..tab.names.len())
        .filter(|i| {
            filter
                .as_ref()
                .is_none_or(|f| tab.names[*i].to_lowercase().contains(f))
        })
        .collect();
    let mut rows: Vec<(f64, u64, Vec<Option<f64>>)> = Vec::new();
    for (k, (t, took, vals)) in tab.rows.iter().enumerate() {
        let v: Vec<Option<f64>> = cols
            .iter()
            .map(|&i| {
                if !a.rate {
                    return vals[i];
                }
                let (tp, _, pv) = tab.rows.get(k.checked_sub(1)?)?;
                Some((vals[i]? - pv[i]?) / (t - tp))
            })
            .collect();
        if a.rate && k == 0 {
            continue;
        }
        rows.push((*t, *took, v));
    }
    if a.format == super::args::DumpFormat::Json {
        let names: Vec<&String> = cols.iter().map(|&i| &tab.names[i]).collect();
        let doc = json!({"run": a.run, "source": source, "rate": a.rate, "names": names,
            "rows": rows.iter().map(|(t, took, v)| json!({"t": t, "took_us": took, "values": v})).collect::<Vec<_>>()});
        println!("{}", serde_json::to_string_pretty(&doc)?);
        return Ok(());
    }
    let quote = |s: &str| {
        if s.contains(',') || s.contains('"') {
            format!("\"{}\"", s.replace('"', "\"\""))
        } else {
            s.to_string()
        }
    };
    let mut out = String::from("t,took_us");
    for &i in &cols {
        out.push(',');
        out.push_str(&quote(&tab.names[i]));
    }
    out.push('\n');
    for (t, took, v) in rows {
        out.push_str(&format!("{t:.3},{took}"));
        for x in v {
            out.push(',');
            if let Some(x) = x {
                out.push_str(&format!("{x}"));
            }
        }
        out.push('\n');
    }
    print!("{out}");
    Ok(())
}
