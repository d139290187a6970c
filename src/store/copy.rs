//! Copying runs from one store to another (`qpslab store copy`, and a
//! server store's spool and mirror): a run with everything kept about it
//! (samples, statements, histograms, metric keys and snapshots, monitor
//! notes, profiles, tags, its baseline pin) and its campaign, between two
//! SQLite stores or a SQLite store and a server store (`ServerSql`).
//!
//! - Identity: a run (and a campaign) is known across stores by its
//!   `uid` (schema v9). A run whose uid the destination holds is skipped,
//!   so a second copy adds nothing; a campaign is created once, by uid.
//! - Ids are the destination's (remapped: runs, and each row's `run_id`
//!   and `campaign_id`), unless the copy keeps them (a mirror: only ever
//!   filled from one store, whose ids its readers then show).
//! - One transaction per run: a run is in the destination whole or not at
//!   all; two writers copying the same run race on the unique uid, and
//!   the loser rolls back and counts it as already there.
//! - A run still being recorded ("running") is left out.
//!
//! The tables and columns copied are the store's own (an in-memory store
//! migrated to the latest schema says which, with their types): a table
//! added by a later migration is copied without a change here. The SQL
//! is the part both dialects read (backquoted names, literals); it knows
//! nothing of runs beyond their rows.

use anyhow::{bail, Context, Result};
use rusqlite::types::Value;
use rusqlite::Connection;
use std::collections::{HashMap, HashSet};

use super::{DuplicateKey, ServerSql, Store};

/// Which runs of the source a copy takes.
#[derive(Clone, Debug, PartialEq)]
pub enum CopySelection {
    /// Every run.
    All,
    /// These run ids (the source's).
    Runs(Vec<i64>),
    /// The runs of this campaign (the source's id), and the campaign.
    Campaign(i64),
}

/// What a copy did.
#[derive(Debug, Default)]
pub struct CopyReport {
    /// (source id, destination id) of each run copied.
    pub copied: Vec<(i64, i64)>,
    /// Runs the destination already held (same uid): skipped.
    pub present: usize,
    /// Runs still being recorded: skipped.
    pub running: usize,
    /// Campaigns created in the destination.
    pub campaigns: usize,
    /// Rows written, every table together.
    pub rows: u64,
}

/// A column's type (the SQLite store's declared one).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Ty {
    Int,
    Real,
    Text,
    Blob,
}

/// A table of the store and its columns.
struct Table {
    name: String,
    cols: Vec<(String, Ty)>,
}

impl Table {
    fn names(&self, skip_id: bool) -> Vec<&str> {
        self.cols
            .iter()
            .map(|(c, _)| c.as_str())
            .filter(|c| !(skip_id && *c == "id"))
            .collect()
    }

    fn types(&self, skip_id: bool) -> Vec<Ty> {
        self.cols
            .iter()
            .filter(|(c, _)| !(skip_id && c == "id"))
            .map(|(_, t)| *t)
            .collect()
    }

    fn position(&self, col: &str, skip_id: bool) -> Option<usize> {
        self.names(skip_id).iter().position(|c| *c == col)
    }
}

/// The store's tables at the latest schema, with their columns in order.
fn tables() -> Result<Vec<Table>> {
    let c = Connection::open_in_memory()?;
    super::schema::migrate(&c)?;
    let names: Vec<String> = c
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")?
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    names
        .into_iter()
        .map(|name| -> Result<Table> {
            let cols = c
                .prepare(&format!("PRAGMA table_info({name})"))?
                .query_map([], |r| Ok((r.get::<_, String>(1)?, r.get::<_, String>(2)?)))?
                .map(|col| {
                    col.map(|(n, ty)| {
                        let ty = match ty.to_ascii_uppercase().as_str() {
                            "INTEGER" => Ty::Int,
                            "REAL" => Ty::Real,
                            "BLOB" => Ty::Blob,
                            _ => Ty::Text,
                        };
                        (n, ty)
                    })
                })
                .collect::<rusqlite::Result<_>>()?;
            Ok(Table { name, cols })
        })
        .collect()
}

