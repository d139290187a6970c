//! campaign: what a campaign is.
//!
//! Owns the campaign file format (TOML), its validation, the expansion into
//! points (server × variant × workload × threads × repeat) and each point's
//! identity: a hash of everything that defines it, so that rerunning a file
//! skips what is already done. It runs nothing itself; `lab` drives the
//! points through server, exec and store.

mod agents_def;
mod host_step;
pub mod presets;
mod sweep_definition;

pub use agents_def::AgentsDef;
pub use host_step::HostStep;
pub use sweep_definition::{SweepDefinition, SWEEP_DEFINITION_VERSION};

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Bounds of a campaign file's keys (a file is input like any other).
const MAX_THREADS: u32 = 100_000;
const MAX_REPEAT: u32 = 1_000;
const MAX_POINTS: usize = 100_000;
/// Ten years: far below what a `Duration` holds.
const MAX_SECONDS: f64 = 10.0 * 365.0 * 86_400.0;

/// When servers are restarted (sandboxes only).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Restart {
    /// Restart, from the template datadir, whenever the variant changes.
    #[default]
    Variant,
    /// Restart, from the template datadir, before every point.
    Step,
    /// Restart only when the server's settings change.
    Never,
}

/// The test data every point runs on, prepared once per server.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Data {
    /// OLTP tables (sbtest1..N); 4 by default.
    #[serde(default = "default_tables")]
    pub tables: u32,
    /// Rows per OLTP table; 100,000 by default.
    #[serde(default = "default_table_size")]
    pub table_size: u32,
    /// TPC-C warehouses loaded for `tpcc` workloads (one table set); a
    /// tpcc workload may run on fewer (`options = { warehouses = 2 }`).
    #[serde(default)]
    pub warehouses: u32,
    /// LinkBench's graph for `linkbench` workloads: node ids 1..maxid1
    /// (0: none). Left out of a point's definition when 0, so that files
    /// without it keep their points' hashes (stored campaigns resume).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub maxid1: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

fn default_tables() -> u32 {
    4
}
fn default_table_size() -> u32 {
    100_000
}

impl Default for Data {
    fn default() -> Self {
        Data {
            tables: default_tables(),
            table_size: default_table_size(),
            warehouses: 0,
            maxid1: 0,
        }
    }
}

/// A server of the matrix: a sandbox (created as described) or an external DSN.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ServerDef {
    /// Series label of its results, e.g. "mariadb-10.11".
    pub label: String,
    /// Sandbox name; defaults to the label.
    pub sandbox: Option<String>,
    /// An external server instead of a sandbox: mysql://user[:pw]@host:port/db
    pub dsn: Option<String>,
    /// The my.cnf preset of a sandbox (`qpslab server presets`); `profile`
    /// is its older name. Written as `profile` into the point definition,
    /// so that the points' hashes stay what stored campaigns hold.
    #[serde(rename(serialize = "profile"), alias = "profile")]
    pub preset: Option<String>,
    /// An installed server's base directory to run the sandbox from.
    pub basedir: Option<PathBuf>,
    /// A server build by name (`mysql-5.5.9`, `mariadb-11.4.5`): fetched
    /// into the build cache when missing (`qpslab server get`) and used as
    /// the basedir.
    pub version: Option<String>,
    /// CPUs the sandbox server is pinned to, in list form ("2-15").
    pub cpus: Option<String>,
    /// Server variables for every variant of this server.
    #[serde(default)]
    pub set: BTreeMap<String, toml::Value>,
    /// The agent beside a dsn server on another host (HOST:PORT, with
    /// `[agents]`'s token_file and ca_file): its host's OS sources and
    /// perf recordings, as `--server-agent`. Not part of a point's
    /// identity (left out of its definition).
    pub agent: Option<String>,
}

/// A configuration variant applied to every server.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct VariantDef {
    /// Its name in results and ratio matrices ("off", "on").
    pub name: String,
    /// Server variables: my.cnf settings at (re)start for sandboxes, SET GLOBAL for external servers.
    #[serde(default)]
    pub set: BTreeMap<String, toml::Value>,
    /// Statements run after the server starts (e.g. Performance Schema consumers).
    #[serde(default)]
    pub sql: Vec<String>,
}

