//! The bottleneck verdict of a run driven by agents: an agent whose host
//! was saturated (`AgentRow::client_bound`) measured its own host as much
//! as the server, so the verdict names it with its share of the
//! connections, the server-side verdict kept as evidence. Pure.

use super::bottleneck::Hint;
use crate::stats::document::AgentsBlock;

/// Turns `h` into "client-bound: agent A (S% of the connections), …" when
/// any agent of `a` was client-bound; leaves it alone otherwise.
pub fn agents_client_bound(h: &mut Hint, a: &AgentsBlock) {
    let bound: Vec<_> = a.agents.iter().filter(|r| r.client_bound).collect();
    if bound.is_empty() {
        return;
    }
    let named: Vec<String> = bound
        .iter()
        .map(|r| {
            format!(
                "agent {} ({:.0}% of the connections)",
                r.agent,
                r.share * 100.0
            )
        })
        .collect();
    let busy: Vec<String> = bound
        .iter()
        .map(|r| {
            format!(
                "agent {}'s host CPU was {:.0}% busy",
                r.agent,
                r.host_busy * 100.0
            )
        })
        .collect();
    let share: f64 = bound.iter().map(|r| r.share).sum();
    let mut ev = vec![format!(
        "{}: saturated client hosts carrying {:.0}% of the connections; their figures measure those hosts as much as the server (give them fewer connections with a lower weight, HOST:PORT=0.5, or more agents)",
        busy.join(", "),
        share * 100.0
    )];
    let was = std::mem::take(&mut h.verdict);
    if !was.is_empty() && was != "unknown" {
        ev.push(format!("the server's side alone reads: {was}"));
    }
    ev.append(&mut h.evidence);
    h.evidence = ev;
    h.verdict = format!("client-bound: {}", named.join(", "));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::document::AgentRow;

    #[test]
    fn a_saturated_agent_is_named_with_its_share() {
        let row = |agent: &str, busy: f64, bound: bool| AgentRow {
            agent: agent.into(),
            share: 0.25,
            host_busy: busy,
            client_bound: bound,
            ..Default::default()
        };
        let mut a = AgentsBlock {
            agents: vec![row("c1:7070", 0.5, false), row("c2:7070", 0.98, true)],
            ..Default::default()
        };
        let mut h = Hint {
            verdict: "CPU-bound in the server".into(),
            evidence: vec!["server 90% of CPU".into()],
            ..Default::default()
        };
        agents_client_bound(&mut h, &a);
        assert_eq!(
            h.verdict,
            "client-bound: agent c2:7070 (25% of the connections)"
        );
        assert!(h.evidence[0].contains("98% busy"), "{:?}", h.evidence);
        assert!(h
            .evidence
            .iter()
            .any(|e| e.contains("CPU-bound in the server")));
        assert!(h.evidence.iter().any(|e| e == "server 90% of CPU"));
        // none saturated: the verdict stays
        a.agents[1].client_bound = false;
        let mut h2 = Hint {
            verdict: "IO-bound".into(),
            ..Default::default()
        };
        agents_client_bound(&mut h2, &a);
        assert_eq!(h2.verdict, "IO-bound");
    }
}