/// One end of a copy: a SQLite store or a server store.
trait End {
    /// The rows of `sql`, each value of the type given for its column.
    fn select(&mut self, sql: &str, types: &[Ty]) -> Result<Vec<Vec<Value>>>;
    /// Runs a statement without rows.
    fn exec(&mut self, sql: &str) -> Result<()>;
    /// Inserts `rows`; with `ignore`, a row whose key is taken is left out.
    fn insert(
        &mut self,
        table: &str,
        cols: &[&str],
        rows: &[Vec<Value>],
        ignore: bool,
    ) -> Result<()>;
    /// Inserts one row with a unique key: its id, or None when the key is
    /// taken.
    fn insert_new(&mut self, table: &str, cols: &[&str], row: &[Value]) -> Result<Option<i64>>;
    /// Opens a transaction (COMMIT and ROLLBACK go through `exec`).
    fn begin(&mut self) -> Result<()>;
    /// After run `id`'s row is inserted here: a SQLite store computes its
    /// listed columns from its documents (a server store's runs pushed
    /// before schema v10 have none).
    fn fill_listed(&mut self, _id: i64) -> Result<()> {
        Ok(())
    }
}

fn quoted_cols(cols: &[&str]) -> String {
    cols.iter()
        .map(|c| format!("`{c}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A SQLite store's end.
struct Sqlite<'a>(&'a Connection);

impl End for Sqlite<'_> {
    fn select(&mut self, sql: &str, types: &[Ty]) -> Result<Vec<Vec<Value>>> {
        let mut s = self.0.prepare(sql)?;
        let rows = s.query_map([], |r| {
            (0..types.len())
                .map(|i| r.get::<_, Value>(i))
                .collect::<rusqlite::Result<Vec<_>>>()
        })?;
        Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
    }

    fn exec(&mut self, sql: &str) -> Result<()> {
        Ok(self.0.execute_batch(sql)?)
    }

    fn insert(
        &mut self,
        table: &str,
        cols: &[&str],
        rows: &[Vec<Value>],
        ignore: bool,
    ) -> Result<()> {
        let marks = vec!["?"; cols.len()].join(", ");
        let or = if ignore { " OR IGNORE" } else { "" };
        let sql = format!(
            "INSERT{or} INTO {table} ({}) VALUES ({marks})",
            quoted_cols(cols)
        );
        let mut s = self.0.prepare_cached(&sql)?;
        for row in rows {
            s.execute(rusqlite::params_from_iter(row.iter()))?;
        }
        Ok(())
    }

    fn insert_new(&mut self, table: &str, cols: &[&str], row: &[Value]) -> Result<Option<i64>> {
        match self.insert(table, cols, std::slice::from_ref(&row.to_vec()), false) {
            Ok(()) => Ok(Some(self.0.last_insert_rowid())),
            Err(e) => match e.downcast_ref::<rusqlite::Error>() {
                Some(rusqlite::Error::SqliteFailure(f, _))
                    if f.code == rusqlite::ErrorCode::ConstraintViolation =>
                {
                    Ok(None)
                }
                _ => Err(e),
            },
        }
    }

    fn begin(&mut self) -> Result<()> {
        Ok(self.0.execute_batch("BEGIN IMMEDIATE")?)
    }

    fn fill_listed(&mut self, id: i64) -> Result<()> {
        super::write::fill_listed(self.0, id)
    }
}

/// A server store's end.
struct Server<'a>(&'a mut dyn ServerSql);

/// A server statement's size past which an insert's rows go on in the
/// next statement (well below max_allowed_packet's 16 MiB default).
const STATEMENT_BYTES: usize = 4 << 20;

