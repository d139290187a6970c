//! The monitor's figures for one run: efficiency per query and the IO
//! classes over the measured window and per interval, and the bottleneck
//! hint. Takes the run's interval counts and the monitor's counters; the
//! result is what `run` prints, the JSON document carries and the store
//! keeps with the run.

use super::bottleneck::{hint, Hint, Inputs};
use super::counters::Counters;
use super::efficiency::{CpuSplit, Efficiency, IoRates, Load};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One interval of the run as the load saw it.
pub struct Interval {
    /// End of the interval, seconds since measuring began.
    pub t: f64,
    /// Its length in seconds.
    pub dur: f64,
    /// Whether it counts (past the warm-up).
    pub measured: bool,
    /// Queries completed in it.
    pub queries: u64,
    /// Events (transactions) completed in it.
    pub transactions: u64,
}

/// The efficiency figures of one interval (None where a counter was
/// missing or the interval did no work).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct PerInterval {
    /// End of the interval, seconds since measuring began.
    pub t: f64,
    /// Server CPU µs per query.
    pub server_cpu_us_per_query: Option<f64>,
    /// qpslab's CPU µs per query.
    pub client_cpu_us_per_query: Option<f64>,
    /// Host context switches per query.
    pub context_switches_per_query: Option<f64>,
    /// Bytes the server wrote to disk per query.
    pub write_bytes_per_query: Option<f64>,
    /// InnoDB redo log bytes per transaction.
    pub redo_bytes_per_transaction: Option<f64>,
    /// Where the host's CPU went (server, qpslab, other).
    pub cpu: Option<CpuSplit>,
    /// The interval's IO by class, per second.
    pub io: IoRates,
}

/// What `derive` makes of a run's counters: the measured window's
/// efficiency and IO, the bottleneck hint, and the same per interval.
#[derive(Debug, Clone, Serialize)]
pub struct RunFigures {
    /// Per-query costs over the measured window.
    pub efficiency: Efficiency,
    /// IO by class over the measured window, per second.
    pub io: IoRates,
    /// What most likely limited the run, and why.
    pub bottleneck: Hint,
    /// The same figures for each interval.
    pub per_interval: Vec<PerInterval>,
}

/// Layout version of `MonitorFigures` (stores written before it read as 0).
pub const FIGURES_VERSION: u32 = 1;

/// Everything the monitor says about one run or monitor session, in one
/// typed, versioned struct: stored with the run (runs.monitor), put in the
/// run's JSON document, printed after the summary and drawn by the UI and
/// reports, all from this one type. A monitor session has no load, so no
/// efficiency, IO or bottleneck of its own.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct MonitorFigures {
    /// Layout version (`FIGURES_VERSION` when written).
    pub version: u32,
    /// Per-query costs over the measured window.
    pub efficiency: Efficiency,
    /// IO by class over the measured window, per second.
    pub io: IoRates,
    /// What most likely limited the run (None for a monitor session).
    pub bottleneck: Option<Hint>,
    /// The same figures for each interval.
    pub per_interval: Vec<PerInterval>,
    /// What was learned of the server (None: it was never reached).
    pub server: Option<ServerSeen>,
    /// Each source's polls and own cost.
    pub sources: BTreeMap<String, SourceCost>,
    /// What the monitor noted during the run.
    pub notes: Vec<NoteRow>,
    /// The wall clock of t = 0 (the `t` of samples and snapshots), in
    /// seconds since the Unix epoch; None for runs stored before it was.
    pub t0_unix: Option<f64>,
}

/// The server as the monitor's probe saw it.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ServerSeen {
    /// The server's version string.
    pub version: String,
    /// MariaDB, MySQL or Percona Server.
    pub flavor: String,
    /// Whether performance_schema was on.
    pub performance_schema: bool,
    /// Whether its synchronisation (wait/synch) instruments were on.
    pub ps_synch_instruments: bool,
    /// Whether INNODB_METRICS could be read.
    pub innodb_metrics: bool,
    /// Whether the endpoint is on this host (socket or loopback).
    pub local: bool,
    /// Its process id, when local.
    pub pid: Option<i32>,
    /// The /proc/diskstats device holding its datadir, when found.
    pub datadir_disk: Option<String>,
}

