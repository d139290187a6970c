//! Flame graphs as SVG (inferno's renderer: searchable, click to zoom,
//! self-contained), of one profile's stacks or of the difference between
//! two (red: more in the second, blue: less; the first normalised to the
//! second's total so that only the shape differs).

use crate::profiler::{Folded, Kind};
use anyhow::{Context, Result};
use inferno::flamegraph::{self, color::BasicPalette, Options, Palette};

fn options(kind: Kind, title: &str) -> Options<'static> {
    let mut o = Options::default();
    o.title = title.to_string();
    o.deterministic = true;
    o.hash = true;
    match kind {
        Kind::OffCpu => {
            o.count_name = "µs blocked".into();
            o.colors = Palette::Basic(BasicPalette::Io);
        }
        _ => {
            o.count_name = "samples".into();
            o.colors = Palette::Basic(BasicPalette::Hot);
        }
    }
    o
}

/// One profile's flame graph; a note in place of the graph when there are
/// no stacks.
pub fn svg(f: &Folded, kind: Kind, title: &str) -> Result<String> {
    let text = f.text();
    let mut out = Vec::new();
    let mut o = options(kind, title);
    if text.is_empty() {
        return Ok(empty(title));
    }
    flamegraph::from_lines(&mut o, text.lines(), &mut out).context("drawing the flame graph")?;
    Ok(String::from_utf8_lossy(&out).into_owned())
}

/// The differential flame graph from `before` to `after`: widths are
/// `after`'s, colours the change.
pub fn diff_svg(before: &Folded, after: &Folded, kind: Kind, title: &str) -> Result<String> {
    if after.stacks.is_empty() {
        return Ok(empty(title));
    }
    let mut lines = Vec::new();
    inferno::differential::from_readers(
        inferno::differential::Options {
            normalize: true,
            strip_hex: false,
        },
        before.text().as_bytes(),
        after.text().as_bytes(),
        &mut lines,
    )
    .context("comparing the stacks")?;
    let text = String::from_utf8_lossy(&lines).into_owned();
    let mut o = options(kind, title);
    o.colors = Palette::Basic(BasicPalette::Hot);
    let mut out = Vec::new();
    flamegraph::from_lines(&mut o, text.lines(), &mut out).context("drawing the flame graph")?;
    Ok(String::from_utf8_lossy(&out).into_owned())
}

/// The SVG said in place of a graph without stacks (written with maud,
/// which escapes the title).
fn empty(title: &str) -> String {
    maud::html! {
        svg xmlns="http://www.w3.org/2000/svg" width="600" height="40" {
            text x="10" y="25" { (title) ": no stacks were recorded" }
        }
    }
    .into_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_searchable_zoomable_graphs() {
        let mut a = Folded::default();
        a.add(&["start_thread", "do_command", "thr_multi_lock"], 30);
        a.add(&["start_thread", "do_command", "dispatch_command"], 10);
        let s = svg(&a, Kind::OffCpu, "off-CPU").unwrap();
        assert!(s.starts_with("<?xml") && s.contains("thr_multi_lock"));
        // inferno's script: search and zoom
        assert!(s.contains("function search") && s.contains("zoom"));
        let mut b = Folded::default();
        b.add(&["start_thread", "do_command", "thr_multi_lock"], 90);
        b.add(&["start_thread", "do_command", "dispatch_command"], 10);
        let d = diff_svg(&a, &b, Kind::OffCpu, "8 → 64 users").unwrap();
        assert!(d.contains("thr_multi_lock"));
        assert!(svg(&Folded::default(), Kind::Cpu, "x")
            .unwrap()
            .contains("no stacks"));
    }
}
