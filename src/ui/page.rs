//! The page frame shared by the web UI and the HTML reports: the CSS and
//! script compiled into the binary, inline in a report (nothing fetched
//! from anywhere), served as `/assets/` files in the UI (whose policy
//! allows no inline script or style); a header with navigation in the UI,
//! none in a report.

pub use crate::report::chart::esc;
pub use crate::report::num;

pub const CSS: &str = include_str!("../report/assets/ui.css");
pub const JS: &str = include_str!("../report/assets/ui.js");

/// Where a page is shown.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Served by `qpslab ui`: links between pages.
    Ui,
    /// A self-contained file: no links to pages that are not in it.
    Report,
}

pub fn page(title: &str, body: &str, mode: Mode, live: bool) -> String {
    let nav = match mode {
        Mode::Ui => r#"<header><a class="brand" href="/">qpslab</a><a href="/">runs &amp; campaigns</a></header>"#.to_string(),
        Mode::Report => format!(
            r#"<header><span class="brand">qpslab report</span><span class="meta">{} ({}), written {}</span></header>"#,
            env!("CARGO_PKG_VERSION"),
            env!("QPSLAB_GIT_HASH"),
            crate::store::now_utc()
        ),
    };
    let (style, script) = match mode {
        Mode::Ui => (
            "<link rel=\"stylesheet\" href=\"/assets/ui.css\">".to_string(),
            "<script src=\"/assets/ui.js\"></script>".to_string(),
        ),
        Mode::Report => (
            format!("<style>{CSS}</style>"),
            format!("<script>{JS}</script>"),
        ),
    };
    format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><link rel=\"icon\" href=\"data:,\"><title>{}</title>{style}</head>\
         <body data-live=\"{}\">{nav}<main>{body}</main>{script}</body></html>",
        esc(title),
        if live { 1 } else { 0 }
    )
}

/// A link to a page in the UI; plain text in a report.
pub fn link(mode: Mode, href: &str, text: &str) -> String {
    match mode {
        Mode::Ui => format!("<a href=\"{}\">{}</a>", esc(href), esc(text)),
        Mode::Report => esc(text),
    }
}
