//! A script as a [`Family`]: the family's answers exec and lab ask for,
//! over the script's definition (def.rs).

use super::def::{OptValue, ScriptDef};
use super::guard::StepKind;
use super::session::{FailedSession, ScriptSession};
use super::stat_class::STAT_NAMES;
use super::{command, state};
use crate::protocol::{Conn, ConnOpts};
use crate::workload::family::{
    BoxFuture, Family, PrepareReport, ReportHook, Session, StatementSpec,
};
use std::sync::Arc;

/// A sysbench Lua script with its options.
pub struct Script {
    def: Arc<ScriptDef>,
    name: String,
    seed: u64,
}

impl Script {
    /// The script at `path`, checked by loading it once (a Lua error or an
    /// unsupported API fails here, before anything connects).
    pub fn new(def: ScriptDef, seed: u64) -> Result<Script, String> {
        let st = state::main_state(&def, "run", seed, true)?;
        let sb = st.sysbench().map_err(|e| state::message(&e))?;
        let dirs: Vec<String> = std::iter::once(def.dir.clone())
            .chain(super::find::SEARCH_PATH.iter().map(|d| d.to_string()))
            .collect();
        super::scan::unsupported_api(&sb, &def.path, &def.text, &dirs)?;
        let name = def.name();
        Ok(Script {
            def: Arc::new(def),
            name,
            seed,
        })
    }

    /// Runs the script's command `name` (its own, such as `prewarm`, or
    /// prepare/cleanup); Err says why it could not.
    pub fn run_command(
        &self,
        name: &str,
        opts: &ConnOpts,
        stop: fn() -> bool,
    ) -> Result<(), String> {
        command::run_command(&self.def, name, opts, self.seed, stop)
    }
}

impl Script {
    /// Calls the script's global `name` (init, done) in its main state, if
    /// it defines one; Err is the error's first line.
    fn call_main(&self, name: &str) -> Result<(), String> {
        let st = state::main_state(&self.def, "run", self.seed, true)?;
        let Some(f) = st.global_fn(name) else {
            return Ok(());
        };
        st.host.guard.set_command(name);
        st.call(StepKind::Command, f, (), |m| m)
            .map_err(|m| m.lines().next().unwrap_or("").to_string())
    }
}

impl Family for Script {
    fn name(&self) -> &str {
        &self.name
    }

    fn options(&self) -> serde_json::Value {
        let opts: serde_json::Map<String, serde_json::Value> = self
            .def
            .opt_values
            .iter()
            .map(|(n, v)| (n.clone(), serde_json::to_value(v).unwrap_or_default()))
            .collect();
        serde_json::json!({
            "script": self.def.path.display().to_string(),
            "sha256": self.def.sha256,
            "text": self.def.text,
            "options": opts,
        })
    }

    fn statements(&self) -> Vec<StatementSpec> {
        Vec::new()
    }

    fn stat_names(&self) -> Vec<String> {
        STAT_NAMES.iter().map(|s| s.to_string()).collect()
    }

    fn required_tables(&self) -> Vec<String> {
        // Only the script knows; a missing table shows at its first query.
        Vec::new()
    }

    fn prepare_command(&self) -> String {
        format!(
            "qpslab prepare {} (with the run's options)",
            self.def.path.display()
        )
    }

    fn prepare(
        &self,
        opts: &ConnOpts,
        _loaders: usize,
        _progress: &mut dyn FnMut(crate::workload::Progress),
        stop: fn() -> bool,
    ) -> anyhow::Result<PrepareReport> {
        let t = std::time::Instant::now();
        self.run_command("prepare", opts, stop)
            .map_err(anyhow::Error::msg)?;
        Ok(PrepareReport {
            tables: 0,
            rows: 0,
            seconds: t.elapsed().as_secs_f64(),
            piped: false,
            pipe_note: None,
        })
    }

    fn cleanup<'a>(
        &'a self,
        conn: &'a mut Conn,
        _each: &'a mut dyn FnMut(&str),
    ) -> BoxFuture<'a, anyhow::Result<()>> {
        Box::pin(async move {
            command::on_conn(&self.def, "cleanup", conn, self.seed)
                .await
                .map_err(anyhow::Error::msg)
        })
    }

    fn session(&self, thread: u32, _threads: u32, seed: u64) -> Box<dyn Session> {
        match state::load(&self.def, "run", thread, seed) {
            Ok(st) => Box::new(ScriptSession::new(st, thread)),
            Err(m) => Box::new(FailedSession(m)),
        }
    }

    fn report_hook(&self) -> Option<Box<dyn ReportHook>> {
        let main = state::main_state(&self.def, "run", self.seed, true).ok()?;
        // (sysbench's reporting thread has a state of its own, whose
        // sysbench.tid is --threads, when there is a report interval)
        let interval = self
            .def
            .opt_values
            .iter()
            .any(|(n, v)| n == "report_interval" && matches!(v, OptValue::Num(x) if *x > 0.0));
        let interval = interval
            .then(|| state::load(&self.def, "run", self.def.threads, self.seed).ok())
            .flatten();
        let r = super::report::ScriptReporter { main, interval };
        Some(Box::new(r))
    }

    fn begin_run(&self) -> Result<(), String> {
        self.call_main("init")
    }

    fn end_run(&self) -> Result<(), String> {
        self.call_main("done")
    }

    fn advice(&self, code: u16) -> Option<String> {
        (code == 1146).then(|| {
            format!(
                "the script's tables are missing: run `qpslab prepare {}` with the same options first",
                self.def.path.display()
            )
        })
    }
}
