//! Campaigns end to end against real sandbox MariaDBs: a 2-variant ×
//! 2-concurrency matrix runs, resumes after a partial run and after a kill
//! with no duplicate and no missing point, refuses a second runner of the
//! same campaign, and ends with the ratio matrix.

mod common;
use common::{json, lab, outcome, text};
use std::io::BufReader;
use std::process::Stdio;

fn campaign_file(name: &str, sandbox: &str) -> String {
    let path = lab().home.join(format!("{name}.toml"));
    std::fs::write(
        &path,
        format!(
            r#"
name = "{name}"
threads = [1, 2]
time = 2
reference = "spin-6"
[data]
tables = 2
table_size = 1000
[[server]]
label = "maria"
sandbox = "{sandbox}"
set = {{ innodb_buffer_pool_size = "64M" }}
[[variant]]
name = "spin-6"
set = {{ innodb_spin_wait_delay = 6 }}
[[variant]]
name = "spin-96"
set = {{ innodb_spin_wait_delay = 96, max_connections = 123 }}
sql = ["SET GLOBAL innodb_spin_wait_delay = 96"]
[[workload]]
name = "oltp_point_select"
"#
        ),
    )
    .unwrap();
    path.display().to_string()
}

fn ok_runs(store: &str) -> Vec<serde_json::Value> {
    let o = lab().qpslab(&[
        "runs", "--store", store, "--status", "ok", "--format", "json",
    ]);
    json(&o).as_array().unwrap().clone()
}

fn sandbox_running(name: &str) -> bool {
    let o = lab().qpslab(&["server", "list"]);
    text(&o)
        .lines()
        .any(|l| l.split_whitespace().next() == Some(name) && l.contains(" running"))
}

fn destroy(name: &str) {
    let _ = lab().qpslab(&["server", "destroy", "--name", name]);
}

