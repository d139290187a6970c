//! The controller's side during a run: starts every agent at one agreed
//! instant (each on its own clock, offset measured by `controller.rs`),
//! polls their intervals, merges interval k when every agent still
//! running has sent it (merge.rs), names an agent that dies or is cut off
//! and goes on with the others, stops them all on Ctrl-C, and hands the
//! merged run to the same path a local run takes (`lab::watch`).

use super::controller::{call, Fleet};
use super::merge::{merge_sample, result_of, Seen};
use super::wire::{Poll, StartRequest, Started, Work};
use crate::exec::{RunConfig, STOP_GRACE};
use crate::interrupt::interrupted;
use crate::stats::{RunResult, RunStatus, Sample};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

/// The agreed instant is this far ahead of the start requests (the
/// agents open their connections meanwhile).
const START_LEAD: Duration = Duration::from_secs(2);

/// An agent that answers no poll for this long is lost: the run goes on
/// without it, degraded.
const LOST_AFTER: Duration = Duration::from_secs(4);

/// The shortest pause between two rounds of polls (an agent late with an
/// interval is asked again this often).
const POLL_EVERY: Duration = Duration::from_millis(150);

/// After an interval's planned end, how long the agents are given to
/// close it before they are polled for it.
const AFTER_INTERVAL: Duration = Duration::from_millis(100);

/// The next round of polls: just after interval `next_k`'s planned end
/// (one round an interval, not one each `POLL_EVERY`: an agent answering
/// polls is what it spends on shipping), at least `POLL_EVERY` and at
/// most a second away.
fn next_poll(t0: Instant, interval: f64, next_k: u64, now: Instant) -> Duration {
    let due =
        t0 + Duration::from_secs_f64(interval.max(0.01) * (next_k + 1) as f64) + AFTER_INTERVAL;
    due.saturating_duration_since(now)
        .clamp(POLL_EVERY, Duration::from_secs(1))
}

/// Runs `cfg`'s load on the fleet; `clock` is set to the agreed start
/// (as exec sets it for a local run), `on_sample` sees each merged
/// interval.
pub(crate) fn drive(
    fleet: &Fleet,
    cfg: &RunConfig,
    clock: &Arc<OnceLock<Instant>>,
    mut on_sample: impl FnMut(&Sample),
) -> RunResult {
    let _ctrl_c = crate::interrupt::Cooperative::enter();
    let commits_before = com_commit(cfg);
    let start_unix = super::worker::unix_now() + START_LEAD.as_secs_f64();
    let mut seen: Vec<Seen> = Vec::new();
    for (i, m) in fleet.members.iter().enumerate() {
        let req = StartRequest {
            target: fleet.target.clone(),
            work: Work {
                words: fleet.plan.words.clone(),
                script: fleet.plan.script.clone(),
                threads: m.threads,
                time: cfg.time,
                warmup: cfg.warmup,
                interval: cfg.interval,
                seed: cfg
                    .seed
                    .wrapping_add((i as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)),
                events: m.events,
                rate: m.rate,
            },
            start_at: start_unix + m.offset_s,
        };
        let body = serde_json::to_string(&req).unwrap_or_default();
        let started = call(
            &fleet.http,
            &fleet.plan.link,
            &m.addr,
            "/v1/start",
            Some(body),
        )
        .and_then(|t| serde_json::from_str::<Started>(&t).map_err(|e| format!("its answer: {e}")));
        match started {
            Ok(s) => seen.push(Seen::new(m.clone(), s.run)),
            Err(why) => {
                stop_all(fleet, &seen);
                let mut r = result_of(cfg, &[], Vec::new());
                r.status = RunStatus::Failed(format!("agent {} refused the start: {why}", m.addr));
                return r;
            }
        }
    }
    let t0 =
        Instant::now() + Duration::from_secs_f64((start_unix - super::worker::unix_now()).max(0.0));
    let _ = clock.set(t0);
    let samples = poll_until_done(fleet, cfg, &mut seen, t0, &mut on_sample);
    let mut r = result_of(cfg, &seen, samples);
    if let Some(a) = r.agents.as_mut() {
        super::merge::commits(a, commits_before, com_commit(cfg), cfg.threads);
    }
    r
}

