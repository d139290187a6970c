//! Every page and report escapes what it shows: runs on a real sandbox
//! with labels, variants, a script path, script options, a campaign, its
//! server and variant names and server variable values carrying HTML
//! (`<script>`, an attribute break-out with `onerror`, and an entity),
//! plus, written into the same store, a running run with a hostile
//! environment and a profile with hostile frames and lock names. Each
//! page, report, flame graph and chart is rendered in process by the
//! library and parsed with a real HTML parser (scraper, html5ever): no
//! `<script>`, `<img>` or event attribute comes from the strings, and the
//! strings are there as text.

mod common;
use common::{lab, outcome, Lab};
use qpslab::stats::document::{HostDocument, OptionsDocument, RunOptions, SandboxDocument};
use qpslab::store::{NewRun, RunFilter, Store};
use qpslab::ui::{self, Mode};
use scraper::{ElementRef, Html};
use serde_json::json;
use std::collections::HashMap;

const SCRIPT: &str = "<script>alert(1)</script>";
const BREAK_OUT: &str = "\"'><img src=x onerror=alert(1)>";
const ENTITY: &str = "&amp;";

/// All three, as one name.
fn hostile(prefix: &str) -> String {
    format!("{prefix} {SCRIPT} {BREAK_OUT} {ENTITY}")
}

/// The event attributes and scripts of a document, as (element,
/// attribute, value) and script sources or texts.
struct Active {
    handlers: Vec<(String, String, String)>,
    scripts: Vec<String>,
    images: usize,
}

fn active(doc: &Html) -> Active {
    let mut a = Active {
        handlers: Vec::new(),
        scripts: Vec::new(),
        images: 0,
    };
    for el in doc
        .root_element()
        .descendants()
        .filter_map(ElementRef::wrap)
    {
        let name = el.value().name();
        for (k, v) in el.value().attrs() {
            if k.to_ascii_lowercase().starts_with("on") {
                a.handlers.push((name.into(), k.into(), v.into()));
            }
        }
        match name {
            "script" => {
                a.scripts.push(
                    el.value()
                        .attr("src")
                        .map(str::to_string)
                        .unwrap_or_else(|| {
                            format!("inline, {} bytes", el.text().map(str::len).sum::<usize>())
                        }),
                )
            }
            "img" | "image" => a.images += 1,
            _ => {}
        }
    }
    a
}

/// Checks a page: the scripts are the page's own (`scripts`), nothing
/// else is active, and each hostile string is in its text (`shown`).
fn check_page(what: &str, html: &str, mode: Mode, shown: &[&str], bad: &mut Vec<String>) {
    let doc = Html::parse_document(html);
    let a = active(&doc);
    let want: &[&str] = match mode {
        Mode::Ui => &["/assets/ui.js"],
        Mode::Report => &["inline"],
    };
    let ok_scripts = a.scripts.len() == 1 && a.scripts[0].starts_with(want[0]);
    if !ok_scripts || !a.handlers.is_empty() || a.images > 0 {
        bad.push(format!(
            "{what}: scripts {:?}, handlers {:?}, images {}",
            a.scripts, a.handlers, a.images
        ));
    }
    let text: String = doc.root_element().text().collect();
    for s in shown {
        if !text.contains(s) {
            bad.push(format!("{what}: {s:?} is not in the page's text"));
        }
    }
    // The raw markup never holds a string as it was (it is escaped).
    for s in [SCRIPT, "<img src=x"] {
        if html.contains(s) {
            bad.push(format!("{what}: {s:?} is in the markup unescaped"));
        }
    }
}

