//! The results store against a real sandbox MariaDB: every run is recorded
//! with its environment, samples and statements; a killed run keeps its
//! samples and reads back as failed.

mod common;
use common::{json, lab, outcome, svg_titled, text};
use std::io::BufReader;
use std::process::Stdio;

fn store_path(name: &str) -> String {
    lab().home.join(format!("{name}.db")).display().to_string()
}

/// Latency as a distribution for oltp_read_write run `id` (11 statement
/// kinds): the report's spectrum of all events and each statement with
/// percentile ticks, each statement's p95 over time, and `chart`
/// overlaying the spectra of two runs.
fn latency_views(id: i64, store: &str, db: &str) {
    let l = lab();
    let dir = l.home.join("latency-views");
    std::fs::create_dir_all(&dir).unwrap();
    let file = |name: &str| dir.join(name).display().to_string();
    let report = file("run.html");
    let o = l.qpslab(&["report", &id.to_string(), "--store", store, "-o", &report]);
    assert!(o.status.success(), "{}", outcome(&o));
    let html = std::fs::read_to_string(&report).unwrap();
    let spectrum = svg_titled(&html, "Latency spectrum: all events and each statement");
    assert_eq!(spectrum.matches("<polyline").count(), 12, "{spectrum}");
    for tick in [">0<", ">90<", ">99<"] {
        assert!(spectrum.contains(tick), "{tick} missing: {spectrum}");
    }
    assert!(
        html.contains("values)") && html.contains("p99.9"),
        "counts and the table"
    );
    let over_time = svg_titled(&html, "Latency per statement over time, p95");
    assert_eq!(over_time.matches("<polyline").count(), 11, "{over_time}");
    // `show --format json`: a percentile table for all events and each statement
    let shown = l.shown(id, store);
    let tables = shown["latency_percentiles"]
        .as_array()
        .expect("percentile tables");
    assert_eq!(tables.len(), 12);
    assert_eq!(tables[0]["name"], "all events");
    assert_eq!(tables[0]["rows"][0]["percentile"], 50.0);
    assert!(tables[0]["rows"][0]["ms"].as_f64().unwrap() > 0.0);
    let o = l.on_sandbox(&[
        "run",
        "oltp_point_select",
        "--db",
        db,
        "--table-size",
        "1000",
        "--time",
        "1",
        "--format",
        "json",
        "--store",
        store,
    ]);
    assert!(o.status.success(), "{}", outcome(&o));
    let second = json(&o)["run_id"].as_i64().expect("run_id").to_string();
    let two = file("two.svg");
    let args = ["chart", &id.to_string(), &second, "--metric", "spectrum"];
    let o = l.qpslab(&[&args[..], &["--store", store, "-o", &two]].concat());
    assert!(o.status.success(), "{}", outcome(&o));
    let svg = std::fs::read_to_string(&two).unwrap();
    assert_eq!(svg.matches("<polyline").count(), 2, "{svg}");
    assert!(svg.contains(">99<") && svg.contains(&format!("run {second}: ")));
    let per_statement = file("statements.svg");
    let args = ["chart", &id.to_string(), "--metric", "statement-p99"];
    let o = l.qpslab(&[&args[..], &["--store", store, "-o", &per_statement]].concat());
    assert!(o.status.success(), "{}", outcome(&o));
    let svg = std::fs::read_to_string(&per_statement).unwrap();
    assert_eq!(svg.matches("<polyline").count(), 11, "{svg}");
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
    assert!(o.status.success(), "{}", outcome(&o));
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
    latency_views(id, &store, &db);
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
    assert!(o.status.success(), "{}", outcome(&o));
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
    // each round's pre-flight check is said (on stderr beside the JSON)
    // and kept with its runs, as a campaign's
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("Pre-flight, round 1: CPU loop CoV") && err.contains("Pre-flight, round 2"),
        "{err}"
    );
    assert!(
        shown["host"]["preflight"]["seconds"].as_f64().unwrap() > 0.0,
        "{}",
        shown["host"]
    );
    // ... and in its own column (schema v11), which the campaign page
    // reads for all its runs in one query
    let s = qpslab::store::Store::open_read_only(std::path::Path::new(&store), |_| false).unwrap();
    let parts = s.campaign_parts(campaign).unwrap();
    assert_eq!(parts.len(), 6, "{parts:?}");
    assert!(
        parts.values().all(
            |p| p.preflight.as_ref().is_some_and(|f| f.seconds > 0.0) && p.operations.is_none()
        ),
        "{parts:?}"
    );
    drop(s);
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
    assert!(o.status.success(), "{}", outcome(&o));
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
    assert!(o.status.success(), "{}", outcome(&o));
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(
        page.contains(&format!("Campaigns {campaign}, {other}"))
            && page.contains("Best to best, all campaigns")
            && page.contains(&format!("(c{campaign})"))
            && page.contains(&format!("(c{other})")),
        "{page}"
    );
    // without -o: a named file in the current directory, and the line says it
    let here = l.home.join("no-o");
    std::fs::create_dir_all(&here).unwrap();
    for (args, file) in [
        (
            vec!["report", "--campaign", &campaign],
            format!("qpslab-campaign-{campaign}.html"),
        ),
        (
            vec!["chart", "--campaign", &campaign],
            format!("qpslab-campaign-{campaign}-qps.svg"),
        ),
    ] {
        let mut c = l.command();
        let o = c
            .current_dir(&here)
            .args(&args)
            .args(["--store", &store])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", outcome(&o));
        assert!(
            here.join(&file).is_file() && text(&o).contains(&file),
            "{}",
            text(&o)
        );
    }
    let o = sweep("oltp_point_select,oltp_point_select");
    assert!(
        !o.status.success() && text(&o).contains("listed twice"),
        "{}",
        text(&o)
    );
}

