//! Retention of a real SQLite store (issue 37 item 5): `qpslab store
//! prune --before DATE` prints what goes and deletes nothing with
//! --dry-run, nor without --yes where stdin is not a terminal; keeps
//! pinned baselines always, campaign runs with --keep-campaigns and
//! tagged runs with --keep-tagged; deletes a run with its rows and a
//! campaign it leaves empty; `qpslab store vacuum` gives the space back;
//! both refuse a server store in one line. The runs are real host-test
//! runs (`qpslab run cpu`, no server needed), moved back in time.

use rusqlite::Connection;
use std::path::Path;

/// A scratch directory, removed on drop (also when a test fails).
#[path = "common/scratch.rs"]
mod scratch;
use scratch::{all, qpslab_in as qpslab, Scratch};

/// `qpslab ARGS --store STORE`, which must succeed; its output.
fn ok(dir: &Path, store: &str, args: &[&str]) -> String {
    let mut a = args.to_vec();
    a.extend(["--store", store]);
    let o = qpslab(dir, &a);
    assert!(o.status.success(), "{a:?}: {}", all(&o));
    all(&o)
}

/// `qpslab ARGS`, which must fail with one line on stderr; that line.
fn refused(dir: &Path, args: &[&str]) -> String {
    let o = qpslab(dir, args);
    assert!(!o.status.success(), "{args:?} should fail: {}", all(&o));
    let err = String::from_utf8_lossy(&o.stderr).trim().to_string();
    assert_eq!(err.lines().count(), 1, "{args:?}: one line: {err}");
    err
}

fn count(db: &Connection, sql: &str) -> i64 {
    db.query_row(sql, [], |r| r.get(0)).unwrap()
}

fn ids(db: &Connection) -> Vec<i64> {
    db.prepare("SELECT id FROM runs ORDER BY id")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

#[test]
fn prune_deletes_only_what_it_is_asked_to_and_vacuum_shrinks() {
    let s = Scratch::new("prune", "store");
    let dir = s.0.as_path();
    let store = dir.join("results.db");
    let st = store.to_str().unwrap();
    for _ in 0..5 {
        ok(dir, st, &["run", "cpu", "--time=1"]);
    }
    // Runs 1-4 a year old: 2 in a campaign, 3 tagged, 4 the baseline.
    {
        let db = Connection::open(&store).unwrap();
        db.execute_batch(
            "UPDATE runs SET started_at = '2025-03-0' || id || 'T10:00:00.000000Z' WHERE id <= 4;
             INSERT INTO campaigns (id, name, kind, definition, created_at, uid)
                 VALUES (7, 'old', 'sweep', '{}', '2025-03-02T09:00:00Z', 'c7');
             UPDATE runs SET campaign_id = 7 WHERE id = 2;",
        )
        .unwrap();
    }
    ok(dir, st, &["tag", "3", "keep"]);
    ok(dir, st, &["baseline", "4"]);
    let db = Connection::open(&store).unwrap();

    // Dry run: the plan, nothing deleted.
    let out = ok(
        dir,
        st,
        &["store", "prune", "--before", "2026-01-01", "--dry-run"],
    );
    assert!(
        out.contains("would delete 3 runs started before 2026-01-01 (ids 1-3)"),
        "{out}"
    );
    // How many per-second samples a one-second run keeps depends on the
    // host's timing (one on a slow CI host, two or more here): only the
    // wording is checked, singular or plural.
    assert!(
        out.contains(" sample") && out.contains(" MB of data"),
        "{out}"
    );
    assert!(out.contains("1 campaign left empty"), "{out}");
    assert!(
        out.contains("kept from before that: 1 pinned baseline"),
        "{out}"
    );
    assert!(out.contains("dry run: nothing deleted"), "{out}");
    assert_eq!(ids(&db), vec![1, 2, 3, 4, 5]);

    // Without --yes and no terminal to ask on: refused, nothing deleted.
    let err = refused(
        dir,
        &["store", "prune", "--before", "2026-01-01", "--store", st],
    );
    assert!(err.contains("--yes"), "{err}");
    assert_eq!(ids(&db), vec![1, 2, 3, 4, 5]);

    // Keeping campaigns and tags: run 1 alone goes, with its rows.
    let out = ok(
        dir,
        st,
        &[
            "store",
            "prune",
            "--before",
            "2026-01-01",
            "--keep-campaigns",
            "--keep-tagged",
            "--yes",
        ],
    );
    assert!(
        out.contains("will delete 1 run started before 2026-01-01 (id 1)"),
        "{out}"
    );
    assert!(out.contains("1 run in a campaign, 1 tagged run"), "{out}");
    assert!(out.contains("deleted 1 run;"), "{out}");
    assert_eq!(ids(&db), vec![2, 3, 4, 5]);
    for table in ["samples", "run_statements", "histograms"] {
        let n = count(
            &db,
            &format!("SELECT COUNT(*) FROM {table} WHERE run_id = 1"),
        );
        assert_eq!(n, 0, "{table} of run 1");
    }

    // The rest of the old runs, and their emptied campaign; the baseline
    // and the recent run stay.
    let out = ok(dir, st, &["store", "prune", "--before", "2026-01-01", "-y"]);
    assert!(out.contains("deleted 2 runs;"), "{out}");
    assert_eq!(ids(&db), vec![4, 5]);
    assert_eq!(count(&db, "SELECT COUNT(*) FROM campaigns"), 0);
    assert_eq!(count(&db, "SELECT COUNT(*) FROM run_tags"), 0);
    let out = ok(dir, st, &["store", "prune", "--before", "2026-01-01", "-y"]);
    assert!(
        out.contains(
            "no run started before 2026-01-01 to delete; kept from before that: 1 pinned baseline"
        ),
        "{out}"
    );

    // Vacuum gives the deleted runs' pages back.
    drop(db);
    let out = ok(dir, st, &["store", "vacuum"]);
    assert!(
        out.contains("vacuumed") && out.contains("given back"),
        "{out}"
    );
    let db = Connection::open(&store).unwrap();
    assert_eq!(count(&db, "PRAGMA freelist_count"), 0);
    assert_eq!(ids(&db), vec![4, 5]);
}

#[test]
fn bad_dates_and_server_stores_are_refused_in_one_line() {
    let s = Scratch::new("prune", "refuse");
    let dir = s.0.as_path();
    let st = dir.join("results.db");
    let st = st.to_str().unwrap();
    let err = refused(
        dir,
        &["store", "prune", "--before", "last year", "--store", st],
    );
    assert!(err.contains("YYYY-MM-DD"), "{err}");
    let url = "mysql://qpslab@127.0.0.1:9/results";
    let err = refused(
        dir,
        &["store", "prune", "--before", "2026-01-01", "--store", url],
    );
    assert!(err.contains("server store"), "{err}");
    let err = refused(dir, &["store", "vacuum", "--store", url]);
    assert!(err.contains("server store"), "{err}");
    assert!(
        !Path::new(st).exists(),
        "a refused command created the store"
    );
}
