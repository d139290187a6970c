//! The web UI and the HTML reports in a real browser (Debian's headless
//! Chromium driven by playwright-core, see tests/ui/check.mjs): pages load
//! with no console errors, charts carry data and share a run's time axis,
//! clicking a run opens it, a campaign of 5 variants x 2 workloads has a
//! chart per workload with every legend entry whole at 1,400 and 800 px, a
//! running run's live summary moves, the reports work offline and carry
//! their environment. Screenshots of every page at both widths land in
//! target/ui-artifacts/.

mod common;
use common::{lab, outcome};
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};

fn free_port() -> u16 {
    std::net::TcpListener::bind(("127.0.0.1", 0))
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

#[test]
fn ui_and_report_in_headless_chromium() {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let tests_ui = here.join("tests/ui");
    assert!(
        tests_ui.join("node_modules/playwright-core").is_dir() && Path::new("/usr/bin/chromium").exists(),
        "the browser test needs Debian's chromium and tests/ui's node modules: run scripts/deps.sh (apt-get install chromium; npm ci --prefix tests/ui)"
    );
    let l = lab();
    let db = l.fresh_db("ui");
    let o = l.on_sandbox(&[
        "prepare",
        "oltp_read_write",
        "--db",
        &db,
        "--table-size",
        "2000",
    ]);
    assert!(o.status.success(), "{}", outcome(&o));
    let store = l.home.join("ui.db").display().to_string();
    let o = l.on_sandbox(&[
        "sweep",
        "oltp_read_write",
        "--db",
        &db,
        "--table-size",
        "2000",
        "--threads",
        "1,2,4",
        "--time",
        "2",
        "--store",
        &store,
    ]);
    assert!(o.status.success(), "{}", outcome(&o));
    // A campaign of 5 variants x 2 workloads on the sandbox by DSN (the
    // variants are SET GLOBALs: no restarts), for the legends.
    l.fresh_db("uicamp");
    l.sql("mysql", "CREATE OR REPLACE USER 'uicamp'@'%' IDENTIFIED BY 'uicamp-pw'; GRANT ALL ON *.* TO 'uicamp'@'%';");
    let variants: String = [4, 6, 12, 24, 48]
        .iter()
        .map(|d| format!("[[variant]]\nname = \"spin-delay-{d} and a long variant name\"\nset = {{ innodb_spin_wait_delay = {d} }}\n"))
        .collect();
    let file = l.home.join("ui-campaign.toml");
    std::fs::write(
        &file,
        format!(
            "name = \"ui-five-variants\"\nthreads = [1, 2]\ntime = 1\n[data]\ntables = 1\ntable_size = 500\n\
             [[server]]\nlabel = \"mariadb sandbox by dsn\"\ndsn = \"mysql://uicamp:uicamp-pw@127.0.0.1:{}/uicamp\"\n\
             {variants}[[workload]]\nname = \"oltp_point_select\"\n[[workload]]\nname = \"oltp_read_only\"\n",
            l.port()
        ),
    )
    .unwrap();
    let o = l.qpslab(&["campaign", "run", file.to_str().unwrap(), "--store", &store]);
    assert!(o.status.success(), "{}", outcome(&o));
    let campaign = String::from_utf8_lossy(&o.stdout)
        .split("(id ")
        .nth(1)
        .and_then(|r| r.split(')').next())
        .expect("the campaign's id")
        .to_string();
    let campaign_report = l.home.join("ui-campaign.html");
    let o = l.qpslab(&[
        "report",
        "--campaign",
        &campaign,
        "-o",
        campaign_report.to_str().unwrap(),
        "--store",
        &store,
    ]);
    assert!(o.status.success(), "{}", outcome(&o));
    let report = l.home.join("report.html");
    let o = l.qpslab(&[
        "report",
        "3",
        "-o",
        report.to_str().unwrap(),
        "--store",
        &store,
    ]);
    assert!(o.status.success(), "{}", outcome(&o));
    let o = l.qpslab(&[
        "report",
        "--campaign",
        "1",
        "-o",
        l.home.join("campaign.html").to_str().unwrap(),
        "--store",
        &store,
    ]);
    assert!(o.status.success(), "{}", outcome(&o));
    let svg = l.home.join("scal.svg");
    let o = l.qpslab(&[
        "chart",
        "--campaign",
        "1",
        "-o",
        svg.to_str().unwrap(),
        "--store",
        &store,
    ]);
    assert!(o.status.success(), "{}", outcome(&o));
    assert!(std::fs::read_to_string(&svg).unwrap().contains("<polyline"));
    let png = l.home.join("qps.png");
    let o = l.qpslab(&[
        "chart",
        "3",
        "--metric",
        "p95",
        "-o",
        png.to_str().unwrap(),
        "--store",
        &store,
    ]);
    assert!(o.status.success(), "{}", outcome(&o));
    let bytes = std::fs::read(&png).unwrap();
    assert!(
        bytes.starts_with(b"\x89PNG") && bytes.len() > 5000,
        "{} bytes",
        bytes.len()
    );

    let port = free_port();
    let mut ui = l
        .command()
        .args(["ui", "--port", &port.to_string(), "--store", &store])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(ui.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    assert!(
        line.contains(&format!("http://127.0.0.1:{port}/")),
        "{line}"
    );
    // A run in progress, for the live page (bounded: 300 s, stopped below
    // once the browser's checks are done; it must outlast them on a slow
    // host, where they took over 60 s).
    let mut live = l
        .command()
        .args([
            "run",
            "oltp_point_select",
            "--server",
            common::SANDBOX,
            "--db",
            &db,
        ])
        .args(["--table-size", "2000", "--time", "300", "--store", &store])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let live_id = (0..300)
        .find_map(|_| {
            let o = l.qpslab(&[
                "runs", "--status", "running", "--store", &store, "--format", "csv",
            ]);
            let id = String::from_utf8_lossy(&o.stdout)
                .lines()
                .nth(1)
                .and_then(|r| r.split(',').next().map(str::to_string));
            if id.is_none() {
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
            id
        })
        .expect("the live run in the store");
    let artifacts = here.join("target/ui-artifacts");
    let o = Command::new("node")
        .current_dir(&tests_ui)
        .args([
            "check.mjs",
            &format!("http://127.0.0.1:{port}"),
            report.to_str().unwrap(),
            artifacts.to_str().unwrap(),
            &live_id,
            &campaign,
            campaign_report.to_str().unwrap(),
        ])
        .output()
        .expect("node");
    unsafe { libc::kill(live.id() as i32, libc::SIGINT) };
    let _ = live.wait();
    unsafe { libc::kill(ui.id() as i32, libc::SIGINT) };
    let _ = ui.wait();
    assert!(o.status.success(), "{}", outcome(&o));
}

/// `qpslab ui` over a store of one short run, on a free port; the child
/// and its port. The caller stops it (`stop_ui`).
fn ui_over_one_run(name: &str) -> (std::process::Child, u16) {
    let l = lab();
    let db = l.prepared_db(name, 200);
    let store = l.home.join(format!("{name}.db")).display().to_string();
    let o = l.on_sandbox(&[
        "run",
        "oltp_point_select",
        "--db",
        &db,
        "--table-size",
        "200",
        "--time",
        "1",
        "--store",
        &store,
    ]);
    assert!(o.status.success(), "{}", outcome(&o));
    let port = free_port();
    let mut ui = l
        .command()
        .args(["ui", "--port", &port.to_string(), "--store", &store])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(ui.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert!(line.contains("http://127.0.0.1:"), "{line}");
    (ui, port)
}

fn stop_ui(mut ui: std::process::Child) {
    unsafe { libc::kill(ui.id() as i32, libc::SIGINT) };
    let _ = ui.wait();
}

/// One HTTP/1.1 GET with this Host header: the status line, the headers
/// (lower-cased names) and the body.
fn get(port: u16, path: &str, host: &str) -> (String, String, String) {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(std::time::Duration::from_secs(60)))
        .unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut all = String::new();
    s.read_to_string(&mut all).unwrap();
    let (head, body) = all.split_once("\r\n\r\n").unwrap_or((&all, ""));
    let (status, headers) = head.split_once("\r\n").unwrap_or((head, ""));
    (
        status.to_string(),
        headers.to_ascii_lowercase(),
        body.to_string(),
    )
}

#[test]
fn the_ui_refuses_foreign_hosts_and_sends_its_security_headers() {
    let (ui, port) = ui_over_one_run("ui_hosts");
    let me = format!("127.0.0.1:{port}");
    let cases = [
        ("/", me.as_str(), "200"),
        ("/run/1", &format!("localhost:{port}"), "200"),
        ("/assets/ui.js", &format!("[::1]:{port}"), "200"),
        ("/run/1/flame/cpu.svg", &me, "200"),
        ("/run/999", &me, "404"),
        ("/no/such/page", &me, "404"),
        ("/flame/diff", &me, "400"),
        ("/", "evil.example", "421"),
        ("/run/1", &format!("evil.example:{port}"), "421"),
    ];
    let mut bad = Vec::new();
    for (path, host, want) in cases {
        let (status, headers, body) = get(port, path, host);
        let ok = status.split_whitespace().nth(1) == Some(want)
            && headers.contains("x-content-type-options: nosniff")
            && headers.contains("content-security-policy: default-src 'none';")
            // An SVG's policy allows its own inline blocks by hash; the
            // pages' allows this origin's files only.
            && (path.ends_with(".svg") || headers.contains("script-src 'self'; style-src 'self'"));
        if !ok {
            bad.push(format!("{path} as {host}: {status}\n{headers}"));
        }
        if want == "421" && body.trim().lines().count() != 1 {
            bad.push(format!(
                "{path} as {host}: a refusal of one line, not {body:?}"
            ));
        }
        if want == "200"
            && path != "/assets/ui.js"
            && (body.contains("<script>") || body.contains("<style>"))
        {
            bad.push(format!("{path}: inline script or style"));
        }
    }
    stop_ui(ui);
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn the_ui_cuts_a_client_that_trickles_its_headers() {
    use std::io::{Read, Write};
    let (ui, port) = ui_over_one_run("ui_slow");
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    // Bounds a read that would otherwise wait for ever.
    s.set_read_timeout(Some(std::time::Duration::from_secs(40)))
        .unwrap();
    let mut w = s.try_clone().unwrap();
    let trickle = std::thread::spawn(move || {
        let head = format!("GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n");
        for b in head
            .bytes()
            .chain(b"X-Slow: ".iter().copied())
            .chain(std::iter::repeat(b'a'))
        {
            if w.write_all(&[b]).is_err() {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(500));
        }
    });
    let start = std::time::Instant::now();
    let mut buf = Vec::new();
    let r = s.read_to_end(&mut buf);
    let held = start.elapsed();
    let _ = s.shutdown(std::net::Shutdown::Both);
    let _ = trickle.join();
    stop_ui(ui);
    // Cut by the server (end of stream or a reset), well before the
    // 40-second read bound: the header-read limit is 10 s.
    let cut = match &r {
        Ok(_) => true,
        Err(e) => e.kind() == std::io::ErrorKind::ConnectionReset,
    };
    assert!(
        cut && held < std::time::Duration::from_secs(30),
        "{r:?} after {held:?}"
    );
}