/// Checks an SVG (a chart file or a flame graph) against `baseline`, the
/// same kind of drawing of harmless names: the same scripts and handlers
/// (inferno's own), no image, the strings as text.
fn check_svg(what: &str, svg: &str, baseline: &Active, shown: &[&str], bad: &mut Vec<String>) {
    let doc = Html::parse_document(svg);
    let a = active(&doc);
    if a.handlers != baseline.handlers || a.scripts.len() != baseline.scripts.len() || a.images > 0
    {
        bad.push(format!(
            "{what}: scripts {:?}, handlers {:?}, images {} (harmless: {:?}, {:?})",
            a.scripts, a.handlers, a.images, baseline.scripts, baseline.handlers
        ));
    }
    let text: String = doc.root_element().text().collect();
    for s in shown {
        if !text.contains(s) {
            bad.push(format!("{what}: {s:?} is not in its text"));
        }
    }
}

/// A Lua script under a directory path with the strings in it, with a
/// string option.
fn hostile_script(home: &std::path::Path) -> std::path::PathBuf {
    // `<script>alert(1)</script>` as a path: its `/` makes two directories.
    let dir = home
        .join(format!("scripts {ENTITY} <script>alert(1)<"))
        .join("script>");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{BREAK_OUT}.lua"));
    std::fs::write(
        &path,
        "sysbench.cmdline.options.note = {\"a note\", \"x\"}\n\
         function thread_init()\n  drv = sysbench.sql.driver()\n  con = drv:connect()\nend\n\
         function event()\n  con:query(\"SELECT '<b>' AS x, COUNT(*) FROM sbtest1\")\nend\n",
    )
    .unwrap();
    path
}

/// A profile summary and stacks with hostile names, for run `id`.
fn hostile_profile(store: &Store, id: i64, share: f64) {
    let frame = hostile("frame");
    let stacks: std::collections::BTreeMap<String, u64> = [
        (format!("start_thread;do_command;{frame}"), 30),
        ("start_thread;do_command;dispatch_command".to_string(), 10),
    ]
    .into_iter()
    .collect();
    store.add_profile(id, "cpu", &stacks).unwrap();
    store.add_profile(id, "offcpu", &stacks).unwrap();
    store
        .add_profile_series(
            id,
            "syscalls",
            &[(format!("server/{frame}"), vec![5.0, 6.0, 7.0])],
        )
        .unwrap();
    let summary = json!({
        "locks": {"source": hostile("source"), "shares": [[hostile("family"), share]],
                  "top_stack": format!("start_thread;{frame}")},
        "kinds": [
            {"kind": "cpu", "seconds": 1.0, "collector_cpu_s": 0.1,
             "top_self": [{"name": frame, "pct": 75.0, "samples": 30}]},
            {"kind": "offcpu", "error": hostile("error")},
            {"kind": "syscalls", "sides": {"server": {"per_second": 10.0, "per_query": 1.5,
                "top": [{"name": hostile("syscall"), "per_query": 1.0}]}}},
            {"kind": "waits", "timed_instruments": 1, "instruments": 2, "threads": 3,
             "top_events": [[hostile("event"), 0.5]]},
        ]
    });
    store
        .set_run_profile(id, &serde_json::from_value(summary).unwrap())
        .unwrap();
}

