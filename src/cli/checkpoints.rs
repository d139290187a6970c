//! sysbench mode's `--report-checkpoints` in a database run (a bundled
//! workload or a Lua script): the reports at the given seconds, from the
//! run's own samples. It owns only that bookkeeping and its printing;
//! the figures' text is report::sysbench's.

use crate::report;
use crate::stats::RunResult;

/// sysbench's `--report-checkpoints` in a run: at each checkpoint's
/// second, the figures of the part of the run since the last checkpoint
/// (sysbench resets its cumulative figures at each), from the run's own
/// samples (a checkpoint is reported with the first sample that reaches
/// it: the samples' length, 1 s unless --report-interval says otherwise,
/// is its precision).
pub(super) struct Checkpoints {
    /// Seconds still to report, sorted.
    due: std::collections::VecDeque<u64>,
    /// The part since the last checkpoint.
    part: crate::stats::Interval,
    /// When the last checkpoint was reported (0: none yet).
    last_t: f64,
    reported: bool,
    threads: u32,
    pct: f64,
    /// A script's run: its SQL statistics are printed once it used the
    /// SQL driver (known as it runs), as in the summary.
    scripted: bool,
}

impl Checkpoints {
    pub(super) fn new(
        checkpoints: &[u64],
        cfg: &crate::exec::RunConfig,
        pct: f64,
        scripted: bool,
    ) -> Checkpoints {
        Checkpoints {
            due: checkpoints.iter().copied().collect(),
            part: crate::stats::Interval::default(),
            last_t: 0.0,
            reported: false,
            threads: cfg.threads,
            pct,
            scripted,
        }
    }

    /// Takes a sample: reports the checkpoints it reaches.
    pub(super) fn sample(&mut self, s: &crate::stats::Sample) {
        if self.due.is_empty() && !self.reported || s.warmup {
            return;
        }
        self.part.merge(&s.iv);
        let mut at = None;
        while let Some(&c) = self.due.front() {
            if s.t + 0.05 < c as f64 {
                break;
            }
            at = self.due.pop_front();
        }
        let Some(at) = at else {
            return;
        };
        let sql = !self.scripted || crate::workload::script::sql_used();
        let part = std::mem::take(&mut self.part);
        let view = self.view(&part, s.t, 0.0);
        out!(
            "{}",
            report::sysbench::sysbench_checkpoint(at, &view, self.pct, sql)
        );
        crate::out::flush();
        self.last_t = s.t;
        self.reported = true;
    }

    /// The part of run `r` after the last checkpoint report; None when
    /// there was none (the summary is the whole run's).
    pub(super) fn rest<'a>(&'a self, r: &'a RunResult) -> Option<report::sysbench::Part<'a>> {
        self.reported
            .then(|| self.view(&self.part, r.elapsed, r.unreachable_s))
    }

    fn view<'a>(
        &self,
        part: &'a crate::stats::Interval,
        t: f64,
        unreachable_s: f64,
    ) -> report::sysbench::Part<'a> {
        report::sysbench::Part {
            total: part,
            elapsed: t,
            secs: (t - self.last_t).max(1e-9),
            unreachable_s,
            fairness: report::sysbench::Fairness::MeanOf(self.threads),
        }
    }
}
