//! Rates between the latest two snapshots of each monitor source, for the
//! live views (`monitor`, `iostat`, `top`): what changed per second since
//! the previous poll, the CPU split and IO classes over that window. Holds
//! two snapshots per source; computes, never prints.

use super::counters::{Counters, Keep};
use super::efficiency::CpuSplit;
use crate::monitor::{Caps, Event, SourceId};
use std::collections::HashMap;
use std::time::Instant;

/// The latest two snapshots of each source, for rates between them.
#[derive(Default)]
pub struct Live {
    cur: HashMap<SourceId, (f64, HashMap<String, f64>)>,
    prev: HashMap<SourceId, (f64, HashMap<String, f64>)>,
    caps: Option<Caps>,
    /// Sources with a snapshot since the last `take_fresh`.
    fresh: Vec<SourceId>,
}

impl Live {
    /// Takes an event; returns the source of a new snapshot.
    pub fn feed(&mut self, ev: &Event, t0: Instant) -> Option<SourceId> {
        match ev {
            Event::Snapshot(s) => {
                let t = s.at.saturating_duration_since(t0).as_secs_f64();
                let vals = s.values.iter().cloned().collect();
                if let Some(old) = self.cur.insert(s.source, (t, vals)) {
                    self.prev.insert(s.source, old);
                }
                if !self.fresh.contains(&s.source) {
                    self.fresh.push(s.source);
                }
                Some(s.source)
            }
            Event::Caps(c) => {
                self.caps = Some(c.clone());
                None
            }
            Event::Note(_) => None,
        }
    }

    /// Whether `s` has a snapshot (`has(s, 1)`) or two, for rates (`has(s, 2)`).
    pub fn has(&self, s: SourceId, snapshots: usize) -> bool {
        match snapshots {
            0 => true,
            1 => self.cur.contains_key(&s),
            _ => self.prev.contains_key(&s),
        }
    }

    /// Whether every source in `sources` that has ever sent a snapshot has
    /// sent a new one since the last `take_fresh` (a view waits for the OS
    /// sources of a tick before it draws, so no column repeats a stale pair).
    pub fn all_fresh(&self, sources: &[SourceId]) -> bool {
        sources
            .iter()
            .all(|s| !self.cur.contains_key(s) || self.fresh.contains(s))
    }

    /// Marks every source as drawn.
    pub fn take_fresh(&mut self) {
        self.fresh.clear();
    }

    /// What the monitor found it can read (first event of a session).
    pub fn caps(&self) -> Option<&Caps> {
        self.caps.as_ref()
    }

    /// The last value of `name` from source `s`.
    pub fn value(&self, s: SourceId, name: &str) -> Option<f64> {
        self.cur.get(&s)?.1.get(name).copied()
    }

    /// Per-second rate of a counter between the last two snapshots.
    pub fn rate(&self, s: SourceId, name: &str) -> Option<f64> {
        let (tc, c) = self.cur.get(&s)?;
        let (tp, p) = self.prev.get(&s)?;
        let d = c.get(name)? - p.get(name)?;
        (*tc > *tp && d >= 0.0).then(|| d / (tc - tp))
    }

    /// The sum of several counters' rates; None when any is missing.
    pub fn rate_sum(&self, s: SourceId, names: &[&str]) -> Option<f64> {
        names.iter().map(|n| self.rate(s, n)).sum()
    }

    /// The host CPU split between the last two polls.
    pub fn cpu_split(&self) -> Option<CpuSplit> {
        let (c, a, b) = self.counters(&[SourceId::Cpu, SourceId::ServerProc]);
        CpuSplit::over(&c, a, b)
    }

    /// The last two snapshots of `sources` as counters, and the window
    /// they share.
    pub fn counters(&self, sources: &[SourceId]) -> (Counters, f64, f64) {
        let mut c = Counters::default();
        let (mut a, mut b) = (f64::MIN, f64::MAX);
        for s in sources {
            if let (Some((tp, p)), Some((tc, cur))) = (self.prev.get(s), self.cur.get(s)) {
                a = a.max(*tp);
                b = b.min(*tc);
                for (k, v) in p {
                    c.push(format!("{}.{k}", s.name()), Keep::All, *tp, *v);
                }
                for (k, v) in cur {
                    c.push(format!("{}.{k}", s.name()), Keep::All, *tc, *v);
                }
            }
        }
        (c, a, b)
    }
}
