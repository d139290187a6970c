//! What the user said about a run, on its page and in run lists: its
//! tags, note and excluded mark; and, when its workload has a pinned
//! baseline (not this run), the top of the counter diff against it, in a
//! collapsible section. Reads through lab, renders with report's cells;
//! escapes by construction (maud).

use super::page::{link, Mode};
use crate::report::counter_diff::{change, figure};
use crate::store::{RunRow, Store};
use anyhow::Result;
use maud::{html, Markup};

/// How many counters the page shows (the diff's largest changes).
const TOP_COUNTERS: usize = 15;

/// Tags and note in a run list's cell.
pub fn tags_and_note(r: &RunRow) -> Markup {
    html! {
        @for t in &r.tags { span.tag { (t) } " " }
        @if let Some(n) = &r.note { span.note { (n) } }
    }
}

/// The run's tags, note and excluded mark under its title (nothing when
/// it has none).
pub fn marks(r: &RunRow) -> Markup {
    if r.tags.is_empty() && r.note.is_none() && !r.excluded {
        return html! {};
    }
    html! {
        div.marks {
            @if r.excluded {
                p.excluded { "Excluded: kept, but left out of analyses (qpslab exclude " (r.id) " --undo takes it back)." }
            }
            @if !r.tags.is_empty() {
                p.tags { "Tags: " @for t in &r.tags { span.tag { (t) } " " } }
            }
            @if let Some(n) = &r.note { p.note { "Note: " (n) } }
        }
    }
}

/// "Against the baseline (run N)": the top counters per transaction,
/// or why there are none; nothing without a baseline.
pub fn baseline_section(store: &Store, id: i64, mode: Mode) -> Result<Markup> {
    let Some((base, diff)) = crate::lab::baseline_diff(store, id)? else {
        return Ok(html! {});
    };
    let title = format!("Against the baseline (run {base})");
    let body = match diff {
        Err(why) => html! { p { (why) } },
        Ok(d) => html! {
            p.meta {
                "Server counters per " (d.b_counters.unit) " over each run's monitored window, largest relative change first; "
                (link(mode, &format!("/run/{base}"), &format!("run {base}")))
                " is the baseline of " (d.a.workload) ". "
                "qpslab diff " (id) " shows them all."
            }
            @for w in &d.mismatches { p.warn { "Warning: " (w) "." } }
            table.diff {
                tr { th.l { "counter" } th { "baseline" } th { "this run" } th { "change" } }
                @for r in d.diff.rows.iter().take(TOP_COUNTERS) {
                    tr { td.l { (r.name) } td { (figure(r.a)) } td { (figure(r.b)) } td { (change(r)) } }
                }
            }
        },
    };
    Ok(html! {
        details.baseline open {
            summary { strong { (title) } }
            (body)
        }
    })
}
