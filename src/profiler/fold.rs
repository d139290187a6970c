//! Folded stacks: one line per distinct stack, root first, frames joined
//! by `;`, with its sample count (Brendan Gregg's format, which
//! flamegraph tools read), and the summaries drawn from them: the
//! functions most often on CPU (self) or on the stack (total), and each
//! lock family's share.

use std::collections::BTreeMap;

/// Stacks and their weights (samples).
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct Folded {
    /// Weight by stack, the frames root first joined by `;`.
    pub stacks: BTreeMap<String, u64>,
}

pub use crate::stats::document::Share;

impl Folded {
    /// Adds `weight` to the stack `frames_root_first` (nothing for an empty
    /// stack or weight).
    pub fn add(&mut self, frames_root_first: &[&str], weight: u64) {
        if frames_root_first.is_empty() || weight == 0 {
            return;
        }
        *self.stacks.entry(frames_root_first.join(";")).or_default() += weight;
    }

    /// All stacks' weights together.
    pub fn total(&self) -> u64 {
        self.stacks.values().sum()
    }

    /// The folded text, one `stack weight` line each.
    pub fn text(&self) -> String {
        let mut o = String::new();
        for (s, w) in &self.stacks {
            o.push_str(s);
            o.push(' ');
            o.push_str(&w.to_string());
            o.push('\n');
        }
        o
    }

    fn top(&self, counts: BTreeMap<String, u64>, n: usize) -> Vec<Share> {
        let total = self.total().max(1) as f64;
        let mut v: Vec<Share> = counts
            .into_iter()
            .map(|(name, samples)| Share {
                pct: 100.0 * samples as f64 / total,
                name,
                samples,
            })
            .collect();
        v.sort_by(|a, b| b.samples.cmp(&a.samples).then(a.name.cmp(&b.name)));
        v.truncate(n);
        v
    }

    /// The `n` functions most often at the top of the stack (on CPU
    /// themselves); with `user`, the innermost frame outside the kernel
    /// (where a blocked thread called into it).
    pub fn top_self(&self, n: usize, user: bool) -> Vec<Share> {
        let mut c: BTreeMap<String, u64> = BTreeMap::new();
        for (s, w) in &self.stacks {
            let mut frames = s.rsplit(';');
            let leaf = if user {
                frames.find(|f| !f.ends_with("_[k]")).unwrap_or("[kernel]")
            } else {
                frames.next().unwrap_or(s)
            };
            *c.entry(leaf.to_string()).or_default() += w;
        }
        self.top(c, n)
    }

    /// The `n` functions most often anywhere on the stack (counted once
    /// per stack).
    pub fn top_total(&self, n: usize) -> Vec<Share> {
        let mut c: BTreeMap<String, u64> = BTreeMap::new();
        for (s, w) in &self.stacks {
            let mut seen: Vec<&str> = s.split(';').collect();
            seen.sort_unstable();
            seen.dedup();
            for f in seen {
                *c.entry(f.to_string()).or_default() += w;
            }
        }
        self.top(c, n)
    }

    /// The share of the weight whose top (its innermost user-space frames,
    /// the kernel's left out: where it ran or blocked) holds a bare
    /// `[binary]` (an address perf could not name), with the binary that
    /// has the most, when that is 5% or more: the binary's debug symbols
    /// would name them.
    pub fn unresolved(&self) -> Option<(f64, String)> {
        let total: u64 = self.stacks.values().sum();
        let mut by_dso: BTreeMap<&str, u64> = BTreeMap::new();
        for (stack, w) in &self.stacks {
            let top = stack.rsplit(';').filter(|f| !f.ends_with("_[k]")).take(6);
            let dso = top
                .filter_map(|f| f.strip_prefix('[').and_then(|x| x.strip_suffix(']')))
                .find(|d| *d != "unknown");
            if let Some(dso) = dso {
                *by_dso.entry(dso).or_default() += w;
            }
        }
        let (dso, w) = by_dso.into_iter().max_by_key(|x| x.1)?;
        let share = w as f64 / total.max(1) as f64;
        (share >= 0.05).then(|| (share, dso.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folds_and_ranks() {
        let mut f = Folded::default();
        f.add(
            &["start_thread", "do_command", "dispatch_command", "memcmp"],
            3,
        );
        f.add(
            &["start_thread", "do_command", "dispatch_command", "memcmp"],
            1,
        );
        f.add(
            &[
                "start_thread",
                "do_command",
                "MDL_context::acquire_lock",
                "futex_wait",
            ],
            2,
        );
        assert_eq!(f.total(), 6);
        assert_eq!(f.top_self(1, false)[0].name, "memcmp");
        assert_eq!(f.top_self(1, false)[0].samples, 4);
        assert_eq!(f.top_total(1)[0].name, "do_command");
        assert!(f
            .text()
            .contains("start_thread;do_command;dispatch_command;memcmp 4\n"));
        f.add(&["do_command", "__lll_lock_wait", "futex_wait_[k]"], 9);
        assert_eq!(f.top_self(1, true)[0].name, "__lll_lock_wait");
        assert_eq!(f.unresolved(), None);
        // An off-CPU stack unnamed under its kernel and libc frames.
        f.add(
            &[
                "start_thread",
                "[mariadbd]",
                "pthread_cond_wait",
                "schedule_[k]",
            ],
            30,
        );
        let (share, dso) = f.unresolved().unwrap();
        assert_eq!((dso.as_str(), (share * 45.0).round()), ("mariadbd", 30.0));
    }
}
