//! What a result must carry to be reproduced: the server (flavour, version,
//! all variables, the sandbox's my.cnf and settings) and the host.

use super::target::Target;
use crate::protocol::Conn;
use crate::server::Sandbox;
use crate::stats::document::{HostDocument, OptionsDocument, SandboxDocument};
use anyhow::Result;
use serde_json::{json, Map, Value};

/// The server and host a run measured, captured once before it and stored with it.
pub struct Environment {
    /// The server's flavour (`mariadb`, `mysql` or `percona`), from its version
    /// and version comment.
    pub flavor: String,
    /// The server's version string as it reports it.
    pub version: String,
    /// `SHOW GLOBAL VARIABLES` as a JSON object, name to value (strings).
    pub variables: Value,
    /// The sandbox's my.cnf text; None when the target is not a sandbox.
    pub cnf: Option<String>,
    /// Variables not at their compiled default (see `nondefault`).
    pub nondefault: Option<Value>,
    /// The sandbox's settings; None when the target is not a sandbox.
    pub sandbox: Option<SandboxDocument>,
    /// The host: hostname, CPU model and count, memory, kernel (see `host`).
    pub host: HostDocument,
}

impl Environment {
    /// The environment of a run without a server (sysbench mode's
    /// script that never connects): the host alone.
    pub fn without_server() -> Environment {
        Environment {
            flavor: String::new(),
            version: String::new(),
            variables: json!({}),
            cnf: None,
            nondefault: None,
            sandbox: None,
            host: host(),
        }
    }

    /// The store row of a run starting in this environment.
    pub fn new_run(
        &self,
        tags: &super::tags::RunTags,
        workload: &str,
        threads: u32,
        options: OptionsDocument,
    ) -> crate::store::NewRun {
        crate::store::NewRun {
            campaign_id: tags.campaign_id,
            point_hash: tags.point_hash.clone(),
            label: tags.label.clone(),
            variant: tags.variant.clone(),
            workload: workload.to_string(),
            threads,
            options,
            server_flavor: Some(self.flavor.clone()),
            server_version: Some(self.version.clone()),
            server_variables: Some(self.variables.clone()),
            server_cnf: self.cnf.clone(),
            server_nondefault: self.nondefault.clone(),
            sandbox: self.sandbox.clone(),
            host: HostDocument {
                preflight: tags.preflight.clone(),
                ..self.host.clone()
            },
            command_line: tags.command_line.clone(),
            started_at: None,
        }
    }
}

fn proc_line(path: &str, key: &str) -> Option<String> {
    std::fs::read_to_string(path)
        .ok()?
        .lines()
        .find(|l| l.starts_with(key))
        .and_then(|l| l.split_once(':'))
        .map(|(_, v)| v.trim().to_string())
}

/// This host, as a run's document records it.
pub fn host() -> HostDocument {
    let read = |p: &str| {
        std::fs::read_to_string(p)
            .map(|s| s.trim().to_string())
            .unwrap_or_default()
    };
    HostDocument {
        hostname: read("/proc/sys/kernel/hostname"),
        cpu_model: proc_line("/proc/cpuinfo", "model name").unwrap_or_default(),
        cpus: std::thread::available_parallelism().map_or(0, |n| n.get() as u64),
        memory: proc_line("/proc/meminfo", "MemTotal").unwrap_or_default(),
        kernel: read("/proc/sys/kernel/osrelease"),
        preflight: None,
    }
}

/// Reads the server's identity over one short connection.
pub async fn capture(t: &Target, conn: &mut Conn) -> Result<Environment> {
    let version = conn.server_version().to_string();
    let vars = conn.query("SHOW GLOBAL VARIABLES").await?;
    let variables: Map<String, Value> = vars
        .rows
        .into_iter()
        .filter_map(|r| {
            let mut it = r.into_iter();
            Some((
                it.next().flatten()?,
                Value::from(it.next().flatten().unwrap_or_default()),
            ))
        })
        .collect();
    let (cnf, sandbox) = match t
        .sandbox
        .as_deref()
        .map(Sandbox::open)
        .transpose()?
        .flatten()
    {
        Some(sb) => (
            std::fs::read_to_string(sb.cnf_path()).ok(),
            Some(SandboxDocument {
                name: sb.spec.name.clone(),
                preset: sb.spec.preset.name().to_string(),
                basedir: sb.spec.basedir.as_ref().map(|b| b.display().to_string()),
                cpus: sb.spec.cpus.clone(),
                sets: sb.spec.sets.clone(),
            }),
        ),
        None => (None, None),
    };
    let nondefault = nondefault(conn).await;
    let comment = variables
        .get("version_comment")
        .and_then(Value::as_str)
        .unwrap_or_default();
    Ok(Environment {
        flavor: crate::server::Release::parse(&version, comment)
            .map_or(crate::server::Flavor::MySql, |r| r.flavor)
            .display()
            .to_string(),
        version,
        variables: Value::Object(variables),
        cnf,
        nondefault,
        sandbox,
        host: host(),
    })
}

/// The variables not at their compiled default, as {name: {value,
/// default, origin}}: MariaDB's information_schema.SYSTEM_VARIABLES (10.1+),
/// MySQL 8's performance_schema.variables_info; None where neither answers.
async fn nondefault(conn: &mut Conn) -> Option<Value> {
    const QUERIES: [&str; 2] = [
        "SELECT VARIABLE_NAME, GLOBAL_VALUE, DEFAULT_VALUE, GLOBAL_VALUE_ORIGIN \
         FROM information_schema.SYSTEM_VARIABLES \
         WHERE GLOBAL_VALUE_ORIGIN <> 'COMPILE-TIME' ORDER BY VARIABLE_NAME",
        "SELECT i.VARIABLE_NAME, g.VARIABLE_VALUE, NULL, i.VARIABLE_SOURCE \
         FROM performance_schema.variables_info i \
         JOIN performance_schema.global_variables g ON g.VARIABLE_NAME = i.VARIABLE_NAME \
         WHERE i.VARIABLE_SOURCE <> 'COMPILED' ORDER BY i.VARIABLE_NAME",
    ];
    for q in QUERIES {
        if let Ok(rs) = conn.query(q).await {
            let m: Map<String, Value> = rs
                .rows
                .into_iter()
                .filter_map(|r| {
                    let mut it = r.into_iter();
                    let name = it.next().flatten()?.to_lowercase();
                    let value = it.next().flatten();
                    let default = it.next().flatten();
                    let origin = it.next().flatten();
                    Some((
                        name,
                        json!({"value": value, "default": default, "origin": origin}),
                    ))
                })
                .collect();
            return Some(Value::Object(m));
        }
    }
    None
}
