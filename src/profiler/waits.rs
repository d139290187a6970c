//! The waits collector: Performance Schema wait events as shares of
//! thread time, per second.
//!
//! A thread of its own polls `events_waits_summary_global_by_event_name`
//! once a second on its own connection; a wait event's share is
//! Δ SUM_TIMER_WAIT / interval / threads (the load's connections). It
//! probes that the schema is on and which wait instruments are timed;
//! when asked (`--profile-waits enable`) it enables and times every wait
//! instrument and the consumers the summary needs for the run, and puts
//! back exactly what it changed after.

use crate::protocol::{Conn, ConnOpts};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What the poller was given.
#[derive(Debug, Clone)]
pub struct WaitsPlan {
    /// The poller's own connection.
    pub conn: ConnOpts,
    /// Enable and time the wait instruments for the run, then restore.
    pub enable: bool,
    /// The threads whose time the shares are of (0: the server's
    /// connections other than the poller's, counted at start).
    pub threads: u32,
}

/// Seconds waited per event name and second, and what they are shares of.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct Waits {
    /// The threads the shares are of.
    pub threads: u32,
    /// Seconds each poll covered.
    pub intervals: Vec<f64>,
    /// Event name → seconds waited in each interval.
    pub waited: BTreeMap<String, Vec<f64>>,
    /// Wait instruments timed during the run, of all.
    pub timed: (u64, u64),
}

impl Waits {
    /// Each event's share of thread time over the whole recording, largest
    /// first.
    pub fn shares(&self) -> Vec<(String, f64)> {
        let denom = self.intervals.iter().sum::<f64>() * self.threads.max(1) as f64;
        let mut v: Vec<(String, f64)> = self
            .waited
            .iter()
            .map(|(n, w)| (n.clone(), w.iter().sum::<f64>() / denom.max(1e-9)))
            .filter(|(_, s)| *s > 0.0)
            .collect();
        v.sort_by(|a, b| b.1.total_cmp(&a.1));
        v
    }

    /// Lock families' shares of thread time (events of no family left out).
    pub fn family_shares(&self) -> Vec<(String, f64)> {
        let mut c: BTreeMap<&str, f64> = BTreeMap::new();
        for (n, s) in self.shares() {
            if let Some(f) = super::families::of_wait_event(&n) {
                *c.entry(f).or_default() += s;
            }
        }
        let mut v: Vec<(String, f64)> = c.into_iter().map(|(f, s)| (f.to_string(), s)).collect();
        v.sort_by(|a, b| b.1.total_cmp(&a.1));
        v
    }
}

/// The poller, running.
pub(crate) struct Poller {
    stop: Arc<AtomicBool>,
    join: std::thread::JoinHandle<Result<Waits, String>>,
}

impl Poller {
    /// Probes the Performance Schema (refusing with a note when it is off
    /// or nothing is timed), applies `enable`, and starts polling.
    pub fn start(plan: WaitsPlan) -> Result<Poller, String> {
        let stop = Arc::new(AtomicBool::new(false));
        let (ready_tx, ready_rx) = std::sync::mpsc::channel();
        let s = stop.clone();
        let join = std::thread::Builder::new()
            .name("qpslab-waits".into())
            .spawn(move || {
                let rt = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .map_err(|e| e.to_string())?;
                rt.block_on(poll(plan, s, ready_tx))
            })
            .map_err(|e| format!("cannot start the waits poller: {e}"))?;
        match ready_rx.recv() {
            Ok(Ok(())) => Ok(Poller { stop, join }),
            Ok(Err(e)) => {
                let _ = join.join();
                Err(e)
            }
            Err(_) => Err(join
                .join()
                .ok()
                .and_then(|r| r.err())
                .unwrap_or_else(|| "the waits poller stopped".into())),
        }
    }

    /// Stops after one last poll, restores what was enabled, returns the
    /// series.
    pub fn stop(self) -> Result<Waits, String> {
        self.stop.store(true, Ordering::SeqCst);
        self.join
            .join()
            .unwrap_or_else(|_| Err("the waits poller panicked".into()))
    }
}

const SUMMARY: &str = "SELECT EVENT_NAME, SUM_TIMER_WAIT FROM performance_schema.events_waits_summary_global_by_event_name WHERE SUM_TIMER_WAIT > 0 AND EVENT_NAME <> 'idle'";

async fn one(c: &mut Conn, sql: &str) -> Result<Vec<Vec<Option<String>>>, String> {
    c.query(sql)
        .await
        .map(|r| r.rows)
        .map_err(|e| format!("{sql}: {e}"))
}

fn num(row: &[Option<String>], i: usize) -> f64 {
    row.get(i)
        .cloned()
        .flatten()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0.0)
}

/// The setup rows changed for the run, to put back after.
#[derive(Default)]
struct Changed {
    instruments_off: Vec<String>,
    untimed: Vec<String>,
    consumers: Vec<String>,
}

