//! ui: the local web app (`qpslab ui`) and the pages it shares with the
//! self-contained HTML reports (`qpslab report`).
//!
//! Owns the HTTP server (read-only over the results store, bound to
//! 127.0.0.1 unless told otherwise) and the pages: runs and campaigns with
//! filters, a run's per-second charts of every metric group, overlays,
//! campaign scalability charts and ratio tables. Charts are SVG drawn by
//! `report::chart`; CSS and script are compiled into the binary (served
//! from `/assets/` by the UI, inlined in a report), so nothing is fetched
//! from the network. All markup is written with maud, which escapes by
//! construction (see `page`). It never writes to the store and never talks
//! to a database server.

pub mod agent_api;
mod campaign_page;
mod dbt3_section;
mod environment_section;
mod guard;
mod index_page;
mod latency_overlay;
mod latency_section;
mod listen;
pub use listen::tls_acceptor;
pub mod metrics_endpoint;
mod operations_section;
mod overlay_page;
mod page;
mod phase_section;
pub mod profile_section;
pub mod remote_write;
mod run_chart;
mod run_curation;
mod run_page;
mod run_progress;
mod series;

pub use campaign_page::{campaign_page, campaigns_page};
use campaign_page::{scalability_chart, Metric};
pub use index_page::index_page;
pub use latency_overlay::runs_spectrum_chart;
pub use overlay_page::overlay_page;
pub use page::Mode;
pub use run_chart::{campaign_chart, run_chart};
pub use run_page::run_page;

use crate::store::Store;
use axum::extract::{Path, Query, RawQuery, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

struct App {
    store: PathBuf,
}

/// Opens the store for one request (the UI never holds it open while
/// runs are written to it).
fn open(app: &App) -> anyhow::Result<Store> {
    Store::open_read_only(&app.store, crate::server::process_alive)
}

/// Builds a page from a freshly opened store; the store's note (runs it
/// could not read) heads the page.
fn respond(
    app: &App,
    what: &str,
    build: impl FnOnce(&Store) -> anyhow::Result<Option<String>>,
) -> Response {
    let built = open(app).and_then(|s| Ok((build(&s)?, s.note().map(str::to_string))));
    match built {
        Ok((Some(html), note)) => Html(with_note(html, note)).into_response(),
        Ok((None, _)) => (StatusCode::NOT_FOUND, format!("no {what} in the store")).into_response(),
        Err(e) => (StatusCode::INTERNAL_SERVER_ERROR, format!("{e:#}")).into_response(),
    }
}

/// `html` with `note` shown at the top of its main part.
fn with_note(html: String, note: Option<String>) -> String {
    match note {
        Some(n) => {
            let note = maud::html! { main { p.note { "note: " (n) } } }.into_string();
            // `<main><p class="note">…</p>`: the rendered note without its
            // closing `</main>`, put where the page's main part opens.
            let opened = note.trim_end_matches("</main>");
            html.replacen("<main>", opened, 1)
        }
        None => html,
    }
}

/// The pages' stylesheet and script (`/assets/ui.css`, `/assets/ui.js`),
/// served so that the pages' policy allows only files of this origin.
async fn asset(Path(file): Path<String>) -> Response {
    use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE};
    let (kind, body) = match file.as_str() {
        "ui.css" => ("text/css; charset=utf-8", page::CSS),
        "ui.js" => ("text/javascript; charset=utf-8", page::JS),
        _ => return (StatusCode::NOT_FOUND, "no such asset").into_response(),
    };
    ([(CONTENT_TYPE, kind), (CACHE_CONTROL, "no-cache")], body).into_response()
}

async fn index(State(app): State<Arc<App>>, Query(q): Query<HashMap<String, String>>) -> Response {
    respond(&app, "page", |s| index_page::index_page(s, &q).map(Some))
}

async fn run(State(app): State<Arc<App>>, Path(id): Path<i64>) -> Response {
    respond(&app, &format!("run {id}"), |s| run_page(s, id, Mode::Ui))
}

/// A flame graph (`/run/ID/flame/cpu.svg`, `offcpu.svg`).
async fn flame(State(app): State<Arc<App>>, Path((id, file)): Path<(i64, String)>) -> Response {
    let kind = file.trim_end_matches(".svg").to_string();
    svg_response(&app, &format!("{kind} stacks of run {id}"), |s| {
        profile_section::flame_svg(s, id, &kind)
    })
}

