//! The kinds of profile (`--profile cpu,offcpu,syscalls,waits`) and
//! their parsing.

/// What a profile collects.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
pub enum Kind {
    /// On-CPU stacks, sampled at a rate (cpu-clock).
    Cpu,
    /// The stack of every switch-out of a thread that blocked
    /// (sched:sched_switch; preemptions left out), weighted by the
    /// microseconds until the thread ran again: who parks, where, how long.
    OffCpu,
    /// Syscalls by name per second, the server's apart from qpslab's load
    /// threads'.
    Syscalls,
    /// Performance Schema wait events as shares of thread time.
    Waits,
}

impl Kind {
    /// Every kind, in the order `--profile all` records them.
    pub const ALL: [Kind; 4] = [Kind::Cpu, Kind::OffCpu, Kind::Syscalls, Kind::Waits];

    /// The kind's name in `--profile` lists and stored profiles.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Cpu => "cpu",
            Kind::OffCpu => "offcpu",
            Kind::Syscalls => "syscalls",
            Kind::Waits => "waits",
        }
    }
}

/// A `--profile` list: kinds by name, comma-separated; `all` for every
/// kind, and an empty list for none. Repeats are ignored.
pub fn parse_kinds(list: &str) -> Result<Vec<Kind>, String> {
    let mut kinds = Vec::new();
    for k in list.split(',').map(str::trim).filter(|k| !k.is_empty()) {
        if k == "all" {
            kinds.extend(Kind::ALL);
            continue;
        }
        kinds.push(
            Kind::ALL
                .into_iter()
                .find(|x| x.name() == k)
                .ok_or_else(|| {
                    format!("'{k}' is not a profile kind: use cpu, offcpu, syscalls, waits or all")
                })?,
        );
    }
    kinds.sort();
    kinds.dedup();
    Ok(kinds)
}