async fn enable(c: &mut Conn) -> Result<Changed, String> {
    let mut ch = Changed::default();
    for r in one(c, "SELECT NAME, ENABLED, TIMED FROM performance_schema.setup_instruments WHERE NAME LIKE 'wait/%'").await? {
        let name = r.first().cloned().flatten().unwrap_or_default();
        if r.get(1).cloned().flatten().as_deref() != Some("YES") {
            ch.instruments_off.push(name.clone());
        }
        if r.get(2).cloned().flatten().as_deref() != Some("YES") {
            ch.untimed.push(name);
        }
    }
    for r in one(c, "SELECT NAME FROM performance_schema.setup_consumers WHERE ENABLED <> 'YES' AND NAME IN ('global_instrumentation', 'thread_instrumentation')").await? {
        ch.consumers.push(r.first().cloned().flatten().unwrap_or_default());
    }
    one(c, "UPDATE performance_schema.setup_instruments SET ENABLED = 'YES', TIMED = 'YES' WHERE NAME LIKE 'wait/%'").await?;
    one(c, "UPDATE performance_schema.setup_consumers SET ENABLED = 'YES' WHERE NAME IN ('global_instrumentation', 'thread_instrumentation')").await?;
    Ok(ch)
}

fn quoted(names: &[String]) -> String {
    names
        .iter()
        .map(|n| crate::protocol::string_literal(n))
        .collect::<Vec<_>>()
        .join(",")
}

async fn restore(c: &mut Conn, ch: &Changed) -> Result<(), String> {
    for (col, names) in [("ENABLED", &ch.instruments_off), ("TIMED", &ch.untimed)] {
        for chunk in names.chunks(200) {
            one(
                c,
                &format!(
                    "UPDATE performance_schema.setup_instruments SET {col} = 'NO' WHERE NAME IN ({})",
                    quoted(chunk)
                ),
            )
            .await?;
        }
    }
    if !ch.consumers.is_empty() {
        one(
            c,
            &format!(
                "UPDATE performance_schema.setup_consumers SET ENABLED = 'NO' WHERE NAME IN ({})",
                quoted(&ch.consumers)
            ),
        )
        .await?;
    }
    Ok(())
}

async fn read(c: &mut Conn) -> Result<BTreeMap<String, f64>, String> {
    Ok(one(c, SUMMARY)
        .await?
        .into_iter()
        .map(|r| (r.first().cloned().flatten().unwrap_or_default(), num(&r, 1)))
        .collect())
}

async fn poll(
    plan: WaitsPlan,
    stop: Arc<AtomicBool>,
    ready: std::sync::mpsc::Sender<Result<(), String>>,
) -> Result<Waits, String> {
    let mut c = match Conn::connect(&plan.conn).await {
        Ok(c) => c,
        Err(e) => {
            let e = format!("cannot connect for Performance Schema waits: {e}");
            let _ = ready.send(Err(e.clone()));
            return Err(e);
        }
    };
    let probe = async {
        let on = one(&mut c, "SELECT @@performance_schema").await?;
        if on.first().map(|r| num(r, 0)) != Some(1.0) {
            return Err("performance_schema is off: start the server with performance_schema=ON (a my.cnf line; on a sandbox: qpslab server stop --name NAME, then qpslab server start --name NAME --set performance_schema=ON) to profile waits".to_string());
        }
        let changed = if plan.enable {
            Some(enable(&mut c).await?)
        } else {
            None
        };
        let t = one(&mut c, "SELECT SUM(ENABLED = 'YES' AND TIMED = 'YES'), COUNT(*) FROM performance_schema.setup_instruments WHERE NAME LIKE 'wait/%'").await?;
        let timed = t
            .first()
            .map(|r| (num(r, 0) as u64, num(r, 1) as u64))
            .unwrap_or_default();
        if timed.0 == 0 {
            return Err("no Performance Schema wait instrument is timed: pass --profile-waits enable to time them for the run (put back after)".to_string());
        }
        let threads = if plan.threads > 0 {
            plan.threads
        } else {
            let r = one(&mut c, "SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = 'THREADS_CONNECTED'").await?;
            (r.first().map(|r| num(r, 0)).unwrap_or(1.0) as u32)
                .saturating_sub(1)
                .max(1)
        };
        Ok((changed, timed, threads))
    };
    let (changed, timed, threads) = match probe.await {
        Ok(x) => x,
        Err(e) => {
            let _ = ready.send(Err(e.clone()));
            c.quit().await;
            return Err(e);
        }
    };
    let _ = ready.send(Ok(()));
    let mut w = Waits {
        threads,
        timed,
        ..Default::default()
    };
    let result = async {
        let mut prev = read(&mut c).await?;
        let mut at = Instant::now();
        loop {
            let done = stop.load(Ordering::SeqCst);
            if !done {
                let next = at + Duration::from_secs(1);
                while Instant::now() < next && !stop.load(Ordering::SeqCst) {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
            }
            let now = read(&mut c).await?;
            let dt = at.elapsed().as_secs_f64();
            at = Instant::now();
            let i = w.intervals.len();
            w.intervals.push(dt);
            for (name, v) in &now {
                let d = (v - prev.get(name).copied().unwrap_or(0.0)).max(0.0) / 1e12;
                if d > 0.0 {
                    let s = w.waited.entry(name.clone()).or_default();
                    s.resize(i + 1, 0.0);
                    s[i] = d;
                }
            }
            prev = now;
            if done || stop.load(Ordering::SeqCst) {
                return Ok::<_, String>(());
            }
        }
    }
    .await;
    let restored = match &changed {
        Some(ch) => restore(&mut c, ch).await,
        None => Ok(()),
    };
    c.quit().await;
    for s in w.waited.values_mut() {
        s.resize(w.intervals.len(), 0.0);
    }
    result.and(restored.map_err(|e| format!("restoring the Performance Schema setup: {e}")))?;
    Ok(w)
}
