//! The store's schema, versioned with SQLite's `user_version`. Each
//! migration moves the schema one version up; a store written by a newer
//! qpslab is refused rather than misread.

use anyhow::{bail, Result};
use rusqlite::Connection;

/// Migrations in order; entry i takes the schema from version i to i + 1.
pub(super) const MIGRATIONS: &[&str] = &[
    // v1: runs, samples, statements, histograms, campaigns.
    r#"
    CREATE TABLE campaigns (
        id          INTEGER PRIMARY KEY,
        name        TEXT NOT NULL,
        kind        TEXT NOT NULL,          -- sweep | campaign
        definition  TEXT NOT NULL,          -- JSON or TOML text of what was asked
        created_at  TEXT NOT NULL
    );
    CREATE TABLE runs (
        id              INTEGER PRIMARY KEY,
        campaign_id     INTEGER REFERENCES campaigns(id),
        point_hash      TEXT,               -- identity of a campaign point (resume)
        label           TEXT,               -- series label (e.g. engine and version)
        variant         TEXT,               -- variant within the series
        workload        TEXT NOT NULL,
        threads         INTEGER NOT NULL,
        options         TEXT NOT NULL,      -- JSON: every workload and run option
        server_flavor   TEXT,
        server_version  TEXT,
        server_variables TEXT,              -- JSON object of SHOW GLOBAL VARIABLES
        server_cnf      TEXT,               -- my.cnf text (sandboxes)
        sandbox         TEXT,               -- JSON: name, profile, basedir, cpus
        host            TEXT NOT NULL,      -- JSON: cpu model, cpus, memory, kernel
        qpslab_version  TEXT NOT NULL,
        git_hash        TEXT NOT NULL,
        command_line    TEXT NOT NULL,      -- secrets removed
        started_at      TEXT NOT NULL,
        ended_at        TEXT,
        status          TEXT NOT NULL,      -- running | ok | failed | aborted
        reason          TEXT,
        pid             INTEGER NOT NULL,
        boot_id         TEXT NOT NULL,
        seconds         REAL,
        transactions    INTEGER,
        queries         INTEGER,
        reads           INTEGER,
        writes          INTEGER,
        others          INTEGER,
        errors          INTEGER,
        reconnects      INTEGER,
        tps             REAL,
        qps             REAL,
        lat_p50_ms      REAL,
        lat_p95_ms      REAL,
        lat_p99_ms      REAL,
        lat_p999_ms     REAL,
        lat_max_ms      REAL,
        client_cpu_s    REAL,
        host_cpu_s      REAL,
        summary         TEXT                -- the whole JSON result document
    );
    CREATE INDEX runs_campaign ON runs(campaign_id, point_hash);
    CREATE TABLE samples (
        run_id      INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        seq         INTEGER NOT NULL,
        t           REAL NOT NULL,          -- seconds since measuring began (negative in warm-up)
        dur         REAL NOT NULL,
        warmup      INTEGER NOT NULL,
        events      INTEGER NOT NULL,
        reads       INTEGER NOT NULL,
        writes      INTEGER NOT NULL,
        others      INTEGER NOT NULL,
        errors      TEXT NOT NULL,          -- JSON {code: count}
        reconnects  INTEGER NOT NULL,
        backlog     INTEGER NOT NULL,
        lat_p50_ms  REAL, lat_p95_ms REAL, lat_p99_ms REAL, lat_max_ms REAL,
        client_cpu_s REAL, host_cpu_s REAL, host_busy REAL,
        PRIMARY KEY (run_id, seq)
    );
    CREATE TABLE run_statements (
        run_id      INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        statement   TEXT NOT NULL,
        count       INTEGER NOT NULL,
        lat_avg_ms  REAL, lat_p95_ms REAL, lat_p99_ms REAL, lat_max_ms REAL,
        histogram   BLOB,                   -- HDR V2, full resolution
        PRIMARY KEY (run_id, statement)
    );
    CREATE TABLE histograms (
        run_id      INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
        unit        TEXT NOT NULL,          -- 'us'
        encoding    TEXT NOT NULL,          -- 'hdr-v2'
        data        BLOB NOT NULL
    );
    "#,
    // v2: the monitor's raw snapshots (delta-encoded per source), its notes,
    // and the per-run figures derived from them.
    r#"
    CREATE TABLE metric_keys (
        run_id      INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        source      TEXT NOT NULL,          -- status, innodb_metrics, cpu, disk, ...
        idx         INTEGER NOT NULL,       -- position in the source's dictionary
        name        TEXT NOT NULL,
        PRIMARY KEY (run_id, source, idx)
    ) WITHOUT ROWID;
    CREATE TABLE metric_snaps (
        run_id      INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        source      TEXT NOT NULL,
        seq         INTEGER NOT NULL,
        t           REAL NOT NULL,          -- same clock as samples.t
        took_us     INTEGER NOT NULL,       -- the poll's own duration
        data        BLOB NOT NULL,          -- (key, value) pairs, values as deltas from the previous snapshot
        PRIMARY KEY (run_id, source, seq)
    ) WITHOUT ROWID;
    CREATE TABLE monitor_notes (
        run_id      INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        t           REAL NOT NULL,
        source      TEXT,
        kind        TEXT NOT NULL,          -- skipped | slowed | gap | resumed | info
        text        TEXT NOT NULL
    );
    CREATE INDEX monitor_notes_run ON monitor_notes(run_id);
    ALTER TABLE runs ADD COLUMN server_us_per_q REAL;
    ALTER TABLE runs ADD COLUMN csw_per_q REAL;
    ALTER TABLE runs ADD COLUMN read_bytes_per_q REAL;
    ALTER TABLE runs ADD COLUMN write_bytes_per_q REAL;
    ALTER TABLE runs ADD COLUMN redo_bytes_per_trx REAL;
    ALTER TABLE runs ADD COLUMN hint TEXT;
    ALTER TABLE runs ADD COLUMN monitor TEXT;   -- JSON: derived figures, IO classes, hint evidence, source costs
    "#,
    // v3: failures counted apart (events lost with their connection, failed
    // reconnect attempts, seconds the server could not be reached).
    r#"
    ALTER TABLE samples ADD COLUMN failed_events INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE samples ADD COLUMN failed_connects INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE runs ADD COLUMN failed_events INTEGER;
    ALTER TABLE runs ADD COLUMN failed_connects INTEGER;
    ALTER TABLE runs ADD COLUMN unreachable_s REAL;
    "#,
    // v4: the server's stacks recorded beside a run (`run --profile`),
    // folded: one row per distinct stack and kind.
    r#"
    CREATE TABLE profile_stacks (
        run_id      INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        kind        TEXT NOT NULL,          -- cpu | offcpu
        stack       TEXT NOT NULL,          -- frames root first, ';'-joined
        weight      INTEGER NOT NULL,       -- samples (cpu) or microseconds blocked (offcpu)
        PRIMARY KEY (run_id, kind, stack)
    ) WITHOUT ROWID;
    "#,
    // v5: the profile's per-second series (syscalls by side and name,
    // Performance Schema wait seconds by event) and its summary (kinds,
    // seconds, collector costs, notes, lock shares).
    r#"
    CREATE TABLE profile_series (
        run_id      INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        kind        TEXT NOT NULL,          -- syscalls | waits
        series      TEXT NOT NULL,          -- syscalls: side/name; waits: event name
        t           INTEGER NOT NULL,       -- second from the profile's start
        value       REAL NOT NULL,          -- syscalls: entries; waits: seconds waited
        PRIMARY KEY (run_id, kind, series, t)
    ) WITHOUT ROWID;
    ALTER TABLE runs ADD COLUMN profile TEXT;   -- JSON summary of the profile
    "#,
    // v6: the server variables not at their compiled default, with the
    // default and where the value came from (config, command line, SQL).
    r#"
    ALTER TABLE runs ADD COLUMN server_nondefault TEXT;  -- JSON {name: {value, default, origin}}
    "#,
    // v7: each statement kind's latency per interval (runs stored before
    // have none: their pages say so).
    r#"
    CREATE TABLE sample_statements (
        run_id      INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        statement   TEXT NOT NULL,
        seq         INTEGER NOT NULL,       -- samples.seq
        count       INTEGER NOT NULL,
        lat_p50_ms REAL, lat_p95_ms REAL, lat_p99_ms REAL, lat_max_ms REAL,
        PRIMARY KEY (run_id, statement, seq)
    ) WITHOUT ROWID;
    "#,
    // v8: curating runs: tags (several a run), one note, the excluded mark
    // (kept, left out of analyses) and the baseline pinned per workload
    // (and label: '' for any).
    r#"
    CREATE TABLE run_tags (
        run_id      INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        tag         TEXT NOT NULL,
        PRIMARY KEY (run_id, tag)
    ) WITHOUT ROWID;
    CREATE INDEX run_tags_tag ON run_tags(tag);
    ALTER TABLE runs ADD COLUMN note TEXT;
    ALTER TABLE runs ADD COLUMN excluded INTEGER NOT NULL DEFAULT 0;
    CREATE TABLE baselines (
        workload    TEXT NOT NULL,
        label       TEXT NOT NULL,          -- '' = any label
        run_id      INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        pinned_at   TEXT NOT NULL,
        PRIMARY KEY (workload, label)
    );
    "#,
    // v9: a run's and a campaign's identity across stores (`store copy`,
    // a server store's spool and mirror): 128 random bits in hex, unique;
    // runs and campaigns stored before get theirs here.
    r#"
    ALTER TABLE runs ADD COLUMN uid TEXT;
    ALTER TABLE campaigns ADD COLUMN uid TEXT;
    CREATE UNIQUE INDEX runs_uid ON runs(uid);
    CREATE UNIQUE INDEX campaigns_uid ON campaigns(uid);
    UPDATE runs SET uid = lower(hex(randomblob(16))) WHERE uid IS NULL;
    UPDATE campaigns SET uid = lower(hex(randomblob(16))) WHERE uid IS NULL;
    "#,
    // v10: what a listing shows of a run's documents, kept as columns (a
    // list then never parses the documents): TPC-C's NOPM and the load
    // threads' CPU (summary), lock shares (profile), the workload's
    // options without the thread count (options). Filled by `FILL_LISTED`
    // (here for the runs stored before, in SQLite; see `SQLITE_ONLY`).
    r#"
    ALTER TABLE runs ADD COLUMN nopm REAL;
    ALTER TABLE runs ADD COLUMN load_cpu_s REAL;
    ALTER TABLE runs ADD COLUMN locks TEXT;
    ALTER TABLE runs ADD COLUMN options_key TEXT;
    "#,
    // v11: what a campaign's page reads of each point's documents, kept
    // as columns beside the listed ones: the round's pre-flight check
    // (host) and the operations' figures (summary), each NULL when the
    // run has none. Filled as v10's are; in SQLite one partial covering
    // index holds the runs that have either, so a page reads a
    // campaign's in one search and parses no document; another holds the
    // runs still "running", which every open looks for.
    r#"
    ALTER TABLE runs ADD COLUMN preflight TEXT;
    ALTER TABLE runs ADD COLUMN operations TEXT;
    "#,
];

