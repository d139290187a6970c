//! `--metrics-listen` around a command: starts the live endpoint before
//! it, says where it listens, and at the end waits (up to
//! `--metrics-linger`) for a scrape of the final figures.

use super::args::MetricsListenArgs;
use anyhow::Result;
use std::time::Duration;

/// Runs `body` with the endpoint up when `a` asks for one.
pub(crate) fn serving<T>(a: &MetricsListenArgs, body: impl FnOnce() -> Result<T>) -> Result<T> {
    let Some(listen) = &a.metrics_listen else {
        return body();
    };
    let ep = crate::ui::metrics_endpoint::start(listen)?;
    eprintln!("qpslab: live metrics at http://{}/metrics", ep.addr());
    let out = body();
    if a.metrics_linger > 0.0 && !ep.linger(Duration::from_secs_f64(a.metrics_linger)) {
        eprintln!(
            "qpslab: no scrape read the final figures within {:.0} s (--metrics-linger); they are in the store",
            a.metrics_linger
        );
    }
    out
}
