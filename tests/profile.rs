//! The profiler against a real sandbox MariaDB: on-CPU stacks of a
//! point-select load hold the server's query-dispatch frames; a missing
//! perf is a one-line note.

mod common;
use common::{lab, text};

#[test]
fn cpu_stacks_of_a_point_select_load_show_query_dispatch() {
    let l = lab();
    let db = l.fresh_db("prof");
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
    // the load, bounded in time, beside the profile
    let mut load = l
        .command()
        .args([
            "run",
            "oltp_point_select",
            "--tables",
            "1",
            "--table-size",
            "2000",
            "--threads",
            "4",
            "--time",
            "8",
            "--no-store",
            "--no-monitor",
            "--report-interval",
            "0",
            "--db",
            &db,
            "--server",
            common::SANDBOX,
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("start the load");
    std::thread::sleep(std::time::Duration::from_secs(1));
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