/// The columns of v10 and v11, as SQLite computes them from a run's
/// documents: written by the store when a document is (`fill_listed`),
/// and for the runs stored before by the migration that adds them. A
/// read-only open of an older store computes them the same way
/// (`read_compat`). (column, SQL value, the version that added it)
pub(super) const LISTED: [(&str, &str, i64); 6] = [
    (
        "nopm",
        "json_extract(summary, '$.tpcc.nopm')",
        LISTED_COLUMNS,
    ),
    (
        "load_cpu_s",
        "json_extract(summary, '$.client.load_cpu_seconds')",
        LISTED_COLUMNS,
    ),
    ("locks", "json_extract(profile, '$.locks')", LISTED_COLUMNS),
    (
        "options_key",
        "json_remove(json_extract(options, '$.oltp'), '$.threads')",
        LISTED_COLUMNS,
    ),
    // A document that is not JSON (never written by qpslab) reads as
    // none rather than failing the write or the copy that fills these.
    (
        "preflight",
        "CASE WHEN json_valid(host) THEN json_extract(host, '$.preflight') END",
        PART_COLUMNS,
    ),
    (
        "operations",
        "CASE WHEN json_valid(summary) THEN json_extract(summary, '$.operations') END",
        PART_COLUMNS,
    ),
];

