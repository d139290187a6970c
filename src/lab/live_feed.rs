//! Feeds the live figures behind `--metrics-listen` (`stats::live`): a
//! run's labels and kinds when it starts, each interval as it ends, the
//! end; a monitor session's labels; the server's captured variables.
//! Does nothing when the endpoint is off. Never on the query path: it is
//! called where the lab already handles an interval or a poll.

use super::environment_capture::Environment;
use super::tags::RunTags;
use crate::exec::RunConfig;
use crate::stats::live::live;
use crate::stats::Sample;

/// The server's label as runs are labelled (`MariaDB 11.4.5`).
fn server(env: &Environment) -> String {
    crate::server::server_label(Some(&env.flavor), Some(&env.version))
}

/// Global variables with a number for a value (ON/YES as 1, OFF/NO as
/// 0, as mysqld_exporter reads them), by name.
pub(super) fn numeric_variables(variables: &serde_json::Value) -> Vec<(String, f64)> {
    let Some(m) = variables.as_object() else {
        return Vec::new();
    };
    m.iter()
        .filter_map(|(k, v)| {
            let s = v.as_str()?;
            let x = match s.to_ascii_uppercase().as_str() {
                "ON" | "YES" => 1.0,
                "OFF" | "NO" => 0.0,
                _ => s.parse::<f64>().ok()?,
            };
            Some((k.to_ascii_lowercase(), x))
        })
        .collect()
}

/// A run's labels, known ones only (`run_id` when it is recorded).
pub(super) fn server_labels(
    run_id: Option<i64>,
    workload: &str,
    users: impl ToString,
    campaign: Option<i64>,
    variant: Option<String>,
    label: Option<String>,
    server: String,
) -> Vec<(String, String)> {
    let mut labels: Vec<(String, String)> = Vec::new();
    let mut put = |k: &str, v: Option<String>| {
        if let Some(v) = v.filter(|v| !v.is_empty()) {
            labels.push((k.to_string(), v));
        }
    };
    put("run_id", run_id.map(|i| i.to_string()));
    put("workload", Some(workload.to_string()));
    put("users", Some(users.to_string()));
    put("campaign", campaign.map(|c| c.to_string()));
    put("variant", variant);
    put("label", label);
    put("server", Some(server));
    labels
}

/// A run starts (recorded as `run_id` when stored).
pub(crate) fn begin_run(cfg: &RunConfig, env: &Environment, tags: &RunTags, run_id: Option<i64>) {
    let Some(l) = live() else { return };
    let labels = server_labels(
        run_id,
        cfg.workload.name(),
        cfg.threads,
        tags.campaign_id,
        tags.variant.clone(),
        tags.label.clone(),
        server(env),
    );
    l.set_variables(numeric_variables(&env.variables));
    l.begin_run(
        labels,
        cfg.threads as usize,
        &cfg.workload.stat_names(),
        &cfg.workload.event_classes(),
    );
}

/// An interval ended.
pub(crate) fn sample(s: &Sample) {
    if let Some(l) = live() {
        l.add_sample(s);
    }
}

/// The run ended.
pub(crate) fn end_run() {
    if let Some(l) = live() {
        l.end_run();
    }
}

/// A monitor session starts (recorded as `run_id` when stored).
pub(crate) fn begin_monitor(env: &Environment, run_id: Option<i64>) {
    let Some(l) = live() else { return };
    let mut labels = vec![("workload".to_string(), "monitor".to_string())];
    if let Some(id) = run_id {
        labels.insert(0, ("run_id".to_string(), id.to_string()));
    }
    labels.push(("server".to_string(), server(env)));
    l.set_variables(numeric_variables(&env.variables));
    l.set_monitor_labels(labels);
}