/// Polls until every agent has ended or is lost; returns the merged
/// samples (compacted, as exec keeps them).
fn poll_until_done(
    fleet: &Fleet,
    cfg: &RunConfig,
    seen: &mut [Seen],
    t0: Instant,
    on_sample: &mut impl FnMut(&Sample),
) -> Vec<Sample> {
    let give_up = t0
        + Duration::from_secs_f64(cfg.warmup + cfg.time)
        + STOP_GRACE
        + super::worker::DEADLINE_GRACE
        + LOST_AFTER;
    let mut stopped = false;
    let mut next_k = 0u64;
    let mut out = Vec::new();
    loop {
        if interrupted() && !stopped {
            stop_all(fleet, seen);
            stopped = true;
        }
        for s in seen.iter_mut().filter(|s| s.running()) {
            poll_one(fleet, s);
        }
        if Instant::now() > give_up {
            for s in seen.iter_mut().filter(|s| s.running()) {
                s.lose("no final figures by the run's deadline".into());
            }
        }
        while let Some(sample) = merge_sample(cfg, seen, next_k, false) {
            on_sample(&sample);
            out.push(compacted(sample, cfg));
            next_k += 1;
        }
        if seen.iter().all(|s| !s.running()) {
            break;
        }
        // (Ctrl-C is noticed within 50 ms meanwhile)
        let wake = Instant::now() + next_poll(t0, cfg.interval, next_k, Instant::now());
        while Instant::now() < wake && !interrupted() {
            std::thread::sleep(
                wake.saturating_duration_since(Instant::now())
                    .min(Duration::from_millis(50)),
            );
        }
    }
    while let Some(sample) = merge_sample(cfg, seen, next_k, true) {
        on_sample(&sample);
        out.push(compacted(sample, cfg));
        next_k += 1;
    }
    out
}

fn compacted(mut s: Sample, cfg: &RunConfig) -> Sample {
    s.iv.compact(&cfg.sample_quantiles);
    s
}

/// One poll of one agent: new samples, its end, or its silence.
fn poll_one(fleet: &Fleet, s: &mut Seen) {
    let path = format!("/v1/runs/{}?after={}", s.run, s.next_k());
    let answer = call(&fleet.http, &fleet.plan.link, &s.member.addr, &path, None)
        .and_then(|t| serde_json::from_str::<Poll>(&t).map_err(|e| format!("its poll: {e}")));
    match answer {
        Ok(p) => s.absorb(p),
        Err(why) if s.silent_for() > LOST_AFTER => s.lose(why),
        Err(_) => {}
    }
}

/// Asks every agent started so far to stop (Ctrl-C, or a failed start).
fn stop_all(fleet: &Fleet, seen: &[Seen]) {
    for s in seen {
        let path = format!("/v1/runs/{}/stop", s.run);
        let _ = call(
            &fleet.http,
            &fleet.plan.link,
            &s.member.addr,
            &path,
            Some("{}".into()),
        );
    }
}

/// The server's Com_commit now; None when it cannot be read.
fn com_commit(cfg: &RunConfig) -> Option<i64> {
    crate::lab::block_on(async {
        let mut c = crate::protocol::Conn::connect(&cfg.conn).await.ok()?;
        let r = c.query("SHOW GLOBAL STATUS LIKE 'Com_commit'").await.ok();
        c.quit().await;
        r?.rows.first()?.get(1)?.as_deref()?.parse::<i64>().ok()
    })
    .ok()
    .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_agents_are_polled_once_an_interval() {
        let t0 = Instant::now();
        // interval 0 ends at 1 s: polled 1.1 s after the start
        assert_eq!(next_poll(t0, 1.0, 0, t0), Duration::from_millis(1000));
        let at = t0 + Duration::from_millis(300);
        assert_eq!(next_poll(t0, 1.0, 0, at), Duration::from_millis(800));
        // late with interval 0: asked again soon, not at once
        let late = t0 + Duration::from_millis(1200);
        assert_eq!(next_poll(t0, 1.0, 0, late), POLL_EVERY);
        // long intervals: a second at most (a lost agent is noticed)
        assert_eq!(next_poll(t0, 10.0, 0, t0), Duration::from_secs(1));
    }
}