/// The differential flame graph `/flame/diff?a=ID&b=ID&kind=cpu`.
async fn flame_diff(
    State(app): State<Arc<App>>,
    Query(q): Query<HashMap<String, String>>,
) -> Response {
    let id = |k: &str| q.get(k).and_then(|v| v.trim().parse::<i64>().ok());
    let (Some(a), Some(b)) = (id("a"), id("b")) else {
        return (
            StatusCode::BAD_REQUEST,
            "give two run ids: /flame/diff?a=ID&b=ID&kind=cpu|offcpu",
        )
            .into_response();
    };
    let kind = q.get("kind").cloned().unwrap_or_else(|| "cpu".into());
    svg_response(&app, "stacks", |s| {
        profile_section::diff_svg(s, a, b, &kind)
    })
}

fn svg_response(
    app: &App,
    what: &str,
    build: impl FnOnce(&Store) -> anyhow::Result<Option<String>>,
) -> Response {
    match open(app).and_then(|s| build(&s)) {
        Ok(Some(svg)) => {
            use axum::http::header::{CONTENT_SECURITY_POLICY, CONTENT_TYPE};
            let csp = guard::svg_csp(&svg);
            (
                [
                    (CONTENT_TYPE, "image/svg+xml".to_string()),
                    (CONTENT_SECURITY_POLICY, csp),
                ],
                svg,
            )
                .into_response()
        }
        Ok(None) => (StatusCode::NOT_FOUND, format!("no {what} in the store")).into_response(),
        Err(e) => (StatusCode::INTERNAL_SERVER_ERROR, format!("{e:#}")).into_response(),
    }
}

async fn campaign(State(app): State<Arc<App>>, Path(id): Path<i64>) -> Response {
    respond(&app, &format!("campaign {id}"), |s| {
        campaign_page(s, id, Mode::Ui)
    })
}

async fn overlay(State(app): State<Arc<App>>, RawQuery(q): RawQuery) -> Response {
    let q = q.unwrap_or_default();
    let mut runs = Vec::new();
    let mut metric = None;
    for (k, v) in url::form_urlencoded::parse(q.as_bytes()) {
        match k.as_ref() {
            "run" => runs.extend(v.split(',').filter_map(|x| x.trim().parse::<i64>().ok())),
            "metric" if !v.trim().is_empty() => metric = Some(v.trim().to_string()),
            _ => {}
        }
    }
    respond(&app, "page", |s| {
        overlay_page(s, &runs, metric.as_deref(), Mode::Ui).map(Some)
    })
}

/// Serves the UI until Ctrl-C: only to requests that name it in their
/// Host header, with the headers of `guard` on every response, under the
/// limits of `listen`.
pub fn serve(store: PathBuf, bind: &str, port: u16) -> anyhow::Result<()> {
    let app = Arc::new(App { store });
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let _ctrl_c = crate::exec::Cooperative::enter();
    rt.block_on(async move {
        let listener = tokio::net::TcpListener::bind((bind, port))
            .await
            .map_err(|e| {
                anyhow::anyhow!(
                    "cannot listen on {bind}:{port}: {e} (another process there? try --port)"
                )
            })?;
        let addr = listener.local_addr()?;
        let hosts = Arc::new(guard::Hosts::new(bind, addr.port()));
        let router = Router::new()
            .route("/", get(index))
            .route("/assets/{file}", get(asset))
            .route("/run/{id}", get(run))
            .route("/run/{id}/flame/{file}", get(flame))
            .route("/flame/diff", get(flame_diff))
            .route("/campaign/{id}", get(campaign))
            .route("/overlay", get(overlay))
            .with_state(app)
            .layer(axum::middleware::from_fn_with_state(hosts, guard::guard));
        outln!("qpslab UI on http://{addr}/ (read-only; Ctrl-C stops)");
        crate::out::flush();
        listen::serve(listener, router, async {
            while !crate::exec::interrupted() {
                tokio::time::sleep(std::time::Duration::from_millis(200)).await;
            }
        })
        .await?;
        Ok(())
    })
}