#[test]
fn a_campaign_runs_resumes_and_ends_with_the_ratio_matrix() {
    let l = lab();
    let file = campaign_file("c-resume", "camp1");
    let store = l.home.join("c-resume.db").display().to_string();
    // a partial run first: only threads=1
    let o = l.qpslab(&[
        "campaign",
        "run",
        &file,
        "--threads",
        "1",
        "--store",
        &store,
    ]);
    assert!(o.status.success(), "{}", outcome(&o));
    assert_eq!(ok_runs(&store).len(), 2);
    // the sandbox it started is stopped at the end
    assert!(text(&o).contains("Stopped sandbox 'camp1'"), "{}", text(&o));
    assert!(!sandbox_running("camp1"), "camp1 left running");
    // variants are applied: the sandbox's my.cnf of the last variant has both settings
    let cnf = std::fs::read_to_string(l.home.join("sandboxes/camp1/my.cnf")).unwrap();
    assert!(
        cnf.contains("innodb_spin_wait_delay = 96") && cnf.contains("max_connections = 123"),
        "{cnf}"
    );
    // the full matrix: only the 2 missing points run; --keep-servers
    // leaves the sandbox up
    let o = l.qpslab(&[
        "campaign",
        "run",
        &file,
        "--store",
        &store,
        "--keep-servers",
    ]);
    let s = text(&o);
    assert!(o.status.success(), "{s}");
    assert!(
        sandbox_running("camp1") && !s.contains("Stopped sandbox"),
        "{s}"
    );
    assert!(s.contains("4 points, 2 done, 2 to run"), "{s}");
    // each round of repeats starts with the host's pre-flight check
    assert!(s.contains("Pre-flight, round 1: CPU loop CoV"), "{s}");
    // the end lists what each variant changed on the server, as captured
    assert!(
        s.contains("Server variables that differ from 'spin-6'")
            && s.contains("innodb_spin_wait_delay 6 -> 96")
            && s.contains("max_connections"),
        "{s}"
    );
    // the end lists what each variant sets
    assert!(
        s.contains("Variants (what each sets):")
            && s.contains("innodb_spin_wait_delay=96; max_connections=123; SQL: SET GLOBAL innodb_spin_wait_delay = 96"),
        "{s}"
    );
    assert!(
        s.contains("Ratio matrix") && s.contains("spin-96 / spin-6"),
        "{s}"
    );
    let runs = ok_runs(&store);
    assert_eq!(runs.len(), 4);
    let mut seen: Vec<(String, i64)> = runs
        .iter()
        .map(|r| {
            (
                r["variant"].as_str().unwrap().to_string(),
                r["threads"].as_i64().unwrap(),
            )
        })
        .collect();
    seen.sort();
    assert_eq!(
        seen,
        vec![
            ("spin-6".into(), 1),
            ("spin-6".into(), 2),
            ("spin-96".into(), 1),
            ("spin-96".into(), 2)
        ]
    );
    // status says everything is done; a rerun runs nothing
    let o = l.qpslab(&["campaign", "status", &file, "--store", &store]);
    assert!(
        text(&o).contains("4 points, 4 done, 0 pending"),
        "{}",
        text(&o)
    );
    let o = l.qpslab(&["campaign", "run", &file, "--store", &store]);
    assert!(
        text(&o).contains("4 points, 4 done, 0 to run"),
        "{}",
        text(&o)
    );
    assert_eq!(ok_runs(&store).len(), 4);
    // the analyses read the same runs
    let o = l.qpslab(&[
        "ratio", "spin-96", "spin-6", "--store", &store, "--format", "json",
    ]);
    let m = json(&o);
    assert_eq!(m[0]["rows"].as_array().unwrap().len(), 2, "{m}");
    let o = l.qpslab(&["scalability", "--store", &store, "--format", "csv"]);
    assert_eq!(text(&o).lines().count(), 5, "{}", text(&o));
    let o = l.qpslab(&["best", "--store", &store, "--format", "csv"]);
    let best = text(&o);
    assert!(
        best.starts_with("workload,threads,maria best qps,maria variant")
            && best.lines().count() == 3,
        "{best}"
    );
    // the campaign's report lists the variants and the variables they moved
    let html = l.home.join("c-resume.html").display().to_string();
    let id = runs[0]["campaign_id"].to_string();
    let o = l.qpslab(&["report", "--campaign", &id, "--store", &store, "-o", &html]);
    assert!(o.status.success(), "{}", outcome(&o));
    let page = std::fs::read_to_string(&html).unwrap();
    let variants = page
        .split(">Variants</h2>")
        .nth(1)
        .expect("no Variants section on the campaign page");
    assert!(
        variants.contains("innodb_spin_wait_delay=96; max_connections=123")
            && variants.contains("Server variables that differ from 'spin-6'")
            && variants.contains("<td class=\"l\">innodb_spin_wait_delay</td><td class=\"l\">6</td><td class=\"l\">96</td>"),
        "{variants}"
    );
    let (a, b) = (runs[0]["id"].to_string(), runs[1]["id"].to_string());
    let o = l.qpslab(&["compare", &a, &b, "--store", &store, "--format", "json"]);
    let c = json(&o);
    assert!(
        c["qps"]["p"].as_f64().unwrap() >= 0.0 && c["qps"]["a"]["n"].as_u64().unwrap() >= 1,
        "{c}"
    );
    // Two variants: a comparison, not repeats of one configuration.
    assert_eq!(c["same_configuration"], false, "{c}");
    destroy("camp1");
}

#[test]
fn a_killed_campaign_finishes_on_the_rerun_with_no_duplicate_or_missing_point() {
    let l = lab();
    let file = campaign_file("c-kill", "camp2");
    let store = l.home.join("c-kill.db").display().to_string();
    // Its stderr in a file, shown if it ends early.
    let err_path = l.home.join("c-kill.stderr");
    let mut child = l
        .command()
        .args(["campaign", "run", &file, "--store", &store])
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(&err_path).unwrap())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut seen = String::new();
    let first = common::read_until(&mut out, |line| {
        seen.push_str(line);
        seen.push('\n');
        line.starts_with("[1/4]")
    });
    if first.is_none() {
        let status = child.wait().unwrap();
        panic!(
            "the campaign ended before its first point ({status}); it printed:\n{seen}\nstderr:\n{}",
            std::fs::read_to_string(&err_path).unwrap_or_default()
        );
    }
    // the same campaign started again while it runs is refused, naming
    // the runner's pid, and changes nothing
    let second = l.qpslab(&["campaign", "run", &file, "--store", &store]);
    assert_eq!(second.status.code(), Some(2), "{}", text(&second));
    let err = String::from_utf8_lossy(&second.stderr);
    assert!(
        err.contains(&format!("already running (pid {})", child.id())),
        "{err}"
    );
    // a kill -9 leaves no lock behind: the rerun below takes it
    child.kill().unwrap();
    child.wait().unwrap();
    let before = ok_runs(&store).len();
    assert!((1..4).contains(&before), "{before}");
    let o = l.qpslab(&["campaign", "run", &file, "--store", &store]);
    assert!(o.status.success(), "{}", outcome(&o));
    let runs = ok_runs(&store);
    assert_eq!(runs.len(), 4, "duplicates or missing points");
    destroy("camp2");
}