/// Runs on the sandbox with the strings in their names, script path,
/// options and server variables, and a campaign by DSN whose names and
/// variant settings carry them, recorded in `store`.
fn record_runs(l: &Lab, store_path: &std::path::Path) {
    let store = store_path.display().to_string();
    let db = l.prepared_db("html_inj", 200);
    let (label, variant, note) = (hostile("label"), hostile("variant"), hostile("note"));
    // A server variable with the strings, captured with the run.
    l.sql(
        "mysql",
        &format!(
            "SET GLOBAL init_slave = '{}'",
            hostile("var").replace('\'', "''")
        ),
    );
    let script = hostile_script(&l.home);
    let o = l.on_db(
        &db,
        &[
            "run",
            script.to_str().unwrap(),
            "--time",
            "1",
            "--label",
            &label,
            "--variant",
            &variant,
            &format!("--note={note}"),
            "--store",
            &store,
        ],
    );
    assert!(o.status.success(), "{}", outcome(&o));
    let o = l.on_db(
        &db,
        &[
            "run",
            "oltp_point_select",
            "--table-size",
            "200",
            "--time",
            "1",
            "--label",
            &label,
            "--store",
            &store,
        ],
    );
    assert!(o.status.success(), "{}", outcome(&o));
    // A campaign by DSN whose names and variant settings carry the strings.
    l.sql("mysql", "CREATE OR REPLACE USER 'htmlinj'@'%' IDENTIFIED BY 'htmlinj-pw'; GRANT ALL ON *.* TO 'htmlinj'@'%';");
    let toml_str = |s: &str| serde_json::to_string(s).unwrap();
    let file = l.home.join("html-injection.toml");
    std::fs::write(
        &file,
        format!(
            "name = {}\nthreads = [1, 2]\ntime = 1\n[data]\ntables = 1\ntable_size = 200\n\
             [[server]]\nlabel = {}\ndsn = \"mysql://htmlinj:htmlinj-pw@127.0.0.1:{}/{db}\"\n\
             [[variant]]\nname = {}\nset = {{ init_slave = {} }}\n\
             [[variant]]\nname = {}\nset = {{ init_slave = {} }}\n\
             [[workload]]\nname = \"oltp_point_select\"\n",
            toml_str(&hostile("campaign")),
            toml_str(&hostile("server")),
            l.port(),
            toml_str(&hostile("one")),
            toml_str(&hostile("value one")),
            toml_str(&hostile("two")),
            toml_str(&hostile("value two")),
        ),
    )
    .unwrap();
    let o = l.qpslab(&["campaign", "run", file.to_str().unwrap(), "--store", &store]);
    l.sql("mysql", "SET GLOBAL init_slave = ''");
    assert!(o.status.success(), "{}", outcome(&o));
}

/// A statement kind with a hostile name for run `id`: its histogram
/// (for the spectrum and percentile table) and its figures in every
/// interval (for the chart over time).
fn hostile_statement(store_path: &std::path::Path, id: i64) {
    let mut h = qpslab::stats::Hist::new();
    for us in [120, 250, 900, 4000] {
        h.record(us);
    }
    let c = rusqlite::Connection::open(store_path).unwrap();
    c.execute(
        "INSERT INTO run_statements (run_id, statement, count, lat_avg_ms, lat_p95_ms, lat_p99_ms, lat_max_ms, histogram)
         VALUES (?1, ?2, 4, 1.3, 4.0, 4.0, 4.0, ?3)",
        rusqlite::params![id, hostile("statement"), h.to_v2_bytes()],
    )
    .unwrap();
    c.execute(
        "INSERT INTO sample_statements (run_id, statement, seq, count, lat_p50_ms, lat_p95_ms, lat_p99_ms, lat_max_ms)
         SELECT run_id, ?2, seq, 4, 0.2, 4.0, 4.0, 4.0 FROM samples WHERE run_id = ?1",
        rusqlite::params![id, hostile("statement")],
    )
    .unwrap();
}

/// The runs the pages are rendered for.
struct Ids {
    script_run: i64,
    plain_run: i64,
    /// A run still going, in the campaign, with a hostile environment.
    live: i64,
    campaign: i64,
}