/// `UPDATE runs SET` each of `LISTED` added by a version `pick` takes,
/// from its documents (a WHERE clause is added by the caller).
fn fill_listed_of(pick: impl Fn(i64) -> bool) -> String {
    let set: Vec<String> = LISTED
        .iter()
        .filter(|(_, _, v)| pick(*v))
        .map(|(c, e, _)| format!("{c} = {e}"))
        .collect();
    format!("UPDATE runs SET {}", set.join(", "))
}

/// `UPDATE runs SET` each of `LISTED` from its documents (a WHERE clause
/// is added by the caller).
pub(super) fn fill_listed() -> String {
    fill_listed_of(|_| true)
}

/// v11's columns: a campaign's runs that have a pre-flight check or
/// operations, in one partial index that holds the values too.
const PARTS_INDEX: &str = "CREATE INDEX runs_parts ON runs(campaign_id, preflight, operations) \
    WHERE preflight IS NOT NULL OR operations IS NOT NULL";

/// The runs still recording (or left "running" by a process that died),
/// which every open looks for (`recover`): without it, that search read
/// every run's row, documents included, on each open of a year's store.
const RUNNING_INDEX: &str = "CREATE INDEX runs_running ON runs(status) WHERE status = 'running'";

/// The condition a query repeats to read `runs_parts` (SQLite uses a
/// partial index only for a query whose WHERE holds the index's own).
pub(super) const HAS_PARTS: &str = "(preflight IS NOT NULL OR operations IS NOT NULL)";

