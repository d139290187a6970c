//! The agent's HTTP API (`qpslab agent`): axum routes over lab's
//! `AgentCore`, JSON bodies (lab::agent::wire; the schema in
//! docs/AGENTS.md), every request authenticated by the shared token as a
//! bearer token; a wrong one, a busy agent or bad work get a one-line
//! refusal the controller prints. Beside a database server it also
//! answers the controller's monitor (`/v1/host/…`) and profiler
//! (`/v1/profile/…`). Serves until the process ends; knows
//! nothing of runs beyond calling the core.

use crate::lab::agent::wire::{
    HostPollRequest, LocateRequest, ProfileStart, StartRequest, TargetSpec,
};
use crate::lab::agent::{AgentCore, Refusal};
use anyhow::{Context, Result};
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use std::net::SocketAddr;
use std::sync::Arc;

/// What a refused request gets: the status and one line.
fn refuse(code: StatusCode, line: &str) -> Response {
    (code, format!("{line}\n")).into_response()
}

fn json<T: serde::Serialize>(v: &T) -> Response {
    match serde_json::to_string(v) {
        Ok(s) => ([("content-type", "application/json")], s).into_response(),
        Err(e) => refuse(StatusCode::INTERNAL_SERVER_ERROR, &e.to_string()),
    }
}

/// The bearer token's check; Some(refusal) when it is not the agent's.
fn denied(core: &AgentCore, h: &HeaderMap) -> Option<Response> {
    let given = h
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "));
    (!core.authorized(given)).then(|| {
        refuse(
            StatusCode::UNAUTHORIZED,
            "refused: wrong token (the agent's --token-file and the controller's differ)",
        )
    })
}

async fn hello(State(core): State<Arc<AgentCore>>, h: HeaderMap) -> Response {
    if let Some(r) = denied(&core, &h) {
        return r;
    }
    json(&core.hello())
}

async fn check(State(core): State<Arc<AgentCore>>, h: HeaderMap, body: String) -> Response {
    if let Some(r) = denied(&core, &h) {
        return r;
    }
    let Ok(t) = serde_json::from_str::<TargetSpec>(&body) else {
        return refuse(
            StatusCode::BAD_REQUEST,
            "refused: the target does not parse",
        );
    };
    match tokio::task::spawn_blocking(move || core.check(&t)).await {
        Ok(a) => json(&a),
        Err(e) => refuse(StatusCode::INTERNAL_SERVER_ERROR, &e.to_string()),
    }
}

async fn start(State(core): State<Arc<AgentCore>>, h: HeaderMap, body: String) -> Response {
    if let Some(r) = denied(&core, &h) {
        return r;
    }
    let req = match serde_json::from_str::<StartRequest>(&body) {
        Ok(r) => r,
        Err(e) => {
            return refuse(
                StatusCode::BAD_REQUEST,
                &format!("refused: the work does not parse: {e}"),
            )
        }
    };
    match tokio::task::spawn_blocking(move || core.start(req)).await {
        Ok(Ok(s)) => json(&s),
        Ok(Err(Refusal::Busy(m))) => refuse(StatusCode::CONFLICT, &format!("refused: {m}")),
        Ok(Err(Refusal::Bad(m))) => refuse(StatusCode::BAD_REQUEST, &format!("refused: {m}")),
        Err(e) => refuse(StatusCode::INTERNAL_SERVER_ERROR, &e.to_string()),
    }
}

#[derive(serde::Deserialize)]
struct After {
    #[serde(default)]
    after: u64,
}

async fn poll(
    State(core): State<Arc<AgentCore>>,
    h: HeaderMap,
    Path(id): Path<u64>,
    Query(q): Query<After>,
) -> Response {
    if let Some(r) = denied(&core, &h) {
        return r;
    }
    match core.poll(id, q.after) {
        Some(p) => json(&p),
        None => refuse(StatusCode::NOT_FOUND, &format!("refused: no run {id} here")),
    }
}

