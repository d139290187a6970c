//! A profile in the terminal: what was recorded, the innermost functions
//! (on CPU, or where threads block), the functions on the stack, and the
//! lock families' shares.

use crate::profiler::fold::Share;
use crate::profiler::{Folded, Kind};
use std::fmt::Write;

fn table(o: &mut String, title: &str, rows: &[Share]) {
    let _ = writeln!(o, "\n{title}:");
    if rows.is_empty() {
        o.push_str("    (none)\n");
    }
    for r in rows {
        let _ = writeln!(o, "    {:>6.2}%  {:>8}  {}", r.pct, r.samples, r.name);
    }
}

pub fn summary(f: &Folded, kind: Kind, secs: f64, hz: u32, top: usize) -> String {
    let mut o = match kind {
        Kind::Cpu => format!(
            "On-CPU profile: {} samples over {secs:.1} s at {hz} Hz ({} distinct stacks)\n",
            f.total(),
            f.stacks.len()
        ),
        Kind::OffCpu => format!(
            "Off-CPU profile: {} blocking switches over {secs:.1} s ({:.0}/s, {} distinct stacks)\n",
            f.total(),
            f.total() as f64 / secs.max(1e-9),
            f.stacks.len()
        ),
    };
    let (leaf, share) = match kind {
        Kind::Cpu => (
            "Top functions on CPU (self)",
            "Lock families (share of samples)",
        ),
        Kind::OffCpu => (
            "Where threads block (innermost frame)",
            "Lock families (share of blocking switches)",
        ),
    };
    table(&mut o, leaf, &f.top_self(top, kind == Kind::OffCpu));
    table(
        &mut o,
        "Top functions on the stack (total)",
        &f.top_total(top),
    );
    table(&mut o, share, &f.families());
    o
}
