//! `qpslab ui --metrics-listen 127.0.0.1:9105`: the last finished run of the store as
//! the live figures (`stats::live`), so a Prometheus scraping the UI's
//! host sees the latest result's counters, event latency histogram and
//! the monitor's last poll of each source under the same names as during
//! a run. Reads the store only; serving the page is ui's job.

use super::live_feed::{numeric_variables, server_labels};
use crate::stats::live::{enable, LiveLoad};
use crate::stats::Hist;
use crate::store::{RunFilter, Store};
use anyhow::Result;

/// The newest run of the store that has ended (any status but running),
/// host tests left out.
pub fn last_finished_run(store: &Store) -> Result<Option<i64>> {
    let runs = store.list_runs(&RunFilter {
        limit: Some(20),
        ..RunFilter::default()
    })?;
    Ok(runs
        .iter()
        .rev()
        .find(|r| r.status != "running")
        .map(|r| r.id))
}

/// Makes run `id`'s figures the live ones (the endpoint must be on:
/// `stats::live::enable`). The load's counters are its measured
/// intervals' sums, as a run's own endpoint would show them at its end.
pub fn publish_run(store: &Store, id: i64) -> Result<()> {
    // the run's detail and histogram only: each source's table is read
    // once below (export_data would read the status table a second time)
    let detail = super::record::stored_run(store, id)?;
    let latency = detail.histogram.as_deref().and_then(Hist::from_v2_bytes);
    let r = &detail.run;
    let mut load = LiveLoad {
        labels: server_labels(
            Some(r.id),
            &r.workload,
            r.threads,
            r.campaign_id,
            r.variant.clone(),
            r.label.clone(),
            crate::server::server_label(
                detail.server_flavor.as_deref(),
                r.server_version.as_deref(),
            ),
        ),
        threads: r.threads.max(0) as usize,
        load_cpu_s: r.load_cpu_s.unwrap_or(0.0),
        client_cpu_s: r.client_cpu_s.unwrap_or(0.0),
        latency: latency.unwrap_or_default(),
        ended: true,
        ..LiveLoad::default()
    };
    for s in detail.samples.iter().filter(|s| !s.warmup) {
        load.events += s.events.max(0) as u64;
        load.reads += s.reads.max(0) as u64;
        load.writes += s.writes.max(0) as u64;
        load.others += s.others.max(0) as u64;
        load.reconnects += s.reconnects.max(0) as u64;
        for (code, n) in s.errors.as_object().into_iter().flatten() {
            if let (Ok(code), Some(n)) = (code.parse::<u16>(), n.as_u64()) {
                *load.errors.entry(code).or_default() += n;
            }
        }
    }
    let live = enable();
    live.clear_sources();
    live.set_variables(numeric_variables(&detail.server_variables));
    for (source, n) in store.metric_sources(id)? {
        if n == 0 {
            continue;
        }
        let t = store.metric_table(id, &source)?;
        if let Some((_, _, values)) = t.rows.last() {
            let last: Vec<(String, f64)> = t
                .names
                .iter()
                .zip(values)
                .filter_map(|(k, v)| v.map(|v| (k.clone(), v)))
                .collect();
            live.set_source(&source, &last);
        }
    }
    live.set_load(load);
    Ok(())
}