/// `v` as a literal both dialects read (text and blobs in hex: no
/// escaping to get wrong; a number that is no number is NULL).
fn literal(v: &Value, out: &mut String) {
    use std::fmt::Write;
    match v {
        Value::Null => out.push_str("NULL"),
        Value::Integer(i) => {
            let _ = write!(out, "{i}");
        }
        Value::Real(f) if f.is_finite() => {
            let _ = write!(out, "{f:e}");
        }
        Value::Real(_) => out.push_str("NULL"),
        Value::Text(t) => hex(t.as_bytes(), out),
        Value::Blob(b) => hex(b, out),
    }
}

fn hex(bytes: &[u8], out: &mut String) {
    const DIGITS: &[u8; 16] = b"0123456789ABCDEF";
    out.reserve(bytes.len() * 2 + 3);
    out.push_str("X'");
    for b in bytes {
        out.push(DIGITS[(b >> 4) as usize] as char);
        out.push(DIGITS[(b & 15) as usize] as char);
    }
    out.push('\'');
}

/// A server value (its text) as a value of type `ty`.
fn from_server(v: Option<Vec<u8>>, ty: Ty) -> Result<Value> {
    let Some(v) = v else {
        return Ok(Value::Null);
    };
    if ty == Ty::Blob {
        return Ok(Value::Blob(v));
    }
    let text = String::from_utf8(v).context("a text value that is not UTF-8")?;
    Ok(match ty {
        Ty::Int => Value::Integer(text.parse().context("an integer column")?),
        Ty::Real => Value::Real(text.parse().context("a real column")?),
        _ => Value::Text(text),
    })
}

impl Server<'_> {
    fn insert_sql(
        &mut self,
        table: &str,
        cols: &[&str],
        rows: &[Vec<Value>],
        ignore: bool,
    ) -> Result<()> {
        let head = format!(
            "INSERT{} INTO {table} ({}) VALUES ",
            if ignore { " IGNORE" } else { "" },
            quoted_cols(cols)
        );
        let mut sql = String::new();
        for row in rows {
            sql.push_str(if sql.is_empty() { &head } else { ", " });
            sql.push('(');
            for (i, v) in row.iter().enumerate() {
                if i > 0 {
                    sql.push_str(", ");
                }
                literal(v, &mut sql);
            }
            sql.push(')');
            if sql.len() >= STATEMENT_BYTES {
                self.0.execute(&sql)?;
                sql.clear();
            }
        }
        if !sql.is_empty() {
            self.0.execute(&sql)?;
        }
        Ok(())
    }
}

impl End for Server<'_> {
    fn select(&mut self, sql: &str, types: &[Ty]) -> Result<Vec<Vec<Value>>> {
        self.0
            .query_rows(sql)?
            .into_iter()
            .map(|row| {
                row.into_iter()
                    .zip(types)
                    .map(|(v, ty)| from_server(v, *ty))
                    .collect()
            })
            .collect()
    }

    fn exec(&mut self, sql: &str) -> Result<()> {
        self.0.execute(sql)
    }

    fn insert(
        &mut self,
        table: &str,
        cols: &[&str],
        rows: &[Vec<Value>],
        ignore: bool,
    ) -> Result<()> {
        self.insert_sql(table, cols, rows, ignore)
    }

    fn insert_new(&mut self, table: &str, cols: &[&str], row: &[Value]) -> Result<Option<i64>> {
        match self.insert_sql(table, cols, std::slice::from_ref(&row.to_vec()), false) {
            Ok(()) => Ok(self.0.query_i64("SELECT LAST_INSERT_ID()")?),
            Err(e) if e.downcast_ref::<DuplicateKey>().is_some() => Ok(None),
            Err(e) => Err(e),
        }
    }

    fn begin(&mut self) -> Result<()> {
        self.0.execute("START TRANSACTION")
    }
}

/// `uid` as a quoted literal (a uid is hex; anything else is refused
/// rather than quoted).
fn uid_literal(uid: &str) -> Result<String> {
    if uid.is_empty() || !uid.bytes().all(|b| b.is_ascii_alphanumeric()) {
        bail!("a malformed run or campaign uid {uid:?}");
    }
    Ok(format!("'{uid}'"))
}

