//! A script's report hooks (`sysbench.hooks.report_intermediate`,
//! `report_cumulative`), called in a Lua state of their own on the thread
//! that reports, with sysbench's stat table.

use super::guard::StepKind;
use super::state::{message, ScriptState};
use crate::workload::family::{ReportHook, ReportStat};
use mlua::{Function, Table};

pub(crate) struct ScriptReporter {
    pub st: ScriptState,
}

impl ScriptReporter {
    fn hook(&self, name: &str) -> Option<Function> {
        self.st
            .sysbench()
            .and_then(|s| s.get::<Table>("hooks"))
            .and_then(|h| h.get::<Function>(name))
            .ok()
    }

    /// Calls hook `name` with sysbench's stat table (the whole run's, when
    /// `cumulative`: no thread running then, and the latency's extremes).
    fn call(&self, name: &str, s: &ReportStat, cumulative: bool) -> Result<bool, String> {
        let Some(f) = self.hook(name) else {
            return Ok(false);
        };
        let lua = &self.st.host.lua;
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
        self.st.call(StepKind::Report, f, t, lua_error)?;
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