/// The columns a listing reads (`read::RUN_COLUMNS` less the tags, which
/// come from their own table), in one index: SQLite reads a list from it
/// alone and never walks a run's documents, which sit before the later
/// columns in each row (a 30 KB summary, the server's variables, the
/// monitor's figures). SQLite only: a server store is read through its
/// local mirror, and InnoDB keeps long values off the row anyway.
const LISTING_INDEX: &str = "CREATE INDEX runs_listing ON runs(id, started_at, workload, threads, \
    label, variant, status, reason, server_version, seconds, tps, qps, lat_p95_ms, lat_p99_ms, \
    client_cpu_s, queries, campaign_id, server_us_per_q, csw_per_q, hint, nopm, locks, \
    server_flavor, options_key, load_cpu_s, note, excluded)";

/// What a SQLite store does after migration i (0-based) besides the
/// statements both kinds of store share.
fn sqlite_only(step: usize) -> Option<String> {
    match step {
        9 => Some(format!(
            "{};\n{LISTING_INDEX};",
            fill_listed_of(|v| v == LISTED_COLUMNS)
        )),
        // Only the rows whose documents name a part are rewritten.
        10 => Some(format!(
            "{} WHERE instr(host, '\"preflight\"') OR instr(summary, '\"operations\"');\n{PARTS_INDEX};\n{RUNNING_INDEX};",
            fill_listed_of(|v| v == PART_COLUMNS)
        )),
        _ => None,
    }
}

/// SQLite's expression for a new `uid` (see migration v9).
pub(super) const NEW_UID: &str = "lower(hex(randomblob(16)))";

fn version(conn: &Connection) -> rusqlite::Result<i64> {
    conn.pragma_query_value(None, "user_version", |r| r.get(0))
}

pub(super) fn refuse_newer(current: i64) -> Result<()> {
    let latest = MIGRATIONS.len() as i64;
    if current > latest {
        bail!("the results store has schema version {current}, newer than this qpslab knows ({latest}); use a newer qpslab or another --store");
    }
    Ok(())
}

/// Brings the schema to the latest version. The version is read again
/// inside one IMMEDIATE transaction (which takes the write lock first), so
/// two processes opening a new store at once never both migrate it.
/// A store newer than this qpslab is refused (checked by `check_newer`).
pub(crate) fn migrate(conn: &Connection) -> rusqlite::Result<()> {
    let latest = MIGRATIONS.len() as i64;
    if version(conn)? >= latest {
        return Ok(());
    }
    let tx = rusqlite::Transaction::new_unchecked(conn, rusqlite::TransactionBehavior::Immediate)?;
    let current = version(&tx)?;
    for (step, sql) in MIGRATIONS
        .iter()
        .enumerate()
        .skip(current.clamp(0, latest) as usize)
    {
        tx.execute_batch(sql)?;
        if let Some(local) = sqlite_only(step) {
            tx.execute_batch(&local)?;
        }
    }
    tx.pragma_update(None, "user_version", latest.max(current))?;
    tx.commit()
}