#[test]
fn presets_are_listed_and_bad_files_are_refused() {
    let l = lab();
    let o = l.qpslab(&["campaign", "presets"]);
    for p in ["pfs-overhead", "scalability", "spin-delay"] {
        assert!(text(&o).contains(p), "{}", text(&o));
    }
    let bad = l.home.join("bad.toml");
    std::fs::write(
        &bad,
        "name = \"b\"\nthreads = [1]\n[[server]]\nlabel = \"x\"\n[[workload]]\nname = \"nope\"\n",
    )
    .unwrap();
    let o = l.qpslab(&["campaign", "run", bad.to_str().unwrap()]);
    assert!(
        !o.status.success() && text(&o).contains("unknown workload 'nope'"),
        "{}",
        text(&o)
    );
    let o = l.qpslab(&["campaign", "run", "--preset", "nope"]);
    assert!(
        !o.status.success() && text(&o).contains("no preset 'nope'"),
        "{}",
        text(&o)
    );
    for ex in [
        "examples/campaigns/versions.toml",
        "examples/campaigns/pfs-quick.toml",
        "examples/campaigns/engines.toml",
        "examples/campaigns/noise-check.toml",
    ] {
        let o = l.qpslab(&[
            "campaign",
            "status",
            ex,
            "--store",
            l.home.join("ex.db").to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{ex}: {}", text(&o));
    }
}

#[test]
fn a_campaign_on_an_external_server_by_dsn() {
    let l = lab();
    l.fresh_db("campdsn");
    l.sql("mysql", "CREATE OR REPLACE USER 'camp'@'%' IDENTIFIED BY 'camp-pw'; GRANT ALL ON *.* TO 'camp'@'%';");
    let path = l.home.join("c-dsn.toml");
    std::fs::write(
        &path,
        format!(
            r#"
name = "c-dsn"
threads = [2]
time = 1
client_cpus = "0"
[data]
tables = 1
table_size = 500
[[server]]
label = "external"
dsn = "mysql://camp:camp-pw@127.0.0.1:{}/campdsn"
[[variant]]
name = "spin-7"
set = {{ innodb_spin_wait_delay = 7 }}
[[variant]]
name = "spin-9"
set = {{ innodb_spin_wait_delay = 9 }}
[[workload]]
name = "oltp_read_only"
options = {{ range_size = 10, skip_trx = "on" }}
"#,
            l.port()
        ),
    )
    .unwrap();
    let store = l.home.join("c-dsn.db").display().to_string();
    // the data size overridden from the command line (the file says 500)
    let o = l.qpslab(&[
        "campaign",
        "run",
        path.to_str().unwrap(),
        "--table-size",
        "400",
        "--store",
        &store,
    ]);
    let s = text(&o);
    assert!(o.status.success(), "{s}");
    assert!(!s.contains("camp-pw"), "the DSN password leaked: {s}");
    let runs = ok_runs(&store);
    assert_eq!(runs.len(), 2);
    // the last variant's setting is in force, the data was prepared, the options applied
    assert_eq!(
        l.sql("mysql", "SELECT @@GLOBAL.innodb_spin_wait_delay")
            .trim(),
        "9"
    );
    assert_eq!(
        l.sql("campdsn", "SELECT COUNT(*) FROM sbtest1").trim(),
        "400"
    );
    let d = l.shown(&runs[0]["id"], &store);
    assert_eq!(d["options"]["oltp"]["range_size"], 10);
    assert_eq!(d["options"]["oltp"]["skip_trx"], true);
    // the campaign's client_cpus pinned every run's load threads
    assert_eq!(d["options"]["client_cpus"], "0", "{}", d["options"]);
    assert!(!d["command_line"].as_str().unwrap().contains("camp-pw"));
    // nothing in the store's files holds the password: every file of it
    // that exists (the -wal and -shm ones are gone once it is closed), the
    // store itself at least
    let files: Vec<std::path::PathBuf> = std::fs::read_dir(&l.home)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("c-dsn.db"))
        })
        .collect();
    assert!(
        files.iter().any(|p| p.ends_with("c-dsn.db")),
        "the store c-dsn.db is missing: {files:?}"
    );
    for f in &files {
        let bytes = std::fs::read(f).unwrap();
        assert!(
            !bytes.windows(7).any(|w| w == b"camp-pw"),
            "password found in {}",
            f.display()
        );
    }
    // status after a run with overrides: the points that run made, said
    // so; and by the campaign's id
    let id = runs[0]["campaign_id"]
        .as_i64()
        .expect("the run's campaign")
        .to_string();
    for what in [path.to_str().unwrap(), id.as_str()] {
        let o = l.qpslab(&["campaign", "status", what, "--store", &store]);
        let s = text(&o);
        assert!(o.status.success(), "{what}: {s}");
        assert!(
            s.contains("2 points, 2 done, 0 pending")
                && s.contains("its last run's overrides: table_size=400"),
            "{what}: {s}"
        );
    }
    let o = l.qpslab(&["campaign", "status", "999", "--store", &store]);
    assert!(
        !o.status.success() && text(&o).contains("no campaign 999"),
        "{}",
        text(&o)
    );
    l.sql("mysql", "SET GLOBAL innodb_spin_wait_delay = 4");
}

