//! Every script of Debian's sysbench package makes the server execute the
//! same statements under qpslab as under sysbench: the Com_* counters move
//! the same over the same number of events, on tables qpslab's run of the
//! script's prepare created (so sysbench's run also proves them
//! interchangeable). Alone in its test binary, so that no other test moves
//! the server's global counters meanwhile.

mod common;
use common::{lab, require_sysbench, text};
use std::collections::BTreeMap;

/// The server's statement counters.
fn com_counters() -> BTreeMap<String, i64> {
    lab()
        .sql("mysql", "SHOW GLOBAL STATUS LIKE 'Com\\_%'")
        .lines()
        .filter_map(|l| {
            let (k, v) = l.split_once('\t')?;
            Some((k.to_string(), v.trim().parse().ok()?))
        })
        .collect()
}

/// How much each counter moved while `f` ran (non-zero ones).
fn com_delta(f: impl FnOnce()) -> BTreeMap<String, i64> {
    let before = com_counters();
    f();
    com_counters()
        .into_iter()
        .map(|(k, v)| {
            let d = v - before.get(&k).copied().unwrap_or(0);
            (k, d)
        })
        .filter(|(_, d)| *d != 0)
        .collect()
}

fn sysbench(db: &str, args: &[&str]) -> std::process::Output {
    lab().sysbench(db, args)
}

fn qpslab(db: &str, args: &[&str]) -> std::process::Output {
    lab().on_db(db, args)
}

/// The statements a load makes the server execute: the counters either
/// tool moves per event (session set-up aside).
const STATEMENTS: [&str; 10] = [
    "Com_select",
    "Com_insert",
    "Com_update",
    "Com_delete",
    "Com_begin",
    "Com_commit",
    "Com_rollback",
    "Com_stmt_execute",
    "Com_stmt_prepare",
    "Com_stmt_close",
];

#[test]
fn every_debian_script_makes_the_server_do_what_sysbench_does() {
    require_sysbench();
    let mut scripts: Vec<String> = std::fs::read_dir("/usr/share/sysbench")
        .expect("Debian's sysbench scripts in /usr/share/sysbench (apt-get install sysbench)")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".lua") && n != "oltp_common.lua")
        .map(|n| format!("/usr/share/sysbench/{n}"))
        .collect();
    scripts.sort();
    assert!(scripts.len() >= 11, "{scripts:?}");
    let events = 100;
    let ev = events.to_string();
    for script in &scripts {
        let name = script
            .rsplit('/')
            .next()
            .unwrap_or(script)
            .trim_end_matches(".lua");
        let db = lab().fresh_db(&format!("sc_{name}"));
        let shape = ["--tables=1", "--table-size=300", "--threads=1"];
        let mut prep = vec!["prepare", script.as_str()];
        prep.extend(shape);
        let out = qpslab(&db, &prep);
        assert!(
            out.status.success(),
            "qpslab prepare {script}: {}",
            text(&out)
        );
        let run_args = |tool: &str| -> Vec<String> {
            let mut a: Vec<String> = shape.iter().map(|s| s.to_string()).collect();
            a.push(format!("--events={ev}"));
            a.push("--time=120".into());
            if tool == "qpslab" {
                a.extend(["--no-monitor", "--no-store"].map(String::from));
            }
            a
        };
        // sysbench on the tables qpslab prepared, then qpslab on them.
        let sb = com_delta(|| {
            let mut a = vec![script.clone()];
            a.extend(run_args("sysbench"));
            a.push("run".into());
            let a: Vec<&str> = a.iter().map(String::as_str).collect();
            let out = sysbench(&db, &a);
            assert!(
                out.status.success(),
                "sysbench {script} on qpslab's tables: {}",
                text(&out)
            );
        });
        let qp = com_delta(|| {
            let mut a = vec!["run".to_string(), script.clone()];
            a.extend(run_args("qpslab"));
            let a: Vec<&str> = a.iter().map(String::as_str).collect();
            let out = qpslab(&db, &a);
            assert!(out.status.success(), "qpslab run {script}: {}", text(&out));
        });
        for k in STATEMENTS {
            let (s, q) = (
                sb.get(k).copied().unwrap_or(0),
                qp.get(k).copied().unwrap_or(0),
            );
            // Exactly the same, but for qpslab's environment capture before
            // the run: SHOW statements (not counted here) and one SELECT of
            // the variables not at their default (information_schema).
            let own = i64::from(k == "Com_select");
            assert_eq!(
                s + own,
                q,
                "{script}: {k} sysbench {s} vs qpslab {q} over {events} events\nsysbench {sb:?}\nqpslab {qp:?}"
            );
        }
        let out = qpslab(&db, &["cleanup", script.as_str(), "--tables=1"]);
        assert!(
            out.status.success(),
            "qpslab cleanup {script}: {}",
            text(&out)
        );
    }
    closes_before_a_reconnect_reach_the_server();
}

/// The server's count of sessions that ended without a COM_QUIT.
fn aborted_clients() -> i64 {
    let out = lab().sql("mysql", "SHOW GLOBAL STATUS LIKE 'Aborted\\_clients'");
    let v = out.split('\t').nth(1).map(str::trim);
    v.and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("Aborted_clients: {out}"))
}

/// A script's closes before its reconnect reach the server, one an event
/// (qpslab holds a close for the connection's next command; a reconnect
/// sends what it holds first), and each old connection ends with a
/// COM_QUIT, as sysbench's reconnect ends it (no aborted client). Run
/// from the test above: the counters are the server's global ones.
fn closes_before_a_reconnect_reach_the_server() {
    let db = lab().fresh_db("sc_close_reconnect");
    let aborted = aborted_clients();
    let script = format!(
        "{}/tests/scripts/close_reconnect.lua",
        env!("CARGO_MANIFEST_DIR")
    );
    let moved = com_delta(|| {
        let out = qpslab(
            &db,
            &[
                "run",
                &script,
                "--threads=1",
                "--events=20",
                "--time=120",
                "--no-monitor",
                "--no-store",
            ],
        );
        assert!(out.status.success(), "{}", text(&out));
        // (the server runs a connection's last bytes after the process
        // is gone: its sessions are waited out, at most 30 s)
        common::await_cond(
            std::time::Duration::from_secs(30),
            "the run's sessions ended",
            || {
                let q = format!(
                    "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE DB = '{db}'"
                );
                lab().sql("mysql", &q).trim() == "0"
            },
        );
    });
    assert_eq!(
        moved.get("Com_stmt_close").copied().unwrap_or(0),
        20,
        "one close an event: {moved:?}"
    );
    assert_eq!(
        aborted_clients(),
        aborted,
        "reconnects left aborted clients"
    );
}
