//! The results store against a real sandbox MariaDB: every run is recorded
//! with its environment, samples and statements; a killed run keeps its
//! samples and reads back as failed.

mod common;
use common::{json, lab, text};
use std::io::BufReader;
use std::process::Stdio;

fn store_path(name: &str) -> String {
    lab().home.join(format!("{name}.db")).display().to_string()
}

#[test]
fn a_run_round_trips_through_the_store() {
    let db = lab().prepared_db("st_round", 1000);
    let store = store_path("round");
    let l = lab();
    let o = l.on_sandbox(&[
        "run",
        "oltp_read_write",
        "--db",
        &db,
        "--table-size",
        "1000",
        "--time",
        "2",
        "--report-interval",
        "0.5",
        "--label",
        "mariadb-10.11",
        "--variant",
        "defaults",
        "--format",
        "json",
        "--store",
        &store,
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let run = json(&o);
    let id = run["run_id"].as_i64().expect("run_id");

    let list = json(&l.qpslab(&["runs", "--store", &store, "--format", "json"]));
    let row = list
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == id)
        .expect("run listed");
    assert_eq!(row["status"], "ok");
    assert_eq!(row["label"], "mariadb-10.11");
    assert_eq!(row["variant"], "defaults");
    assert_eq!(row["workload"], "oltp_read_write");
    assert_eq!(row["queries"], run["totals"]["queries"]);
    let (a, b) = (
        row["tps"].as_f64().unwrap(),
        run["totals"]["tps"].as_f64().unwrap(),
    );
    assert!((a - b).abs() < 1e-6 * b.max(1.0), "{a} vs {b}");

    let d = l.shown(id, &store);
    assert_eq!(
        d["samples"].as_array().unwrap().len(),
        run["intervals"].as_array().unwrap().len()
    );
    let sample_events: i64 = d["samples"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["warmup"] == false)
        .map(|s| s["events"].as_i64().unwrap())
        .sum();
    assert_eq!(
        sample_events,
        run["totals"]["transactions"].as_i64().unwrap()
    );
    assert_eq!(d["statements"].as_array().unwrap().len(), 11);
    assert_eq!(d["options"]["oltp"]["table_size"], 1000);
    assert!(d["server_variables"]["innodb_buffer_pool_size"].is_string());
    assert!(d["server_cnf"].as_str().unwrap().contains("[mysqld]"));
    assert_eq!(d["sandbox"]["name"], common::SANDBOX);
    assert!(d["host"]["cpus"].as_u64().unwrap() >= 1);
    assert!(d["run"]["server_version"]
        .as_str()
        .unwrap()
        .starts_with("10."));
    assert!(d["command_line"]
        .as_str()
        .unwrap()
        .contains("--label mariadb-10.11"));
    // the text views render too
    for f in ["text", "markdown", "csv"] {
        let o = l.qpslab(&["runs", "--store", &store, "--format", f]);
        assert!(
            o.status.success() && text(&o).contains("oltp_read_write"),
            "{f}: {}",
            text(&o)
        );
    }
    let o = l.qpslab(&["show", &id.to_string(), "--store", &store]);
    assert!(
        text(&o).contains("full histogram") && text(&o).contains("point_selects"),
        "{}",
        text(&o)
    );
    let o = l.qpslab(&["show", "999999", "--store", &store]);
    assert!(
        !o.status.success() && text(&o).contains("no run 999999"),
        "{}",
        text(&o)
    );
}

#[test]
fn a_killed_run_keeps_its_samples_and_reads_back_as_failed() {
    let db = lab().prepared_db("st_kill", 1000);
    let store = store_path("kill");
    let l = lab();
    let mut child = l
        .command()
        .args([
            "run",
            "oltp_point_select",
            "--db",
            &db,
            "--table-size",
            "1000",
            "--time",
            "60",
            "--store",
            &store,
            "--server",
            common::SANDBOX,
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    for _ in 0..2 {
        common::read_until(&mut out, |l| l.starts_with("[ ")).expect("the run ended early");
    }
    child.kill().unwrap(); // SIGKILL: no chance to finish the run
    child.wait().unwrap();
    let list = json(&l.qpslab(&[
        "runs", "--store", &store, "--status", "failed", "--format", "json",
    ]));
    let row = &list.as_array().unwrap()[0];
    assert_eq!(row["status"], "failed");
    assert!(row["reason"].as_str().unwrap().contains("killed"), "{row}");
    assert!(row["queries"].as_i64().unwrap() > 0, "{row}");
    let d = l.shown(&row["id"], &store);
    assert!(d["samples"].as_array().unwrap().len() >= 2, "{d}");
}

#[test]
fn a_sweep_stores_one_run_per_step_in_one_campaign() {
    let db = lab().prepared_db("st_sweep", 1000);
    let store = store_path("sweep");
    let l = lab();
    let o = l.on_sandbox(&[
        "sweep",
        "oltp_point_select",
        "--db",
        &db,
        "--table-size",
        "1000",
        "--threads",
        "1,2,4",
        "--repeat",
        "2",
        "--time",
        "1",
        "--store",
        &store,
        "--format",
        "json",
        "--label",
        "sw",
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    // a sweep warms each point up by default, and says so
    assert!(out.contains("1 s each after a 1 s warm-up"), "{out}");
    let doc: serde_json::Value =
        serde_json::from_str(&out[out.find("{\n").expect("json document")..]).unwrap();
    let steps = doc["steps"].as_array().unwrap();
    assert_eq!(
        steps
            .iter()
            .map(|s| s["threads"].as_u64().unwrap())
            .collect::<Vec<_>>(),
        vec![1, 2, 4]
    );
    assert!(steps
        .iter()
        .all(|s| s["runs"] == 2 && s["qps"].as_f64().unwrap() > 0.0));
    let campaign = doc["campaign"].as_i64().unwrap();
    let runs = json(&l.qpslab(&[
        "runs",
        "--store",
        &store,
        "--campaign",
        &campaign.to_string(),
        "--format",
        "json",
    ]));
    let runs = runs.as_array().unwrap();
    assert_eq!(runs.len(), 6);
    assert!(runs
        .iter()
        .all(|r| r["status"] == "ok" && r["label"] == "sw" && r["campaign_id"] == campaign));
    assert_eq!(runs.iter().filter(|r| r["threads"] == 4).count(), 2);
    let shown = l.shown(&runs[0]["id"], &store);
    assert_eq!(shown["options"]["warmup_time"], 1.0, "{}", shown["options"]);
    // --threads takes one number outside sweeps
    let o = l.on_sandbox(&["run", "oltp_point_select", "--db", &db, "--threads", "1,2"]);
    assert!(
        !o.status.success() && text(&o).contains("qpslab sweep"),
        "{}",
        text(&o)
    );
}

#[test]
fn a_sweep_of_several_workloads_keeps_them_in_one_campaign() {
    let db = lab().prepared_db("st_sweep2", 1000);
    let store = store_path("sweep2");
    let l = lab();
    let sweep = |workloads: &str| {
        l.on_sandbox(&[
            "sweep",
            workloads,
            "--db",
            &db,
            "--table-size",
            "1000",
            "--threads",
            "1,2",
            "--time",
            "1",
            "--store",
            &store,
        ])
    };
    let o = sweep("oltp_point_select,oltp_read_only");
    let s = text(&o);
    assert!(o.status.success(), "{s}");
    for w in ["oltp_point_select", "oltp_read_only"] {
        assert!(s.contains(&format!("Scalability of {w}")), "{s}");
    }
    let campaign: String = s
        .split("All 2 workloads are in campaign ")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .unwrap_or_else(|| panic!("no closing line: {s}"))
        .to_string();
    let runs = json(&l.qpslab(&[
        "runs",
        "--store",
        &store,
        "--campaign",
        &campaign,
        "--format",
        "json",
    ]));
    let mut workloads: Vec<&str> = runs
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["workload"].as_str().unwrap())
        .collect();
    workloads.sort();
    assert_eq!(
        workloads,
        [
            "oltp_point_select",
            "oltp_point_select",
            "oltp_read_only",
            "oltp_read_only"
        ]
    );
    // a second campaign, and one report of both: a series in both is
    // named with its campaign, never pooled
    let o = sweep("oltp_point_select");
    assert!(o.status.success(), "{}", text(&o));
    let other = text(&o)
        .split("; campaign ")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .expect("the sweep's campaign")
        .to_string();
    let html = l.home.join("sweep2.html").display().to_string();
    let both = format!("{campaign},{other}");
    let o = l.qpslab(&[
        "report",
        "--campaign",
        &both,
        "--store",
        &store,
        "-o",
        &html,
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(
        page.contains(&format!("Campaigns {campaign}, {other}"))
            && page.contains("Best to best, all campaigns")
            && page.contains(&format!("(c{campaign})"))
            && page.contains(&format!("(c{other})")),
        "{page}"
    );
    let o = sweep("oltp_point_select,oltp_point_select");
    assert!(
        !o.status.success() && text(&o).contains("listed twice"),
        "{}",
        text(&o)
    );
}
