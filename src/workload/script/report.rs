//! A script's report hooks (`sysbench.hooks.report_intermediate`,
//! `report_cumulative`), called on the thread that reports with sysbench's
//! stat table, each in the state sysbench calls it in: the intermediate
//! reports in the reporting thread's own (made when there is a report
//! interval, `sysbench.tid` = --threads, ended before the cumulative
//! report), the cumulative one in the main state.

use super::guard::StepKind;
use super::state::{message, ScriptState};
use crate::workload::family::{ReportHook, ReportStat};
use mlua::{Function, Table};

pub(crate) struct ScriptReporter {
    /// The main state (cumulative reports).
    pub main: ScriptState,
    /// The reporting thread's state (intermediate reports) until the
    /// cumulative report ends it; None without a report interval.
    pub interval: Option<ScriptState>,
}

impl ScriptReporter {
    fn hook(st: &ScriptState, name: &str) -> Option<Function> {
        st.sysbench()
            .and_then(|s| s.get::<Table>("hooks"))
            .and_then(|h| h.get::<Function>(name))
            .ok()
    }

    /// Calls hook `name` with sysbench's stat table (the whole run's, when
    /// `cumulative`: no thread running then, and the latency's extremes).
    fn call(&mut self, name: &str, s: &ReportStat, cumulative: bool) -> Result<bool, String> {
        if cumulative {
            if let Some(ended) = self.interval.take() {
                ended.close_reports().map_err(|e| message(&e))?;
            }
        }
        let st = match &self.interval {
            Some(st) if !cumulative => st,
            _ => &self.main,
        };
        let Some(f) = Self::hook(st, name) else {
            return Ok(false);
        };
        let lua = &st.host.lua;
        let t = lua.create_table().map_err(|e| message(&e))?;
        let running = if cumulative { 0 } else { s.threads_running };
        let fields: [(&str, f64); 10] = [
            ("time_interval", s.time_interval),
            ("time_total", s.time_total),
            ("threads_running", f64::from(running)),
            ("events", s.events as f64),
            ("reads", s.reads as f64),
            ("writes", s.writes as f64),
            ("other", s.other as f64),
            ("errors", s.errors as f64),
            ("reconnects", s.reconnects as f64),
            ("latency_pct", s.latency_pct_s),
        ];
        let extremes = [
            ("latency_min", s.latency_min_s),
            ("latency_avg", s.latency_avg_s),
            ("latency_max", s.latency_max_s),
            ("latency_sum", s.latency_sum_s),
        ];
        let extremes = if cumulative { &extremes[..] } else { &[] };
        for (k, v) in fields.iter().chain(extremes) {
            t.set(*k, *v).map_err(|e| message(&e))?;
        }
        let lua_error = |m| format!("sysbench.hooks.{name}: {m}");
        st.call(StepKind::Report, f, t, lua_error)?;
        Ok(true)
    }
}

impl ReportHook for ScriptReporter {
    fn intermediate(&mut self, s: &ReportStat) -> Result<bool, String> {
        self.call("report_intermediate", s, false)
    }

    fn cumulative(&mut self, s: &ReportStat) -> Result<bool, String> {
        self.call("report_cumulative", s, true)
    }
}
