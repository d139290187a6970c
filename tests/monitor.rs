//! The monitor against real sandbox MariaDBs, with Performance Schema off
//! (the shared sandbox) and on (its own sandbox): every collector yields
//! numbers, the inniostat columns move and add up under writes, efficiency
//! per query agrees with the server's CPU read from /proc, a monitor
//! rides out the server stopping and starting again, and one against a
//! fake server that goes silent (before its greeting, or after the login)
//! gives up within its time plus the connect timeout.

mod common;
use common::{json, lab, outcome, read_until, text};
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

fn prepared_db(name: &str, workload: &str) -> String {
    let db = lab().fresh_db(name);
    let out = lab().on_sandbox(&["prepare", workload, "--db", name, "--table-size", "2000"]);
    assert!(out.status.success(), "{}", text(&out));
    db
}

fn store_path(name: &str) -> String {
    lab().home.join(format!("{name}.db")).display().to_string()
}

/// `metrics RUN` as (source, snapshots).
fn sources(store: &str, run: i64) -> Vec<(String, i64)> {
    let o = lab().qpslab(&["metrics", &run.to_string(), "--store", store]);
    assert!(o.status.success(), "{}", outcome(&o));
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .skip(1)
        .filter_map(|l| {
            let (s, n) = l.split_once(',')?;
            Some((s.to_string(), n.parse().ok()?))
        })
        .collect()
}

/// One stored counter of a run: (t, value) rows.
fn series(store: &str, run: i64, source: &str, name: &str) -> Vec<(f64, f64)> {
    let o = lab().qpslab(&[
        "metrics",
        &run.to_string(),
        "--store",
        store,
        "--source",
        source,
        "--name",
        name,
        "--format",
        "json",
    ]);
    assert!(o.status.success(), "{}", outcome(&o));
    let v = json(&o);
    let col = v["names"]
        .as_array()
        .unwrap()
        .iter()
        .position(|n| n == name)
        .expect(name);
    // Every row carries its wall clock: t0 + t, as epoch and as UTC text.
    let t0 = v["t0_unix"].as_f64().expect("t0_unix");
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64();
    assert!(t0 > now - 3600.0 && t0 < now, "t0_unix {t0}, now {now}");
    for r in v["rows"].as_array().unwrap() {
        let (t, epoch) = (r["t"].as_f64().unwrap(), r["epoch"].as_f64().unwrap());
        assert!((epoch - t - t0).abs() < 0.002, "{r}");
        let time = r["time"].as_str().unwrap();
        assert!(time.len() == 24 && time.ends_with('Z'), "{r}");
    }
    v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| Some((r["t"].as_f64()?, r["values"][col].as_f64()?)))
        .collect()
}