/// Refuses a store written by a newer qpslab (never misread it).
pub(crate) fn check_newer(conn: &Connection) -> Result<()> {
    refuse_newer(version(conn)?)
}

/// The oldest schema a read-only open reads. What later versions add is
/// optional to readers, so that a new qpslab does not lock a user out of
/// reading an existing store: a reader of a table added since checks it
/// exists (`has_table`) and reads a store without it as having none of
/// its rows; the curation tables and columns (v8) are stood in for by
/// `read_compat`.
const OLDEST_READABLE: i64 = 6;

/// The version that added the curation tables and columns.
const CURATION: i64 = 8;

/// The version that added the listed columns (`LISTED`).
const LISTED_COLUMNS: i64 = 10;

/// The version that added the campaign page's parts (`LISTED`'s last two).
const PART_COLUMNS: i64 = 11;

/// For read-only opens: the schema must be one this qpslab reads (from
/// `OLDEST_READABLE` to the latest).
pub(crate) fn check_readable(conn: &Connection) -> Result<()> {
    let current = version(conn)?;
    refuse_newer(current)?;
    if current < OLDEST_READABLE {
        bail!("it has schema version {current}, older than this qpslab reads ({OLDEST_READABLE}); record one run with it (qpslab run ... --store FILE) to upgrade it");
    }
    Ok(())
}

/// Whether the store has table `name` (one added after `OLDEST_READABLE`
/// is missing from a store read before its migration ran).
pub(crate) fn has_table(conn: &Connection, name: &str) -> rusqlite::Result<bool> {
    conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1)",
        [name],
        |r| r.get(0),
    )
}

/// For a read-only open of a store older than the latest (see
/// `OLDEST_READABLE`): the tables later versions add, made empty in the
/// connection's TEMP schema (nothing reaches the file), and the columns
/// they add to `runs` as (name, SQL value) for the TEMP view over it.
/// The listed columns (v10) are computed from the documents, as the
/// migration would fill them.
pub(crate) fn read_compat(conn: &Connection) -> Result<Vec<(String, String)>> {
    let v = version(conn)?;
    let mut added = Vec::new();
    if v < CURATION {
        conn.execute_batch(
            "CREATE TEMP TABLE run_tags (run_id INTEGER NOT NULL, tag TEXT NOT NULL);
             CREATE TEMP TABLE baselines (workload TEXT NOT NULL, label TEXT NOT NULL,
                                          run_id INTEGER NOT NULL, pinned_at TEXT NOT NULL);",
        )?;
        added.extend([
            ("note".into(), "NULL".into()),
            ("excluded".into(), "0".into()),
        ]);
    }
    for (c, e, since) in LISTED {
        if v < since {
            // the view reads the table as `r`
            let e = e
                .replace("json_extract(", "json_extract(r.")
                .replace("json_valid(", "json_valid(r.");
            added.push((c.to_string(), e));
        }
    }
    Ok(added)
}

#[cfg(test)]
fn latest() -> i64 {
    MIGRATIONS.len() as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn migrates_to_latest_and_refuses_newer() {
        let c = Connection::open_in_memory().unwrap();
        migrate(&c).unwrap();
        migrate(&c).unwrap(); // idempotent
        let v: i64 = c
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .unwrap();
        assert_eq!(v, latest());
        c.pragma_update(None, "user_version", latest() + 1).unwrap();
        assert!(check_newer(&c).is_err());
        assert!(check_readable(&c).is_err());
        assert!(has_table(&c, "sample_statements").unwrap());
        assert!(!has_table(&c, "no_such_table").unwrap());
    }

    #[test]
    fn read_only_opens_read_schemas_from_the_oldest_readable_on() {
        let c = Connection::open_in_memory().unwrap();
        for (v, ok) in [
            (OLDEST_READABLE - 1, false),
            (OLDEST_READABLE, true),
            (latest(), true),
        ] {
            c.pragma_update(None, "user_version", v).unwrap();
            assert_eq!(check_readable(&c).is_ok(), ok, "version {v}");
        }
    }
}