/// A workload with its options, named as on the command line (sysbench's names).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct WorkloadDef {
    /// A built-in workload (`tpcc`, `linkbench`, `dbt3`, `dbstress`,
    /// `insert-benchmark` …) or a sysbench Lua script's path.
    pub name: String,
    /// The workload's options, named as on the command line.
    #[serde(default)]
    pub options: BTreeMap<String, toml::Value>,
}

/// A campaign file (TOML): the matrix of servers × variants × workloads ×
/// concurrencies × repeats to measure, and how each point runs.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct CampaignFile {
    /// The campaign's name (its runs are grouped under it in the store).
    pub name: String,
    /// What it measures, in words.
    #[serde(default)]
    pub description: String,
    /// Concurrencies to run each workload at.
    pub threads: Vec<u32>,
    /// Measured seconds per point; 10 by default.
    #[serde(default = "default_time")]
    pub time: f64,
    /// Seconds of warm-up before each point's measurement.
    #[serde(default)]
    pub warmup: f64,
    /// Seconds of rest after each point.
    #[serde(default)]
    pub cooldown: f64,
    /// Rounds over the whole matrix; 1 by default.
    #[serde(default = "default_repeat")]
    pub repeat: u32,
    /// When sandboxes are restarted.
    #[serde(default)]
    pub restart: Restart,
    /// The data every point runs on.
    #[serde(default)]
    pub data: Data,
    /// The variant the ratio matrix divides by; defaults to the first.
    pub reference: Option<String>,
    /// The servers (`[[server]]` tables).
    #[serde(rename = "server")]
    pub servers: Vec<ServerDef>,
    /// The variants (`[[variant]]` tables); one named "default" when none.
    #[serde(rename = "variant", default)]
    pub variants: Vec<VariantDef>,
    /// The workloads (`[[workload]]` tables).
    #[serde(rename = "workload")]
    pub workloads: Vec<WorkloadDef>,
    /// Profile every run: kinds as for `--profile` (cpu, offcpu, syscalls,
    /// waits); a workload's own `profile_hz` / `profile_waits` options
    /// tune them.
    #[serde(default)]
    pub profile: Vec<String>,
    /// CPUs qpslab's load threads are pinned to in every run (as
    /// `--client-cpus`), e.g. "0-1" beside a server with `cpus = "2-15"`.
    pub client_cpus: Option<String>,
    /// The host characterisation run before the points (`[host]`); none
    /// when absent.
    pub host: Option<HostStep>,
    /// The agents that drive every point (`[agents]`, as `run --agents`);
    /// none: the load runs here.
    pub agents: Option<AgentsDef>,
}

fn default_time() -> f64 {
    10.0
}
fn default_repeat() -> u32 {
    1
}

/// One measurement of the matrix.
#[derive(Debug, Clone)]
pub struct Point {
    /// Index into `CampaignFile::servers`.
    pub server: usize,
    /// Index into `CampaignFile::variants`.
    pub variant: usize,
    /// Index into `CampaignFile::workloads`.
    pub workload: usize,
    /// Concurrency.
    pub threads: u32,
    /// Round, from 1.
    pub repeat: u32,
    /// A stable hash (16 hex digits) of everything that defines the point:
    /// a stopped campaign resumes by skipping the points already stored.
    pub hash: String,
}

