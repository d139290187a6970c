//! `ui`, `report` and `chart`: the results store as web pages, files and
//! charts.

use super::args::{ChartArgs, ReportArgs, UiArgs};
use crate::lab::{read_store, store_path};
use crate::ui::{self, Mode};
use anyhow::{bail, Context, Result};

pub fn ui(a: &UiArgs) -> Result<()> {
    let path = match a.store.path() {
        // A server store: its local mirror, refreshed on a thread.
        Some(p) if crate::lab::server_store::is_server_store(p) => {
            crate::lab::server_store::keep_mirror_fresh(&p.to_string_lossy())?
        }
        p => store_path(p),
    };
    read_store(Some(&path))?; // fail here, with the path, if it cannot be read
    if a.bind != "127.0.0.1" && a.bind != "localhost" && a.bind != "::1" {
        errln!(
            "note: listening on {}: the UI is reachable from other hosts (read-only)",
            a.bind
        );
    }
    if let Some(listen) = &a.metrics_listen {
        last_run_metrics(&path, listen)?;
    }
    ui::serve(path, &a.bind, a.port)
}

/// `ui --metrics-listen`: the endpoint up with the store's last finished
/// run, and a thread that puts a newer one in its place when it ends.
fn last_run_metrics(path: &std::path::Path, listen: &str) -> Result<()> {
    let store = read_store(Some(path))?;
    let mut shown = crate::lab::last_finished_run(&store)?;
    if let Some(id) = shown {
        crate::lab::publish_run(&store, id)?;
    }
    drop(store);
    let ep = crate::ui::metrics_endpoint::start(listen)?;
    errln!(
        "qpslab: the last finished run's metrics at http://{}/metrics",
        ep.addr()
    );
    let path = path.to_path_buf();
    std::thread::Builder::new()
        .name("last-run-metrics".into())
        .spawn(move || {
            let _endpoint = ep; // served as long as the UI is
            loop {
                std::thread::sleep(std::time::Duration::from_secs(5));
                let newer = read_store(Some(&path)).and_then(|s| {
                    let last = crate::lab::last_finished_run(&s)?;
                    if last != shown {
                        if let Some(id) = last {
                            crate::lab::publish_run(&s, id)?;
                        }
                    }
                    Ok(last)
                });
                match newer {
                    Ok(last) => shown = last,
                    Err(e) => log::warn!("metrics: cannot read the last run: {e:#}"),
                }
            }
        })
        .context("cannot start the metrics thread")?;
    Ok(())
}

fn write(path: &std::path::Path, text: &str) -> Result<()> {
    std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))
}

pub fn report(a: &ReportArgs) -> Result<()> {
    let store = read_store(a.store.path())?;
    let html = match (a.run, a.campaign.as_slice()) {
        (Some(id), _) => ui::run_page(&store, id, Mode::Report)?
            .with_context(|| format!("no run {id} in the store (see `qpslab runs`)"))?,
        (None, [id]) => ui::campaign_page(&store, *id, Mode::Report)?
            .with_context(|| format!("no campaign {id} in the store (see `qpslab runs`)"))?,
        (None, []) => bail!("give a run id or --campaign ID"),
        (None, ids) => ui::campaigns_page(&store, ids, Mode::Report)?,
    };
    let output = a.output.clone().unwrap_or_else(|| {
        let ids: Vec<String> = a.campaign.iter().map(i64::to_string).collect();
        match (a.run, ids.len()) {
            (Some(id), _) => format!("qpslab-run-{id}.html"),
            (None, 1) => format!("qpslab-campaign-{}.html", ids[0]),
            (None, _) => format!("qpslab-campaigns-{}.html", ids.join("-")),
        }
        .into()
    });
    write(&output, &html)?;
    outln!(
        "Report written to {} ({} KB); open it in a browser, no network needed.",
        output.display(),
        html.len() / 1024
    );
    Ok(())
}

/// A file name made of a chart's metric (`status:Com_select` →
/// `status-Com_select`): letters, digits, `-` and `_` only.
fn file_word(metric: &str) -> String {
    metric
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect()
}

pub fn chart(a: &ChartArgs) -> Result<()> {
    let output = a.output.clone().unwrap_or_else(|| {
        let metric = file_word(&a.metric);
        let ids: Vec<String> = a.run.iter().map(i64::to_string).collect();
        match (ids.is_empty(), a.campaign) {
            (false, _) => format!("qpslab-run-{}-{metric}.svg", ids.join("-")),
            (true, Some(id)) => format!("qpslab-campaign-{id}-{metric}.svg"),
            (true, None) => format!("qpslab-{metric}.svg"),
        }
        .into()
    });
    let png = match output.extension().and_then(|e| e.to_str()) {
        Some("svg") => false,
        Some("png") => true,
        _ => bail!("--output {}: name the file .svg or .png", output.display()),
    };
    let store = read_store(a.store.path())?;
    let c = match (a.run.as_slice(), a.campaign) {
        ([], Some(id)) => ui::campaign_chart(&store, id, &a.metric, a.threads)?,
        ([id], _) => ui::run_chart(&store, *id, &a.metric)?,
        ([], None) => bail!("give a run id or --campaign ID"),
        (ids, _) if a.metric == "spectrum" => ui::runs_spectrum_chart(&store, ids)?,
        (_, _) => bail!(
            "--metric {}: several runs are drawn together only as --metric spectrum; give one run for the others",
            a.metric
        ),
    };
    if c.is_empty() {
        bail!("no data for --metric {}", a.metric);
    }
    if png {
        let bytes = crate::report::chart::to_png(&c.svg_file())?;
        std::fs::write(&output, bytes)
            .with_context(|| format!("cannot write {}", output.display()))?;
    } else {
        write(&output, &c.svg_file())?;
    }
    outln!("Chart written to {}", output.display());
    Ok(())
}
