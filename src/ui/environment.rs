//! What a result was measured on, for run pages, run reports and campaign
//! reports: one collapsible section per run (or per campaign variant) with
//! the server's version, the variables not at their default, the my.cnf,
//! the host, qpslab's version and commit and the command line (recorded
//! with its secrets removed), so that a shared report can be checked and
//! reproduced.

use super::page::esc;
use crate::store::RunDetail;
use serde_json::Value;
use std::fmt::Write;

/// One line: server, host, qpslab.
pub fn summary_line(d: &RunDetail) -> String {
    let h = &d.host;
    let s = |v: &Value| v.as_str().unwrap_or("").to_string();
    format!(
        "{} · {}, {} CPUs, {} memory, kernel {} · qpslab {} ({})",
        crate::server::server_label(d.server_flavor.as_deref(), d.run.server_version.as_deref()),
        s(&h["cpu_model"]),
        h["cpus"],
        s(&h["memory"]),
        s(&h["kernel"]),
        d.qpslab_version,
        d.git_hash
    )
}

/// The collapsible environment section of run `d`, titled `title`.
pub fn section(d: &RunDetail, title: &str) -> String {
    let mut o = format!(
        "<details class=\"env\"><summary><b>{}</b>: {}</summary>",
        esc(title),
        esc(&summary_line(d))
    );
    let _ = write!(
        o,
        "<h4>Command line</h4><pre>{}</pre>",
        esc(if d.command_line.is_empty() {
            "(none recorded)"
        } else {
            &d.command_line
        })
    );
    o.push_str("<h4>Server</h4><table>");
    let row = |o: &mut String, k: &str, v: &str| {
        let _ = write!(
            o,
            "<tr><td class=\"l\">{}</td><td class=\"l\">{}</td></tr>",
            esc(k),
            esc(v)
        );
    };
    row(
        &mut o,
        "version",
        d.run.server_version.as_deref().unwrap_or("-"),
    );
    row(&mut o, "flavour", d.server_flavor.as_deref().unwrap_or("-"));
    for k in [
        "version_comment",
        "datadir",
        "innodb_buffer_pool_size",
        "innodb_log_file_size",
        "max_connections",
        "performance_schema",
    ] {
        if let Some(v) = d.server_variables[k].as_str() {
            row(&mut o, k, v);
        }
    }
    if let Some(sb) = d.sandbox.as_object() {
        row(
            &mut o,
            "sandbox",
            &serde_json::to_string(sb).unwrap_or_default(),
        );
    }
    o.push_str("</table>");
    match d.server_nondefault.as_object() {
        Some(m) => {
            let _ = write!(
                o,
                "<h4>Variables not at their default ({})</h4><table><tr><th class=\"l\">variable</th><th class=\"l\">value</th><th class=\"l\">default</th><th class=\"l\">set by</th></tr>",
                m.len()
            );
            for (k, v) in m {
                let _ = write!(
                    o,
                    "<tr><td class=\"l\">{}</td><td class=\"l\">{}</td><td class=\"l\">{}</td><td class=\"l\">{}</td></tr>",
                    esc(k),
                    esc(v["value"].as_str().unwrap_or("")),
                    esc(v["default"].as_str().unwrap_or("")),
                    esc(&v["origin"].as_str().unwrap_or("").to_lowercase())
                );
            }
            o.push_str("</table>");
        }
        None => o.push_str("<h4>Variables not at their default</h4><p class=\"meta\">Not known for this server (it reports no defaults before MySQL 8.0 and MariaDB 10.1): the my.cnf below and all variables hold what was set.</p>"),
    }
    let _ = write!(
        o,
        "<h4>my.cnf</h4><pre>{}</pre>",
        esc(d
            .server_cnf
            .as_deref()
            .unwrap_or("(not a sandbox: the server's own configuration)"))
    );
    let _ = write!(
        o,
        "<h4>Host</h4><pre>{}</pre><h4>Run options</h4><pre>{}</pre>",
        esc(&serde_json::to_string_pretty(&d.host).unwrap_or_default()),
        esc(&serde_json::to_string_pretty(&d.options).unwrap_or_default())
    );
    if let Some(vars) = d.server_variables.as_object() {
        let _ = write!(
            o,
            "<details><summary>all {} server variables</summary><table>",
            vars.len()
        );
        for (k, v) in vars {
            row(&mut o, k, v.as_str().unwrap_or(""));
        }
        o.push_str("</table></details>");
    }
    o.push_str("</details>");
    o
}