fn text(v: &Value) -> Option<&str> {
    match v {
        Value::Text(t) => Some(t),
        _ => None,
    }
}

fn int(v: &Value) -> Option<i64> {
    match v {
        Value::Integer(i) => Some(*i),
        _ => None,
    }
}

/// The uids of `uids` that `dst` holds in `table`.
fn held_uids(dst: &mut dyn End, table: &str, uids: &[String]) -> Result<HashSet<String>> {
    let mut held = HashSet::new();
    for chunk in uids.chunks(500) {
        let list = chunk
            .iter()
            .map(|u| uid_literal(u))
            .collect::<Result<Vec<_>>>()?
            .join(", ");
        let rows = dst.select(
            &format!("SELECT `uid` FROM {table} WHERE `uid` IN ({list})"),
            &[Ty::Text],
        )?;
        held.extend(rows.iter().filter_map(|r| text(&r[0]).map(str::to_string)));
    }
    Ok(held)
}

/// A copy in progress.
struct Copy<'a> {
    src: &'a mut dyn End,
    dst: &'a mut dyn End,
    tables: Vec<Table>,
    keep_ids: bool,
    campaigns: HashMap<i64, i64>,
    report: CopyReport,
}

impl Copy<'_> {
    fn table(&self, name: &str) -> Result<&Table> {
        self.tables
            .iter()
            .find(|t| t.name == name)
            .with_context(|| format!("no table {name} in the store's schema"))
    }

    /// The destination's id of the source's campaign `id`, created there
    /// when it holds none of that uid.
    fn campaign(&mut self, id: i64) -> Result<i64> {
        if let Some(d) = self.campaigns.get(&id) {
            return Ok(*d);
        }
        let skip_id = !self.keep_ids;
        let t = self.table("campaigns")?;
        let (cols, types) = (t.names(skip_id), t.types(skip_id));
        let at_uid = t
            .position("uid", skip_id)
            .context("campaigns without uid")?;
        let cols: Vec<String> = cols.iter().map(|c| c.to_string()).collect();
        let cols: Vec<&str> = cols.iter().map(String::as_str).collect();
        let row = self
            .src
            .select(
                &format!(
                    "SELECT {} FROM campaigns WHERE `id` = {id}",
                    quoted_cols(&cols)
                ),
                &types,
            )?
            .into_iter()
            .next()
            .with_context(|| format!("no campaign {id} in the source store"))?;
        let uid = text(&row[at_uid])
            .with_context(|| format!("campaign {id} has no uid"))?
            .to_string();
        let find = format!(
            "SELECT `id` FROM campaigns WHERE `uid` = {}",
            uid_literal(&uid)?
        );
        let mut found = self.dst.select(&find, &[Ty::Int])?;
        if found.is_empty() {
            self.dst.insert("campaigns", &cols, &[row], true)?;
            found = self.dst.select(&find, &[Ty::Int])?;
            self.report.campaigns += 1;
        }
        let d = found
            .first()
            .and_then(|r| int(&r[0]))
            .with_context(|| format!("campaign {id} could not be created"))?;
        self.campaigns.insert(id, d);
        Ok(d)
    }

    /// Copies run `id` (its campaign at `campaign` in the destination) in
    /// one transaction: its new id, or None when the destination got it
    /// first.
    fn run(&mut self, id: i64, campaign: Option<i64>) -> Result<Option<i64>> {
        self.dst.begin()?;
        match self.run_rows(id, campaign) {
            Ok(Some(new)) => {
                self.dst.exec("COMMIT")?;
                Ok(Some(new))
            }
            Ok(None) => {
                self.dst.exec("ROLLBACK")?;
                Ok(None)
            }
            Err(e) => {
                let _ = self.dst.exec("ROLLBACK");
                Err(e.context(format!("cannot copy run {id}")))
            }
        }
    }

    fn run_rows(&mut self, id: i64, campaign: Option<i64>) -> Result<Option<i64>> {
        let skip_id = !self.keep_ids;
        let runs = self.table("runs")?;
        let cols: Vec<String> = runs.names(skip_id).iter().map(|c| c.to_string()).collect();
        let types = runs.types(skip_id);
        let at_campaign = runs.position("campaign_id", skip_id).context("runs")?;
        let cols: Vec<&str> = cols.iter().map(String::as_str).collect();
        let mut row = self
            .src
            .select(
                &format!("SELECT {} FROM runs WHERE `id` = {id}", quoted_cols(&cols)),
                &types,
            )?
            .into_iter()
            .next()
            .with_context(|| format!("run {id} is gone from the source store"))?;
        row[at_campaign] = campaign.map_or(Value::Null, Value::Integer);
        let Some(new) = self.dst.insert_new("runs", &cols, &row)? else {
            return Ok(None);
        };
        self.report.rows += 1;
        self.dst.fill_listed(new)?;
        let children: Vec<(String, Vec<String>, Vec<Ty>, usize)> = self
            .tables
            .iter()
            .filter(|t| t.name != "runs" && t.name != "campaigns")
            .filter_map(|t| {
                let at = t.position("run_id", false)?;
                let names = t.names(false).iter().map(|c| c.to_string()).collect();
                Some((t.name.clone(), names, t.types(false), at))
            })
            .collect();
        for (table, cols, types, at) in children {
            let cols: Vec<&str> = cols.iter().map(String::as_str).collect();
            let mut rows = self.src.select(
                &format!(
                    "SELECT {} FROM {table} WHERE `run_id` = {id}",
                    quoted_cols(&cols)
                ),
                &types,
            )?;
            for r in &mut rows {
                r[at] = Value::Integer(new);
            }
            // A baseline pinned in the destination stays as it is.
            self.dst
                .insert(&table, &cols, &rows, table == "baselines")?;
            self.report.rows += rows.len() as u64;
        }
        Ok(Some(new))
    }
}