/// Takes the (empty) request body like every POST here: a body left
/// unread makes hyper close the connection with bytes in the socket, and
/// the kernel then resets it, which can cut a long answer short on the
/// client's side (a profile's stacks came back "Peer disconnected").
async fn stop(
    State(core): State<Arc<AgentCore>>,
    h: HeaderMap,
    Path(id): Path<u64>,
    _body: String,
) -> Response {
    if let Some(r) = denied(&core, &h) {
        return r;
    }
    if core.stop(id) {
        json(&serde_json::json!({ "stopped": id }))
    } else {
        refuse(StatusCode::NOT_FOUND, &format!("refused: no run {id} here"))
    }
}

/// A JSON body, or the one-line refusal saying it does not parse.
fn body_of<T: serde::de::DeserializeOwned>(body: &str) -> Result<T, Box<Response>> {
    serde_json::from_str(body).map_err(|e| {
        Box::new(refuse(
            StatusCode::BAD_REQUEST,
            &format!("refused: the request does not parse: {e}"),
        ))
    })
}

async fn host_locate(State(core): State<Arc<AgentCore>>, h: HeaderMap, body: String) -> Response {
    if let Some(r) = denied(&core, &h) {
        return r;
    }
    match body_of::<LocateRequest>(&body) {
        Ok(req) => json(&core.host().locate(&req)),
        Err(r) => *r,
    }
}

/// One host source, read inline: /proc reads take microseconds.
async fn host_poll(State(core): State<Arc<AgentCore>>, h: HeaderMap, body: String) -> Response {
    if let Some(r) = denied(&core, &h) {
        return r;
    }
    match body_of::<HostPollRequest>(&body) {
        Ok(req) => json(&core.host().poll(&req)),
        Err(r) => *r,
    }
}

async fn profile_start(State(core): State<Arc<AgentCore>>, h: HeaderMap, body: String) -> Response {
    if let Some(r) = denied(&core, &h) {
        return r;
    }
    let req = match body_of::<ProfileStart>(&body) {
        Ok(r) => r,
        Err(r) => return *r,
    };
    let host = core.host().clone();
    match tokio::task::spawn_blocking(move || host.start_profile(&req)).await {
        Ok(Ok(s)) => json(&s),
        Ok(Err(m)) => refuse(StatusCode::BAD_REQUEST, &format!("refused: {m}")),
        Err(e) => refuse(StatusCode::INTERNAL_SERVER_ERROR, &e.to_string()),
    }
}

/// Takes its request body (see `stop`).
async fn profile_stop(
    State(core): State<Arc<AgentCore>>,
    h: HeaderMap,
    Path(id): Path<u64>,
    _body: String,
) -> Response {
    if let Some(r) = denied(&core, &h) {
        return r;
    }
    let host = core.host().clone();
    match tokio::task::spawn_blocking(move || host.stop_profile(id)).await {
        Ok(Some(o)) => json(&o),
        Ok(None) => refuse(
            StatusCode::NOT_FOUND,
            &format!("refused: no recording {id} here"),
        ),
        Err(e) => refuse(StatusCode::INTERNAL_SERVER_ERROR, &e.to_string()),
    }
}

/// Serves `core` on `addr` until the process ends; `listening` is called
/// with the bound address once requests are taken.
pub fn serve_agent(
    addr: SocketAddr,
    core: AgentCore,
    listening: impl FnOnce(SocketAddr),
) -> Result<()> {
    let std_listener = std::net::TcpListener::bind(addr)
        .with_context(|| format!("agent: cannot listen on {addr} (in use? pick another port)"))?;
    std_listener.set_nonblocking(true)?;
    let bound = std_listener.local_addr().unwrap_or(addr);
    let router = Router::new()
        .route("/v1/hello", get(hello))
        .route("/v1/check", post(check))
        .route("/v1/start", post(start))
        .route("/v1/runs/{id}", get(poll))
        .route("/v1/runs/{id}/stop", post(stop))
        .route("/v1/host/locate", post(host_locate))
        .route("/v1/host/poll", post(host_poll))
        .route("/v1/profile/start", post(profile_start))
        .route("/v1/profile/{id}/stop", post(profile_stop))
        .with_state(Arc::new(core));
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("agent: cannot start its runtime")?;
    rt.block_on(async move {
        let listener = tokio::net::TcpListener::from_std(std_listener)?;
        listening(bound);
        super::listen::serve(listener, router, std::future::pending::<()>()).await
    })?;
    Ok(())
}
