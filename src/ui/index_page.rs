//! The start page: campaigns, and runs with filters (workload, server,
//! label, date, status); ticking runs overlays them.

use super::campaign_page::{runs_table, Ticks};
use super::page::{page, Mode};
use crate::store::{RunFilter, Store};
use anyhow::Result;
use maud::{html, Markup};
use std::collections::HashMap;

/// The run filters of the form: (query key, label).
const FILTERS: [(&str, &str); 6] = [
    ("workload", "workload"),
    ("server", "server version"),
    ("label", "label"),
    ("since", "since (YYYY-MM-DD)"),
    ("campaign", "campaign"),
    ("tag", "tag"),
];

/// The start page: campaigns, then the runs matching the filters in query `q`
/// (at most 500).
pub fn index_page(store: &Store, q: &HashMap<String, String>) -> Result<String> {
    let get = |k: &str| {
        q.get(k)
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
    };
    let f = RunFilter {
        workload: get("workload"),
        label: get("label"),
        status: get("status"),
        server: get("server"),
        since: get("since"),
        campaign: get("campaign").and_then(|c| c.parse().ok()),
        limit: Some(500),
        tag: get("tag"),
        host_tests: true,
    };
    let campaigns = campaigns_table(store)?;
    let mut runs = store.list_runs(&f)?;
    runs.reverse();
    let value = |k: &str| q.get(k).map(String::as_str).unwrap_or("");
    let body = html! {
        h1 { "Campaigns" }
        (campaigns)
        h1 { "Runs" }
        form.filters method="get" action="/" {
            @for (k, label) in FILTERS {
                label { (label) input name=(k) value=(value(k)); }
            }
            label {
                "status"
                select name="status" {
                    option value="" { "any" }
                    @for s in ["ok", "failed", "aborted", "running"] {
                        option selected[value("status") == s] { (s) }
                    }
                }
            }
            button type="submit" { "filter" }
        }
        form method="get" action="/overlay" {
            p { button type="submit" { "overlay ticked runs" } }
            // A tick box before each run's link.
            (runs_table(&runs, Mode::Ui, Ticks::Yes))
        }
    };
    Ok(page("qpslab", body, Mode::Ui, false))
}

/// The campaigns, a running one marked with its progress.
fn campaigns_table(store: &Store) -> Result<Markup> {
    // One query for what runs; progress only for the campaigns it touches.
    let running: Vec<i64> = store
        .list_runs(&RunFilter {
            status: Some("running".into()),
            ..Default::default()
        })?
        .iter()
        .filter_map(|r| r.campaign_id)
        .collect();
    let mut rows = Vec::new();
    for c in store.list_campaigns()? {
        let mark = if running.contains(&c.id) {
            super::run_progress::campaign_mark(store, c.id)?
        } else {
            html! {}
        };
        rows.push((c, mark));
    }
    Ok(html! {
        table {
            tr { th { "id" } th.l { "name" } th.l { "kind" } th.l { "created" } th { "runs" } }
            @for (c, mark) in &rows {
                tr {
                    td { a href={ "/campaign/" (c.id) } { (c.id) } }
                    td.l { a href={ "/campaign/" (c.id) } { (c.name) } (mark) }
                    td.l { (c.kind) }
                    td.l { (c.created_at) }
                    td { (c.runs) }
                }
            }
        }
    })
}
