//! Several runs on one time axis (seconds since each run's measuring
//! began): QPS, p95, and any stored counter's rate (`metric=status:Com_select`).

use super::page::{page, Mode};
use super::series::{thin, RunMetrics};
use crate::report::chart::Chart;
use crate::store::Store;
use anyhow::Result;
use maud::html;

/// The page that overlays `runs` on one time axis: QPS, p95 and `metric`'s rate
/// when given.
pub fn overlay_page(
    store: &Store,
    runs: &[i64],
    metric: Option<&str>,
    mode: Mode,
) -> Result<String> {
    let mut qps = Chart::timeline("QPS, runs overlaid", "queries per second");
    let mut p95 = Chart::timeline("p95 latency, runs overlaid", "ms");
    let mut extra = metric.map(|m| Chart::timeline(&format!("{m} per second"), "per second"));
    let mut names = Vec::new();
    for &id in runs {
        let Some(d) = store.run_detail(id)? else {
            continue;
        };
        let name = format!(
            "run {id} {} {}",
            d.run.label.as_deref().unwrap_or(""),
            d.run.variant.as_deref().unwrap_or("")
        );
        let name = name.trim().to_string();
        qps.add(
            &name,
            thin(
                d.samples
                    .iter()
                    .filter_map(|s| Some((s.t, s.qps()?)))
                    .collect(),
            ),
        );
        p95.add(
            &name,
            thin(
                d.samples
                    .iter()
                    .filter_map(|s| Some((s.t, s.lat_p95_ms?)))
                    .collect(),
            ),
        );
        if let (Some(c), Some(m)) = (extra.as_mut(), metric) {
            if let Some((source, key)) = m.split_once(':') {
                c.add(&name, RunMetrics::load(store, id)?.rate(source, key, 1.0));
            }
        }
        names.push(name);
    }
    let body = html! {
        h1 { "Overlay: " (names.join(", ")) }
        @if mode == Mode::Ui {
            form.filters method="get" action="/overlay" {
                @for r in runs {
                    input type="hidden" name="run" value=(r);
                }
                label {
                    "metric (source:name)"
                    input name="metric" value=(metric.unwrap_or("")) placeholder="status:Com_select";
                }
                button { "show" }
            }
        }
        div.charts {
            (qps.html())
            (p95.html())
            @if let Some(c) = extra { (c.html()) }
        }
    };
    Ok(page("overlay", body, mode, false))
}
