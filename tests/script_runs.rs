//! sysbench Lua scripts run against a real sandbox: tables sysbench
//! prepared run under a script, a script of our own exercises the whole
//! API, and script errors are reported once with their file and line.
//! (The statement-count comparison with sysbench is script_compat.rs.)

mod common;
use common::{json, lab, require_sysbench, text};

fn own(name: &str) -> String {
    format!("{}/tests/scripts/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn sysbench(db: &str, args: &[&str]) -> std::process::Output {
    lab().sysbench(db, args)
}

fn qpslab(db: &str, args: &[&str]) -> std::process::Output {
    lab().on_db(db, args)
}

#[test]
fn tables_sysbench_prepared_run_under_a_script() {
    require_sysbench();
    let db = lab().fresh_db("sc_sb_prepared");
    let out = sysbench(
        &db,
        &[
            "oltp_read_write",
            "--tables=2",
            "--table-size=500",
            "prepare",
        ],
    );
    assert!(out.status.success(), "sysbench prepare: {}", text(&out));
    let out = qpslab(
        &db,
        &[
            "run",
            "oltp_read_write.lua",
            "--tables=2",
            "--table-size=500",
            "--threads=1",
            "--events=200",
            "--time=120",
            "--format",
            "json",
            "--no-store",
        ],
    );
    assert!(out.status.success(), "{}", text(&out));
    let j = json(&out);
    assert_eq!(j["status"]["status"], "ok", "{j}");
    let t = &j["totals"];
    assert_eq!(t["transactions"].as_u64(), Some(200), "{t}");
    // 18 statements plus BEGIN and COMMIT per transaction, as sysbench.
    assert_eq!(t["queries"].as_u64(), Some(20 * 200), "{t}");
    // The script, its hash and text are kept with the run's options.
    let o = &j["options"]["oltp"];
    assert_eq!(
        o["script"], "/usr/share/sysbench/oltp_read_write.lua",
        "{o}"
    );
    assert_eq!(o["sha256"].as_str().map(str::len), Some(64), "{o}");
    assert!(
        o["text"].as_str().unwrap_or("").contains("function event"),
        "{o}"
    );
    assert_eq!(o["options"]["tables"], 2.0, "{o}");
}

#[test]
fn the_whole_script_api_works() {
    let db = lab().fresh_db("sc_api");
    let api = own("api.lua");
    let out = qpslab(&db, &["prepare", &api]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("api prepared 20"), "{}", text(&out));
    // A custom command, in sysbench's shape too.
    let out = qpslab(&db, &[&api, "selftest"]);
    assert!(
        out.status.success() && text(&out).contains("selftest ok"),
        "{}",
        text(&out)
    );
    // A parallel command runs once per thread, each with its sysbench.tid.
    let out = qpslab(&db, &["parallel", &api, "--threads=3"]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(
        lab()
            .sql(&db, "SELECT GROUP_CONCAT(tid ORDER BY tid) FROM api_cmd")
            .trim(),
        "0,1,2"
    );
    // The run: an ignored duplicate key restarts the event (the hook sees
    // it) and is counted; report hooks replace the interval lines and add
    // the script's own cumulative line.
    let out = qpslab(
        &db,
        &[
            "run",
            &api,
            "--threads=2",
            "--events=60",
            "--time=120",
            "--dup-every=10",
            "--mysql-ignore-errors=1062",
            "--csv",
            "--report-interval=1",
            "--no-store",
        ],
    );
    let all = text(&out);
    assert!(out.status.success(), "{all}");
    assert!(all.contains("cumulative events 60"), "{all}");
    let restarts: i64 = all
        .lines()
        .filter_map(|l| l.strip_prefix("thread "))
        .filter_map(|l| l.split_whitespace().nth(2)?.parse::<i64>().ok())
        .sum();
    assert!(restarts > 0, "{all}");
    assert!(
        all.contains(&format!("ignored errors:                  {restarts} ")),
        "{restarts} restarts, not counted as ignored errors:\n{all}"
    );
    let out = qpslab(&db, &["cleanup", &api]);
    assert!(out.status.success(), "{}", text(&out));
}

#[test]
fn script_errors_name_the_file_and_line_once() {
    let db = lab().fresh_db("sc_err");
    // An API qpslab lacks: refused before anything connects.
    let out = qpslab(&db, &["run", &own("unsupported.lua"), "--events=5"]);
    assert_ne!(out.status.code(), Some(0));
    let all = text(&out);
    assert!(
        all.contains(
            "unsupported.lua:6: sysbench API sysbench.rand.hash is not supported by qpslab"
        ),
        "{all}"
    );
    // A Lua error in an event: the message with its traceback, once, and
    // the summary of what ran before it.
    let out = qpslab(
        &db,
        &[
            "run",
            &own("fails.lua"),
            "--events=100",
            "--time=60",
            "--no-store",
        ],
    );
    let all = text(&out);
    assert_eq!(out.status.code(), Some(1), "{all}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        stdout.matches("fails.lua:9: bad value at event 5").count(),
        1,
        "{all}"
    );
    assert_eq!(all.matches("stack traceback").count(), 1, "{all}");
    assert!(all.contains("transactions:"), "{all}");
    // A failed statement not ignored ends the run with the server's error
    // and the script's line.
    let out = qpslab(
        &db,
        &[
            "run",
            &own("fails.lua"),
            "--sql",
            "--events=10",
            "--no-store",
        ],
    );
    let all = text(&out);
    assert_eq!(out.status.code(), Some(1), "{all}");
    assert!(
        all.contains("1146") && all.contains("fails.lua:12"),
        "{all}"
    );
}

#[test]
fn the_example_scripts_run() {
    let root = env!("CARGO_MANIFEST_DIR");
    for (name, prep, run) in [
        (
            "iibench.lua",
            vec!["--rows-per-commit=50"],
            vec![
                "--threads=3",
                "--inserters=2",
                "--rows-per-commit=50",
                "--query-rate=50",
            ],
        ),
        (
            "production_case.lua",
            vec!["--accounts=2000", "--threads=2"],
            vec!["--accounts=2000", "--threads=4", "--hot-accounts=100"],
        ),
    ] {
        let script = format!("{root}/examples/scripts/{name}");
        let db = lab().fresh_db(&format!("ex_{}", name.trim_end_matches(".lua")));
        let mut a = vec!["prepare", script.as_str()];
        a.extend(prep);
        let out = qpslab(&db, &a);
        assert!(out.status.success(), "{name} prepare: {}", text(&out));
        let mut a = vec![
            "run",
            script.as_str(),
            "--events=200",
            "--time=60",
            "--format",
            "json",
            "--no-store",
        ];
        a.extend(run);
        let out = qpslab(&db, &a);
        assert!(out.status.success(), "{name} run: {}", text(&out));
        let j = json(&out);
        assert_eq!(j["status"]["status"], "ok", "{name}: {j}");
        assert_eq!(j["totals"]["transactions"].as_u64(), Some(200), "{name}");
        assert!(
            j["totals"]["writes"].as_u64() > Some(0),
            "{name}: {}",
            j["totals"]
        );
        assert!(
            j["totals"]["reads"].as_u64() > Some(0),
            "{name}: {}",
            j["totals"]
        );
        let out = qpslab(&db, &["cleanup", script.as_str()]);
        assert!(out.status.success(), "{name} cleanup: {}", text(&out));
    }
}

#[test]
fn a_script_runs_in_a_sweep_and_a_campaign_and_is_stored_with_its_text() {
    let l = lab();
    let db = l.fresh_db("sc_camp");
    l.sql("mysql", "CREATE OR REPLACE USER 'sccamp'@'%' IDENTIFIED BY 'sccamp-pw'; GRANT ALL ON *.* TO 'sccamp'@'%';");
    let store = l.home.join("sc-camp.db").display().to_string();
    let out = qpslab(
        &db,
        &[
            "prepare",
            "oltp_read_only.lua",
            "--tables=1",
            "--table-size=500",
        ],
    );
    assert!(out.status.success(), "{}", text(&out));
    let out = qpslab(
        &db,
        &[
            "sweep",
            "oltp_read_only.lua",
            "--tables=1",
            "--table-size=500",
            "--threads",
            "1,2",
            "--time",
            "1",
            "--store",
            &store,
        ],
    );
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("Scalability of oltp_read_only.lua"),
        "{}",
        text(&out)
    );
    let path = l.home.join("sc-camp.toml");
    std::fs::write(
        &path,
        format!(
            r#"
name = "sc-camp"
threads = [2]
time = 1
[data]
tables = 1
table_size = 500
[[server]]
label = "external"
dsn = "mysql://sccamp:sccamp-pw@127.0.0.1:{}/{db}"
[[workload]]
name = "oltp_read_only.lua"
options = {{ range_size = 10 }}
"#,
            l.port()
        ),
    )
    .unwrap();
    let out = l.qpslab(&["campaign", "run", path.to_str().unwrap(), "--store", &store]);
    assert!(out.status.success(), "{}", text(&out));
    let runs = json(&l.qpslab(&["runs", "--store", &store, "--format", "json"]));
    let runs = runs.as_array().unwrap();
    assert_eq!(runs.len(), 3, "{runs:?}");
    let mut ranges = Vec::new();
    for r in runs {
        assert_eq!(r["workload"], "oltp_read_only.lua", "{r}");
        let d = l.shown(&r["id"], &store);
        let o = &d["options"]["oltp"];
        assert_eq!(o["script"], "/usr/share/sysbench/oltp_read_only.lua", "{o}");
        assert!(
            o["text"]
                .as_str()
                .unwrap_or("")
                .contains("execute_point_selects"),
            "{o}"
        );
        ranges.push(o["options"]["range_size"].as_f64().unwrap_or(0.0));
    }
    // The sweep's two runs with the default, the campaign's with its option.
    ranges.sort_by(f64::total_cmp);
    assert_eq!(ranges, vec![10.0, 100.0, 100.0]);
}
