//! The monitor's figures for one run: efficiency per query and the IO
//! classes over the measured window and per interval, and the bottleneck
//! hint. Takes the run's interval counts and the monitor's counters; the
//! result is what `run` prints, the JSON document carries and the store
//! keeps with the run.

use super::bottleneck::{hint, Hint, Inputs};
use super::counters::Counters;
use super::efficiency::{CpuSplit, Efficiency, IoRates, Load};
use serde::Serialize;

/// One interval of the run as the load saw it.
pub struct Interval {
    /// End of the interval, seconds since measuring began.
    pub t: f64,
    pub dur: f64,
    pub measured: bool,
    pub queries: u64,
    pub transactions: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct PerInterval {
    pub t: f64,
    pub server_cpu_us_per_query: Option<f64>,
    pub client_cpu_us_per_query: Option<f64>,
    pub context_switches_per_query: Option<f64>,
    pub write_bytes_per_query: Option<f64>,
    pub redo_bytes_per_transaction: Option<f64>,
    pub cpu: Option<CpuSplit>,
    pub io: IoRates,
}

#[derive(Debug, Clone, Serialize)]
pub struct RunFigures {
    pub efficiency: Efficiency,
    pub io: IoRates,
    pub bottleneck: Hint,
    pub per_interval: Vec<PerInterval>,
}

/// What the run looked like from outside the monitor.
pub struct RunShape<'a> {
    pub intervals: &'a [Interval],
    /// Measured seconds (the window is [0, elapsed]).
    pub elapsed: f64,
    pub threads: u32,
    pub cpus: usize,
    pub disk: Option<&'a str>,
    pub ps_on: bool,
    pub ps_synch: bool,
    pub client_share_fallback: Option<f64>,
}

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
        a,
        b,
        threads: s.threads,
        cpus: s.cpus,
        cpu: efficiency.cpu,
        client_share_fallback: s.client_share_fallback,
        io: &io,
        ps_on: s.ps_on,
        ps_synch: s.ps_synch,
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