#[test]
fn until_interval_adds_rounds_until_the_ratios_are_narrow_or_the_cap() {
    let l = lab();
    l.fresh_db("campuntil");
    l.sql(
        "mysql",
        "CREATE OR REPLACE USER 'cu'@'%' IDENTIFIED BY 'cu-pw'; GRANT ALL ON *.* TO 'cu'@'%';",
    );
    let path = l.home.join("c-until.toml");
    std::fs::write(
        &path,
        format!(
            "name = \"c-until\"\nthreads = [1]\ntime = 1\nwarmup = 0\ncooldown = 0\nrepeat = 2\n\
             [data]\ntables = 1\ntable_size = 200\n[[server]]\nlabel = \"external\"\n\
             dsn = \"mysql://cu:cu-pw@127.0.0.1:{}/campuntil\"\n\
             [[variant]]\nname = \"a\"\nset = {{ max_error_count = 64 }}\n\
             [[variant]]\nname = \"b\"\nset = {{ max_error_count = 65 }}\n\
             [[workload]]\nname = \"oltp_point_select\"\n",
            l.port()
        ),
    )
    .unwrap();
    let file = path.to_str().unwrap();
    // A goal any two rounds meet: it stops after the file's 2 rounds.
    let store = l.home.join("c-until.db").display().to_string();
    let o = l.qpslab(&[
        "campaign",
        "run",
        file,
        "--until-interval",
        "1000",
        "--max-rounds",
        "4",
        "--store",
        &store,
    ]);
    let s = text(&o);
    assert!(o.status.success(), "{s}");
    assert!(
        s.contains("every ratio's interval is within it after round 2")
            && s.contains("Pre-flight, round 2"),
        "{s}"
    );
    assert_eq!(ok_runs(&store).len(), 4, "{s}");
    // A goal no run meets: the cap, said as not reached.
    let store = l.home.join("c-until-cap.db").display().to_string();
    let o = l.qpslab(&[
        "campaign",
        "run",
        file,
        "--until-interval",
        "0.0001",
        "--max-rounds",
        "3",
        "--store",
        &store,
    ]);
    let s = text(&o);
    assert!(o.status.success(), "{s}");
    assert!(
        s.contains("--until-interval 0.0001%: not reached after 3 rounds"),
        "{s}"
    );
    assert_eq!(ok_runs(&store).len(), 6, "{s}");
    l.sql("mysql", "SET GLOBAL max_error_count = 64");
}
