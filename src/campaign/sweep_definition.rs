//! The definition a sweep (or a quickstart) is stored with as its
//! campaign's `definition`: the workloads, concurrencies, repeats and
//! seconds per point. Campaign files are stored as their TOML text
//! instead (`CampaignFile`). Owns the type and its JSON form; cli writes
//! it, the UI reads it back to tell a running sweep's progress.

use serde::{Deserialize, Deserializer, Serialize};

/// The version `SweepDefinition`s are written with (definitions written
/// before it have none and read as version 0).
pub const SWEEP_DEFINITION_VERSION: u32 = 1;

/// A sweep's (or a quickstart's) stored definition.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SweepDefinition {
    /// The definition's version (0: written before versions).
    pub version: u32,
    /// The one workload of a single-workload sweep.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workload: Option<String>,
    /// The workloads of a sweep over several, in order.
    #[serde(
        skip_serializing_if = "Option::is_none",
        deserialize_with = "list_or_text"
    )]
    pub workloads: Option<Vec<String>>,
    /// The concurrencies.
    pub threads: Vec<u32>,
    /// Repeats of each point.
    pub repeat: u32,
    /// Measured seconds per point.
    pub time: f64,
    /// Warm-up seconds per point.
    pub warmup_time: f64,
    /// Pause between points, seconds.
    pub cooldown: f64,
    /// A quickstart's tables.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tables: Option<u32>,
    /// A quickstart's rows per table.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub table_size: Option<u32>,
    /// The command line, secrets removed.
    pub command_line: String,
}

impl Default for SweepDefinition {
    fn default() -> Self {
        SweepDefinition {
            version: 0,
            workload: None,
            workloads: None,
            threads: Vec::new(),
            repeat: 1,
            time: 0.0,
            warmup_time: 0.0,
            cooldown: 0.0,
            tables: None,
            table_size: None,
            command_line: String::new(),
        }
    }
}

impl SweepDefinition {
    /// Points in all: workloads × concurrencies × repeats.
    pub fn points(&self) -> usize {
        let workloads = self.workloads.as_ref().map_or(1, Vec::len).max(1);
        workloads * self.threads.len().max(1) * self.repeat.max(1) as usize
    }

    /// Seconds per point: warm-up, measured time and cool-down.
    pub fn seconds_per_point(&self) -> f64 {
        self.time + self.warmup_time + self.cooldown
    }
}

/// Workloads as a list, or as the comma-separated text older quickstart
/// definitions stored.
fn list_or_text<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<String>>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Either {
        List(Vec<String>),
        Text(String),
    }
    Ok(Option::<Either>::deserialize(d)?.map(|e| match e {
        Either::List(l) => l,
        Either::Text(t) => t
            .split(',')
            .map(str::trim)
            .filter(|w| !w.is_empty())
            .map(str::to_string)
            .collect(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn definitions_round_trip_and_old_ones_read() {
        let d = SweepDefinition {
            version: SWEEP_DEFINITION_VERSION,
            workloads: Some(vec!["a".into(), "b".into()]),
            threads: vec![1, 2, 4],
            repeat: 2,
            time: 10.0,
            warmup_time: 2.0,
            cooldown: 1.0,
            command_line: "qpslab sweep".into(),
            ..Default::default()
        };
        let text = serde_json::to_string(&d).unwrap();
        assert_eq!(serde_json::from_str::<SweepDefinition>(&text).unwrap(), d);
        assert_eq!((d.points(), d.seconds_per_point()), (12, 13.0));
        // As a sweep wrote it before versions: no version, one workload.
        let old: SweepDefinition = serde_json::from_str(
            r#"{"workload":"oltp_point_select","threads":[1,2,4],"repeat":1,"time":10.0,
                "warmup_time":2.0,"cooldown":0.0,"command_line":"qpslab sweep"}"#,
        )
        .unwrap();
        assert_eq!(
            (old.version, old.points(), old.seconds_per_point()),
            (0, 3, 12.0)
        );
        // An old quickstart's: workloads as text, no repeat or warm-up.
        let quick: SweepDefinition = serde_json::from_str(
            r#"{"workloads":"oltp_point_select,oltp_read_write","threads":[1,4],"time":5.0,
                "tables":1,"table_size":100000,"command_line":"qpslab quickstart"}"#,
        )
        .unwrap();
        assert_eq!((quick.points(), quick.seconds_per_point()), (4, 5.0));
    }
}
