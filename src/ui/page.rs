//! The page frame shared by the web UI and the HTML reports: the CSS and
//! script compiled into the binary, inline in a report (nothing fetched
//! from anywhere), served as `/assets/` files in the UI (whose policy
//! allows no inline script or style); a header with navigation in the UI,
//! none in a report.
//!
//! Every page, report and chart is written with maud's `html!` macro, and
//! this module is where that choice is made. maud checks the markup at
//! compile time (a tag left open does not build), writes straight into a
//! `String` (no template files to find at run time, no interpreter), and
//! escapes every interpolated value (`&`, `<`, `>`, `"`; attribute values
//! are always double-quoted, so a `'` cannot end one) unless the code
//! says `PreEscaped` in so many words, which makes a missed escape
//! visible in review instead of silent. askama was the alternative: its
//! templates live in separate files with their own syntax and the same
//! escaping by default, which suits designers editing pages; here the
//! pages are small, built from data in code, and share fragments (charts,
//! tables) that are easier to compose as Rust values (`Markup`) than as
//! template includes. A `Markup` interpolated into another `html!` is
//! maud's own output and goes in as it is. `PreEscaped` is written in two
//! places only: the report's inlined ui.css and ui.js (our files, which a
//! test keeps from closing their element) and `report::analysis`' tables
//! in `Format::Html` (a `String` of maud's output, shared with the text
//! formats), in `campaign_page::analysis_html`.

use maud::{html, Markup, PreEscaped, DOCTYPE};

pub use crate::report::num;

pub(crate) const CSS: &str = include_str!("../report/assets/ui.css");
pub(crate) const JS: &str = include_str!("../report/assets/ui.js");

/// Where a page is shown.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Served by `qpslab ui`: links between pages.
    Ui,
    /// A self-contained file: no links to pages that are not in it.
    Report,
}

/// The whole page around `body`; `live` pages are refreshed by ui.js.
pub fn page(title: &str, body: Markup, mode: Mode, live: bool) -> String {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                link rel="icon" href="data:,";
                title { (title) }
                @match mode {
                    Mode::Ui => link rel="stylesheet" href="/assets/ui.css";,
                    // The stylesheet compiled into the binary (our own file,
                    // not text from data; it cannot close its element, see
                    // the test below): CSS must not be HTML-escaped.
                    Mode::Report => style { (PreEscaped(CSS)) },
                }
            }
            body data-live=(if live { 1 } else { 0 }) {
                (header(mode))
                main { (body) }
                @match mode {
                    Mode::Ui => script src="/assets/ui.js" {},
                    // The script compiled into the binary, as above.
                    Mode::Report => script { (PreEscaped(JS)) },
                }
            }
        }
    }
    .into_string()
}

fn header(mode: Mode) -> Markup {
    html! {
        header {
            @match mode {
                Mode::Ui => {
                    a.brand href="/" { "qpslab" }
                    a href="/" { "runs & campaigns" }
                }
                Mode::Report => {
                    span.brand { "qpslab report" }
                    span.meta {
                        (env!("CARGO_PKG_VERSION")) " (" (env!("QPSLAB_GIT_HASH")) "), written "
                        (crate::store::now_utc())
                    }
                }
            }
        }
    }
}

/// A link to a page in the UI; plain text in a report.
pub fn link(mode: Mode, href: &str, text: &str) -> Markup {
    match mode {
        Mode::Ui => html! { a href=(href) { (text) } },
        Mode::Report => html! { (text) },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The assets go into a report's `<style>` and `<script>` as they are:
    /// nothing in them may close those elements early.
    #[test]
    fn the_inlined_assets_cannot_close_their_element() {
        for (name, text) in [("ui.css", CSS), ("ui.js", JS)] {
            let lower = text.to_ascii_lowercase();
            for bad in ["</script", "</style", "<!--"] {
                assert!(!lower.contains(bad), "{name} contains '{bad}'");
            }
        }
    }
}
