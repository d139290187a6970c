//! The host test block of a run's document: what one of sysbench's
//! built-in tests (`cpu`, `memory`, `threads`, `mutex`, `fileio`)
//! measured, in the units sysbench reports them. Owns the types only; lab
//! fills them from hostbench's results.

use serde::{Deserialize, Serialize};

/// A host test's figures (the document's "host_test"; absent for
/// database runs).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct HostTestBlock {
    /// The test ("cpu", "fileio" …).
    pub test: String,
    /// Events per second (sysbench's "events per second").
    pub events_per_s: f64,
    /// Mean event latency, ms.
    pub latency_avg_ms: f64,
    /// Its figures in sysbench's units, each named with its unit
    /// ("reads_per_s", "read_mib_per_s", "memory_mib_per_s" …), in the
    /// order sysbench prints them.
    pub figures: Vec<HostFigure>,
}

/// One named figure of a host test.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct HostFigure {
    /// Its name, unit included ("read_mib_per_s").
    pub name: String,
    /// Its value.
    pub value: f64,
}
