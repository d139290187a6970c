//! `qpslab help [COMMAND… | TOPIC]`: a command's whole help, or a topic
//! page (workloads, campaign files, the store, the metrics' names). The
//! pages' prose lives in cli/topics/*.txt; the workload list and options
//! come from the workloads themselves, so they cannot drift.

use super::args::{print_command_help, HelpArgs};
use anyhow::{bail, Result};

/// The topics, with what each page covers.
pub(crate) const TOPICS: &[(&str, &str)] = &[
    (
        "workloads",
        "the built-in workloads, their statements and options; TPC-C; sysbench Lua scripts",
    ),
    (
        "campaign",
        "campaign files: every key, its meaning and default",
    ),
    (
        "store",
        "the results store: where it is, what a run keeps, how to read it",
    ),
    (
        "metrics",
        "what qpslab measures and the names it goes by (monitor sources, derived figures)",
    ),
];

/// A topic's page.
pub fn page(topic: &str) -> Option<String> {
    Some(match topic {
        "workloads" => workloads(),
        "campaign" | "campaigns" => include_str!("topics/campaign.txt").to_string(),
        "store" => include_str!("topics/store.txt").to_string(),
        "metrics" => include_str!("topics/metrics.txt").to_string(),
        _ => return None,
    })
}

fn workloads() -> String {
    let specs = |w: &str| {
        crate::workload::options_for(&[w.to_string()], "help")
            .map(|(_, s)| crate::workload::OptValues::new(s).help())
            .unwrap_or_default()
    };
    format!(
        "WORKLOADS\n\n\
         sysbench's OLTP workloads are built in, under sysbench's names (the\n\
         oltp_ prefix and .lua may be left out); TPC-C is `tpcc`; LinkBench is\n\
         `linkbench`; dbSTRESS is `dbstress` and the insert benchmark\n\
         `insert-benchmark` (or `iibench`, docs/WORKLOADS.md); DBT3 (TPC-H-like)\n\
         is `dbt3` (`qpslab run dbt3 --scale 0.1 --test power`); any other\n\
         name ending in .lua is a sysbench Lua script, run as sysbench runs it\n\
         (its options, prepare/cleanup and own commands included; sysbench's\n\
         bundled scripts are in /usr/share/sysbench). Each is prepared, run\n\
         and cleaned up the same way:\n\n\
         \x20 qpslab prepare oltp_read_write --tables 8 --table-size 1000000\n\
         \x20 qpslab run oltp_read_write --tables 8 --table-size 1000000 --threads 16 --time 60\n\
         \x20 qpslab oltp_read_write --tables=8 --threads=16 run      (sysbench's order)\n\
         \x20 qpslab cleanup oltp_read_write --tables 8\n\n\
         The built-in workloads and the statements of one event:\n\n{}\n\
         Options of the OLTP family (sysbench's names and defaults):\n{}\n\
         TPC-C options (docs/TPCC.md):\n{}\n\
         LinkBench options (docs/LINKBENCH.md):\n{}\n\
         DBT3 options (docs/WORKLOADS.md):\n{}",
        crate::report::sysbench::workloads_text(),
        specs("oltp_read_write"),
        specs("tpcc"),
        specs("linkbench"),
        specs("dbt3"),
    )
}

/// Runs `qpslab help …`.
pub fn help(a: &HelpArgs) -> Result<()> {
    if a.topic.is_empty() {
        let mut root = super::args::help_command().after_help("");
        out!("{}", root.render_long_help());
        outln!("\nTopics (qpslab help TOPIC):");
        for (name, what) in TOPICS {
            outln!("  {name:<11} {what}");
        }
        return Ok(());
    }
    if a.topic.len() == 1 {
        if let Some(p) = page(&a.topic[0]) {
            out!("{p}");
            return Ok(());
        }
    }
    if print_command_help(&a.topic) {
        return Ok(());
    }
    let names: Vec<&str> = TOPICS.iter().map(|t| t.0).collect();
    bail!(
        "no command or topic '{}': topics are {}; `qpslab --help` lists the commands",
        a.topic.join(" "),
        names.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every key a campaign file can hold is on the campaign page.
    #[test]
    fn the_campaign_page_names_every_key() {
        let text = r#"
name = "x"
description = "d"
threads = [1]
time = 1
warmup = 1
cooldown = 1
repeat = 1
restart = "step"
reference = "a"
profile = ["cpu"]
client_cpus = "0"
[data]
tables = 1
table_size = 10
warehouses = 1
[agents]
addresses = ["c1:7070"]
weights = [1]
token_file = "/t"
ca_file = "/ca.pem"
[[server]]
label = "s"
sandbox = "s"
profile = "default"
version = "mariadb-11.4.5"
cpus = "0"
set = { a = 1 }
[[server]]
label = "d"
dsn = "mysql://u@db1:3306/x"
agent = "db1:7070"
[[variant]]
name = "a"
set = { b = 1 }
sql = ["SELECT 1"]
[[workload]]
name = "oltp_point_select"
options = { range_size = 1 }
"#;
        let c = crate::campaign::CampaignFile::parse(text, "test").unwrap();
        let v = toml::Value::try_from(&c).unwrap();
        let page = page("campaign").unwrap();
        let mut keys = Vec::new();
        fn walk(v: &toml::Value, keys: &mut Vec<String>) {
            match v {
                toml::Value::Table(t) => {
                    for (k, v) in t {
                        if !matches!(k.as_str(), "a" | "b" | "range_size") {
                            keys.push(k.clone());
                        }
                        walk(v, keys);
                    }
                }
                toml::Value::Array(a) => a.iter().for_each(|v| walk(v, keys)),
                _ => {}
            }
        }
        walk(&v, &mut keys);
        // Serialized names of the tables: [[server]], [[variant]], [[workload]].
        for k in keys {
            let k = match k.as_str() {
                "server" => "[[server]]".to_string(),
                "variant" => "[[variant]]".to_string(),
                "workload" => "[[workload]]".to_string(),
                "data" => "[data]".to_string(),
                "agents" => "[agents]".to_string(),
                _ => format!("  {k} "),
            };
            assert!(page.contains(&k), "the campaign page does not explain {k}");
        }
        for k in ["dsn", "basedir"] {
            assert!(page.contains(&format!("  {k} ")), "{k}");
        }
    }

    /// Every monitor source is named on the metrics page.
    #[test]
    fn the_metrics_page_names_every_source() {
        let page = page("metrics").unwrap();
        for s in crate::monitor::ALL_SOURCES {
            assert!(page.contains(&format!("  {} ", s.name())), "{}", s.name());
        }
    }

    #[test]
    fn the_workloads_page_lists_workloads_and_their_options() {
        let p = page("workloads").unwrap();
        for w in [
            "oltp_point_select",
            "oltp_read_write",
            "select_random_ranges",
            "--table-size",
            "--warehouses",
        ] {
            assert!(p.contains(w), "{w}");
        }
    }
}