/// One source's polls during the run and what they cost.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct SourceCost {
    /// How many times it was polled.
    pub polls: u64,
    /// Mean time a poll took, ms.
    pub mean_ms: f64,
    /// Longest poll, ms.
    pub max_ms: f64,
}

/// A monitor note at run time `t` (seconds since measuring began).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct NoteRow {
    /// When, seconds since measuring began.
    pub t: f64,
    /// The source it is about, if one.
    pub source: Option<String>,
    /// `NoteKind` in words: "skipped", "slowed", "gap", "resumed",
    /// "stall" or "info".
    pub kind: String,
    /// The note in words.
    pub text: String,
}

impl MonitorFigures {
    /// A load run's figures with what the monitor saw.
    pub fn of_run(
        f: RunFigures,
        server: Option<ServerSeen>,
        sources: BTreeMap<String, SourceCost>,
        notes: Vec<NoteRow>,
    ) -> MonitorFigures {
        MonitorFigures {
            version: FIGURES_VERSION,
            efficiency: f.efficiency,
            io: f.io,
            bottleneck: Some(f.bottleneck),
            per_interval: f.per_interval,
            server,
            sources,
            notes,
            t0_unix: None,
        }
    }

    /// Reads figures as stored; None for nothing or an unreadable text.
    pub fn parse(json: &str) -> Option<MonitorFigures> {
        serde_json::from_str(json).ok()
    }

    /// The bottleneck verdict, "" without one.
    pub fn verdict(&self) -> &str {
        self.bottleneck.as_ref().map_or("", |b| b.verdict.as_str())
    }

    /// The columns the store keeps for listing runs.
    pub fn columns(&self) -> crate::store::MonitorColumns {
        let e = &self.efficiency;
        crate::store::MonitorColumns {
            server_us_per_q: e.server_cpu_us_per_query,
            csw_per_q: e.context_switches_per_query,
            read_bytes_per_q: e.read_bytes_per_query,
            write_bytes_per_q: e.write_bytes_per_query,
            redo_bytes_per_trx: e.redo_bytes_per_transaction,
            hint: self.bottleneck.as_ref().map(|b| b.verdict.clone()),
        }
    }

    /// Stores these figures with run `run`.
    pub fn store(&self, store: &crate::store::Store, run: i64) -> anyhow::Result<()> {
        store.set_run_monitor(run, &self.columns(), &serde_json::to_string(self)?)
    }

    /// The figures stored with run `run`, if any.
    pub fn load(store: &crate::store::Store, run: i64) -> anyhow::Result<Option<MonitorFigures>> {
        Ok(store
            .run_monitor(run)?
            .as_deref()
            .and_then(MonitorFigures::parse))
    }

    /// Notes worth showing a person (not the informational ones).
    pub fn shown_notes(&self) -> impl Iterator<Item = &NoteRow> {
        self.notes.iter().filter(|n| n.kind != "info")
    }
}

/// What the run looked like from outside the monitor.
pub struct RunShape<'a> {
    /// The run's intervals, in order.
    pub intervals: &'a [Interval],
    /// Measured seconds (the window is [0, elapsed]).
    pub elapsed: f64,
    /// Connections.
    pub threads: u32,
    /// CPUs on the host.
    pub cpus: usize,
    /// The datadir's block device, when known.
    pub disk: Option<&'a str>,
    /// Whether performance_schema was on.
    pub ps_on: bool,
    /// Whether its synchronisation instruments were on.
    pub ps_synch: bool,
    /// qpslab's share of the host CPU as measured outside the monitor,
    /// for when the monitor has no process figures.
    pub client_share_fallback: Option<f64>,
    /// Transactions a second asked for by an open-model run (`--rate`).
    pub target_rate: Option<f64>,
    /// The client's load threads and the CPUs they could run on (None:
    /// not known).
    pub client_threads: Option<super::bottleneck::ClientThreads>,
}

