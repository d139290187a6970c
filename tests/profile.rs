//! The profiler against a real sandbox MariaDB: on-CPU stacks of a
//! point-select load hold the server's query-dispatch frames; off-CPU
//! stacks name MyISAM's table lock under a one-table update load and not
//! InnoDB's; a missing perf is a one-line note.

mod common;
use common::{lab, text};
use std::process::{Child, Stdio};

/// Prepares `workload` (1 table of 2,000 rows, plus `extra`) in a fresh
/// database and starts its load, bounded to 8 s, in the background.
fn background_load(db: &str, workload: &str, threads: &str, extra: &[&str]) -> Child {
    let l = lab();
    let db = l.fresh_db(db);
    let size = ["--tables", "1", "--table-size", "2000"];
    let mut prep = vec!["prepare", workload];
    prep.extend(size);
    prep.extend(extra);
    let o = l.on_db(&db, &prep);
    assert!(o.status.success(), "{}", text(&o));
    let mut run = vec!["run", workload, "--threads", threads, "--time", "8"];
    run.extend(size);
    run.extend(extra);
    run.extend(["--no-store", "--no-monitor", "--report-interval", "0"]);
    run.extend(["--db", &db, "--server", common::SANDBOX]);
    let load = l
        .command()
        .args(&run)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the load");
    std::thread::sleep(std::time::Duration::from_millis(1500));
    load
}

#[test]
fn cpu_stacks_of_a_point_select_load_show_query_dispatch() {
    let l = lab();
    let mut load = background_load("prof", "oltp_point_select", "4", &[]);
    let folded = l.home.join("prof.folded");
    let o = l.on_sandbox(&[
        "profile",
        "--time",
        "3",
        "--profile-hz",
        "199",
        "--folded",
        folded.to_str().unwrap(),
    ]);
    let _ = load.wait();
    let s = text(&o);
    assert!(o.status.success(), "{s}");
    assert!(
        s.contains("On-CPU profile:") && s.contains("Lock families"),
        "{s}"
    );
    let stacks = std::fs::read_to_string(&folded).unwrap();
    assert!(
        stacks
            .lines()
            .any(|l| l.contains("do_command") && l.contains("dispatch_command")),
        "no query-dispatch frames in:\n{}",
        stacks.lines().take(20).collect::<Vec<_>>().join("\n")
    );
    // folded format: "frame;frame;... count"
    assert!(stacks.lines().all(|l| l
        .rsplit_once(' ')
        .is_some_and(|(_, n)| n.parse::<u64>().is_ok())));
}

#[test]
fn without_perf_the_note_says_how_to_install_it() {
    let o = lab()
        .command()
        .env("PATH", lab().home.join("no-such-dir"))
        .args(["profile", "--pid", "1", "--time", "1"])
        .output()
        .unwrap();
    let s = text(&o);
    assert!(!o.status.success(), "{s}");
    assert!(
        s.contains("perf is not installed: apt-get install linux-perf")
            && s.trim().lines().count() == 1,
        "{s}"
    );
}

/// The share of a lock family in a profile's output, 0 when not listed.
fn family_share(out: &str, family: &str) -> f64 {
    out.lines()
        .skip_while(|l| !l.starts_with("Lock families"))
        .find(|l| l.contains(family))
        .and_then(|l| l.trim().split('%').next()?.trim().parse().ok())
        .unwrap_or(0.0)
}

#[test]
fn offcpu_names_the_table_lock_of_myisam_not_of_innodb() {
    let l = lab();
    let mut shares = Vec::new();
    for engine in ["myisam", "innodb"] {
        let extra = ["--mysql-storage-engine", engine];
        let db = format!("prof_{engine}");
        let mut load = background_load(&db, "oltp_update_non_index", "16", &extra);
        let o = l.on_sandbox(&["profile", "--kind", "offcpu", "--time", "2"]);
        let _ = load.wait();
        let s = text(&o);
        assert!(o.status.success() && s.contains("Off-CPU profile:"), "{s}");
        shares.push((family_share(&s, "THR_LOCK"), s));
    }
    let (myisam, innodb) = (&shares[0], &shares[1]);
    assert!(
        myisam.0 >= 1.0,
        "MyISAM's table lock is not named:\n{}",
        myisam.1
    );
    assert!(
        innodb.0 < myisam.0 / 4.0,
        "InnoDB shows the table lock too:\n{}",
        innodb.1
    );
}

#[test]
fn a_run_with_profile_keeps_its_stacks_and_sums_them_up() {
    let l = lab();
    let db = l.fresh_db("prof_run");
    let o = l.on_db(
        &db,
        &[
            "prepare",
            "oltp_point_select",
            "--tables",
            "1",
            "--table-size",
            "2000",
        ],
    );
    assert!(o.status.success(), "{}", text(&o));
    let store = l.home.join("prof-run.db");
    let o = l.on_db(
        &db,
        &[
            "run",
            "oltp_point_select",
            "--tables",
            "1",
            "--table-size",
            "2000",
            "--threads",
            "4",
            "--events",
            "20000",
            "--time",
            "60",
            "--profile",
            "cpu",
            "--profile-hz",
            "499",
            "--store",
            store.to_str().unwrap(),
            "--format",
            "json",
        ],
    );
    assert!(o.status.success(), "{}", text(&o));
    let j = common::json(&o);
    let p = &j["profiles"][0];
    assert_eq!(p["kind"], "cpu", "{j}");
    assert!(p["weight"].as_u64().unwrap() > 0, "{p}");
    // the stacks are in the store with the run
    let conn = rusqlite::Connection::open(&store).unwrap();
    let n: i64 = conn
        .query_row(
            "SELECT COUNT(*) FROM profile_stacks WHERE kind = 'cpu' AND stack LIKE '%dispatch_command%'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(n > 0, "no dispatch_command stack stored");
    // two kinds at once are refused in one line, before anything runs
    let o = l.on_db(
        &db,
        &[
            "run",
            "oltp_point_select",
            "--tables",
            "1",
            "--profile",
            "cpu,offcpu",
        ],
    );
    assert!(
        !o.status.success() && text(&o).contains("one kind per run"),
        "{}",
        text(&o)
    );
}
