//! What a result was measured on, for run pages, run reports and campaign
//! reports: one collapsible section per run (or per campaign variant) with
//! the server's version, the variables not at their default, the my.cnf,
//! the host, qpslab's version and commit and the command line (recorded
//! with its secrets removed), so that a shared report can be checked and
//! reproduced.

use crate::store::RunDetail;
use maud::{html, Markup};
use serde_json::Value;

/// One line: server, host, qpslab.
pub(crate) fn summary_line(d: &RunDetail) -> String {
    let h = &d.host;
    format!(
        "{} · {}, {} CPUs, {} memory, kernel {} · qpslab {} ({})",
        crate::server::server_label(d.server_flavor.as_deref(), d.run.server_version.as_deref()),
        h.cpu_model,
        h.cpus,
        crate::report::meminfo_size(&h.memory),
        h.kernel,
        d.qpslab_version,
        d.git_hash
    )
}

/// Server variables shown in the environment's server table when set.
const SERVER_KEYS: [&str; 6] = [
    "version_comment",
    "datadir",
    "innodb_buffer_pool_size",
    "innodb_log_file_size",
    "max_connections",
    "performance_schema",
];

/// A two-column row of names and values.
fn row(k: &str, v: &str) -> Markup {
    html! { tr { td.l { (k) } td.l { (v) } } }
}

/// The collapsible environment section of run `d`, titled `title`.
pub fn section(d: &RunDetail, title: &str) -> Markup {
    let command_line = if d.command_line.is_empty() {
        "(none recorded)"
    } else {
        &d.command_line
    };
    // Keys sorted, as stored.
    let pretty = |v: serde_json::Result<Value>| {
        v.and_then(|v| serde_json::to_string_pretty(&v))
            .unwrap_or_default()
    };
    html! {
        details.env {
            summary { b { (title) } ": " (summary_line(d)) }
            h4 { "Command line" }
            pre { (command_line) }
            (server_table(d))
            (nondefault_table(d))
            h4 { "my.cnf" }
            pre {
                (d.server_cnf.as_deref().unwrap_or("(not a sandbox: the server's own configuration)"))
            }
            (host_table(&d.host))
            h4 { "Run options" }
            pre { (pretty(serde_json::to_value(&d.options))) }
            @if let Some(vars) = d.server_variables.as_object() {
                details {
                    summary { "all " (vars.len()) " server variables" }
                    table {
                        @for (k, v) in vars { (row(k, v.as_str().unwrap_or(""))) }
                    }
                }
            }
        }
    }
}

/// The server: version, flavour, a few variables, the sandbox.
fn server_table(d: &RunDetail) -> Markup {
    html! {
        h4 { "Server" }
        table {
            (row("version", d.run.server_version.as_deref().unwrap_or("-")))
            (row("flavour", d.server_flavor.as_deref().unwrap_or("-")))
            @for k in SERVER_KEYS {
                @if let Some(v) = d.server_variables[k].as_str() { (row(k, v)) }
            }
            @if let Some(sb) = &d.sandbox {
                (row("sandbox", &crate::report::sandbox_text(sb)))
            }
        }
    }
}

/// The client host in words: its name, CPUs, memory in binary units,
/// kernel, and the pre-flight check of its campaign round when there was
/// one.
fn host_table(h: &crate::stats::document::HostDocument) -> Markup {
    html! {
        h4 { "Host" }
        table {
            (row("hostname", &h.hostname))
            (row("CPU", &format!("{} × {}", h.cpus, h.cpu_model)))
            (row("memory", &crate::report::meminfo_size(&h.memory)))
            (row("kernel", &h.kernel))
            @if let Some(p) = &h.preflight {
                (row("pre-flight", &format!(
                    "busy outside qpslab {:.0}%, timing loop CoV {:.1}% over {:.0} s{}",
                    100.0 * p.host_busy_outside_qpslab,
                    100.0 * p.loop_cov,
                    p.seconds,
                    p.load_average.as_deref().map(|l| format!(", load average {l}")).unwrap_or_default()
                )))
            }
        }
    }
}

/// The variables not at their default, with their defaults and origins.
fn nondefault_table(d: &RunDetail) -> Markup {
    let Some(m) = d.server_nondefault.as_object() else {
        return html! {
            h4 { "Variables not at their default" }
            p.meta {
                "Not known for this server (it reports no defaults before MySQL 8.0 and MariaDB 10.1): the my.cnf below and all variables hold what was set."
            }
        };
    };
    let s = |v: &Value, k: &str| v[k].as_str().unwrap_or("").to_string();
    html! {
        h4 { "Variables not at their default (" (m.len()) ")" }
        table {
            tr { th.l { "variable" } th.l { "value" } th.l { "default" } th.l { "set by" } }
            @for (k, v) in m {
                tr {
                    td.l { (k) }
                    td.l { (s(v, "value")) }
                    td.l { (s(v, "default")) }
                    td.l { (s(v, "origin").to_lowercase()) }
                }
            }
        }
    }
}
