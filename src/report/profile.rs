//! A CPU profile in the terminal: samples, the functions most on CPU
//! (self) and on the stack (total), and the lock families' shares.

use crate::profiler::fold::Share;
use crate::profiler::Folded;
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

pub fn summary(f: &Folded, secs: f64, hz: u32, top: usize) -> String {
    let mut o = format!(
        "On-CPU profile: {} samples over {secs:.1} s at {hz} Hz ({} distinct stacks)\n",
        f.total(),
        f.stacks.len()
    );
    table(&mut o, "Top functions on CPU (self)", &f.top_self(top));
    table(
        &mut o,
        "Top functions on the stack (total)",
        &f.top_total(top),
    );
    table(&mut o, "Lock families (share of samples)", &f.families());
    o
}
