//! Fault injection against real servers: fake servers that stall or talk
//! nonsense, a proxy that stalls a live server mid-run, SIGSTOP and kill -9
//! of a sandbox, a server restart mid-run, a full accept backlog, too many
//! connections, concurrent store writers, a full disk, a stale pid file,
//! Ctrl-C while connecting. Every child process is waited for with a bound:
//! a hang fails the test instead of hanging it. Fake servers and proxies
//! listen on 127.0.0.1 only and stop by themselves.

mod common;
use common::{lab, text};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Output, Stdio};
use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long any fake server or proxy lives (bounds every loop here).
const FAKE_LIFETIME: Duration = Duration::from_secs(120);

/// Waits for `child` at most `limit`; a child still running then is killed
/// and the test fails: that is a hang.
fn wait_bounded(mut child: Child, limit: Duration, what: &str) -> Output {
    let end = Instant::now() + limit;
    loop {
        if child.try_wait().expect("wait").is_some() {
            return child.wait_with_output().expect("output");
        }
        if Instant::now() > end {
            let _ = child.kill();
            let out = child.wait_with_output().expect("output");
            panic!(
                "{what}: still running after {} s (a hang): {}",
                limit.as_secs(),
                text(&out)
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn spawn(args: &[&str]) -> Child {
    lab()
        .command()
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn qpslab")
}

/// point_select on the shared sandbox's socket as root, in `db`, plus `extra`.
fn socket_run(db: &str, extra: &[&str]) -> Child {
    let sock = lab().socket().display().to_string();
    let mut args = vec![
        "run",
        "oltp_point_select",
        "--socket",
        &sock,
        "--user",
        "root",
        "--db",
        db,
        "--table-size",
        "500",
    ];
    args.extend_from_slice(extra);
    spawn(&args)
}

#[derive(Clone, Copy)]
enum Fake {
    /// Accepts and never says a word.
    Silent,
    /// Sends random bytes as its greeting.
    Garbage,
    /// Announces a 16 MiB packet and sends a few bytes of it.
    Oversized,
    /// Refuses at once with an error whose text carries terminal escapes,
    /// CR/LF and 3 KB of filler.
    Hostile,
}

/// A fake server on 127.0.0.1; returns its port.
fn fake_server(kind: Fake) -> u16 {
    counted_fake_server(kind).0
}

/// A fake server on 127.0.0.1; returns its port and the number of
/// connections it has accepted so far (a readiness signal: the client got
/// as far as connecting).
fn counted_fake_server(kind: Fake) -> (u16, Arc<AtomicUsize>) {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    l.set_nonblocking(true).unwrap();
    let accepted = Arc::new(AtomicUsize::new(0));
    let counter = accepted.clone();
    std::thread::spawn(move || {
        let end = Instant::now() + FAKE_LIFETIME;
        let mut held = Vec::new();
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        while Instant::now() < end {
            match l.accept() {
                Ok((mut s, _)) => {
                    counter.fetch_add(1, Ordering::SeqCst);
                    match kind {
                        Fake::Silent => {}
                        Fake::Garbage => {
                            let bytes: Vec<u8> = (0..200)
                                .map(|_| {
                                    seed ^= seed << 13;
                                    seed ^= seed >> 7;
                                    seed ^= seed << 17;
                                    seed as u8
                                })
                                .collect();
                            let _ = s.write_all(&bytes);
                        }
                        Fake::Oversized => {
                            let _ = s.write_all(&[0xFF, 0xFF, 0xFE, 0x00, 10, 1, 2, 3]);
                        }
                        Fake::Hostile => {
                            let mut p = vec![0xFF, 0x6A, 0x04]; // 1130
                            p.extend_from_slice(b"\x1b[31mred\r\nqpslab: a forged line\x07");
                            p.extend(std::iter::repeat_n(b'A', 3000));
                            let n = p.len() as u32;
                            let mut pkt = n.to_le_bytes()[..3].to_vec();
                            pkt.push(0);
                            pkt.extend_from_slice(&p);
                            let _ = s.write_all(&pkt);
                        }
                    }
                    held.push(s);
                }
                Err(_) => std::thread::sleep(Duration::from_millis(20)),
            }
        }
    });
    (port, accepted)
}

const PASS: u8 = 0;
const SILENT: u8 = 1;
const GARBAGE: u8 = 2;

/// A TCP proxy to `upstream` whose server-to-client direction can be made
/// silent or garbled while connections are open.
fn proxy(upstream: u16) -> (u16, Arc<AtomicU8>) {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    l.set_nonblocking(true).unwrap();
    let mode = Arc::new(AtomicU8::new(PASS));
    let m = mode.clone();
    std::thread::spawn(move || {
        let end = Instant::now() + FAKE_LIFETIME;
        while Instant::now() < end {
            let Ok((client, _)) = l.accept() else {
                std::thread::sleep(Duration::from_millis(10));
                continue;
            };
            let Ok(server) = TcpStream::connect(("127.0.0.1", upstream)) else {
                continue;
            };
            for (mut from, mut to, s2c) in [
                (
                    client.try_clone().unwrap(),
                    server.try_clone().unwrap(),
                    false,
                ),
                (server, client, true),
            ] {
                let m = m.clone();
                from.set_read_timeout(Some(Duration::from_millis(200)))
                    .unwrap();
                std::thread::spawn(move || {
                    let mut buf = vec![0u8; 65536];
                    while Instant::now() < end {
                        let n = match from.read(&mut buf) {
                            Ok(0) => break,
                            Ok(n) => n,
                            Err(e)
                                if e.kind() == std::io::ErrorKind::WouldBlock
                                    || e.kind() == std::io::ErrorKind::TimedOut =>
                            {
                                continue
                            }
                            Err(_) => break,
                        };
                        let mode = if s2c { m.load(Ordering::SeqCst) } else { PASS };
                        let sent = match mode {
                            SILENT => Ok(()),
                            GARBAGE => to.write_all(&vec![0xA5; n]),
                            _ => to.write_all(&buf[..n]),
                        };
                        if sent.is_err() {
                            break;
                        }
                    }
                    let _ = to.shutdown(std::net::Shutdown::Both);
                });
            }
        }
    });
    (port, mode)
}

/// A line of the summary: the first number after `label`.
fn figure(out: &str, label: &str) -> Option<f64> {
    out.lines()
        .find(|l| l.trim_start().starts_with(label))
        .and_then(|l| l.trim_start()[label.len()..].split_whitespace().next())
        .and_then(|v| v.trim_end_matches('s').parse().ok())
}

#[test]
fn fake_servers_fail_within_the_connect_timeout_with_a_clear_error() {
    for (kind, expect) in [
        (Fake::Silent, "timed out after 3.0 s"),
        (Fake::Garbage, "did not speak the MySQL protocol"),
        (Fake::Oversized, "did not speak the MySQL protocol"),
    ] {
        let port = fake_server(kind).to_string();
        let child = spawn(&[
            "run",
            "oltp_point_select",
            "--host",
            "127.0.0.1",
            "--port",
            &port,
            "--connect-timeout",
            "3",
            "--time",
            "5",
        ]);
        let out = wait_bounded(
            child,
            Duration::from_secs(3 + 10),
            "run against a fake server",
        );
        assert_eq!(out.status.code(), Some(2), "{}", text(&out));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(expect), "{expect}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "not one line: {err}");
    }
    // a server's text is printed inert (escapes shown, not acted on) and
    // bounded
    let port = fake_server(Fake::Hostile).to_string();
    let child = spawn(&[
        "run",
        "oltp_point_select",
        "--host",
        "127.0.0.1",
        "--port",
        &port,
        "--connect-timeout",
        "3",
        "--time",
        "5",
    ]);
    let out = wait_bounded(
        child,
        Duration::from_secs(13),
        "run against a hostile server",
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "not one line: {err}");
    assert!(
        !err.trim().chars().any(|c| c.is_control()) && err.contains("\\u{1b}[31mred"),
        "{err}"
    );
    assert!(
        err.len() < 1200 && err.contains("more characters"),
        "{} bytes: {err}",
        err.len()
    );
}

#[test]
fn first_ctrl_c_while_connecting_exits_at_once() {
    let (port, accepted) = counted_fake_server(Fake::Silent);
    let port = port.to_string();
    let child = spawn(&[
        "run",
        "oltp_point_select",
        "--host",
        "127.0.0.1",
        "--port",
        &port,
        "--connect-timeout",
        "60",
    ]);
    // Ctrl-C once the run is connecting (the fake server accepted it).
    common::await_cond(
        Duration::from_secs(30),
        "the run's connection to the silent fake server",
        || accepted.load(Ordering::SeqCst) > 0,
    );
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let out = wait_bounded(child, Duration::from_secs(10), "Ctrl-C while connecting");
    assert_eq!(out.status.code(), Some(130), "{}", text(&out));
    assert!(text(&out).contains("interrupted"), "{}", text(&out));
}

/// A live server that stops answering mid-run (a proxy drops its bytes):
/// the watchdog cuts the stalled queries within --read-timeout, their
/// events count as failed, reconnects time out, and the run fails once the
/// server has been unreachable for --max-unreachable.
#[test]
fn a_server_that_stops_answering_fails_the_run_within_its_timeouts() {
    // 4 connections share one client thread (the reactor, or io_uring); 1
    // connection has its thread alone (direct I/O: poll(), or a ring of
    // its own with uring): the same limits hold for all four
    for (mode, threads, io) in [
        (SILENT, "4", "auto"),
        (GARBAGE, "4", "auto"),
        (SILENT, "1", "auto"),
        (GARBAGE, "1", "auto"),
        (SILENT, "4", "uring"),
        (GARBAGE, "4", "uring"),
        (SILENT, "1", "uring"),
        (GARBAGE, "1", "uring"),
    ] {
        let db = lab().prepared_db(
            &format!(
                "{}{threads}{io}",
                if mode == SILENT { "stall" } else { "garble" }
            ),
            500,
        );
        let (port, switch) = proxy(lab().port());
        let port = port.to_string();
        let mut child = spawn(&[
            "run",
            "oltp_point_select",
            "--host",
            "127.0.0.1",
            "--port",
            &port,
            "--user",
            "root",
            "--db",
            &db,
            "--table-size",
            "500",
            "--threads",
            threads,
            "--time",
            "60",
            "--read-timeout",
            "2",
            "--connect-timeout",
            "2",
            "--max-unreachable",
            "3",
            "--io-backend",
            io,
            "--client-shards",
            "1",
            "--no-monitor",
        ]);
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let first = common::read_until(&mut stdout, |l| l.starts_with("[ "));
        assert!(first.is_some(), "the run never printed an interval line");
        switch.store(mode, Ordering::SeqCst);
        let mut rest = String::new();
        let reader = std::thread::spawn(move || {
            let _ = stdout.read_to_string(&mut rest);
            rest
        });
        // read timeout + connect timeout + max unreachable + stop grace, with room.
        let out = wait_bounded(child, Duration::from_secs(40), "run on a stalled server");
        let rest = reader.join().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            out.status.code(),
            Some(1),
            "mode {mode}, {threads} threads, {io}: {rest}{err}"
        );
        if mode == SILENT {
            assert!(err.contains("unreachable"), "{err}");
            assert!(
                figure(&rest, "failed events:").unwrap_or(0.0) >= 1.0,
                "{rest}"
            );
            assert!(
                rest.contains("2013"),
                "the cut queries count as error 2013: {rest}"
            );
        } else {
            assert!(err.contains("run failed"), "{err}");
        }
        assert!(
            rest.contains("SQL statistics:"),
            "the summary is printed: {rest}"
        );
    }
}

/// Runs point_select on sandbox `name` in the background; returns the child
/// once its first interval line is out, and a reader for the rest.
fn start_run(name: &str, extra: &[&str]) -> (Child, std::thread::JoinHandle<String>) {
    let mut args = vec![
        "run",
        "oltp_point_select",
        "--server",
        name,
        "--table-size",
        "500",
        "--threads",
        "4",
    ];
    args.extend_from_slice(extra);
    spawn_until(&args, "its first interval", |l| l.starts_with("[ "))
}

/// Spawns qpslab with `args`; returns the child once a line of its stdout
/// passes `ready` (`what` names that line in the failure), and a reader for
/// the rest (the lines read so far included).
fn spawn_until(
    args: &[&str],
    what: &str,
    ready: impl Fn(&str) -> bool,
) -> (Child, std::thread::JoinHandle<String>) {
    let mut child = spawn(args);
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut head = String::new();
    loop {
        let mut line = String::new();
        if stdout.read_line(&mut line).unwrap_or(0) == 0 {
            let out = wait_bounded(child, Duration::from_secs(10), args[0]);
            panic!(
                "qpslab {} ended before {what}: {head}{}",
                args[0],
                text(&out)
            );
        }
        head.push_str(&line);
        if ready(&line) {
            break;
        }
    }
    let reader = std::thread::spawn(move || {
        let mut rest = head;
        let _ = stdout.read_to_string(&mut rest);
        rest
    });
    (child, reader)
}

fn pid_file(name: &str) -> std::path::PathBuf {
    lab().sandbox_file(name, "mysqld.pid")
}

fn sandbox_pid(name: &str) -> i32 {
    let pid = std::fs::read_to_string(pid_file(name)).expect("the sandbox's pid file");
    pid.trim().parse().unwrap()
}

fn start_sandbox(name: &str, sets: &[&str]) {
    let mut args = vec!["server", "start", "--name", name];
    for s in sets {
        args.extend(["--set", s]);
    }
    let out = lab().qpslab(&args);
    assert!(out.status.success(), "{}", text(&out));
}

/// A sandbox of a test's own, started with `sets`, sbtest1 of 500 rows.
fn prepared_sandbox(name: &str, sets: &[&str]) {
    start_sandbox(name, sets);
    let prep = lab().qpslab(&[
        "prepare",
        "oltp_point_select",
        "--server",
        name,
        "--table-size",
        "500",
    ]);
    assert!(prep.status.success(), "{}", text(&prep));
}

/// SIGSTOP for 5 s, a restart, then kill -9 without restart, on a sandbox
/// of this test's own.
#[test]
fn stalled_restarted_and_killed_servers() {
    let name = "victim";
    prepared_sandbox(name, &[]);

    // SIGSTOP 5 s mid-run: the run ends within --time + --read-timeout, and
    // the monitor notes the stall.
    let (child, reader) = start_run(name, &["--time", "8", "--read-timeout", "20"]);
    let pid = sandbox_pid(name);
    unsafe { libc::kill(pid, libc::SIGSTOP) };
    std::thread::sleep(Duration::from_secs(5));
    unsafe { libc::kill(pid, libc::SIGCONT) };
    let out = wait_bounded(
        child,
        Duration::from_secs(8 + 20 + 5),
        "run through SIGSTOP",
    );
    let rest = reader.join().unwrap();
    assert!(rest.contains("SQL statistics:"), "{rest}{}", text(&out));
    assert!(rest.contains("stall:"), "a stall note: {rest}");

    // A restart mid-run: the server comes back, the run reaches its end,
    // but says it was degraded (exit 3), with the unreachable time.
    let (child, reader) = start_run(name, &["--time", "10"]);
    let stop = lab().qpslab(&["server", "stop", "--name", name]);
    assert!(stop.status.success(), "{}", text(&stop));
    // the outage itself (the unreachable seconds asserted below), not a
    // wait for readiness
    std::thread::sleep(Duration::from_secs(2));
    start_sandbox(name, &[]);
    let out = wait_bounded(child, Duration::from_secs(40), "run through a restart");
    let rest = reader.join().unwrap();
    assert_eq!(out.status.code(), Some(3), "{rest}{}", text(&out));
    assert!(rest.contains("DEGRADED:"), "{rest}");
    assert!(figure(&rest, "reconnects:").unwrap_or(0.0) >= 1.0, "{rest}");
    assert!(
        figure(&rest, "server unreachable:").unwrap_or(0.0) >= 1.0,
        "{rest}"
    );

    // kill -9 and no restart: failed, non-zero, the in-flight events failed
    // and none of them counted as a transaction (no latency of seconds).
    let (child, reader) = start_run(
        name,
        &[
            "--time",
            "60",
            "--max-unreachable",
            "3",
            "--percentile",
            "100",
        ],
    );
    unsafe { libc::kill(sandbox_pid(name), libc::SIGKILL) };
    let out = wait_bounded(child, Duration::from_secs(30), "run after kill -9");
    let rest = reader.join().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{rest}{err}");
    assert!(err.contains("unreachable"), "{err}");
    assert!(
        figure(&rest, "failed events:").unwrap_or(0.0) >= 1.0,
        "{rest}"
    );
    let max_ms = figure(&rest, "max:").expect("latency max");
    assert!(
        max_ms < 2500.0,
        "an event that never completed was counted (max latency {max_ms} ms): {rest}"
    );
}

/// A small accept backlog and many threads: connects are retried, the run
/// starts; past max_connections the user sees error 1040 and the fix.
#[test]
fn backpressure_on_connect_and_too_many_connections() {
    let name = "backlog";
    prepared_sandbox(name, &["max_connections=300", "back_log=8"]);
    let child = spawn(&[
        "run",
        "oltp_point_select",
        "--server",
        name,
        "--table-size",
        "500",
        "--threads",
        "256",
        "--time",
        "2",
        "--no-monitor",
    ]);
    let out = wait_bounded(child, Duration::from_secs(60), "256 threads");
    assert!(out.status.success(), "{}", text(&out));
    assert!(!text(&out).contains("os error 11"), "{}", text(&out));

    let sock = lab().home.join("sandboxes").join(name).join("mysqld.sock");
    let set = Command::new("mariadb")
        .args(["-uroot", &format!("--socket={}", sock.display())])
        .args(["-e", "SET GLOBAL max_connections = 20"])
        .output()
        .unwrap();
    assert!(set.status.success(), "{}", text(&set));
    let child = spawn(&[
        "run",
        "oltp_point_select",
        "--server",
        name,
        "--table-size",
        "500",
        "--threads",
        "64",
        "--time",
        "2",
        "--no-monitor",
    ]);
    let out = wait_bounded(
        child,
        Duration::from_secs(60),
        "64 threads over max_connections",
    );
    let all = text(&out);
    assert_eq!(out.status.code(), Some(1), "{all}");
    assert!(
        all.contains("1040") && all.contains("max_connections"),
        "{all}"
    );
}

/// Ten processes opening the same new store at once, then four concurrent
/// runs recording into it: every one succeeds and every run is kept.
#[test]
fn concurrent_store_opens_and_writers() {
    let db = lab().prepared_db("storerace", 500);
    let dir = lab().home.join("race");
    std::fs::create_dir_all(&dir).unwrap();
    let store = dir.join("results.db");
    let store_s = store.display().to_string();
    let children: Vec<Child> = (0..10)
        .map(|i| {
            let (threads, events) = if i < 4 { ("2", "2000") } else { ("1", "1") };
            socket_run(
                &db,
                &[
                    "--threads",
                    threads,
                    "--events",
                    events,
                    "--time",
                    "0",
                    "--store",
                    &store_s,
                ],
            )
        })
        .collect();
    for c in children {
        let out = wait_bounded(c, Duration::from_secs(60), "concurrent run");
        assert!(out.status.success(), "{}", text(&out));
    }
    let runs = lab().qpslab(&["runs", "--store", &store_s, "--format", "csv"]);
    assert!(runs.status.success(), "{}", text(&runs));
    let ok = String::from_utf8_lossy(&runs.stdout)
        .lines()
        .filter(|l| l.contains(",ok,") || l.contains(",ok"))
        .count();
    assert_eq!(ok, 10, "{}", text(&runs));
}

/// Unmounts (lazily) when dropped, also when the test fails.
struct Unmount(std::path::PathBuf);

impl Drop for Unmount {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
    }
}

/// Mounts a tmpfs of `size` on `dir` (this needs root: the test fails with
/// that reason otherwise).
fn mount_tmpfs(dir: &std::path::Path, size: &str) -> Unmount {
    let mount = Command::new("mount")
        .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
        .arg(dir)
        .output()
        .expect("mount (this test needs root to mount a small tmpfs)");
    assert!(
        mount.status.success(),
        "this test needs to mount a small tmpfs (run as root): {}",
        text(&mount)
    );
    Unmount(dir.to_path_buf())
}

/// A store whose disk fills up during the run (a tmpfs filled to the last
/// byte once the run has printed its first interval): the result is still
/// printed, the message names the store and says why, the exit code is 4
/// (measured, not stored).
#[test]
fn a_full_disk_is_reported_and_nothing_measured_is_hidden() {
    let db = lab().prepared_db("diskfull", 500);
    let dir = lab().home.join("tiny");
    std::fs::create_dir_all(&dir).unwrap();
    let _unmount = mount_tmpfs(&dir, "8m");
    let store = dir.join("results.db").display().to_string();
    let mut child = socket_run(&db, &["--time", "6", "--store", &store]);
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let head = common::read_until(&mut stdout, |l| l.starts_with("[ "));
    assert!(
        head.is_some(),
        "the run never printed an interval line (the store on an empty 8 MB tmpfs should open)"
    );
    fill(&dir.join("filler"));
    let reader = std::thread::spawn(move || {
        let mut rest = String::new();
        let _ = stdout.read_to_string(&mut rest);
        rest
    });
    let out = wait_bounded(child, Duration::from_secs(60), "run on a full disk");
    let stdout = reader.join().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(4), "{stdout}{stderr}");
    assert!(
        stderr.contains(&store),
        "the message names the store: {stderr}"
    );
    assert!(
        stderr.contains("full") || stderr.contains("space"),
        "the message says why: {stderr}"
    );
    assert!(
        stdout.contains("SQL statistics:"),
        "the result is printed: {stdout}"
    );
    assert!(!stdout.contains("Stored as run"), "{stdout}");
}

/// Writes `path` until its file system has no byte left (ENOSPC).
fn fill(path: &std::path::Path) {
    let mut f = std::fs::File::create(path).expect("create the filler file");
    let chunk = vec![0x5Au8; 64 << 10];
    let mut small = [0x5Au8; 512];
    loop {
        match f.write(&chunk) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) if e.raw_os_error() == Some(libc::ENOSPC) => break,
            Err(e) => panic!("filling {}: {e}", path.display()),
        }
    }
    // the last partial page
    while matches!(f.write(&small[..]), Ok(n) if n > 0) {
        small[0] ^= 1;
    }
    let _ = f.sync_all();
}

