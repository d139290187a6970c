//! The web UI and the HTML reports in a real browser (Debian's headless
//! Chromium driven by playwright-core, see tests/ui/check.mjs): pages load
//! with no console errors, charts carry data and share a run's time axis,
//! clicking a run opens it, a campaign of 5 variants x 2 workloads has a
//! chart per workload with every legend entry whole at 1,400 and 800 px, a
//! running run's live summary moves, the reports work offline and carry
//! their environment. Screenshots of every page at both widths land in
//! target/ui-artifacts/.

mod common;
use common::{lab, text};
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
    assert!(o.status.success(), "{}", text(&o));
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
    assert!(o.status.success(), "{}", text(&o));
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
    assert!(o.status.success(), "{}", text(&o));
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
    assert!(o.status.success(), "{}", text(&o));
    let report = l.home.join("report.html");
    let o = l.qpslab(&[
        "report",
        "3",
        "-o",
        report.to_str().unwrap(),
        "--store",
        &store,
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let o = l.qpslab(&[
        "report",
        "--campaign",
        "1",
        "-o",
        l.home.join("campaign.html").to_str().unwrap(),
        "--store",
        &store,
    ]);
    assert!(o.status.success(), "{}", text(&o));
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
    assert!(o.status.success(), "{}", text(&o));
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
    assert!(o.status.success(), "{}", text(&o));
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
    // A run in progress, for the live page (bounded: 60 s, stopped below).
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
        .args(["--table-size", "2000", "--time", "60", "--store", &store])
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
    assert!(o.status.success(), "{}", text(&o));
}
