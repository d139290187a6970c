//! A family's headline figure (TPC-C's tpmC) and whether the run allows
//! it: the family says the rules (`ClassRules`), this checks the run
//! against each and says which fail, so a figure the rules do not allow
//! is never printed as if they did.

use crate::stats::{Headline, RunResult};
use crate::workload::family::ClassRules;

/// The headline of `r`, run with `threads` connections, under `rules`.
pub fn headline(r: &RunResult, threads: u32, rules: &ClassRules) -> Headline {
    let mut why_not = Vec::new();
    if let Err(why) = &rules.paced {
        why_not.push(why.clone());
    }
    if threads != rules.terminals {
        why_not.push(format!(
            "{}; the rules ask for {} (10 per warehouse)",
            crate::out::counted(threads, "connection"),
            rules.terminals
        ));
    }
    let total: u64 = r.classes.iter().map(|k| k.count).sum();
    let name = |c: usize| r.classes.get(c).map(|k| k.name.as_str()).unwrap_or("?");
    for &(c, min) in &rules.min_share {
        let n = r.classes.get(c).map_or(0, |k| k.count);
        let share = 100.0 * n as f64 / total.max(1) as f64;
        if share < min {
            why_not.push(format!(
                "{} was {share:.1}% of the transactions (at least {min}%)",
                name(c)
            ));
        }
    }
    for &(c, max) in &rules.max_p90_s {
        if let Some(k) = r.classes.get(c).filter(|k| k.count > 0) {
            let p90 = k.hist.quantile_ms(0.9) / 1000.0;
            if p90 > max {
                why_not.push(format!("{} p90 was {p90:.2} s (at most {max} s)", name(c)));
            }
        }
    }
    let minutes = r.elapsed / 60.0;
    if minutes < rules.min_minutes {
        why_not.push(format!(
            "the measured time was {minutes:.1} min (at least {} min)",
            rules.min_minutes
        ));
    }
    let count = r.classes.get(rules.class).map_or(0, |k| k.count);
    Headline {
        name: rules.headline.to_string(),
        value: why_not.is_empty().then(|| count as f64 / minutes.max(1e-9)),
        why_not,
    }
}