/// After a reboot a sandbox's pid file may hold the pid of anything:
/// stop and destroy leave such a process alone.
#[test]
fn a_stale_pid_file_never_gets_another_process_killed() {
    let name = "stale";
    start_sandbox(name, &[]);
    let stop = lab().qpslab(&["server", "stop", "--name", name]);
    assert!(stop.status.success(), "{}", text(&stop));
    let mut bystander = Command::new("sleep").arg("60").spawn().unwrap();
    std::fs::write(pid_file(name), format!("{}\n", bystander.id())).unwrap();
    let stop = lab().qpslab(&["server", "stop", "--name", name]);
    assert!(stop.status.success(), "{}", text(&stop));
    assert!(text(&stop).contains("was not running"), "{}", text(&stop));
    let destroy = lab().qpslab(&["server", "destroy", "--name", name]);
    assert!(destroy.status.success(), "{}", text(&destroy));
    // Nothing to wait for here: stop and destroy have returned, so any
    // signal was sent; the grace only lets a signalled process finish
    // dying before it is looked at (an absence has no readiness signal).
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        bystander.try_wait().unwrap().is_none(),
        "the process named by the stale pid file was signalled"
    );
    let _ = bystander.kill();
    let _ = bystander.wait();
}

/// Read commands never create, migrate or write a store: a missing one is
/// a one-line error naming it; one on read-only media is read as it is.
#[test]
fn read_commands_work_on_read_only_media_and_never_create_a_store() {
    let missing = lab().home.join("nowhere").join("results.db");
    let m = missing.display().to_string();
    for args in [
        vec!["runs", "--store", &m],
        vec!["show", "1", "--store", &m],
        vec!["best", "--store", &m],
    ] {
        let out = lab().qpslab(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(&m) && err.trim().lines().count() == 1, "{err}");
    }
    assert!(!missing.exists() && !missing.parent().unwrap().exists());

    // A store with one run, on a tmpfs then remounted read-only.
    let db = lab().prepared_db("rostore", 500);
    let dir = lab().home.join("ro");
    std::fs::create_dir_all(&dir).unwrap();
    let _unmount = mount_tmpfs(&dir, "8m");
    let store = dir.join("results.db").display().to_string();
    let out = wait_bounded(
        socket_run(&db, &["--events", "100", "--time", "0", "--store", &store]),
        Duration::from_secs(60),
        "a run to fill the store",
    );
    assert!(out.status.success(), "{}", text(&out));
    let ro = Command::new("mount")
        .args(["-o", "remount,ro"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(ro.status.success(), "remount read-only: {}", text(&ro));
    let report = lab().home.join("ro-report.html").display().to_string();
    for args in [
        vec!["runs", "--store", &store],
        vec!["show", "1", "--store", &store],
        vec!["report", "1", "-o", &report, "--store", &store],
        vec!["metrics", "1", "--store", &store],
    ] {
        let out = lab().qpslab(&args);
        assert!(
            out.status.success(),
            "{args:?} on read-only media: {}",
            text(&out)
        );
    }
    let runs = lab().qpslab(&["runs", "--store", &store]);
    assert!(
        String::from_utf8_lossy(&runs.stdout).contains("ok"),
        "{}",
        text(&runs)
    );
}

/// Ctrl-C during a prepare stops the loaders at once and says which
/// tables are incomplete and what to do.
#[test]
fn ctrl_c_during_prepare_stops_loading_and_says_what_is_left() {
    let db = lab().fresh_db("prepint");
    let child = spawn(&[
        "prepare",
        "oltp_read_write",
        "--server",
        common::SANDBOX,
        "--db",
        &db,
        "--tables",
        "4",
        "--table-size",
        "3000000",
    ]);
    // Wait until loading has begun (a table exists), bounded.
    let end = Instant::now() + Duration::from_secs(30);
    while Instant::now() < end
        && !lab()
            .sql(&db, "SHOW TABLES LIKE 'sbtest%'")
            .contains("sbtest")
    {
        std::thread::sleep(Duration::from_millis(50));
    }
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let out = wait_bounded(child, Duration::from_secs(15), "prepare after Ctrl-C");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{}", text(&out));
    assert!(
        err.contains("interrupted after") && err.contains("cleanup"),
        "{err}"
    );
}

/// A store of a test's own (tests of this file run at once).
fn own_store(name: &str) -> String {
    lab().home.join(format!("{name}.db")).display().to_string()
}

/// The newest run in `store`.
fn last_run(store: &str) -> serde_json::Value {
    let o = lab().qpslab(&["runs", "--format", "json", "--store", store]);
    let runs: serde_json::Value = serde_json::from_slice(&o.stdout).expect("runs as JSON");
    runs.as_array()
        .and_then(|a| a.iter().max_by_key(|r| r["id"].as_i64()))
        .cloned()
        .expect("a stored run")
}

/// Sends SIGCONT to a stopped process when dropped, so that a failing
/// assertion never leaves a server or qpslab frozen.
struct Resume(i32);
impl Drop for Resume {
    fn drop(&mut self) {
        unsafe { libc::kill(self.0, libc::SIGCONT) };
    }
}

/// A server frozen (SIGSTOP) across the run's end, with four connections
/// busy on one client thread: the shard drops them after its grace
/// without a panic, the four events in flight count as failed (once
/// each), and the run is degraded, never ok.
#[test]
fn a_server_stalled_across_the_runs_end_fails_its_events_without_a_panic() {
    let name = "frozen";
    prepared_sandbox(name, &[]);
    let store = own_store(name);
    let (child, reader) = start_run(
        name,
        &[
            "--time",
            "3",
            "--client-shards",
            "1",
            "--read-timeout",
            "60",
            "--store",
            &store,
        ],
    );
    let pid = sandbox_pid(name);
    unsafe { libc::kill(pid, libc::SIGSTOP) };
    let resume = Resume(pid);
    let out = wait_bounded(child, Duration::from_secs(60), "run over a frozen server");
    drop(resume);
    let rest = reader.join().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(out.status.code(), Some(3), "{rest}{err}");
    assert!(rest.contains("DEGRADED:"), "{rest}");
    assert_eq!(figure(&rest, "failed events:"), Some(4.0), "{rest}");
    // a lost connection is not an ignored error
    assert_eq!(figure(&rest, "ignored errors:"), Some(0.0), "{rest}");
    // The measured length is the planned one: the connections' 2-s grace
    // over the frozen server is no measured time (rates were divided by
    // 5 s for a 3-s run).
    let total = figure(&rest, "total time:").unwrap_or(0.0);
    assert!((2.95..=3.05).contains(&total), "total time {total}: {rest}");
    let run = last_run(&store);
    assert_eq!(run["status"], "degraded", "{run}");
    let secs = run["seconds"].as_f64().unwrap_or(0.0);
    assert!((2.95..=3.05).contains(&secs), "{run}");
    let _ = lab().qpslab(&["server", "stop", "--name", name]);
    let _ = lab().qpslab(&["server", "destroy", "--name", name]);
}

/// `qpslab run ... | head`: the reader goes away after the first lines;
/// the run goes on to its end, is stored, and exits 0. A read command
/// whose stdout is a full device exits 5 with one line on stderr.
#[test]
fn a_closed_stdout_ends_the_printing_not_the_run() {
    let name = "piped";
    prepared_sandbox(name, &[]);
    let store = own_store(name);
    let (child, reader) = start_run(name, &["--time", "3", "--store", &store]);
    // start_run read up to the first interval line; drop the pipe now
    let mut child = child;
    drop(child.stdout.take());
    drop(reader);
    let out = wait_bounded(child, Duration::from_secs(60), "run with a closed stdout");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(
        !err.contains("panicked") && !err.contains("Broken pipe"),
        "{err}"
    );
    let run = last_run(&store);
    assert_eq!(run["status"], "ok", "{run}");
    assert!(run["seconds"].as_f64().unwrap_or(0.0) >= 2.9, "{run}");

    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .expect("/dev/full");
    let out = lab()
        .command()
        .args(["runs", "--store", &store])
        .stdout(full)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(5), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(
        err.lines().count() == 1 && err.contains("could not write the output"),
        "{err}"
    );
    let _ = lab().qpslab(&["server", "stop", "--name", name]);
    let _ = lab().qpslab(&["server", "destroy", "--name", name]);
}

/// qpslab itself stopped (SIGSTOP) for 5 s mid-run: the seconds are named
/// as the client's stall, the run is degraded, and the verdict is
/// client-stalled, never contention.
#[test]
fn a_stalled_load_generator_is_named_not_charged_to_the_server() {
    let name = "clientstop";
    prepared_sandbox(name, &[]);
    let (child, reader) = start_run(name, &["--time", "8"]);
    let pid = child.id() as i32;
    unsafe { libc::kill(pid, libc::SIGSTOP) };
    let resume = Resume(pid);
    std::thread::sleep(Duration::from_secs(5));
    drop(resume);
    let out = wait_bounded(child, Duration::from_secs(60), "a run stopped for 5 s");
    let rest = reader.join().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{rest}{err}");
    assert!(
        rest.contains("the load generator itself was stalled for"),
        "{rest}"
    );
    assert!(rest.contains("Bottleneck: client-stalled"), "{rest}");
    let _ = lab().qpslab(&["server", "stop", "--name", name]);
    let _ = lab().qpslab(&["server", "destroy", "--name", name]);
}

/// `monitor --time 4` over a server that freezes after the first figures:
/// the session ends on time (its last poll waited for at most a second,
/// not the 10-s poll bound), is stored degraded with the planned length,
/// and a note says the last poll went unanswered (it once took 10 s and
/// was stored ok).
#[test]
fn a_monitor_session_over_a_server_that_freezes_ends_on_time_degraded() {
    let name = "monfrozen";
    start_sandbox(name, &[]);
    let store = own_store(name);
    // Ready: the first line of figures (the second status snapshot).
    let (child, reader) = spawn_until(
        &[
            "monitor", "--server", name, "--time", "4", "--store", &store,
        ],
        "its first figures",
        |l| l.trim_start().starts_with(|c: char| c.is_ascii_digit()),
    );
    let pid = sandbox_pid(name);
    unsafe { libc::kill(pid, libc::SIGSTOP) };
    let resume = Resume(pid);
    let out = wait_bounded(
        child,
        Duration::from_secs(60),
        "monitor over a frozen server",
    );
    drop(resume);
    let rest = reader.join().unwrap();
    assert!(out.status.success(), "{rest}{}", text(&out));
    let run = last_run(&store);
    assert_eq!(run["status"], "degraded", "{run}");
    let secs = run["seconds"].as_f64().unwrap_or(0.0);
    assert!(secs <= 4.05, "{run}");
    let conn = rusqlite::Connection::open(&store).unwrap();
    let stalls: i64 = conn
        .query_row(
            "SELECT COUNT(*) FROM monitor_notes WHERE run_id = ?1 AND kind = 'stall' \
             AND text LIKE '%did not answer the monitor''s last poll%'",
            [run["id"].as_i64().unwrap()],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(stalls, 1, "{run}");
    let _ = lab().qpslab(&["server", "stop", "--name", name]);
    let _ = lab().qpslab(&["server", "destroy", "--name", name]);
}
