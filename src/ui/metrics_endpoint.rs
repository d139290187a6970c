//! The live `/metrics` endpoint (`--metrics-listen ADDR:PORT`): serves
//! the process's live figures (`stats::live`) as Prometheus text or
//! OpenMetrics, whichever the scraper's Accept header asks for, on a
//! thread of its own with its own small runtime, so a scrape never waits
//! on the load and the load never waits on a scrape beyond the short
//! lock that reads the figures. Binds to 127.0.0.1 when only a port is
//! given. Knows HTTP and the address; the page itself is report's.

use crate::report::exposition;
use crate::report::metric_families::Format;
use anyhow::{bail, Context, Result};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use std::net::{SocketAddr, TcpListener};
use std::time::{Duration, Instant};

/// The endpoint while it runs; stopped when dropped.
pub struct MetricsEndpoint {
    addr: SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

/// The address `--metrics-listen` names: `PORT` (on 127.0.0.1),
/// `HOST:PORT` or `[V6]:PORT`.
pub fn parse_listen(s: &str) -> Result<SocketAddr> {
    let s = s.trim();
    if let Ok(port) = s.parse::<u16>() {
        return Ok(SocketAddr::from(([127, 0, 0, 1], port)));
    }
    let addr = if let Some(rest) = s.strip_prefix("localhost:") {
        format!("127.0.0.1:{rest}")
    } else {
        s.to_string()
    };
    match addr.parse() {
        Ok(a) => Ok(a),
        Err(_) => bail!(
            "--metrics-listen {s:?}: give PORT, IP:PORT or [IPV6]:PORT, e.g. --metrics-listen 127.0.0.1:9400"
        ),
    }
}

/// Starts serving `/metrics` on `listen` (see `parse_listen`); the live
/// figures are turned on for the process.
pub fn start(listen: &str) -> Result<MetricsEndpoint> {
    let addr = parse_listen(listen)?;
    let std_listener = TcpListener::bind(addr).with_context(|| {
        format!("--metrics-listen: cannot listen on {addr} (in use? pick another port)")
    })?;
    std_listener
        .set_nonblocking(true)
        .context("--metrics-listen: cannot set up the listening socket")?;
    let addr = std_listener.local_addr().unwrap_or(addr);
    crate::stats::live::enable();
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("--metrics-listen: cannot start the endpoint's runtime")?;
    let thread = std::thread::Builder::new()
        .name("qpslab-metrics".into())
        .spawn(move || {
            rt.block_on(async move {
                let Ok(listener) = tokio::net::TcpListener::from_std(std_listener) else {
                    return;
                };
                let router = Router::new()
                    .route("/metrics", get(metrics))
                    .route("/", get(index));
                let stop = async {
                    let _ = stop_rx.await;
                };
                let _ = super::listen::serve(listener, router, stop).await;
            });
        })
        .context("--metrics-listen: cannot start the endpoint's thread")?;
    Ok(MetricsEndpoint {
        addr,
        stop: Some(stop_tx),
        thread: Some(thread),
    })
}

impl MetricsEndpoint {
    /// Where it listens.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Waits until a scrape has read the figures as they are now (the
    /// run's final ones), at most `max`; whether one did.
    pub fn linger(&self, max: Duration) -> bool {
        let Some(live) = crate::stats::live::live() else {
            return true;
        };
        let end = Instant::now() + max;
        loop {
            if live.served() {
                return true;
            }
            if Instant::now() >= end || crate::interrupt::interrupted() {
                return false;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for MetricsEndpoint {
    fn drop(&mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

async fn metrics(headers: HeaderMap) -> Response {
    let accept = headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let format = Format::negotiate(accept);
    let Some(live) = crate::stats::live::live() else {
        return StatusCode::SERVICE_UNAVAILABLE.into_response();
    };
    let body: Vec<u8> = live.scrape(|s| match format {
        Format::Protobuf => crate::report::exposition_proto::encode(&exposition::families(s)),
        _ => exposition::render(s, format).into_bytes(),
    });
    ([(header::CONTENT_TYPE, format.content_type())], body).into_response()
}

async fn index() -> &'static str {
    "qpslab: the live figures are at /metrics (Prometheus text or OpenMetrics)\n"
}
