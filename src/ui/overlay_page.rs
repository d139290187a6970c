//! Several runs on one time axis (seconds since each run's measuring
//! began): QPS, p95, and any stored counter's rate (`metric=status:Com_select`).

use super::page::{esc, page, Mode};
use super::series::{thin, RunMetrics};
use crate::report::chart::Chart;
use crate::store::Store;
use anyhow::Result;

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
    let mut b = format!("<h1>Overlay: {}</h1>", esc(&names.join(", ")));
    if mode == Mode::Ui {
        let ids: String = runs
            .iter()
            .map(|r| format!("<input type=\"hidden\" name=\"run\" value=\"{r}\">"))
            .collect();
        b.push_str(&format!(
            "<form class=\"filters\" method=\"get\" action=\"/overlay\">{ids}<label>metric (source:name)<input name=\"metric\" value=\"{}\" placeholder=\"status:Com_select\"></label><button>show</button></form>",
            esc(metric.unwrap_or(""))
        ));
    }
    b.push_str("<div class=\"charts\">");
    b.push_str(&qps.html());
    b.push_str(&p95.html());
    if let Some(c) = extra {
        b.push_str(&c.html());
    }
    b.push_str("</div>");
    Ok(page("overlay", &b, mode, false))
}