/// A TOML value as a my.cnf / SET value: strings without quotes.
pub fn value_text(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

impl CampaignFile {
    /// Parses and checks a campaign file's text; `origin` names it in errors.
    pub fn parse(text: &str, origin: &str) -> Result<CampaignFile> {
        let mut c: CampaignFile = toml::from_str(text).map_err(|e| {
            // One line: the parser's own text adds a snippet with a caret.
            let line = e
                .span()
                .map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1);
            let at = line.map(|l| format!(" (line {l})")).unwrap_or_default();
            anyhow::anyhow!(
                "{origin} is not a valid campaign file{at}: {}",
                e.message().trim().replace('\n', "; ")
            )
        })?;
        if c.variants.is_empty() {
            c.variants.push(VariantDef {
                name: "default".into(),
                set: BTreeMap::new(),
                sql: Vec::new(),
            });
        }
        c.validate().with_context(|| format!("in {origin}"))?;
        Ok(c)
    }

    /// Checks every key's range; also after command-line overrides.
    pub fn validate(&self) -> Result<()> {
        if self.threads.is_empty() || self.threads.iter().any(|t| !(1..=MAX_THREADS).contains(t)) {
            bail!("threads must be a non-empty list of numbers from 1 to {MAX_THREADS}");
        }
        if self.servers.is_empty() || self.workloads.is_empty() {
            bail!("a campaign needs at least one [[server]] and one [[workload]]");
        }
        if !(1..=MAX_REPEAT).contains(&self.repeat) {
            bail!("repeat must be from 1 to {MAX_REPEAT}");
        }
        let seconds = |key: &str, v: f64, min_exclusive: bool| -> Result<()> {
            let low_ok = if min_exclusive { v > 0.0 } else { v >= 0.0 };
            if !(low_ok && v <= MAX_SECONDS) {
                bail!(
                    "{key} = {v} is out of range: give seconds {} 0 and at most {MAX_SECONDS:.0}",
                    if min_exclusive { "above" } else { "from" }
                );
            }
            Ok(())
        };
        seconds("time", self.time, true)?;
        seconds("warmup", self.warmup, false)?;
        seconds("cooldown", self.cooldown, false)?;
        let server_agents = self.servers.iter().any(|s| s.agent.is_some());
        if let Some(a) = &self.agents {
            a.validate(server_agents)?;
        }
        if self.data.tables == 0 || self.data.table_size == 0 {
            bail!("[data] tables and table_size must be at least 1");
        }
        if self.data.warehouses == 0
            && self
                .workloads
                .iter()
                .any(|w| crate::workload::tpcc::is_tpcc(&w.name))
        {
            bail!("a tpcc workload needs its data: set [data] warehouses = N (the most any tpcc workload uses)");
        }
        if self.data.maxid1 < 3
            && self
                .workloads
                .iter()
                .any(|w| crate::workload::linkbench::is_linkbench(&w.name))
        {
            bail!("a linkbench workload needs its graph: set [data] maxid1 = N (at least 3; LinkBench's default is 10000001)");
        }
        let points = [
            self.servers.len(),
            self.variants.len(),
            self.workloads.len(),
            self.threads.len(),
            self.repeat as usize,
        ]
        .iter()
        .try_fold(1usize, |acc, n| acc.checked_mul(*n))
        .unwrap_or(usize::MAX);
        if points > MAX_POINTS {
            bail!("the matrix has {points} points, more than {MAX_POINTS}: split the campaign");
        }
        for s in &self.servers {
            if s.agent.is_some() && s.dsn.is_none() {
                bail!("server '{}': agent goes with dsn (a sandbox runs on this host, whose OS sources are read here): drop agent, or give the server as a dsn", s.label);
            }
            if s.agent.is_some() && self.agents.is_none() {
                bail!("server '{}': agent needs [agents] token_file = \"FILE\" (the token the agent beside it was started with)", s.label);
            }
            if s.basedir.is_some() && s.version.is_some() {
                bail!("server '{}': give basedir or version, not both", s.label);
            }
            if let Some(v) = &s.version {
                crate::server::BuildName::parse(v)
                    .map_err(|e| anyhow::anyhow!("server '{}': version: {e}", s.label))?;
            }
            if s.dsn.is_some()
                && (s.sandbox.is_some()
                    || s.version.is_some()
                    || s.basedir.is_some()
                    || s.preset.is_some()
                    || s.cpus.is_some()
                    || !s.set.is_empty())
            {
                bail!(
                    "server '{}': a dsn server cannot have sandbox, basedir, version, preset, cpus or set",
                    s.label
                );
            }
        }
        let mut names: Vec<&str> = self.variants.iter().map(|v| v.name.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        if names.len() != self.variants.len() {
            bail!("variant names must be distinct");
        }
        if let Some(r) = &self.reference {
            if !self.variants.iter().any(|v| &v.name == r) {
                bail!("reference '{r}' is not one of the variants");
            }
        }
        if let Some(h) = &self.host {
            h.validate()?;
        }
        for w in &self.workloads {
            if crate::workload::script::is_script(&w.name) {
                crate::workload::script::find_script(&w.name).map_err(anyhow::Error::msg)?;
            } else if crate::workload::ibench::is_ibench(&w.name)
                && w.options.contains_key("phases")
            {
                bail!(
                    "workload '{}': phases are a campaign of their own; drop `phases` here (each point runs the insert benchmark's steady phase), or run `qpslab run insert-benchmark --phases …`",
                    w.name
                );
            } else if !crate::workload::tpcc::is_tpcc(&w.name)
                && !crate::workload::linkbench::is_linkbench(&w.name)
                && !crate::workload::dbt3::is_dbt3(&w.name)
                && !own_data(&w.name)
            {
                crate::workload::Workload::parse(&w.name)?;
            }
        }
        Ok(())
    }

    /// Sandbox name of server `i` (None for DSN servers).
    pub fn sandbox_name(&self, i: usize) -> Option<String> {
        let s = &self.servers[i];
        if s.dsn.is_some() {
            return None;
        }
        Some(s.sandbox.clone().unwrap_or_else(|| {
            s.label
                .chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                        c
                    } else {
                        '-'
                    }
                })
                .collect()
        }))
    }

    /// The variant ratios divide by: `reference`, else the first.
    pub fn reference_variant(&self) -> &str {
        self.reference.as_deref().unwrap_or(&self.variants[0].name)
    }

    /// Everything that defines a point, in a canonical form.
    pub(crate) fn point_definition(
        &self,
        server: usize,
        variant: usize,
        workload: usize,
        threads: u32,
        repeat: u32,
    ) -> serde_json::Value {
        let mut server = serde_json::json!(self.servers[server]);
        // Where the server's host is read from does not define a point.
        if let Some(o) = server.as_object_mut() {
            o.remove("agent");
        }
        // A DSN's password does not define a point (and the stored
        // definition has it redacted: `campaign status ID` hashes that).
        if let Some(dsn) = server["dsn"].as_str() {
            server["dsn"] = crate::secret::redact_dsns(dsn).into();
        }
        let mut def = serde_json::json!({
            "server": server,
            "variant": self.variants[variant],
            "workload": self.workloads[workload],
            "data": self.data,
            "threads": threads,
            "repeat": repeat,
            "time": self.time,
            "warmup": self.warmup,
        });
        // Only when set, so that files without it keep their points' hashes.
        if let Some(c) = &self.client_cpus {
            def["client_cpus"] = c.clone().into();
        }
        def
    }

    /// All points, in run order. Repeats are rounds: round 1 runs every
    /// server, variant, workload and concurrency once, round 2 again, …;
    /// each round starts its servers and variants one further along (round
    /// 2 of variants off, on, global runs on, global, off), so slow drift
    /// of the host or the server lands on every variant alike instead of
    /// passing for a difference between them.
    pub fn points(&self) -> Vec<Point> {
        let mut out = Vec::new();
        let (ns, nv) = (self.servers.len(), self.variants.len());
        for r in 1..=self.repeat {
            let shift = (r - 1) as usize;
            for si in 0..ns {
                let s = (si + shift) % ns;
                for vi in 0..nv {
                    let v = (vi + shift) % nv;
                    for w in 0..self.workloads.len() {
                        for &t in &self.threads {
                            let def = self.point_definition(s, v, w, t, r).to_string();
                            out.push(Point {
                                server: s,
                                variant: v,
                                workload: w,
                                threads: t,
                                repeat: r,
                                hash: format!("{:016x}", crate::stats::fnv1a64(def.as_bytes())),
                            });
                        }
                    }
                }
            }
        }
        out
    }
}