/// The run's figures from the monitor's counters `c` and the load's
/// shape `s`: the measured window first, then each interval.
pub fn derive(c: &Counters, s: &RunShape) -> RunFigures {
    let measured = s.intervals.iter().filter(|i| i.measured);
    let load = measured.fold(Load::default(), |mut l, i| {
        l.queries += i.queries as f64;
        l.transactions += i.transactions as f64;
        l
    });
    let (a, b) = (0.0, s.elapsed);
    let efficiency = Efficiency::over(c, a, b, load);
    let io = IoRates::over(c, a, b, s.disk);
    let bottleneck = hint(&Inputs {
        counters: c,
        queries: load.queries,
        transactions: load.transactions,
        target_rate: s.target_rate,
        a,
        b,
        threads: s.threads,
        cpus: s.cpus,
        cpu: efficiency.cpu,
        client_share_fallback: s.client_share_fallback,
        io: &io,
        ps_on: s.ps_on,
        ps_synch: s.ps_synch,
        client_threads: s.client_threads,
    });
    let per_interval = s
        .intervals
        .iter()
        .filter(|i| i.measured && i.dur > 0.0)
        .map(|i| {
            let (a, b) = (i.t - i.dur, i.t);
            let e = Efficiency::over(
                c,
                a,
                b,
                Load {
                    queries: i.queries as f64,
                    transactions: i.transactions as f64,
                },
            );
            PerInterval {
                t: i.t,
                server_cpu_us_per_query: e.server_cpu_us_per_query,
                client_cpu_us_per_query: e.client_cpu_us_per_query,
                context_switches_per_query: e.context_switches_per_query,
                write_bytes_per_query: e.write_bytes_per_query,
                redo_bytes_per_transaction: e.redo_bytes_per_transaction,
                cpu: e.cpu,
                io: IoRates::over(c, a, b, s.disk),
            }
        })
        .collect();
    RunFigures {
        efficiency,
        io,
        bottleneck,
        per_interval,
    }
}

#[cfg(test)]
mod figures_tests {
    use super::*;

    #[test]
    fn figures_round_trip_and_older_documents_still_read() {
        let f = MonitorFigures {
            version: FIGURES_VERSION,
            bottleneck: Some(Hint {
                verdict: "contention".into(),
                evidence: vec!["e".into()],
                top_waits: vec![("wait/synch/mutex/x".into(), 0.5)],
                locks: None,
            }),
            notes: vec![NoteRow {
                t: 1.5,
                source: Some("status".into()),
                kind: "stall".into(),
                text: "took 3 s".into(),
            }],
            ..Default::default()
        };
        let back = MonitorFigures::parse(&serde_json::to_string(&f).unwrap()).unwrap();
        assert_eq!(back.verdict(), "contention");
        assert_eq!(back.shown_notes().count(), 1);
        assert_eq!(back.columns().hint.as_deref(), Some("contention"));
        // Written before the version field (and with the old server shape).
        let old = r#"{"efficiency":{"server_cpu_us_per_query":12.5},"io":{"innodb_w":3.0},
            "bottleneck":{"verdict":"client-bound","evidence":[],"top_waits":[]},
            "per_interval":[],"server":{"reached":false},"sources":{},"notes":[]}"#;
        let o = MonitorFigures::parse(old).unwrap();
        assert_eq!(o.version, 0);
        assert_eq!(o.efficiency.server_cpu_us_per_query, Some(12.5));
        assert_eq!(o.io.innodb_w, Some(3.0));
        assert_eq!(o.verdict(), "client-bound");
    }
}
