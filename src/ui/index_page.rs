//! The start page: campaigns, and runs with filters (workload, server,
//! label, date, status); ticking runs overlays them.

use super::campaign_page::runs_table;
use super::page::{esc, page, Mode};
use crate::store::{RunFilter, Store};
use anyhow::Result;
use std::collections::HashMap;
use std::fmt::Write;

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
    };
    let mut b = String::from("<h1>Campaigns</h1><table><tr><th>id</th><th class=\"l\">name</th><th class=\"l\">kind</th><th class=\"l\">created</th><th>runs</th></tr>");
    // One query for what runs; progress only for the campaigns it touches.
    let running: Vec<i64> = store
        .list_runs(&RunFilter {
            status: Some("running".into()),
            ..Default::default()
        })?
        .iter()
        .filter_map(|r| r.campaign_id)
        .collect();
    for c in store.list_campaigns()? {
        let (id, name, kind, created, n) = (c.id, c.name, c.kind, c.created_at, c.runs);
        let mark = if running.contains(&id) {
            super::progress::campaign_mark(store, id)?
        } else {
            String::new()
        };
        let _ = write!(
            b,
            "<tr><td><a href=\"/campaign/{id}\">{id}</a></td><td class=\"l\"><a href=\"/campaign/{id}\">{}</a>{}</td><td class=\"l\">{}</td><td class=\"l\">{}</td><td>{n}</td></tr>",
            esc(&name),
            mark,
            esc(&kind),
            esc(&created)
        );
    }
    b.push_str("</table><h1>Runs</h1><form class=\"filters\" method=\"get\" action=\"/\">");
    for (k, label) in [
        ("workload", "workload"),
        ("server", "server version"),
        ("label", "label"),
        ("since", "since (YYYY-MM-DD)"),
        ("campaign", "campaign"),
    ] {
        let _ = write!(
            b,
            "<label>{label}<input name=\"{k}\" value=\"{}\"></label>",
            esc(q.get(k).map(String::as_str).unwrap_or(""))
        );
    }
    b.push_str("<label>status<select name=\"status\"><option value=\"\">any</option>");
    for s in ["ok", "failed", "aborted", "running"] {
        let sel = if q.get("status").map(String::as_str) == Some(s) {
            " selected"
        } else {
            ""
        };
        let _ = write!(b, "<option{sel}>{s}</option>");
    }
    b.push_str("</select></label><button type=\"submit\">filter</button></form>");
    let mut runs = store.list_runs(&f)?;
    runs.reverse();
    b.push_str("<form method=\"get\" action=\"/overlay\"><p><button type=\"submit\">overlay ticked runs</button></p>");
    let table = runs_table(&runs, Mode::Ui);
    // A tick box before each run's link.
    let table = runs.iter().fold(table, |t, r| {
        t.replacen(
            &format!("<tr><td><a href=\"/run/{}\">", r.id),
            &format!("<tr><td><input type=\"checkbox\" name=\"run\" value=\"{0}\"> <a href=\"/run/{0}\">", r.id),
            1,
        )
    });
    b.push_str(&table);
    b.push_str("</form>");
    Ok(page("qpslab", &b, Mode::Ui, false))
}
