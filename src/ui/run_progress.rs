//! How far a running run or campaign has got, for its page while it runs
//! (refreshed each second by ui.js) and the start page's marks: elapsed
//! against total, the current interval's throughput and p95, a campaign's
//! step and its ETA. Reads only what the store holds; estimates from the
//! definition the campaign was started with.

use super::page::num;
use crate::store::{RunDetail, RunFilter, RunRow, Store};
use anyhow::Result;
use maud::{html, Markup};

/// The live block of a running run: elapsed/total with a bar, the last
/// interval's qps, tps and p95, and where its campaign stands.
pub(crate) fn run_live(store: &Store, d: &RunDetail) -> Result<Markup> {
    let time = d.options.time();
    let warmup = d.options.warmup_time();
    let last = d.samples.last();
    // Sample times count from the end of the warm-up (negative before).
    let elapsed = last.map(|s| s.t + warmup).unwrap_or(0.0).max(0.0);
    let total = time + warmup;
    let campaign = match d.run.campaign_id {
        Some(c) => campaign_progress(store, c)?,
        None => None,
    };
    Ok(html! {
        p.live #live {
            "running: " b.elapsed { (num(Some(elapsed), 0)) } " s"
            @if total > 0.0 {
                " of " (num(Some(total), 0)) " "
                progress max=(total) value=(format!("{:.1}", elapsed.min(total))) {}
            } @else {
                " (no time limit)"
            }
            @if last.is_some_and(|s| s.warmup) { " · warming up" }
            " · now " b.qps { (num(last.and_then(|s| s.qps()), 1)) } " qps"
            " · " b.tps { (num(last.and_then(|s| s.tps()), 1)) } " tps"
            " · p95 " b.p95 { (num(last.and_then(|s| s.lat_p95_ms), 3)) } " ms"
            @if let Some(p) = campaign { " · campaign " (p.text()) }
        }
    })
}

/// Where a campaign stands.
pub(crate) struct CampaignProgress {
    /// The point now running (1-based), counting those finished.
    pub step: usize,
    pub total: usize,
    /// Seconds left by the definition's time, warm-up and cooldown per
    /// point; None when the definition does not say.
    pub eta_s: Option<f64>,
}

impl CampaignProgress {
    /// "step 2 of 3, about 24 s left".
    pub fn text(&self) -> String {
        format!(
            "step {} of {}, {}",
            self.step,
            self.total,
            eta_text(self.eta_s)
        )
    }
}

fn eta_text(eta: Option<f64>) -> String {
    match eta {
        Some(s) if s >= 120.0 => format!("about {:.0} min left", s / 60.0),
        Some(s) => format!("about {s:.0} s left"),
        None => "time left unknown".into(),
    }
}

/// A running campaign's step and ETA; None when nothing in it runs.
pub(crate) fn campaign_progress(store: &Store, id: i64) -> Result<Option<CampaignProgress>> {
    let runs = store.list_runs(&RunFilter {
        campaign: Some(id),
        ..Default::default()
    })?;
    progress_of(store, id, &runs)
}

/// Campaign `id`'s step and ETA from its `runs` (all of them, as listed).
pub(crate) fn progress_of(
    store: &Store,
    id: i64,
    runs: &[RunRow],
) -> Result<Option<CampaignProgress>> {
    if !runs.iter().any(|r| r.status == "running") {
        return Ok(None);
    }
    let done = runs.iter().filter(|r| r.status != "running").count();
    let Some(def) = store.campaign_definition(id)? else {
        return Ok(None);
    };
    // (points in all, seconds per point)
    let plan: Option<(usize, f64)> = match crate::campaign::CampaignFile::parse(&def, "store") {
        Ok(c) => Some((c.points().len(), c.time + c.warmup + c.cooldown)),
        Err(_) => serde_json::from_str::<crate::campaign::SweepDefinition>(&def)
            .ok()
            .map(|d| (d.points(), d.seconds_per_point())),
    };
    let Some((total, per)) = plan else {
        return Ok(None);
    };
    let total = total.max(done + 1);
    let left = total - done;
    Ok(Some(CampaignProgress {
        step: done + 1,
        total,
        eta_s: (per > 0.0).then_some(left as f64 * per),
    }))
}

/// The mark the start page puts beside a running campaign.
pub(crate) fn campaign_mark(store: &Store, id: i64) -> Result<Markup> {
    Ok(match campaign_progress(store, id)? {
        Some(p) => html! { " " span.status-running { "running: " (p.text()) } },
        None => html! {},
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn new_run(campaign: i64) -> crate::store::NewRun {
        crate::store::NewRun {
            campaign_id: Some(campaign),
            workload: "oltp_point_select".into(),
            threads: 1,
            options: crate::stats::document::OptionsDocument::Load(
                crate::stats::document::RunOptions {
                    time: 10.0,
                    warmup_time: 2.0,
                    ..Default::default()
                },
            ),
            ..Default::default()
        }
    }

    /// A sweep of three points with the first done and the second running
    /// is at step 2 of 3, with two points of 10 + 2 s left.
    #[test]
    fn a_running_campaign_says_its_step_and_eta() {
        let dir = std::env::temp_dir().join(format!("qpslab-progress-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let store = Store::open(&dir.join("p.db")).unwrap();
        let def = serde_json::json!({"workload": "oltp_point_select", "threads": [1, 2, 4], "repeat": 1,
            "time": 10.0, "warmup_time": 2.0, "cooldown": 0.0});
        let c = store
            .find_or_create_campaign("p", "sweep", &def.to_string())
            .unwrap();
        assert!(
            campaign_progress(&store, c).unwrap().is_none(),
            "nothing runs yet"
        );
        let first = store.begin_run(&new_run(c)).unwrap();
        store.end_run(first, "ok", None, 10.0).unwrap();
        store.begin_run(&new_run(c)).unwrap();
        let p = campaign_progress(&store, c).unwrap().expect("running");
        assert_eq!((p.step, p.total, p.eta_s), (2, 3, Some(24.0)));
        assert!(campaign_mark(&store, c)
            .unwrap()
            .into_string()
            .contains("running: step 2 of 3, about 24 s left"));
        drop(store);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
