//! The per-agent table of a run driven by agents: each agent's share,
//! QPS, p99, load CPU per query and host CPU busy, the client-bound
//! agents named, and the clients' transactions beside the server's
//! Com_commit. Text only; renders the run document's agents block.

use crate::stats::document::AgentsBlock;
use std::fmt::Write;

/// The table and its notes, after a run's summary.
pub fn agents_table(b: &AgentsBlock) -> String {
    let mut s = String::from("\nAgents:\n");
    let _ = writeln!(
        s,
        "    {:<22} {:>5} {:>6} {:>11} {:>9} {:>11} {:>9} {:>9} {:>8}",
        "agent", "conns", "share", "qps", "p99 ms", "load us/q", "host cpu", "offset", "status"
    );
    for a in &b.agents {
        let _ = writeln!(
            s,
            "    {:<22} {:>5} {:>5.0}% {:>11.2} {:>9.2} {:>11.1} {:>8.0}% {:>+7.1}ms {:>8}",
            a.agent,
            a.connections,
            a.share * 100.0,
            a.qps,
            a.p99_ms,
            a.load_us_per_query,
            a.host_busy * 100.0,
            a.offset_ms,
            a.status
        );
    }
    for a in b.agents.iter().filter(|a| a.client_bound) {
        let _ = writeln!(
            s,
            "    client-bound: agent {} (host CPU {:.0}% busy, {:.0}% of the connections): its figures measure its own host",
            a.agent,
            a.host_busy * 100.0,
            a.share * 100.0
        );
    }
    for a in b.agents.iter() {
        if let Some(why) = &a.lost {
            let _ = writeln!(
                s,
                "    lost: agent {} ({why}); what it sent is kept",
                a.agent
            );
        }
    }
    match (b.server_commits, &b.commit_mismatch) {
        (_, Some(m)) => {
            let _ = writeln!(s, "    MISMATCH: {m}");
        }
        (Some(c), None) => {
            let _ = writeln!(
                s,
                "    transactions: agents {}, server Com_commit {c}",
                b.client_transactions
            );
        }
        (None, None) => {}
    }
    s
}
