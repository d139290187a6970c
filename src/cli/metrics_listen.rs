//! `--metrics-listen` and `--remote-write` around a command: starts the
//! live endpoint and the pusher before it, says where, and at the end
//! waits (up to `--metrics-linger`) for a scrape of the final figures and
//! pushes them, saying what a receiver did not take.

use super::args::MetricsListenArgs;
use anyhow::Result;
use std::time::Duration;

/// Runs `body` with the endpoint and the pusher up when `a` asks for them.
pub(crate) fn serving<T>(a: &MetricsListenArgs, body: impl FnOnce() -> Result<T>) -> Result<T> {
    let headers = a
        .remote_write_header
        .iter()
        .map(|h| crate::ui::remote_write::parse_header(h))
        .collect::<Result<Vec<_>>>()?;
    let ep = match &a.metrics_listen {
        Some(listen) => {
            let ep = crate::ui::metrics_endpoint::start(listen)?;
            eprintln!("qpslab: live metrics at http://{}/metrics", ep.addr());
            Some(ep)
        }
        None => None,
    };
    let writer = match &a.remote_write {
        Some(url) => Some(crate::ui::remote_write::start(
            url,
            headers,
            Duration::from_secs_f64(a.remote_write_interval),
        )?),
        None => None,
    };
    let out = body();
    if let Some(w) = writer {
        let r = w.finish();
        if r.dropped > 0 || r.sent == 0 {
            eprintln!(
                "qpslab: remote write: {} pushes taken, {} dropped{}",
                r.sent,
                r.dropped,
                r.last_error
                    .map(|e| format!(" (last failure: {e})"))
                    .unwrap_or_default()
            );
        }
    }
    if let Some(ep) = ep {
        if a.metrics_linger > 0.0 && !ep.linger(Duration::from_secs_f64(a.metrics_linger)) {
            eprintln!(
                "qpslab: no scrape read the final figures within {:.0} s (--metrics-linger); they are in the store",
                a.metrics_linger
            );
        }
    }
    out
}