/// The store of `record_runs` with hostile profiles and a running run
/// added in process.
fn hostile_store(store_path: &std::path::Path) -> (Store, Ids) {
    let (label, variant, note) = (hostile("label"), hostile("variant"), hostile("note"));
    let s = Store::open(store_path).unwrap();
    let runs = s.list_runs(&RunFilter::default()).unwrap();
    let script_run = runs
        .iter()
        .find(|r| r.workload.ends_with(".lua"))
        .expect("the script's run")
        .id;
    let plain_run = runs
        .iter()
        .find(|r| r.workload == "oltp_point_select" && r.campaign_id.is_none())
        .expect("the plain run")
        .id;
    let campaign = runs
        .iter()
        .find_map(|r| r.campaign_id)
        .expect("the campaign's runs");
    // Profiles with hostile frames and lock families; the campaign's runs'
    // lock share grows with users (for the scaling limiters).
    hostile_profile(&s, script_run, 0.4);
    hostile_profile(&s, plain_run, 0.2);
    hostile_statement(store_path, script_run);
    for r in runs.iter().filter(|r| r.campaign_id.is_some()) {
        hostile_profile(&s, r.id, 0.1 * r.threads as f64);
    }
    // A run still going, in the campaign, with a hostile environment.
    let live = s
        .begin_run(&NewRun {
            campaign_id: Some(campaign),
            label: Some(label.clone()),
            variant: Some(variant.clone()),
            workload: hostile("workload"),
            threads: 1,
            options: OptionsDocument::Load(RunOptions {
                time: 10.0,
                warmup_time: 1.0,
                oltp: json!({ "note": note }),
                ..Default::default()
            }),
            server_flavor: Some(hostile("flavor")),
            server_version: Some(hostile("version")),
            server_variables: Some(json!({"init_slave": hostile("var"), "datadir": hostile("dir")})),
            server_cnf: Some(hostile("cnf")),
            server_nondefault: Some(json!({hostile("nd"): {"value": hostile("v"), "default": hostile("d"), "origin": hostile("o")}})),
            sandbox: Some(SandboxDocument {
                name: hostile("sandbox"),
                ..Default::default()
            }),
            host: HostDocument {
                cpu_model: hostile("cpu"),
                cpus: 2,
                memory: hostile("mem"),
                kernel: hostile("kernel"),
                ..Default::default()
            },
            command_line: hostile("command"),
            ..Default::default()
        })
        .unwrap();
    curate(&s, &[script_run, plain_run], campaign);

    let ids = Ids {
        script_run,
        plain_run,
        live,
        campaign,
    };
    (s, ids)
}

/// A tag that is the strings themselves (no spaces: `qpslab tag` takes
/// it), a quote-breaking one, and a note with all of them.
const TAGS: [&str; 2] = [SCRIPT, "\"'><img/src=x/onerror=alert(1)>"];

/// Tags, a note and the excluded mark on `runs`, and a baseline of their
/// workload pinned to another run (so the run page's baseline section is
/// drawn too).
fn curate(s: &Store, runs: &[i64], campaign: i64) {
    for &id in runs {
        let tags: Vec<String> = TAGS.iter().map(|t| t.to_string()).collect();
        s.add_tags(id, &tags).unwrap();
        s.set_note(id, Some(&hostile("user-note"))).unwrap();
        s.set_excluded(id, true).unwrap();
    }
    let base = s
        .list_runs(&RunFilter {
            campaign: Some(campaign),
            status: Some("ok".into()),
            ..Default::default()
        })
        .unwrap()[0]
        .id;
    s.pin_baseline("oltp_point_select", None, base).unwrap();
}

/// Every page in both modes.
fn check_pages(s: &Store, ids: &Ids, bad: &mut Vec<String>) {
    let Ids {
        script_run,
        plain_run,
        live,
        campaign,
    } = *ids;
    let label = hostile("label");
    let all = [SCRIPT, BREAK_OUT, ENTITY];
    let q: HashMap<String, String> = [("label".to_string(), label.clone())].into_iter().collect();
    check_page(
        "index",
        &ui::index_page(s, &q).unwrap(),
        Mode::Ui,
        &all,
        bad,
    );
    // The runs list and the run pages show the tags and the note as text.
    let note = hostile("user-note");
    let curated = [SCRIPT, BREAK_OUT, ENTITY, TAGS[1], note.as_str()];
    check_page(
        "index, no filter",
        &ui::index_page(s, &HashMap::new()).unwrap(),
        Mode::Ui,
        &curated,
        bad,
    );
    for mode in [Mode::Ui, Mode::Report] {
        for id in [script_run, plain_run, live] {
            let page = ui::run_page(s, id, mode).unwrap().expect("the run's page");
            let shown: &[&str] = if id == live { &all } else { &curated };
            check_page(
                &format!("run {id} ({})", name(mode)),
                &page,
                mode,
                shown,
                bad,
            );
            if id == plain_run && !page.contains("Against the baseline") {
                bad.push(format!("run {id}: no baseline section"));
            }
        }
        let page = ui::campaign_page(s, campaign, mode)
            .unwrap()
            .expect("the campaign's page");
        check_page(
            &format!("campaign ({})", name(mode)),
            &page,
            mode,
            &all,
            bad,
        );
        let page = ui::campaigns_page(s, &[campaign, campaign], mode).unwrap();
        check_page(
            &format!("campaigns ({})", name(mode)),
            &page,
            mode,
            &all,
            bad,
        );
        let ids = [script_run, plain_run, live];
        let metric = format!("status:{SCRIPT}");
        let page = ui::overlay_page(s, &ids, Some(&metric), mode).unwrap();
        check_page(&format!("overlay ({})", name(mode)), &page, mode, &all, bad);
    }
}

