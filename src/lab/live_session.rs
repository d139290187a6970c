//! The monitor on its own, without load: a `monitor` session recorded as a
//! run, and the live views (`iostat`, `top`) that only draw. Each polls
//! until its time or count is up or Ctrl-C, hands notes and the latest rates
//! to the caller, and leaves printing to it.

use super::environment_capture::{capture, Environment};
use super::runtime::block_on;
use super::tags::RunTags;
use super::target::{check, Target};
use super::watch::Watch;
use crate::analyze::live_rates::Live;
use crate::exec::interrupted;
use crate::monitor::{Event, HostReader, MonitorConfig, Note, NoteKind, SourceId, ALL_SOURCES};
use crate::store::Store;
use anyhow::Result;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

/// Checks the target and reads its environment on one connection. The
/// login and these first queries are bounded together by the connect
/// timeout: a server that lets us in and then says nothing fails here
/// within it, not after the (long) read timeout.
pub fn probe(t: &Target) -> Result<Environment> {
    let limit = t.opts.connect_timeout;
    let work = async {
        let mut c = check(t).await?;
        let env = capture(t, &mut c).await;
        c.quit().await;
        env
    };
    block_on(async {
        tokio::time::timeout(limit, work).await.unwrap_or_else(|_| {
            anyhow::bail!(
                "{} took the login but did not answer within {:.1} s (--connect-timeout): the server is stalled or overloaded; raise --connect-timeout if it is just slow",
                t.describe(),
                limit.as_secs_f64()
            )
        })
    })?
}

/// Where a monitor session is recorded.
pub struct SessionRecord<'a> {
    /// The store the session is recorded in.
    pub store: &'a Store,
    /// Label, variant and command line of the recorded run.
    pub tags: RunTags,
    /// The session's options, stored with the run.
    pub options: crate::stats::document::MonitorOptions,
}

/// Watches the target with `cfg` for `time` seconds (0: until Ctrl-C).
/// `on_note` sees the monitor's notes; `on_status` the rates after each
/// new status snapshot (from the second on) with the seconds since the
/// start. Recorded as a "monitor" run when `record` is given; returns its id.
pub fn monitor_session(
    env: &Environment,
    cfg: MonitorConfig,
    time: f64,
    record: Option<SessionRecord>,
    mut on_note: impl FnMut(&Note),
    mut on_status: impl FnMut(&Live, f64),
) -> Result<Option<i64>> {
    let run = match &record {
        Some(r) => Some(r.store.begin_run(&env.new_run(
            &r.tags,
            "monitor",
            0,
            crate::stats::document::OptionsDocument::Monitor(r.options.clone()),
        ))?),
        None => None,
    };
    let sink = record.as_ref().map(|r| r.store).zip(run);
    super::live_feed::begin_monitor(env, run);
    let clock = Arc::new(OnceLock::new());
    let t0 = Instant::now();
    let _ = clock.set(t0);
    let mut watch = Watch::start(cfg, clock, 0.0)?;
    let mut live = Live::default();
    let _ctrl_c = crate::exec::Cooperative::enter();
    while !interrupted() && (time == 0.0 || t0.elapsed().as_secs_f64() < time) {
        for ev in watch.pump(sink, Duration::from_millis(100)) {
            if let Event::Note(n) = &ev {
                on_note(n);
            }
            if live.feed(&ev, t0) == Some(SourceId::Status) && live.has(SourceId::Status, 2) {
                on_status(&live, t0.elapsed().as_secs_f64());
            }
        }
    }
    let planned = (time > 0.0).then(|| t0 + Duration::from_secs_f64(time));
    let f = watch.finish(sink, planned);
    if let Some((store, id)) = sink {
        f.session_figures().store(store, id)?;
        // A server that stalled or went away is what the session saw:
        // recorded as degraded, with the notes that say when.
        let silent = f
            .notes
            .iter()
            .any(|(_, n)| matches!(n.kind, NoteKind::Stall | NoteKind::Gap));
        let (status, reason) = if silent {
            (
                "degraded",
                Some("the server stalled or went away (see its notes)"),
            )
        } else {
            ("ok", None)
        };
        let secs = t0.elapsed().as_secs_f64();
        store.end_run(
            id,
            status,
            reason,
            if time > 0.0 { secs.min(time) } else { secs },
        )?;
    }
    Ok(run)
}

/// A live view: polls `sources` of the target every `interval` seconds,
/// `count` times (0: until Ctrl-C), and calls `draw` with the rates and the
/// number of screens drawn so far after each status snapshot (the OS
/// sources of the same tick included). `host`: the reader of a remote
/// server's host (the agent beside it), whose OS sources it reads.
pub fn live_view(
    t: &Target,
    host: Option<Arc<dyn HostReader>>,
    interval: f64,
    sources: &[SourceId],
    count: u64,
    mut on_note: impl FnMut(&Note),
    mut draw: impl FnMut(&Live, u64) -> Result<()>,
) -> Result<()> {
    block_on(async {
        check(t).await?.quit().await;
        Ok::<_, anyhow::Error>(())
    })??;
    let mut cfg = MonitorConfig::new(t.opts.clone());
    cfg.host = host;
    cfg.base = interval;
    cfg.off = ALL_SOURCES
        .iter()
        .copied()
        .filter(|s| !sources.contains(s))
        .collect();
    for s in sources {
        cfg.every.insert(*s, interval);
    }
    let clock = Arc::new(OnceLock::new());
    let t0 = Instant::now();
    let _ = clock.set(t0);
    let mut watch = Watch::start(cfg, clock, 0.0)?;
    let mut live = Live::default();
    let mut n = 0u64;
    let _ctrl_c = crate::exec::Cooperative::enter();
    let mut feed = |ev: &Event, live: &mut Live| {
        if let Event::Note(note) = ev {
            on_note(note);
        }
        live.feed(ev, t0)
    };
    while !interrupted() && (count == 0 || n < count) {
        let mut status = false;
        for ev in watch.pump(None, Duration::from_millis(100)) {
            status |= feed(&ev, &mut live) == Some(SourceId::Status);
        }
        if !status || !live.has(SourceId::Status, 2) {
            continue;
        }
        // The other sources of the same tick come right after status: wait
        // for them (at most a third of the interval), or a column would
        // repeat the previous tick's rates.
        let until = Instant::now() + Duration::from_secs_f64(interval / 3.0);
        while !live.all_fresh(sources) && Instant::now() < until && !interrupted() {
            for ev in watch.pump(None, Duration::from_millis(10)) {
                feed(&ev, &mut live);
            }
        }
        draw(&live, n)?;
        live.take_fresh();
        n += 1;
    }
    watch.finish(None, None);
    Ok(())
}
