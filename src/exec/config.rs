//! What a run is asked to do.

use crate::protocol::ConnOpts;
use crate::workload::Family;
use anyhow::{bail, Result};
use std::sync::Arc;

pub use crate::stats::document::{IgnoreErrors, PsMode};

impl IgnoreErrors {
    /// Parses sysbench's `--mysql-ignore-errors` value: `all`, `none`, or a comma list.
    pub fn parse(s: &str) -> Result<IgnoreErrors> {
        match s.trim() {
            "all" => Ok(IgnoreErrors::All),
            "" | "none" => Ok(IgnoreErrors::Codes(vec![])),
            list => {
                let mut codes = Vec::new();
                for c in list.split(',') {
                    match c.trim().parse::<u16>() {
                        Ok(v) => codes.push(v),
                        Err(_) => bail!("--mysql-ignore-errors: '{c}' is not an error code; give e.g. 1213,1205 or 'all'"),
                    }
                }
                Ok(IgnoreErrors::Codes(codes))
            }
        }
    }

    /// Whether server error `code` is retried rather than ending the run.
    #[inline]
    pub fn ignores(&self, code: u16) -> bool {
        match self {
            IgnoreErrors::All => true,
            IgnoreErrors::Codes(c) => c.contains(&code),
        }
    }
}

/// Everything one run is asked to do: target, workload, load shape and limits.
/// Built by cli from its flags (for campaigns, from each point's).
#[derive(Clone)]
pub struct RunConfig {
    /// How each client thread connects.
    pub conn: ConnOpts,
    /// What runs: exec drives it through the `Family` interface only.
    pub workload: Arc<dyn Family>,
    /// Client threads, each with its own connection.
    pub threads: u32,
    /// Measured seconds after warm-up; 0 = no time limit.
    pub time: f64,
    /// Event limit; 0 = none.
    pub events: u64,
    /// Seconds run before measuring begins; its events are not counted.
    pub warmup: f64,
    /// Target events/s (Poisson arrivals); 0 = closed loop.
    pub rate: f64,
    /// Seconds between samples (and printed lines when `print_lines`).
    pub interval: f64,
    /// Server errors that roll back and retry the event instead of ending the run.
    pub ignore: IgnoreErrors,
    /// Reconnect after every N events; 0 = never.
    pub reconnect_every: u64,
    /// Prepared statements or text protocol.
    pub ps_mode: PsMode,
    /// Seeds the random generators (arrivals and each worker's values); one
    /// seed gives the same value sequences.
    pub seed: u64,
    /// Client shards (runtimes); 0 = automatic (see `exec::auto_threading`).
    pub shards: usize,
    /// Run the client threads under SCHED_BATCH; None = automatic.
    pub sched_batch: Option<bool>,
    /// How load connections' sockets are driven (`--io-backend`).
    pub io: IoMode,
    /// CPUs the load threads are pinned to (`--client-cpus`); empty: not
    /// pinned. Client threads are sized to this set when it is given.
    pub client_cpus: Vec<usize>,
    /// Connections opened per second at the start; 0 = as fast as the
    /// connect gate lets them (a bounded number at once).
    pub connect_rate: f64,
    /// The run fails when no connection could reach the server for this
    /// many seconds in a row.
    pub max_unreachable: f64,
    /// The quantiles (fractions) the run reports besides the usual ones
    /// (`--percentile`): each finished sample keeps its latency at these
    /// and at `stats::SAMPLE_QUANTILES`, not its whole histogram.
    pub sample_quantiles: Vec<f64>,
    /// Called once when every connection is ready, just before the clock
    /// starts (sysbench mode says "Threads started!" then); None: nothing.
    pub on_started: Option<Arc<dyn Fn() + Send + Sync>>,
    /// Set from outside to stop the run as Ctrl-C would (an agent's
    /// controller said stop); None: only Ctrl-C, the limits and errors.
    pub halt: Option<Arc<std::sync::atomic::AtomicBool>>,
    /// Whether each statement's own latency is measured (its kind's
    /// histogram: the report's "Latency by statement", `--db-debug`'s
    /// figures): a clock read at each statement's start and end. Off (a
    /// sysbench-mode run that neither stores nor prints them), an event
    /// reads the clock at its start and its end only, as sysbench does,
    /// and the read-timeout watchdog times a statement from its own first
    /// look at it (worker.rs, `Watch::fresh`).
    pub statement_latency: bool,
}

impl RunConfig {
    /// The latency kinds a sample of this run holds: the workload's
    /// statement classes, then its event classes (from index
    /// `stat_names().len()`).
    pub fn latency_kinds(&self) -> usize {
        self.workload.stat_names().len() + self.workload.event_classes().len()
    }

    /// Every option of the run, as recorded in the store and the JSON
    /// document (the family's own options under "oltp", its historical key).
    pub fn options_document(&self) -> crate::stats::document::RunOptions {
        crate::stats::document::RunOptions {
            threads: self.threads,
            time: self.time,
            events: self.events,
            warmup_time: self.warmup,
            rate: self.rate,
            report_interval: self.interval,
            ignore_errors: self.ignore.clone(),
            reconnect: self.reconnect_every,
            db_ps_mode: self.ps_mode,
            rand_seed: self.seed,
            client_cpus: crate::stats::cpu_list_text(&self.client_cpus),
            oltp: self.workload.options(),
        }
    }
}

/// How load connections' sockets are driven.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IoMode {
    /// Blocking send/receive for a connection alone on its shard in the
    /// closed model; the reactor (epoll) otherwise.
    Auto,
    /// Always the reactor.
    Epoll,
    /// Plain TCP/unix connections that share a shard on its io_uring ring
    /// (probed before the run: `protocol::uring::probe`); one alone on
    /// its shard in the closed model goes direct, as with Auto.
    Uring,
}