/// A store of three short runs (a sweep of 1, 2 and 4 threads), made once
/// and closed by its writer (no WAL left); each test copies it into a
/// directory of its own, and gets that copy's path.
fn three_runs_copy(dir_name: &str) -> std::path::PathBuf {
    static STORE: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    let made = STORE.get_or_init(|| {
        let l = lab();
        let db = l.prepared_db("st_three", 500);
        let dir = l.home.join("three");
        std::fs::create_dir_all(&dir).unwrap();
        let store = dir.join("s.db");
        let o = l.on_sandbox(&[
            "sweep",
            "oltp_point_select",
            "--db",
            &db,
            "--table-size",
            "500",
            "--threads",
            "1,2,4",
            "--time",
            "1",
            "--store",
            store.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", outcome(&o));
        store
    });
    let dir = lab().home.join(dir_name);
    std::fs::create_dir_all(&dir).unwrap();
    let copy = dir.join("s.db");
    std::fs::copy(made, &copy).unwrap();
    copy
}

fn listing(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn read_only_opens_create_no_files_beside_the_store() {
    let store = three_runs_copy("ro_sidecars");
    let dir = store.parent().unwrap();
    let s = store.to_str().unwrap();
    assert_eq!(listing(dir), ["s.db"]);
    let l = lab();
    let html = l.home.join("ro_sidecars.html");
    let reads: [&[&str]; 4] = [
        &["runs", "--store", s, "--format", "json"],
        &["show", "1", "--store", s],
        &["report", "2", "-o", html.to_str().unwrap(), "--store", s],
        &["runs", "--status", "ok", "--store", s],
    ];
    for args in reads {
        let o = l.qpslab(args);
        assert!(o.status.success(), "{args:?}: {}", text(&o));
        assert_eq!(listing(dir), ["s.db"], "after {args:?}");
    }
    let runs = json(&l.qpslab(&["runs", "--store", s, "--format", "json"]));
    assert_eq!(runs.as_array().unwrap().len(), 3, "{runs}");
}

#[test]
fn a_damaged_store_is_refused_by_writers_in_one_line() {
    let store = three_runs_copy("damaged");
    let s = store.to_str().unwrap();
    // Garbage over the second half of the samples table's root page (its
    // cells sit at the page's end).
    let (page, size): (i64, i64) = {
        let c = rusqlite::Connection::open(&store).unwrap();
        let page = c
            .query_row(
                "SELECT rootpage FROM sqlite_schema WHERE name = 'samples'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        (
            page,
            c.query_row("PRAGMA page_size", [], |r| r.get(0)).unwrap(),
        )
    };
    let mut bytes = std::fs::read(&store).unwrap();
    let at = ((page - 1) * size + size / 2) as usize;
    bytes[at..at + (size / 2) as usize].fill(0xA5);
    std::fs::write(&store, bytes).unwrap();
    let l = lab();
    let db = l.prepared_db("st_damaged", 100);
    let o = l.on_sandbox(&[
        "run",
        "oltp_point_select",
        "--db",
        &db,
        "--table-size",
        "100",
        "--time",
        "1",
        "--store",
        s,
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "{}", outcome(&o));
    let line = err
        .lines()
        .find(|l| l.contains("is damaged"))
        .unwrap_or_else(|| panic!("no damaged-store error: {}", text(&o)));
    assert!(
        line.contains(s) && line.contains(".recover") && line.contains("backup"),
        "{line}"
    );
}

#[test]
fn a_wal_that_cannot_be_read_is_noted_not_dropped_silently() {
    let store = three_runs_copy("hot_wal_src");
    // A fourth run left in the WAL (never checkpointed into the file).
    let hot = lab().home.join("hot_wal");
    std::fs::create_dir_all(&hot).unwrap();
    {
        let c = rusqlite::Connection::open(&store).unwrap();
        c.execute_batch(
            "PRAGMA wal_autocheckpoint = 0;
             CREATE TEMP TABLE r AS SELECT * FROM runs WHERE id = 1;
             UPDATE r SET id = 4, uid = lower(hex(randomblob(16)));
             INSERT INTO runs SELECT * FROM r;",
        )
        .unwrap();
        for f in ["s.db", "s.db-wal", "s.db-shm"] {
            std::fs::copy(store.with_file_name(f), hot.join(f)).unwrap();
        }
    }
    let l = lab();
    let s = hot.join("s.db").display().to_string();
    let runs = |ro_media: bool| {
        let mut c = l.command();
        c.args(["runs", "--store", &s, "--format", "json"]);
        if ro_media {
            c.env("QPSLAB_STORE_READ_ONLY_MEDIA", "1");
        }
        let o = c.output().unwrap();
        assert!(o.status.success(), "{}", outcome(&o));
        (
            json(&o).as_array().unwrap().len(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    // On read-only media with the -shm there, the WAL is read through it.
    let (n, err) = runs(true);
    assert_eq!((n, err.as_str()), (4, ""), "{err}");
    assert_eq!(listing(&hot), ["s.db", "s.db-shm", "s.db-wal"]);
    // Without it, the WAL cannot be read there: the reader is told.
    std::fs::remove_file(hot.join("s.db-shm")).unwrap();
    let (n, err) = runs(true);
    assert_eq!(n, 3, "{err}");
    assert!(
        err.contains("runs recorded after run 3 may be missing")
            && err.contains("WAL")
            && err.contains("writable"),
        "{err}"
    );
    assert_eq!(listing(&hot), ["s.db", "s.db-wal"]);
    // Where it is writable, all four are read.
    assert_eq!(runs(false).0, 4);
}