fn server_pid(sandbox: &str) -> i32 {
    let pidfile = lab()
        .home
        .join("sandboxes")
        .join(sandbox)
        .join("mysqld.pid");
    std::fs::read_to_string(&pidfile)
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

fn proc_cpu_s(pid: i32) -> f64 {
    let s = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let after = &s[s.rfind(')').unwrap() + 2..];
    let f: Vec<f64> = after
        .split_whitespace()
        .map(|x| x.parse().unwrap_or(0.0))
        .collect();
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64;
    (f[11] + f[12]) / hz
}

#[test]
fn every_collector_yields_numbers_with_performance_schema_off() {
    let _use = common::sharing();
    let db = prepared_db("mon_off", "oltp_read_write");
    let store = store_path("mon_off");
    let o = lab().on_sandbox(&[
        "run",
        "oltp_read_write",
        "--db",
        &db,
        "--table-size",
        "2000",
        "--threads",
        "2",
        "--time",
        "3",
        "--store",
        &store,
        "--format",
        "json",
    ]);
    assert!(o.status.success(), "{}", outcome(&o));
    let doc = json(&o);
    let run = doc["run_id"].as_i64().unwrap();
    let m = &doc["monitor"];
    let e = &m["efficiency"];
    assert!(e["server_cpu_us_per_query"].as_f64().unwrap() > 0.0, "{m}");
    assert!(e["client_cpu_us_per_query"].as_f64().unwrap() > 0.0, "{m}");
    assert!(
        e["context_switches_per_query"].as_f64().unwrap() > 0.0,
        "{m}"
    );
    assert!(
        e["server_context_switches_per_query"].as_f64().unwrap() > 0.0,
        "{m}"
    );
    assert!(
        e["redo_bytes_per_transaction"].as_f64().unwrap() > 0.0,
        "read_write writes redo: {m}"
    );
    assert!(
        m["bottleneck"]["verdict"]
            .as_str()
            .is_some_and(|v| !v.is_empty()),
        "{m}"
    );
    assert!(!m["per_interval"].as_array().unwrap().is_empty(), "{m}");
    assert_eq!(m["server"]["performance_schema"], false);
    let notes = m["notes"].to_string();
    assert!(notes.contains("performance_schema is OFF"), "{notes}");
    let have = sources(&store, run);
    for s in [
        "status",
        "innodb_metrics",
        "innodb_status",
        "threads",
        "cpu",
        "server_proc",
        "server_tasks",
        "client_proc",
        "disk",
        "net",
        "mem",
    ] {
        assert!(
            have.iter().any(|(n, c)| n == s && *c >= 1),
            "no snapshots of {s}: {have:?}"
        );
    }
    assert!(
        !have.iter().any(|(n, _)| n.starts_with("ps_")),
        "PS is off: {have:?}"
    );
    let q = series(&store, run, "status", "Questions");
    assert!(q.len() >= 3 && q.last().unwrap().1 > q[0].1, "{q:?}");
    let h = series(&store, run, "innodb_status", "history_list_length");
    assert!(!h.is_empty());
    // The text output carries the same sections.
    let o = lab().qpslab(&["show", &run.to_string(), "--store", &store]);
    let out = text(&o);
    assert!(
        out.contains("Efficiency per query") && out.contains("Bottleneck:"),
        "{out}"
    );
    // Campaign tables gain the monitor's columns.
    let o = lab().qpslab(&["scalability", "--store", &store]);
    let out = text(&o);
    assert!(
        out.contains("srv us/q") && out.contains("bottleneck"),
        "{out}"
    );
}

#[test]
fn server_cpu_per_query_agrees_with_proc() {
    // measures: alone on the shared sandbox
    let _use = common::measuring();
    let db = prepared_db("mon_eff", "oltp_point_select");
    let pid = server_pid(common::SANDBOX);
    let before = proc_cpu_s(pid);
    let o = lab().on_sandbox(&[
        "run",
        "oltp_point_select",
        "--db",
        &db,
        "--table-size",
        "2000",
        "--threads",
        "2",
        "--time",
        "4",
        "--no-store",
        "--format",
        "json",
    ]);
    let after = proc_cpu_s(pid);
    assert!(o.status.success(), "{}", outcome(&o));
    let doc = json(&o);
    let queries = doc["totals"]["queries"].as_f64().unwrap();
    let outside = (after - before) * 1e6 / queries;
    let inside = doc["monitor"]["efficiency"]["server_cpu_us_per_query"]
        .as_f64()
        .unwrap();
    // The outside window also holds connecting; no other test's load runs
    // on the sandbox meanwhile (measuring()). The band was 0.7..1.15 while
    // tests shared it; alone it measured 0.984, 0.986 and 0.988 (2 CPUs, host
    // busy with builds). The bench checks the 5% goal.
    let ratio = inside / outside;
    eprintln!(
        "server CPU a query: monitor {inside:.2} us, /proc {outside:.2} us, ratio {ratio:.3}"
    );
    assert!(
        (0.85..1.1).contains(&ratio),
        "monitor {inside:.2} us vs /proc {outside:.2} us per query"
    );
}

#[test]
fn iostat_columns_move_and_add_up_under_writes() {
    let _use = common::sharing();
    let db = prepared_db("mon_io", "oltp_write_only");
    let store = store_path("mon_io");
    // Flush eagerly so that page writes happen within the run.
    lab().sql(
        "mysql",
        "SET GLOBAL innodb_max_dirty_pages_pct_lwm = 0, GLOBAL innodb_max_dirty_pages_pct = 0",
    );
    let load = lab()
        .command()
        .args([
            "run",
            "oltp_write_only",
            "--server",
            common::SANDBOX,
            "--db",
            &db,
            "--table-size",
            "2000",
        ])
        .args([
            "--threads",
            "4",
            "--time",
            "8",
            "--store",
            &store,
            "--format",
            "json",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let o = lab().on_sandbox(&["iostat", "--count", "4"]);
    let out = load.wait_with_output().unwrap();
    lab().sql(
        "mysql",
        "SET GLOBAL innodb_max_dirty_pages_pct = 90, GLOBAL innodb_max_dirty_pages_pct_lwm = 0",
    );
    let table = text(&o);
    assert!(o.status.success(), "{table}");
    let lines: Vec<&str> = table.lines().collect();
    let header: Vec<&str> = lines
        .iter()
        .find(|l| l.contains("innodb w/s"))
        .expect("header")
        .split_whitespace()
        .collect();
    assert!(
        header.contains(&"dblbuf") && header.contains(&"dflush") && header.contains(&"fsync/s"),
        "{table}"
    );
    // The preface names the device and the datadir's filesystem and says
    // which clock the time column reads; notes about other sources (the
    // shared sandbox runs with performance_schema off) are not iostat's.
    assert!(
        table.contains("phys and util% are device ")
            && table.contains(", holding the datadir ")
            && table.contains("mounted on ")
            && table.contains("times are local time (UTC"),
        "{table}"
    );
    assert!(!table.contains("performance_schema"), "{table}");
    let log_col = header.iter().position(|h| *h == "log").unwrap() - 3; // "phys r/s" etc. are two words each
    let moved = lines
        .iter()
        .filter(|l| l.contains(':') && !l.contains("time"))
        .filter_map(|l| l.split_whitespace().nth(log_col)?.parse::<f64>().ok())
        .any(|v| v > 0.0);
    assert!(
        moved,
        "redo log writes stay at 0 under a write load:\n{table}"
    );
    // InnoDB writes = page flushes + doublewrite batches (MariaDB 10.5+).
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let run = doc["run_id"].as_i64().unwrap();
    let d = |name: &str| {
        let s = series(&store, run, "status", name);
        s.last().unwrap().1 - s[0].1
    };
    let (w, flushed, dblwr) = (
        d("Innodb_data_writes"),
        d("Innodb_buffer_pool_pages_flushed"),
        d("Innodb_dblwr_writes"),
    );
    assert!(w > 0.0, "no InnoDB writes in the run");
    assert!(
        // Pages are counted flushed when their write is submitted and in
        // Innodb_data_writes when it completes: the last sample can fall
        // between the two for a batch (seen: 1451 writes vs 1600 flushed
        // on a host busy with builds); 15% holds that, a wrong column not.
        (w - flushed - dblwr).abs() <= 0.15 * w + 2.0,
        "writes {w} vs flushed {flushed} + doublewrite {dblwr}"
    );
}

#[test]
fn a_source_over_its_budget_is_slowed_down_with_a_note() {
    let _use = common::sharing();
    // A budget no poll can meet: every source is slowed after three polls.
    let o = lab().on_sandbox(&[
        "monitor",
        "--time",
        "4",
        "--quiet",
        "--no-store",
        "--monitor-interval",
        "0.2",
        "--monitor-budget",
        "0.0001",
    ]);
    let out = text(&o);
    assert!(o.status.success(), "{out}");
    assert!(
        out.contains("-- slowed: status took")
            && out.contains("now polled every 0.4 s instead of 0.2 s"),
        "{out}"
    );
}

#[test]
fn performance_schema_sources_when_it_is_on() {
    let _use = common::sharing();
    let l = lab();
    let o = l.qpslab(&[
        "server",
        "start",
        "--name",
        "pson",
        "--set",
        "performance_schema=ON",
    ]);
    assert!(o.status.success(), "{}", outcome(&o));
    let store = store_path("mon_ps");
    let o = l.qpslab(&[
        "monitor", "--server", "pson", "--time", "3", "--quiet", "--store", &store,
    ]);
    let err = text(&o);
    assert!(o.status.success(), "{err}");
    let run: i64 = err
        .split("Stored as run ")
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .and_then(|s| s.parse().ok())
        .expect(&err);
    let have = sources(&store, run);
    for s in ["ps_waits", "ps_files", "threads", "status"] {
        assert!(
            have.iter().any(|(n, c)| n == s && *c >= 1),
            "no snapshots of {s}: {have:?}"
        );
    }
    let w = series(
        &store,
        run,
        "ps_waits",
        "wait/io/file/innodb/innodb_data_file.count",
    );
    assert!(!w.is_empty());
    // A monitor session's report draws the CPU split from the raw snapshots.
    let html = l.home.join("mon_ps.html");
    let o = l.qpslab(&[
        "report",
        &run.to_string(),
        "-o",
        html.to_str().unwrap(),
        "--store",
        &store,
    ]);
    assert!(o.status.success(), "{}", outcome(&o));
    let page = std::fs::read_to_string(&html).unwrap();
    let split = page
        .split("aria-label=\"CPU split\"")
        .nth(1)
        .expect("a CPU split chart");
    let pts = split
        .split("points=\"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap();
    assert!(
        pts.split_whitespace().count() >= 2,
        "CPU split points: {pts}"
    );
    let o = l.qpslab(&["top", "--server", "pson", "--count", "2"]);
    let screen = text(&o);
    assert!(
        screen.contains("Top waits (performance_schema") && screen.contains("Queries/s"),
        "{screen}"
    );
    // The second screen has a client figure: the CPU of the processes
    // connected to this sandbox (none but top itself, which is left out),
    // whatever other tests load on theirs.
    let last = screen.rsplit("CPU (").next().unwrap();
    assert!(last.contains(" client 0% "), "{screen}");
    let _ = l.qpslab(&["server", "stop", "--name", "pson"]);
    let _ = l.qpslab(&["server", "destroy", "--name", "pson"]);
}

#[test]
fn monitor_survives_the_server_going_away() {
    let _use = common::sharing();
    let l = lab();
    let o = l.qpslab(&["server", "start", "--name", "away"]);
    assert!(o.status.success(), "{}", outcome(&o));
    let store = store_path("mon_away");
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "exec '{}' monitor --server away --time 120 --store '{}' 2>&1",
            common::bin(),
            store
        ))
        .env("QPSLAB_HOME", &l.home)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let is_line = |s: &str| {
        s.trim_start()
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_digit())
    };
    read_until(&mut out, is_line).expect("a first line");
    read_until(&mut out, is_line).expect("a second line");
    assert!(l
        .qpslab(&["server", "stop", "--name", "away"])
        .status
        .success());
    read_until(&mut out, |s| s.starts_with("-- gap")).expect("a gap note");
    assert!(l
        .qpslab(&["server", "start", "--name", "away"])
        .status
        .success());
    read_until(&mut out, |s| s.starts_with("-- resumed")).expect("a resumed note");
    read_until(&mut out, is_line).expect("lines after the gap");
    read_until(&mut out, is_line).expect("lines after the gap");
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let mut rest = String::new();
    while out.read_line(&mut rest).unwrap_or(0) > 0 {}
    assert!(child.wait().unwrap().success(), "{rest}");
    let run: i64 = rest
        .split("Stored as run ")
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .and_then(|s| s.parse().ok())
        .expect(&rest);
    let q = series(&store, run, "status", "Uptime");
    let restarted = q.windows(2).any(|w| w[1].1 < w[0].1);
    assert!(
        restarted,
        "Uptime never went back: no snapshots after the restart: {q:?}"
    );
    let _ = l.qpslab(&["server", "stop", "--name", "away"]);
    let _ = l.qpslab(&["server", "destroy", "--name", "away"]);
}

/// A CPU hog beside the load (bounded: killed after the run, and by
/// `timeout` after 60 s in any case): the run is marked "host shared" with
/// the other processes' share, first in the evidence and in the verdict
/// every table shows.
#[test]
fn a_cpu_hog_beside_the_run_marks_the_host_shared() {
    // its hogs take every CPU: alone, not beside other tests' runs
    let _use = common::measuring();
    let l = lab();
    let db = prepared_db("hog", "oltp_point_select");
    struct Hogs(Vec<std::process::Child>);
    impl Drop for Hogs {
        fn drop(&mut self) {
            // SIGTERM: `timeout` passes it on to its shell (SIGKILL would
            // leave the shell looping).
            for h in &mut self.0 {
                unsafe { libc::kill(h.id() as i32, libc::SIGTERM) };
                let _ = h.wait();
            }
        }
    }
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let hogs = Hogs(
        (0..cpus)
            .map(|_| {
                std::process::Command::new("timeout")
                    .args(["60", "sh", "-c", "while :; do :; done"])
                    .spawn()
                    .expect("timeout and sh")
            })
            .collect(),
    );
    let store = store_path("hog");
    let o = l.on_db(
        &db,
        &[
            "run",
            "oltp_point_select",
            "--table-size",
            "1000",
            "--threads",
            "2",
            "--time",
            "3",
            "--store",
            &store,
        ],
    );
    drop(hogs);
    let out = text(&o);
    assert!(o.status.success(), "{out}");
    let verdict = out
        .lines()
        .find(|l| l.starts_with("Bottleneck:"))
        .unwrap_or_default();
    assert!(verdict.contains("host shared: other processes"), "{out}");
    let first = out
        .lines()
        .skip_while(|l| !l.starts_with("Bottleneck:"))
        .nth(1)
        .unwrap_or_default();
    assert!(first.contains("host shared"), "{out}");
    let o = l.qpslab(&["runs", "--store", &store, "--format", "json"]);
    assert!(
        json(&o)[0]["hint"]
            .as_str()
            .unwrap_or_default()
            .contains("host shared"),
        "{}",
        text(&o)
    );
}

/// A fake server on 127.0.0.1 (it lives 120 s at most); returns its port.
/// `login`: it greets as MariaDB, accepts any login, then says nothing
/// more; else it accepts the connection and never greets.
fn silent_server(login: bool) -> u16 {
    use std::io::{Read, Write};
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    l.set_nonblocking(true).unwrap();
    let packet = |seq: u8, body: &[u8]| {
        let mut p = (body.len() as u32).to_le_bytes()[..3].to_vec();
        p.push(seq);
        p.extend_from_slice(body);
        p
    };
    // protocol 10: version, thread id, scramble part 1, capabilities
    // (LONG_PASSWORD, CONNECT_WITH_DB, PROTOCOL_41, TRANSACTIONS,
    // SECURE_CONNECTION, PLUGIN_AUTH), charset, status, scramble part 2
    let caps: u32 = 1 | 8 | 0x200 | 0x2000 | 0x8000 | 0x80000;
    let mut hello = vec![10u8];
    hello.extend_from_slice(b"5.5.5-10.11.6-MariaDB\0");
    hello.extend_from_slice(&7u32.to_le_bytes());
    hello.extend_from_slice(b"abcdefgh\0");
    hello.extend_from_slice(&(caps as u16).to_le_bytes());
    hello.push(33);
    hello.extend_from_slice(&2u16.to_le_bytes());
    hello.extend_from_slice(&((caps >> 16) as u16).to_le_bytes());
    hello.push(21);
    hello.extend_from_slice(&[0; 10]);
    hello.extend_from_slice(b"ijklmnopqrst\0mysql_native_password\0");
    let greeting = packet(0, &hello);
    let ok = packet(2, &[0, 0, 0, 2, 0, 0, 0]);
    std::thread::spawn(move || {
        let end = std::time::Instant::now() + std::time::Duration::from_secs(120);
        let mut held = Vec::new();
        while std::time::Instant::now() < end {
            match l.accept() {
                Ok((mut s, _)) => {
                    if login {
                        let _ = s.set_nonblocking(false);
                        let _ = s.write_all(&greeting);
                        let mut buf = [0u8; 4096];
                        let _ = s.read(&mut buf);
                        let _ = s.write_all(&ok);
                    }
                    held.push(s);
                }
                Err(_) => std::thread::sleep(std::time::Duration::from_millis(20)),
            }
        }
    });
    port
}

#[test]
fn monitor_gives_up_on_a_silent_server_within_its_time_and_the_connect_timeout() {
    let home = std::env::temp_dir().join(format!("qpslab-monsilent-{}", std::process::id()));
    std::fs::create_dir_all(&home).unwrap();
    struct Gone(std::path::PathBuf);
    impl Drop for Gone {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
    let _g = Gone(home.clone());
    for login in [true, false] {
        let port = silent_server(login).to_string();
        let mut child = Command::new(common::bin())
            .env("QPSLAB_HOME", &home)
            .env_remove("MYSQL_PWD")
            .args(["monitor", "--host", "127.0.0.1", "--port", &port])
            .args(["--user", "root", "--connect-timeout", "2", "--time", "5"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // 5 s of time plus the 2 s timeout, with generous room (it took
        // the 60 s read timeout before).
        let end = std::time::Instant::now() + std::time::Duration::from_secs(25);
        while child.try_wait().unwrap().is_none() {
            if std::time::Instant::now() > end {
                let _ = child.kill();
                let out = child.wait_with_output().unwrap();
                panic!(
                    "login {login}: monitor still running after 25 s: {}",
                    text(&out)
                );
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        let out = child.wait_with_output().unwrap();
        assert!(!out.status.success(), "login {login}: {}", text(&out));
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.trim().lines().count(), 1, "not one line: {err}");
        assert!(
            err.contains(&format!("127.0.0.1:{port}")) && err.contains("2.0 s"),
            "login {login}: {err}"
        );
    }
}