/// Copies the runs `sel` names from `src` into `dst` (see the module doc).
fn copy(
    src: &mut dyn End,
    dst: &mut dyn End,
    sel: &CopySelection,
    keep_ids: bool,
) -> Result<CopyReport> {
    let filter = match sel {
        CopySelection::All => String::new(),
        CopySelection::Runs(ids) if ids.is_empty() => " WHERE 0 = 1".into(),
        CopySelection::Runs(ids) => format!(
            " WHERE `id` IN ({})",
            ids.iter()
                .map(i64::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
        CopySelection::Campaign(c) => format!(" WHERE `campaign_id` = {c}"),
    };
    let listed = src.select(
        &format!("SELECT `id`, `uid`, `campaign_id`, `status` FROM runs{filter} ORDER BY `id`"),
        &[Ty::Int, Ty::Text, Ty::Int, Ty::Text],
    )?;
    if let CopySelection::Runs(ids) = sel {
        let found: HashSet<i64> = listed.iter().filter_map(|r| int(&r[0])).collect();
        let missing: Vec<String> = ids
            .iter()
            .filter(|i| !found.contains(i))
            .map(i64::to_string)
            .collect();
        if !missing.is_empty() {
            bail!(
                "no run {} in the source store (see `qpslab runs --store FROM`)",
                missing.join(", ")
            );
        }
    }
    let mut c = Copy {
        src,
        dst,
        tables: tables()?,
        keep_ids,
        campaigns: HashMap::new(),
        report: CopyReport::default(),
    };
    if let CopySelection::Campaign(id) = sel {
        c.campaign(*id)?;
    }
    let mut wanted = Vec::new();
    for r in &listed {
        let id = int(&r[0]).context("a run without id")?;
        let uid = text(&r[1]).with_context(|| format!("run {id} has no uid"))?;
        if text(&r[3]) == Some("running") {
            c.report.running += 1;
        } else {
            wanted.push((id, uid.to_string(), int(&r[2])));
        }
    }
    let uids: Vec<String> = wanted.iter().map(|(_, u, _)| u.clone()).collect();
    let held = held_uids(&mut *c.dst, "runs", &uids)?;
    for (id, uid, campaign) in wanted {
        if held.contains(&uid) {
            c.report.present += 1;
            continue;
        }
        let campaign = campaign.map(|k| c.campaign(k)).transpose()?;
        match c.run(id, campaign)? {
            Some(new) => c.report.copied.push((id, new)),
            None => c.report.present += 1,
        }
    }
    Ok(c.report)
}

impl Store {
    /// Gives a uid to each run and campaign without one (rows written by
    /// hand, after the migration that gave every row then its uid).
    fn fill_uids(&self) -> Result<()> {
        if !self.read_only {
            for table in ["runs", "campaigns"] {
                self.conn.execute(
                    &format!(
                        "UPDATE {table} SET uid = {} WHERE uid IS NULL",
                        super::schema::NEW_UID
                    ),
                    [],
                )?;
            }
        }
        Ok(())
    }

    /// Copies the runs `sel` names from this store into `to` (ids
    /// remapped).
    pub fn copy_into(&self, to: &Store, sel: &CopySelection) -> Result<CopyReport> {
        self.fill_uids()?;
        copy(&mut Sqlite(&self.conn), &mut Sqlite(&to.conn), sel, false)
    }

    /// Copies the runs `sel` names from this store into a server store
    /// (ids remapped: the server's AUTO_INCREMENT).
    pub fn copy_to_server(
        &self,
        to: &mut dyn ServerSql,
        sel: &CopySelection,
    ) -> Result<CopyReport> {
        self.fill_uids()?;
        copy(&mut Sqlite(&self.conn), &mut Server(to), sel, false)
    }

    /// Copies the runs `sel` names from a server store into this one: ids
    /// remapped, or kept (`keep_ids`: a mirror of that one server store).
    pub fn copy_from_server(
        &self,
        from: &mut dyn ServerSql,
        sel: &CopySelection,
        keep_ids: bool,
    ) -> Result<CopyReport> {
        copy(&mut Server(from), &mut Sqlite(&self.conn), sel, keep_ids)
    }
}

impl Store {
    /// Copies this spool's finished runs that `server` lacks into it (see
    /// `push_on_close`), saying what it copied.
    pub fn push(&self, server: &mut dyn ServerSql, shown: &str) -> Result<()> {
        let r = self.copy_to_server(server, &CopySelection::All)?;
        for (local, stored) in &r.copied {
            log::info!("run {local} stored in {shown} as run {stored}");
        }
        Ok(())
    }
}

impl Drop for Store {
    fn drop(&mut self) {
        if let Some(up) = self.upstream.take() {
            let pushed =
                (up.connect)().and_then(|mut server| self.push(server.as_mut(), &up.shown));
            if let Err(e) = pushed {
                log::warn!(
                    "cannot store the runs in {}: {e:#}; they stay in {} and the next qpslab using that store pushes them",
                    up.shown,
                    self.path.display()
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> (std::path::PathBuf, Store) {
        let dir = std::env::temp_dir().join(format!("qpslab-copy-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let store = Store::open(&dir.join("s.db")).unwrap();
        (dir, store)
    }

    fn count(s: &Store, table: &str) -> i64 {
        s.conn
            .query_row(&format!("SELECT COUNT(*) FROM {table}"), [], |r| r.get(0))
            .unwrap()
    }

    /// A run with a sample, a tag and a campaign, copied into another
    /// store twice: ids remapped, every row there once, the second copy
    /// adds nothing; a running run is left out.
    #[test]
    fn a_copy_remaps_ids_and_is_idempotent() {
        let (d1, a) = scratch("a");
        let (d2, b) = scratch("b");
        a.conn
            .execute_batch(
                "INSERT INTO runs (workload, threads, options, host, qpslab_version, git_hash,
                   command_line, started_at, status, pid, boot_id, uid)
                 VALUES ('w', 1, '{}', 'h', 'v', 'g', 'c', 's', 'ok', 1, 'b', 'u0'),
                        ('w', 1, '{}', 'h', 'v', 'g', 'c', 's', 'running', 1, 'b', 'u00');",
            )
            .unwrap();
        let c = a.create_campaign("c", "sweep", "{}").unwrap();
        a.conn
            .execute_batch(&format!(
                "INSERT INTO runs (campaign_id, workload, threads, options, host, qpslab_version,
                   git_hash, command_line, started_at, status, pid, boot_id, uid)
                 VALUES ({c}, 'w', 2, '{{}}', 'h', 'v', 'g', 'c', 's', 'ok', 1, 'b', 'u1');
                 INSERT INTO samples (run_id, seq, t, dur, warmup, events, reads, writes, others,
                   errors, reconnects, backlog, lat_p50_ms)
                 VALUES (3, 0, 0.5, 1.0, 0, 10, 5, 5, 0, '{{}}', 0, 0, 1.25);
                 INSERT INTO run_tags VALUES (3, 'Ünï');
                 INSERT INTO histograms VALUES (3, 'us', 'hdr-v2', X'00FF10');"
            ))
            .unwrap();
        // b has a run of its own first: ids must move.
        b.conn
            .execute_batch(
                "INSERT INTO runs (workload, threads, options, host, qpslab_version, git_hash,
                   command_line, started_at, status, pid, boot_id, uid)
                 VALUES ('x', 1, '{}', 'h', 'v', 'g', 'c', 's', 'ok', 1, 'b', 'other');",
            )
            .unwrap();
        let r = a.copy_into(&b, &CopySelection::All).unwrap();
        assert_eq!(r.copied, vec![(1, 2), (3, 3)]);
        assert_eq!((r.present, r.running, r.campaigns), (0, 1, 1));
        let again = a.copy_into(&b, &CopySelection::All).unwrap();
        assert!(again.copied.is_empty());
        assert_eq!((again.present, again.campaigns), (2, 0));
        assert_eq!(count(&b, "runs"), 3);
        assert_eq!(count(&b, "campaigns"), 1);
        let (tag, blob, p50): (String, Vec<u8>, f64) = b
            .conn
            .query_row(
                "SELECT t.tag, h.data, s.lat_p50_ms FROM runs r JOIN run_tags t ON t.run_id = r.id
                 JOIN histograms h ON h.run_id = r.id JOIN samples s ON s.run_id = r.id
                 WHERE r.uid = 'u1' AND r.campaign_id = (SELECT id FROM campaigns)",
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .unwrap();
        assert_eq!((tag.as_str(), blob, p50), ("Ünï", vec![0, 255, 16], 1.25));
        let e = a
            .copy_into(&b, &CopySelection::Runs(vec![1, 7]))
            .unwrap_err()
            .to_string();
        assert!(e.contains("no run 7"), "{e}");
        drop((a, b));
        let _ = std::fs::remove_dir_all(&d1);
        let _ = std::fs::remove_dir_all(&d2);
    }

    #[test]
    fn literals_are_read_by_both_dialects() {
        let mut s = String::new();
        for v in [
            Value::Null,
            Value::Integer(-3),
            Value::Real(0.1),
            Value::Real(f64::NAN),
            Value::Text("a'b".into()),
            Value::Blob(vec![0, 255]),
        ] {
            literal(&v, &mut s);
            s.push(' ');
        }
        assert_eq!(s, "NULL -3 1e-1 NULL X'612762' X'00FF' ");
        let c = Connection::open_in_memory().unwrap();
        let back: f64 = c.query_row("SELECT 1e-1", [], |r| r.get(0)).unwrap();
        assert_eq!(back, 0.1);
    }
}
