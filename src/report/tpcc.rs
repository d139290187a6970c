//! The figures of a run whose family sorts its events into classes
//! (TPC-C's transaction types): NOPM and TPM, the server's cross-check,
//! the on-purpose rollbacks apart from errors, and each type's count and
//! latency. Text for the summary, JSON for the stored document.

use crate::stats::{pct_label, Interval, RunResult};
use serde_json::{json, Value};
use std::fmt::Write;

use crate::workload::tpcc::{NEW_ORDER, ROLLED_BACK};

/// New orders per minute over `secs` seconds of `iv` (class 0 is TPC-C's
/// New-Order).
pub fn nopm(iv: &Interval, secs: f64) -> f64 {
    iv.classes[0] as f64 * 60.0 / secs.max(1e-9)
}

/// What an interval line adds for a family with classes.
pub fn interval_suffix(iv: &Interval, secs: f64) -> String {
    if iv.classes.iter().all(|&n| n == 0) {
        return String::new();
    }
    format!(" nopm: {:.0}", nopm(iv, secs))
}

struct Figures {
    nopm: f64,
    tpm: f64,
    rollback_pct: f64,
    deadlocks: u64,
    lock_waits: u64,
}

fn figures(r: &RunResult) -> Figures {
    let minutes = r.elapsed.max(1e-9) / 60.0;
    let count = |n: &str| r.class_count(n).unwrap_or(0) as f64;
    let all: f64 = r.classes.iter().map(|k| k.count as f64).sum();
    let rb = count(ROLLED_BACK);
    let code = |c: u16| {
        r.total
            .errors
            .0
            .iter()
            .find(|e| e.0 == c)
            .map_or(0, |e| e.1)
    };
    Figures {
        nopm: r.class_per_minute(NEW_ORDER).unwrap_or(0.0),
        tpm: all / minutes,
        rollback_pct: 100.0 * rb / (rb + count(NEW_ORDER)).max(1.0),
        deadlocks: code(1213),
        lock_waits: code(1205),
    }
}

/// The summary block (empty for families without classes).
pub fn block(r: &RunResult, pcts: &[f64]) -> String {
    if r.classes.is_empty() {
        return String::new();
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

/// The block as JSON (null for families without classes).
pub fn document(r: &RunResult, pcts: &[f64]) -> Value {
    if r.classes.is_empty() {
        return Value::Null;
    }
    let f = figures(r);
    let minutes = r.elapsed.max(1e-9) / 60.0;
    json!({
        "nopm": f.nopm,
        "tpm": f.tpm,
        "new_order_rollback_pct": f.rollback_pct,
        "deadlocks": f.deadlocks,
        "lock_wait_timeouts": f.lock_waits,
        "server_tally": r.server_tally,
        "headline": r.headline,
        "transactions": r.classes.iter().map(|k| {
            let mut lat = serde_json::Map::new();
            for p in pcts {
                lat.insert(format!("p{}", pct_label(*p)), json!(k.hist.quantile_ms(p / 100.0)));
            }
            lat.insert("avg".into(), json!(k.hist.mean_ms()));
            lat.insert("max".into(), json!(k.hist.max_ms()));
            json!({"type": k.name, "count": k.count, "per_minute": k.count as f64 / minutes, "latency_ms": lat})
        }).collect::<Vec<_>>(),
    })
}
