//! The figures of a run whose family sorts its events into classes
//! (TPC-C's transaction types): NOPM and TPM, the server's cross-check,
//! the on-purpose rollbacks apart from errors, and each type's count and
//! latency, as text (the figures and the stored document are
//! analyze::tpcc_figures's).

use crate::analyze::tpcc_figures::{figures, nopm};
use crate::stats::{pct_label, Interval, RunResult};
use std::fmt::Write;

/// The per-operation block of a family whose classes are not TPC-C's
/// (LinkBench): count, share, rate, latency (empty without classes).
fn operations_block(r: &RunResult, pcts: &[f64]) -> String {
    let Some(ops) = crate::analyze::class_figures::operations(r, pcts) else {
        return String::new();
    };
    let mut o = String::from("\nOperations:\n");
    let _ = write!(
        o,
        "    {:<16} {:>10} {:>7} {:>10}",
        "operation", "count", "share%", "ops/s"
    );
    for p in pcts {
        let _ = write!(o, " {:>9}", format!("p{}", pct_label(*p)));
    }
    let _ = writeln!(o, " {:>9}   (latency ms)", "max");
    for k in &ops {
        let _ = write!(
            o,
            "    {:<16} {:>10} {:>7.2} {:>10.1}",
            k.op, k.count, k.share_pct, k.per_s
        );
        for p in pcts {
            let v = k.latency_ms.percentiles.get(&format!("p{}", pct_label(*p)));
            let _ = write!(o, " {:>9.3}", v.copied().unwrap_or(0.0));
        }
        let _ = writeln!(o, " {:>9.3}", k.latency_ms.max);
    }
    o
}

/// What an interval line adds for a family with classes (TPC-C's NOPM;
/// nothing for other families, `tpcc` false).
pub(crate) fn interval_suffix(iv: &Interval, secs: f64, tpcc: bool) -> String {
    if !tpcc || iv.classes.iter().all(|&n| n == 0) {
        return String::new();
    }
    format!(" nopm: {:.0}", nopm(iv, secs))
}

/// The summary block (empty for families without classes).
pub fn block(r: &RunResult, pcts: &[f64]) -> String {
    if !crate::analyze::class_figures::is_tpcc(r) {
        return operations_block(r, pcts);
    }
    let f = figures(r);
    let mut o = String::from("\nTPC-C:\n");
    let _ = writeln!(o, "    NOPM (New-Orders per minute):      {:.1}", f.nopm);
    let _ = writeln!(
        o,
        "    TPM (transactions per minute):     {:.1}  (every type, on-purpose rollbacks included)",
        f.tpm
    );
    let _ = writeln!(
        o,
        "    New-Orders rolled back on purpose: {:.2}%  (the spec's 1% unused item; not errors)",
        f.rollback_pct
    );
    let _ = writeln!(
        o,
        "    deadlocks (1213) retried:          {}    lock-wait timeouts (1205) retried: {}",
        f.deadlocks, f.lock_waits
    );
    if let Some(h) = &r.headline {
        match h.value {
            Some(v) => {
                let _ = writeln!(
                    o,
                    "    {:<35}{v:.1}  (the spec's conditions hold)",
                    format!("{}:", h.name)
                );
            }
            None => {
                let _ = writeln!(
                    o,
                    "    {:<35}not reported: {}",
                    format!("{}:", h.name),
                    h.why_not.join("; ")
                );
            }
        }
    }
    if let Some(t) = &r.server_tally {
        let _ = writeln!(
            o,
            "    New-Orders the server took:        {} (the client counted {}, warm-up included; from d_next_o_id)",
            t.server, t.client
        );
    }
    let minutes = r.elapsed.max(1e-9) / 60.0;
    let total: u64 = r.classes.iter().map(|k| k.count).sum();
    let _ = write!(
        o,
        "\n    {:<19} {:>9} {:>7} {:>10} {:>9}",
        "transaction", "count", "share", "per min", "avg"
    );
    for p in pcts {
        let _ = write!(o, " {:>9}", format!("p{}", pct_label(*p)));
    }
    let _ = writeln!(o, " {:>9}  (ms)", "max");
    for k in &r.classes {
        let _ = write!(
            o,
            "    {:<19} {:>9} {:>6.2}% {:>10.1} {:>9.3}",
            k.name,
            k.count,
            100.0 * k.count as f64 / total.max(1) as f64,
            k.count as f64 / minutes,
            k.hist.mean_ms()
        );
        for p in pcts {
            let _ = write!(o, " {:>9.3}", k.hist.quantile_ms(p / 100.0));
        }
        let _ = writeln!(o, " {:>9.3}", k.hist.max_ms());
    }
    o
}
