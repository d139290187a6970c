//! The insert benchmark's phases (iq.sh's sequence): what each one runs,
//! as options of the family and a bound, from the names the benchmark
//! gives them. Knows nothing of how a phase is run or stored (lab does
//! that) nor of the statements (purchases.rs).
//!
//! - `l.i0`: load `--rows` rows without secondary indexes, as fast as the
//!   inserters go (rows per commit as given);
//! - `l.x`: add the secondary indexes (one ALTER TABLE, timed);
//! - `l.i1`, `l.i2`: inserts with a delete of as many old rows each, at
//!   50 and 5 rows per commit, for `--time` seconds;
//! - `qrN`, `qpN`: range (`qr`) or point (`qp`) queries as fast as they
//!   go on `--query-threads` connections while each inserter holds N
//!   rows/s (with deletes), for `--time` seconds, in commits of N/100
//!   rows (at least 1). The benchmark's own are 100, 500 and 1000.

use super::ib_knobs::IbenchOpts;

/// Every phase, in the benchmark's order (`--phases all`).
pub const ALL: &str = "l.i0,l.x,l.i1,l.i2,qr100,qp100,qr500,qp500,qr1000,qp1000";

/// What a phase does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PhaseKind {
    /// Insert a number of rows, no secondary index yet.
    Load,
    /// Add the secondary indexes.
    Index,
    /// Inserts with deletes for the run's time.
    Insert,
    /// Queries beside inserters held at a rate, for the run's time.
    Query,
}

/// One phase of the sequence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Phase {
    /// As the benchmark names it ("l.i1", "qr100").
    pub name: String,
    /// What it runs.
    pub kind: PhaseKind,
    /// Query phases: rows/s each inserter holds.
    pub rate: u32,
    /// Query phases: point queries instead of range queries.
    pub point: bool,
}

impl Phase {
    /// The phase a name gives; Err says what names there are.
    pub fn parse(word: &str) -> Result<Phase, String> {
        let w = word.trim();
        let fixed = |kind| {
            Ok(Phase {
                name: w.to_string(),
                kind,
                rate: 0,
                point: false,
            })
        };
        match w {
            "l.i0" => return fixed(PhaseKind::Load),
            "l.x" => return fixed(PhaseKind::Index),
            "l.i1" | "l.i2" => return fixed(PhaseKind::Insert),
            _ => {}
        }
        let rate = w
            .strip_prefix("qr")
            .map(|r| (r, false))
            .or_else(|| w.strip_prefix("qp").map(|r| (r, true)))
            .and_then(|(r, point)| Some((r.parse::<u32>().ok().filter(|n| *n > 0)?, point)));
        match rate {
            Some((rate, point)) => Ok(Phase {
                name: w.to_string(),
                kind: PhaseKind::Query,
                rate,
                point,
            }),
            None => Err(format!(
                "--phases: '{w}' is not a phase of the insert benchmark: name them from l.i0, l.x, l.i1, l.i2, qrN, qpN (N rows/s per inserter), or all"
            )),
        }
    }

    /// A `--phases` list, in the order given ("all": every phase).
    pub fn list(text: &str) -> Result<Vec<Phase>, String> {
        let text = if text.trim() == "all" { ALL } else { text };
        let phases = text
            .split(',')
            .filter(|w| !w.trim().is_empty())
            .map(Phase::parse)
            .collect::<Result<Vec<_>, _>>()?;
        if phases.is_empty() {
            return Err("--phases names no phase: give e.g. l.i0,l.x,l.i1 or all".into());
        }
        if let Some(p) = phases.iter().skip(1).find(|p| p.kind == PhaseKind::Load) {
            return Err(format!(
                "--phases: {} loads a fresh table, so it can only come first",
                p.name
            ));
        }
        let mut seen = std::collections::BTreeSet::new();
        if let Some(dup) = phases.iter().find(|p| !seen.insert(p.name.clone())) {
            return Err(format!(
                "--phases names {} twice: name each phase once",
                dup.name
            ));
        }
        Ok(phases)
    }

    /// The family's options for this phase, from the command's: what the
    /// phase fixes replaces what was given. `query_threads` are the
    /// connections that query in a query phase (none elsewhere).
    pub fn options(&self, base: &IbenchOpts, query_threads: u32) -> IbenchOpts {
        let mut o = base.clone();
        o.phases = String::new();
        o.inserts_per_second = 0;
        o.delete_per_insert = false;
        o.query_threads = 0;
        match self.kind {
            PhaseKind::Load => o.num_secondary_indexes = 0,
            PhaseKind::Index => {}
            PhaseKind::Insert => {
                o.delete_per_insert = true;
                o.rows_per_commit = if self.name == "l.i1" { 50 } else { 5 };
            }
            PhaseKind::Query => {
                o.delete_per_insert = true;
                o.inserts_per_second = self.rate;
                // A hundred commits a second per inserter at least, so a
                // second's count is never off its target by more than 1%
                // for want of a whole commit (the sustained judgement).
                o.rows_per_commit = (self.rate / 100).clamp(1, o.rows_per_commit);
                o.query_threads = query_threads;
                o.query_pk_only = self.point;
            }
        }
        o
    }

    /// Whether the phase writes rows (a settle step may follow it).
    pub fn writes(&self) -> bool {
        matches!(self.kind, PhaseKind::Load | PhaseKind::Insert)
    }
}

/// The options with their `--phases` checked against the rest (None
/// given: nothing to check).
pub fn checked(o: IbenchOpts) -> Result<IbenchOpts, String> {
    if o.phases.is_empty() {
        return Ok(o);
    }
    let phases = Phase::list(&o.phases)?;
    if o.rows == 0 && phases.iter().any(|p| p.kind == PhaseKind::Load) {
        return Err("--rows 0: the l.i0 phase needs rows to load (e.g. --rows 1000000)".into());
    }
    let needs_indexes = phases
        .iter()
        .any(|p| p.kind == PhaseKind::Index || (p.kind == PhaseKind::Query && !p.point));
    if o.num_secondary_indexes == 0 && needs_indexes {
        return Err("--num-secondary-indexes 0: the l.x and qrN phases need the secondary indexes: give 1 to 3".into());
    }
    Ok(o)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_give_the_benchmark_s_phases() {
        let all = Phase::list("all").unwrap();
        let names: Vec<&str> = all.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names.join(","), ALL);
        let q = Phase::parse("qp500").unwrap();
        assert_eq!((q.kind, q.rate, q.point), (PhaseKind::Query, 500, true));
        assert_eq!(Phase::parse("l.x").unwrap().kind, PhaseKind::Index);
        for bad in ["l.i3", "qr0", "qx100", "qr"] {
            let e = Phase::parse(bad).unwrap_err();
            assert!(e.contains(bad) && !e.contains('\n'), "{e}");
        }
        assert!(Phase::list("l.i1,l.i1").unwrap_err().contains("twice"));
        assert!(Phase::list(" , ").is_err());
    }
}
