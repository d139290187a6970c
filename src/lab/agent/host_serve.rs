//! The agent beside the database server: finds the server's process,
//! reads its host's OS sources with the monitor's own code, and records
//! it with the profiler's perf collectors for the controller (whichever
//! host that runs on). A recording whose controller vanished is stopped
//! and dropped at its limit. Serves any controller with the token, also
//! while a run of load is going on (reading /proc takes microseconds).
//! The HTTP routes are ui/agent_api.rs's.

use super::wire::{
    HostPollRequest, HostValues, LocateRequest, ProfileStart, ProfileStarted, WireOutcome,
    WireSyscalls,
};
use crate::monitor::{locate_server, read_host, Located, SourceId};
use crate::profiler::{parse_kinds, Data, Kind, Outcome, Plan, Session};
use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Recordings in progress, by id.
#[derive(Default)]
pub struct HostCore {
    profiles: Mutex<HashMap<u64, Session>>,
    next: Mutex<u64>,
}

impl HostCore {
    /// The server's process and datadir disk on this host.
    pub fn locate(&self, r: &LocateRequest) -> Located {
        locate_server(r.datadir.as_deref().map(Path::new), &r.pid_file, r.port)
    }

    /// One host source, read here.
    pub fn poll(&self, r: &HostPollRequest) -> HostValues {
        let Some(source) = SourceId::parse(&r.source) else {
            return HostValues {
                error: Some(format!("unknown source '{}'", r.source)),
                ..Default::default()
            };
        };
        match read_host(source, r.pid, r.disk.as_deref()) {
            Ok(values) => HostValues {
                values,
                error: None,
            },
            Err(e) => HostValues {
                values: Vec::new(),
                error: Some(e),
            },
        }
    }

    /// Starts recording the server with perf; stopped by `stop_profile`,
    /// or at `max_s` by itself (then dropped).
    pub fn start_profile(self: &Arc<Self>, r: &ProfileStart) -> Result<ProfileStarted, String> {
        let kinds: Vec<Kind> = parse_kinds(&r.kinds.join(","))?
            .into_iter()
            .filter(|k| *k != Kind::Waits)
            .collect();
        if kinds.is_empty() {
            return Err("name at least one of cpu, offcpu, syscalls".into());
        }
        if !Path::new(&format!("/proc/{}", r.pid)).exists() {
            return Err(format!("no process {} on the agent's host", r.pid));
        }
        let id = {
            let mut n = self.next.lock().map_err(|_| poisoned())?;
            *n += 1;
            *n
        };
        let dir =
            std::env::temp_dir().join(format!("qpslab-agent-profile-{}-{id}", std::process::id()));
        let session = Session::start(&Plan {
            pid: r.pid,
            kinds,
            hz: r.hz,
            dir,
            waits: None,
        });
        self.profiles
            .lock()
            .map_err(|_| poisoned())?
            .insert(id, session);
        let me = self.clone();
        let limit = Duration::from_secs_f64(r.max_s.clamp(1.0, 86_400.0));
        let _ = std::thread::Builder::new()
            .name("qpslab-agent-profile-limit".into())
            .spawn(move || {
                std::thread::sleep(limit);
                let left = me.profiles.lock().ok().and_then(|mut m| m.remove(&id));
                if let Some(s) = left {
                    log::warn!("profile {id} passed its limit with no controller: dropped");
                    drop(s.stop());
                }
            });
        Ok(ProfileStarted { id })
    }

    /// Stops recording `id` and reads back what each kind gathered.
    pub fn stop_profile(&self, id: u64) -> Option<Vec<WireOutcome>> {
        let s = self.profiles.lock().ok()?.remove(&id)?;
        Some(s.stop().into_iter().map(to_wire).collect())
    }
}

fn poisoned() -> String {
    "the agent's state is poisoned: restart the agent".into()
}

/// An outcome for the wire.
pub(crate) fn to_wire(o: Outcome) -> WireOutcome {
    let mut w = WireOutcome {
        kind: o.kind.name().to_string(),
        secs: o.secs,
        started_unix: o.started_unix,
        cost_cpu_s: o.cost_cpu_s,
        stacks: None,
        syscalls: None,
        error: None,
    };
    match o.result {
        Ok(Data::Stacks(f)) => w.stacks = Some(f.stacks),
        Ok(Data::Syscalls(s)) => {
            let counts = s
                .counts
                .into_iter()
                .map(|((side, name), v)| (side, name, v))
                .collect();
            w.syscalls = Some(WireSyscalls {
                period: s.period,
                counts,
            });
        }
        Ok(Data::Waits(_)) => w.error = Some("waits are read by the controller".into()),
        Err(e) => w.error = Some(e),
    }
    w
}

/// An outcome back from the wire (None: a kind this qpslab does not know).
pub(crate) fn from_wire(w: WireOutcome) -> Option<Outcome> {
    let kind = *parse_kinds(&w.kind).ok()?.first()?;
    let result = match (w.stacks, w.syscalls, w.error) {
        (_, _, Some(e)) => Err(e),
        (Some(stacks), _, None) => Ok(Data::Stacks(crate::profiler::Folded { stacks })),
        (None, Some(WireSyscalls { period, counts }), None) => {
            Ok(Data::Syscalls(crate::profiler::syscalls::Syscalls {
                period,
                counts: counts
                    .into_iter()
                    .map(|(side, name, v)| ((side, name), v))
                    .collect(),
            }))
        }
        (None, None, None) => Err("the agent sent nothing for it".into()),
    };
    Some(Outcome {
        kind,
        secs: w.secs,
        started_unix: w.started_unix,
        cost_cpu_s: w.cost_cpu_s,
        result,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_outcome_survives_the_wire() {
        let mut f = crate::profiler::Folded::default();
        f.add(&["main", "dispatch_command"], 7);
        let o = Outcome {
            kind: Kind::Cpu,
            secs: 2.0,
            started_unix: 1.0,
            cost_cpu_s: Some(0.1),
            result: Ok(Data::Stacks(f)),
        };
        let json = serde_json::to_string(&to_wire(o)).unwrap();
        let back = from_wire(serde_json::from_str(&json).unwrap()).unwrap();
        assert_eq!(back.kind, Kind::Cpu);
        assert_eq!(back.stacks().unwrap().total(), 7);
        let mut s = crate::profiler::syscalls::Syscalls {
            period: 7,
            ..Default::default()
        };
        s.counts
            .insert(("server".into(), "pread64".into()), vec![3, 4]);
        let w = to_wire(Outcome {
            kind: Kind::Syscalls,
            secs: 2.0,
            started_unix: 1.0,
            cost_cpu_s: None,
            result: Ok(Data::Syscalls(s)),
        });
        let back = from_wire(serde_json::from_str(&serde_json::to_string(&w).unwrap()).unwrap());
        match back.unwrap().result {
            Ok(Data::Syscalls(s)) => assert_eq!(s.total("server"), 7),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_host_core_reads_this_hosts_sources() {
        let c = HostCore::default();
        let v = c.poll(&HostPollRequest {
            source: "cpu".into(),
            pid: None,
            disk: None,
        });
        assert!(v.error.is_none() && !v.values.is_empty());
        let v = c.poll(&HostPollRequest {
            source: "status".into(),
            pid: None,
            disk: None,
        });
        assert!(v.error.is_some());
    }
}
