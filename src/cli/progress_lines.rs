//! Printing the libraries' progress events: a sandbox start's and a build
//! fetch's lines on stderr (a download's bar too), a prepare's lines on
//! stdout with a bar of the rows loaded on stderr.

use crate::{server, workload};
use indicatif::{ProgressBar, ProgressStyle};

/// Prints the server layer's events: lines on stderr, a download's bar.
pub(super) fn server_printer() -> impl FnMut(server::Progress) {
    let mut bar: Option<ProgressBar> = None;
    move |p| match p {
        server::Progress::DownloadSize(len) => {
            let b = ProgressBar::new(len.unwrap_or(0));
            b.set_style(
                ProgressStyle::with_template(
                    "{bytes}/{total_bytes} {bytes_per_sec} {wide_bar} {eta}",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            bar = Some(b);
        }
        server::Progress::Downloaded(n) => {
            if let Some(b) = &bar {
                b.set_position(n);
            }
        }
        server::Progress::DownloadDone => {
            if let Some(b) = bar.take() {
                b.finish_and_clear();
            }
        }
        p => errln!("{p}"),
    }
}

/// Prints a prepare's events: lines on stdout, the rows loaded as a bar
/// (rows, rows/s and the ETA), a chunk loaded again on stderr; when
/// `quiet` (a JSON document on stdout), only the last.
pub(super) fn prepare_printer(quiet: bool) -> impl FnMut(workload::Progress) {
    let mut bar: Option<ProgressBar> = None;
    move |p| {
        // qpslab's own note, not a sysbench line: on stderr, above the
        // bar, and said when `quiet` too (the JSON on stdout stays whole)
        if let workload::Progress::LoadRetried { .. } = p {
            match &bar {
                Some(b) => b.suspend(|| errln!("{p}")),
                None => errln!("{p}"),
            }
            return;
        }
        if quiet {
            return;
        }
        match p {
            workload::Progress::LoadStart(total) => {
                let b = ProgressBar::new(total);
                b.set_style(
                    ProgressStyle::with_template("{spinner} loading [{bar:30}] {human_pos}/{human_len} rows  {per_sec}  eta {eta}  {msg}")
                        .unwrap_or_else(|_| ProgressStyle::default_bar())
                        .progress_chars("=> "),
                );
                bar = Some(b);
            }
            workload::Progress::Loaded(rows) => {
                if let Some(b) = &bar {
                    b.set_position(rows);
                }
            }
            workload::Progress::LoadEnd => {
                if let Some(b) = bar.take() {
                    b.finish_and_clear();
                }
            }
            p => outln!("{p}"),
        }
    }
}