/// Workloads whose tables come from their own options (dbSTRESS, the
/// insert benchmark): each is prepared from its workload's options, not
/// from `[data]`.
pub fn own_data(name: &str) -> bool {
    crate::workload::dbstress::is_dbstress(name) || crate::workload::ibench::is_ibench(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = r#"
        name = "t"
        threads = [1, 4]
        repeat = 2
        [[server]]
        label = "a"
        [[variant]]
        name = "x"
        set = { innodb_spin_wait_delay = 6 }
        [[variant]]
        name = "y"
        [[workload]]
        name = "point_select"
        options = { range_size = 10 }
    "#;

    /// Stored campaigns resume by their points' hashes: these values were
    /// computed by the code that wrote them and must never change.
    /// A server's my.cnf preset was called `profile`: both names give the
    /// same points (stored campaigns written with `profile` still resume).
    #[test]
    fn a_preset_under_either_name_gives_the_same_hashes() {
        let with = |key: &str| {
            let f = FILE.replace(
                "label = \"a\"",
                &format!("label = \"a\"\n{key} = \"bench\""),
            );
            let p = CampaignFile::parse(&f, "test").unwrap().points();
            p.into_iter().map(|x| x.hash).collect::<Vec<_>>()
        };
        assert_eq!(with("preset"), with("profile"));
        assert_ne!(
            with("preset"),
            CampaignFile::parse(FILE, "test")
                .unwrap()
                .points()
                .into_iter()
                .map(|x| x.hash)
                .collect::<Vec<_>>()
        );
    }

    #[test]
    fn point_hashes_are_pinned() {
        let p = CampaignFile::parse(FILE, "test").unwrap().points();
        let h: Vec<&str> = p.iter().map(|x| x.hash.as_str()).collect();
        assert_eq!(
            h,
            [
                "cfd6f38fbc4dae81",
                "992f1e2052370fe6",
                "89a5ec6ab47ccceb",
                "d98ad507582860b0",
                "92ce302e0eedb624",
                "652065eeba967997",
                "84c9d3c2463fd97a",
                "3bc6b4c1c4a5a30d"
            ]
        );
    }

    #[test]
    fn expands_the_matrix_with_stable_distinct_hashes() {
        let c = CampaignFile::parse(FILE, "test").unwrap();
        let p = c.points();
        assert_eq!(p.len(), 2 * 2 * 2);
        let mut h: Vec<&str> = p.iter().map(|x| x.hash.as_str()).collect();
        h.sort_unstable();
        h.dedup();
        assert_eq!(h.len(), 8);
        assert_eq!(
            CampaignFile::parse(FILE, "test").unwrap().points()[3].hash,
            p[3].hash
        );
        let longer =
            CampaignFile::parse(&FILE.replace("repeat = 2", "repeat = 2\ntime = 20"), "test")
                .unwrap();
        assert_ne!(longer.points()[0].hash, p[0].hash);
        // Pinning the client makes other points; a file without the key
        // keeps the hashes it always had (pinned hash differs from p's).
        let pinned = CampaignFile::parse(
            &FILE.replace("repeat = 2", "repeat = 2\nclient_cpus = \"0\""),
            "test",
        )
        .unwrap();
        assert_eq!(pinned.client_cpus.as_deref(), Some("0"));
        assert_ne!(pinned.points()[0].hash, p[0].hash);
        assert!(c
            .point_definition(0, 0, 0, 1, 1)
            .get("client_cpus")
            .is_none());
        // Repeats are rounds, each starting one variant further along.
        let order: Vec<(usize, u32)> = p.iter().map(|x| (x.variant, x.repeat)).collect();
        assert_eq!(
            order,
            vec![
                (0, 1),
                (0, 1),
                (1, 1),
                (1, 1),
                (1, 2),
                (1, 2),
                (0, 2),
                (0, 2)
            ]
        );
        assert_eq!(
            value_text(&c.variants[0].set["innodb_spin_wait_delay"]),
            "6"
        );
        assert_eq!(c.sandbox_name(0).as_deref(), Some("a"));
    }

    #[test]
    fn rejects_out_of_range_keys() {
        for (from, to, key) in [
            ("repeat = 2", "repeat = 2\ncooldown = -1", "cooldown"),
            ("repeat = 2", "repeat = 2\ntime = 1e300", "time"),
            ("repeat = 2", "repeat = 2\nwarmup = nan", "warmup"),
            ("repeat = 2", "repeat = 0", "repeat"),
            ("threads = [1, 4]", "threads = [1, 4000000]", "threads"),
            (
                "repeat = 2",
                "repeat = 2\n[data]\ntable_size = 0",
                "table_size",
            ),
        ] {
            let e = CampaignFile::parse(&FILE.replace(from, to), "test").unwrap_err();
            let msg = format!("{e:#}");
            assert!(msg.contains(key) && msg.contains("in test"), "{key}: {msg}");
        }
    }

    #[test]
    fn rejects_bad_files() {
        assert!(CampaignFile::parse("name = 1", "x").is_err());
        assert!(
            CampaignFile::parse(&FILE.replace("threads = [1, 4]", "threads = []"), "x").is_err()
        );
        assert!(CampaignFile::parse(&FILE.replace("\"point_select\"", "\"nope\""), "x").is_err());
        assert!(CampaignFile::parse(&FILE.replace("name = \"y\"", "name = \"x\""), "x").is_err());
        assert!(
            CampaignFile::parse(&FILE.replace("repeat = 2", "repeat = 2\nbogus = 1"), "x").is_err()
        );
    }
}