/// The flame graphs (plain and differential) and the chart files.
fn check_drawings(s: &Store, ids: &Ids, bad: &mut Vec<String>) {
    let Ids {
        script_run,
        plain_run,
        campaign,
        ..
    } = *ids;
    let all = [SCRIPT, BREAK_OUT, ENTITY];
    // Flame graphs and the chart files against harmless drawings.
    let plain = {
        let mut f = qpslab::profiler::Folded::default();
        f.add(&["start_thread", "do_command", "dispatch_command"], 10);
        let svg = qpslab::report::flame::svg(&f, qpslab::profiler::Kind::Cpu, "harmless").unwrap();
        active(&Html::parse_document(&svg))
    };
    for kind in ["cpu", "offcpu"] {
        let svg = ui::profile_section::flame_svg(s, script_run, kind)
            .unwrap()
            .unwrap();
        check_svg(
            &format!("flame graph {kind}"),
            &svg,
            &plain,
            &["alert(1)"],
            bad,
        );
        let svg = ui::profile_section::diff_svg(s, plain_run, script_run, kind)
            .unwrap()
            .unwrap();
        check_svg(
            &format!("differential flame graph {kind}"),
            &svg,
            &plain,
            &["alert(1)"],
            bad,
        );
    }
    let none = active(&Html::parse_document(
        &qpslab::report::chart::Chart::new("harmless", "x", "y").svg_file(),
    ));
    let chart = ui::campaign_chart(s, campaign, "qps", None)
        .unwrap()
        .svg_file();
    check_svg("campaign chart", &chart, &none, &all, bad);
    // The latency charts: hostile statement names, labels and variants.
    let spectra = [
        (
            "campaign spectrum",
            ui::campaign_chart(s, campaign, "spectrum", None),
        ),
        ("run spectrum", ui::run_chart(s, script_run, "spectrum")),
        (
            "statements over time",
            ui::run_chart(s, script_run, "statement-p95"),
        ),
        (
            "runs' spectra",
            ui::runs_spectrum_chart(s, &[script_run, plain_run]),
        ),
    ];
    for (what, chart) in spectra {
        check_svg(what, &chart.unwrap().svg_file(), &none, &all, bad);
    }
    let mut named = ui::run_chart(s, script_run, "qps").unwrap();
    named.title = hostile("title");
    named.y_label = hostile("y");
    named.series[0].name = hostile("series");
    check_svg("run chart", &named.svg_file(), &none, &all, bad);
    let legend = Html::parse_fragment(&named.html().into_string());
    let a = active(&legend);
    if !a.handlers.is_empty() || !a.scripts.is_empty() || a.images > 0 {
        bad.push(format!(
            "run chart with its legend: {:?} {:?}",
            a.handlers, a.scripts
        ));
    }
}

#[test]
fn every_page_and_report_escapes_what_it_shows() {
    let l = lab();
    let store_path = l.home.join("html-injection.db");
    record_runs(l, &store_path);
    let (s, ids) = hostile_store(&store_path);
    let mut bad = Vec::new();
    check_pages(&s, &ids, &mut bad);
    check_drawings(&s, &ids, &mut bad);
    drop(s);
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

fn name(mode: Mode) -> &'static str {
    match mode {
        Mode::Ui => "ui",
        Mode::Report => "report",
    }
}
