//! Built-in campaigns (`qpslab campaign presets`, `campaign run --preset NAME`).
//! Each is an ordinary campaign file; `--threads`, `--time` and
//! `--workloads` shorten them for quick runs. The comparisons
//! (pfs-overhead, spin-delay) repeat every point 3 times, in rounds, so
//! that every ratio has an interval (`--repeat 1` for a first look).

/// (name, what it answers, campaign file)
pub const PRESETS: &[(&str, &str, &str)] = &[
    (
        "pfs-overhead",
        "What does Performance Schema cost? Off, on with defaults, only global_instrumentation, all consumers off, everything on; ratio matrix against off",
        r#"
name = "pfs-overhead"
description = "Performance Schema overhead by instrumentation level"
threads = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]
time = 20
warmup = 5
cooldown = 5
# A comparison: three repeats, run in rounds, give each ratio its spread.
repeat = 3
reference = "off"
[data]
tables = 8
table_size = 100000
[[server]]
label = "sandbox"
sandbox = "pfs-overhead"
preset = "bench"
[[variant]]
name = "off"
set = { performance_schema = "OFF" }
[[variant]]
name = "on-defaults"
set = { performance_schema = "ON" }
[[variant]]
name = "global-only"
set = { performance_schema = "ON" }
sql = ["UPDATE performance_schema.setup_consumers SET ENABLED = IF(NAME = 'global_instrumentation', 'YES', 'NO')"]
[[variant]]
name = "consumers-off"
set = { performance_schema = "ON" }
sql = ["UPDATE performance_schema.setup_consumers SET ENABLED = 'NO'"]
[[variant]]
name = "all-on"
set = { performance_schema = "ON", performance_schema_instrument = "'%=ON'" }
sql = ["UPDATE performance_schema.setup_consumers SET ENABLED = 'YES'", "UPDATE performance_schema.setup_instruments SET ENABLED = 'YES', TIMED = 'YES'"]
[[workload]]
name = "oltp_point_select"
[[workload]]
name = "oltp_read_write"
"#,
    ),
    (
        "scalability",
        "Where does throughput stop growing? point_select, read_only, read_write over 1..1024 users",
        r#"
name = "scalability"
description = "QPS, p95 and p99 against users"
threads = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]
time = 20
warmup = 5
cooldown = 3
[data]
tables = 8
table_size = 100000
[[server]]
label = "sandbox"
sandbox = "scalability"
preset = "bench"
[[workload]]
name = "oltp_point_select"
[[workload]]
name = "oltp_read_only"
[[workload]]
name = "oltp_read_write"
"#,
    ),
    (
        "spin-delay",
        "innodb_spin_wait_delay 6 vs 96 across users",
        r#"
name = "spin-delay"
description = "InnoDB spin-wait delay 6 vs 96"
threads = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]
time = 20
warmup = 5
cooldown = 3
# A comparison: three repeats, run in rounds, give each ratio its spread.
repeat = 3
reference = "spin-6"
[data]
tables = 8
table_size = 100000
[[server]]
label = "sandbox"
sandbox = "spin-delay"
preset = "bench"
[[variant]]
name = "spin-6"
set = { innodb_spin_wait_delay = 6 }
[[variant]]
name = "spin-96"
set = { innodb_spin_wait_delay = 96 }
[[workload]]
name = "oltp_point_select"
[[workload]]
name = "oltp_read_write"
"#,
    ),
];

/// The campaign file text of the built-in preset `name`.
pub fn find(name: &str) -> Option<&'static str> {
    PRESETS.iter().find(|p| p.0 == name).map(|p| p.2)
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_preset_parses() {
        for (name, _, text) in super::PRESETS {
            let c = super::super::CampaignFile::parse(text, name).unwrap();
            assert_eq!(&c.name, name);
            assert!(!c.points().is_empty());
        }
    }

    #[test]
    fn comparisons_repeat_three_times() {
        for (name, _, text) in super::PRESETS {
            let c = crate::campaign::CampaignFile::parse(text, name).unwrap();
            if c.variants.len() > 1 {
                assert!(c.repeat >= 3, "{name}: repeat {}", c.repeat);
            }
        }
    }
}
