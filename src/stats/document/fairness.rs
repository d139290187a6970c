//! Events per connection: sysbench's "threads fairness" lists (events and
//! busy seconds by connection) and their spread (min, median, max,
//! stddev, stddev / mean), as the run document keeps them. Computed once
//! at the end of a run from the per-connection counters exec keeps; owns
//! no measuring and no formatting.

use serde::{Deserialize, Serialize};

/// Per connection: events and seconds spent in events, and the spread of
/// the events.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ThreadsFairness {
    /// Events by connection.
    pub events: Vec<u64>,
    /// Seconds in events by connection.
    pub execution_time: Vec<f64>,
    /// The spread of `events` (absent in documents from before it was kept).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub events_spread: Option<EventSpread>,
}

impl ThreadsFairness {
    /// The lists of a run, with their spread.
    pub fn of(events: &[u64], execution_time: &[f64]) -> ThreadsFairness {
        ThreadsFairness {
            events: events.to_vec(),
            execution_time: execution_time.to_vec(),
            events_spread: EventSpread::of(events),
        }
    }
}

/// How evenly a run served its connections: events per connection.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct EventSpread {
    /// The fewest events a connection ran.
    pub min: u64,
    /// The middle connection's events (the mean of the two middle ones).
    pub median: f64,
    /// The most events a connection ran.
    pub max: u64,
    /// Population standard deviation (sysbench's).
    pub stddev: f64,
    /// stddev / mean (0 when no events): comparable across runs of any
    /// length and rate.
    pub stddev_over_mean: f64,
}

impl EventSpread {
    /// The spread of `events` (one count per connection); None when there
    /// is no connection.
    pub fn of(events: &[u64]) -> Option<EventSpread> {
        if events.is_empty() {
            return None;
        }
        let mut sorted = events.to_vec();
        sorted.sort_unstable();
        let n = sorted.len();
        let median = if n % 2 == 1 {
            sorted[n / 2] as f64
        } else {
            (sorted[n / 2 - 1] as f64 + sorted[n / 2] as f64) / 2.0
        };
        let as_f: Vec<f64> = events.iter().map(|&e| e as f64).collect();
        let (mean, stddev) = crate::stats::mean_stddev(&as_f);
        Some(EventSpread {
            min: sorted[0],
            median,
            max: sorted[n - 1],
            stddev,
            stddev_over_mean: if mean > 0.0 { stddev / mean } else { 0.0 },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spread_of_events() {
        assert_eq!(EventSpread::of(&[]), None);
        let s = EventSpread::of(&[30, 10, 20, 40]).expect("four connections");
        assert_eq!((s.min, s.median, s.max), (10, 25.0, 40));
        assert!((s.stddev - 125f64.sqrt()).abs() < 1e-9);
        assert!((s.stddev_over_mean - 125f64.sqrt() / 25.0).abs() < 1e-9);
        let idle = EventSpread::of(&[0, 0, 0]).expect("three connections");
        assert_eq!((idle.median, idle.stddev_over_mean), (0.0, 0.0));
    }

    #[test]
    fn an_old_document_has_no_spread() {
        let f: ThreadsFairness =
            serde_json::from_str(r#"{"events":[1,2],"execution_time":[0.5,0.5]}"#)
                .expect("old fairness block");
        assert_eq!(f.events_spread, None);
        let v = serde_json::to_value(&f).expect("serializes");
        assert!(v.get("events_spread").is_none(), "{v}");
    }
}
