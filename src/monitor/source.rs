//! What the monitor produces: snapshots of one source's raw counters, notes
//! about sources skipped, slowed down or interrupted, and the capabilities
//! found at connect.

use super::caps::{Caps, NoteKind};
use std::time::Instant;

/// A place the monitor reads counters from.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum SourceId {
    /// SHOW GLOBAL STATUS: every numeric counter, raw.
    Status,
    /// information_schema.INNODB_METRICS, enabled counters.
    InnodbMetrics,
    /// performance_schema.events_waits_summary_global_by_event_name.
    PsWaits,
    /// performance_schema.file_summary_by_event_name.
    PsFiles,
    /// SHOW ENGINE INNODB STATUS, parsed into numbers.
    InnodbStatus,
    /// Connections by command and state (performance_schema.threads or the processlist).
    Threads,
    /// SHOW ENGINE INNODB MUTEX: OS waits per InnoDB mutex/rw-lock
    /// (MySQL 5.5–5.7; MySQL 8 with innodb_monitor_enable='latch').
    InnodbMutex,
    /// /proc/stat: host and per-CPU time, context switches.
    Cpu,
    /// /proc/PID/stat and /proc/PID/io of the server process.
    ServerProc,
    /// The server's threads summed from /proc/PID/task/*/schedstat: times
    /// scheduled in (context switches) and time waiting for a CPU.
    ServerTasks,
    /// This process (the load generator): CPU, context switches, IO.
    ClientProc,
    /// /proc/diskstats.
    Disk,
    /// /proc/net/dev.
    Net,
    /// /proc/meminfo.
    Mem,
    /// /proc/pressure (PSI).
    Pressure,
}

/// Every source, in the order they are listed and polled.
pub const ALL_SOURCES: [SourceId; 15] = [
    SourceId::Status,
    SourceId::InnodbMetrics,
    SourceId::PsWaits,
    SourceId::PsFiles,
    SourceId::InnodbStatus,
    SourceId::Threads,
    SourceId::InnodbMutex,
    SourceId::Cpu,
    SourceId::ServerProc,
    SourceId::ServerTasks,
    SourceId::ClientProc,
    SourceId::Disk,
    SourceId::Net,
    SourceId::Mem,
    SourceId::Pressure,
];

impl SourceId {
    /// The source's name on the command line and in the store ("status").
    pub fn name(self) -> &'static str {
        match self {
            SourceId::Status => "status",
            SourceId::InnodbMetrics => "innodb_metrics",
            SourceId::PsWaits => "ps_waits",
            SourceId::PsFiles => "ps_files",
            SourceId::InnodbStatus => "innodb_status",
            SourceId::Threads => "threads",
            SourceId::InnodbMutex => "innodb_mutex",
            SourceId::Cpu => "cpu",
            SourceId::ServerProc => "server_proc",
            SourceId::ServerTasks => "server_tasks",
            SourceId::ClientProc => "client_proc",
            SourceId::Disk => "disk",
            SourceId::Net => "net",
            SourceId::Mem => "mem",
            SourceId::Pressure => "pressure",
        }
    }

    /// The source of that name; None for an unknown one.
    pub fn parse(s: &str) -> Option<SourceId> {
        ALL_SOURCES.iter().copied().find(|x| x.name() == s)
    }

    /// Seconds between polls by default: expensive or slow-moving sources
    /// are read less often.
    pub(crate) fn default_every(self) -> f64 {
        match self {
            SourceId::InnodbStatus
            | SourceId::Threads
            | SourceId::InnodbMutex
            | SourceId::Mem
            | SourceId::ServerTasks => 5.0,
            _ => 1.0,
        }
    }

    /// Whether the source needs the monitoring connection.
    pub(crate) fn is_sql(self) -> bool {
        matches!(
            self,
            SourceId::Status
                | SourceId::InnodbMetrics
                | SourceId::PsWaits
                | SourceId::PsFiles
                | SourceId::InnodbStatus
                | SourceId::Threads
                | SourceId::InnodbMutex
        )
    }
}

/// One poll of one source.
#[derive(Debug, Clone)]
pub struct Snapshot {
    /// The source polled.
    pub source: SourceId,
    /// When the poll started.
    pub at: Instant,
    /// How long the poll took, in microseconds (the collector's own cost).
    pub took_us: u64,
    /// Raw values by name (counters are cumulative, as the server reports them).
    pub values: Vec<(String, f64)>,
}

impl NoteKind {
    /// The kind in words, as stored ("skipped").
    pub fn name(self) -> &'static str {
        match self {
            NoteKind::Skipped => "skipped",
            NoteKind::Slowed => "slowed",
            NoteKind::Gap => "gap",
            NoteKind::Resumed => "resumed",
            NoteKind::Stall => "stall",
            NoteKind::Info => "info",
        }
    }
}

/// Something the monitor noticed, in words.
#[derive(Debug, Clone)]
pub struct Note {
    /// When.
    pub at: Instant,
    /// The source it is about, if one.
    pub source: Option<SourceId>,
    /// What it is about.
    pub kind: NoteKind,
    /// The note in words.
    pub text: String,
}

/// What the monitor thread sends its driver.
#[derive(Debug, Clone)]
pub enum Event {
    /// One poll's values.
    Snapshot(Snapshot),
    /// A note.
    Note(Note),
    /// Capabilities found at (re)connect.
    Caps(Caps),
}
