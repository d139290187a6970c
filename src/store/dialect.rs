//! The store's schema in MySQL/MariaDB's dialect. The schema is written
//! once, in SQLite's dialect (`schema::MIGRATIONS`); this module is the one
//! place that translates it for a server store, so that both mean the same
//! tables, columns, keys and cascades. It translates text only: it opens
//! nothing and knows no run.
//!
//! The differences it handles:
//! - `id INTEGER PRIMARY KEY` (SQLite's rowid) becomes `BIGINT NOT NULL
//!   AUTO_INCREMENT PRIMARY KEY`: ids come from the server, so writers on
//!   many hosts never race for one;
//! - INTEGER, REAL, BLOB become BIGINT, DOUBLE, LONGBLOB; TEXT becomes
//!   LONGTEXT, or VARCHAR(255) where it is part of a key or an index (a
//!   server key needs a length);
//! - a key text column that may be longer than an index allows (a profile
//!   stack) is kept whole as LONGTEXT and keyed by its SHA-256 (a stored
//!   generated column `<column>_sha`), so uniqueness stays exact; such a
//!   key is a UNIQUE KEY (MariaDB refuses a generated column in a primary
//!   key);
//! - column names are quoted (`reads` is a reserved word on the server);
//! - a column's `REFERENCES t(c) ON DELETE CASCADE` becomes a table-level
//!   FOREIGN KEY (MySQL ignores the column-level form);
//! - `WITHOUT ROWID` is dropped (InnoDB clusters by the primary key);
//! - tables use utf8mb4 with the binary collation: SQLite compares text
//!   byte for byte, so tags, labels and statement names stay case-sensitive
//!   and distinct as they are in a local store;
//! - a migration's CREATE INDEX is folded into its table's CREATE TABLE
//!   (IF NOT EXISTS), and its ALTER TABLE ADD COLUMNs into one ALTER per
//!   table: each statement is then atomic on InnoDB, whose DDL is not
//!   transactional.
//!
//! The statements (DML) and the per-connection settings (SQLite's
//! pragmas) are not translated here yet.

use std::collections::{BTreeMap, HashSet};

/// A text key column's length on the server (utf8mb4: 4 bytes a
/// character; two such columns and a few integers stay within InnoDB's
/// 3072-byte key).
const KEY_TEXT: &str = "VARCHAR(255)";

/// Key text columns (table, column) kept whole and keyed by their hash.
const HASHED_KEYS: &[(&str, &str)] = &[("profile_stacks", "stack")];

/// What the translation could not read (a migration in a form it does
/// not know: a bug caught by the unit tests).
#[derive(Debug, thiserror::Error)]
#[error("cannot translate the store's schema for a server: {0}")]
pub struct DialectError(String);

/// The server statements for each migration of `migrations` (SQLite's
/// text, in order): entry i takes a server schema from version i to i+1.
pub fn mysql_migrations(migrations: &[&str]) -> Result<Vec<Vec<String>>, DialectError> {
    let keys = key_columns(migrations)?;
    migrations
        .iter()
        .map(|m| mysql_migration(m, &keys))
        .collect()
}

/// Statements of `sql` without comments, trimmed, empty ones dropped.
fn statements(sql: &str) -> Vec<String> {
    let bare: String = sql
        .lines()
        .map(|l| l.split_once("--").map_or(l, |(code, _)| code))
        .collect::<Vec<_>>()
        .join("\n");
    bare.split(';')
        .map(|s| s.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|s| !s.is_empty())
        .collect()
}

/// `s` split at the commas outside parentheses, each part trimmed.
fn top_level_items(s: &str) -> Vec<String> {
    let (mut items, mut depth, mut cur) = (Vec::new(), 0i32, String::new());
    for c in s.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                items.push(cur.trim().to_string());
                cur.clear();
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    if !cur.trim().is_empty() {
        items.push(cur.trim().to_string());
    }
    items
}

/// `name` quoted as a server identifier.
fn quoted(name: &str) -> String {
    format!("`{}`", name.replace('`', "``"))
}

/// Names quoted and joined by commas.
fn quoted_list(names: &[String]) -> String {
    names
        .iter()
        .map(|n| quoted(n))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The names in a parenthesised list `(a, b)`.
fn column_list(s: &str) -> Vec<String> {
    let inner = s
        .split_once('(')
        .and_then(|(_, r)| r.rsplit_once(')'))
        .map_or("", |(l, _)| l);
    inner.split(',').map(|c| c.trim().to_string()).collect()
}

/// A parsed `CREATE TABLE name (items) [WITHOUT ROWID]`.
struct CreateTable {
    name: String,
    items: Vec<String>,
}

fn parse_create_table(stmt: &str) -> Option<CreateTable> {
    let rest = stmt.strip_prefix("CREATE TABLE ")?;
    let (name, body) = rest.split_once('(')?;
    let (body, _tail) = body.rsplit_once(')')?;
    Some(CreateTable {
        name: name.trim().to_string(),
        items: top_level_items(body),
    })
}

/// A parsed `CREATE [UNIQUE] INDEX name ON table(columns)`.
struct CreateIndex {
    name: String,
    table: String,
    columns: Vec<String>,
    unique: bool,
}

fn parse_create_index(stmt: &str) -> Option<CreateIndex> {
    let (unique, rest) = match stmt.strip_prefix("CREATE UNIQUE INDEX ") {
        Some(rest) => (true, rest),
        None => (false, stmt.strip_prefix("CREATE INDEX ")?),
    };
    let (name, on) = rest.split_once(" ON ")?;
    let (table, _) = on.split_once('(')?;
    Some(CreateIndex {
        name: name.trim().to_string(),
        table: table.trim().to_string(),
        columns: column_list(on),
        unique,
    })
}

/// The server form of an `UPDATE` that fills a new column: only the
/// fill of new `uid`s (SQLite's random hex, the server's UUID without its
/// dashes: 128 bits in hex as well) is known.
fn mysql_update(stmt: &str) -> Result<String, DialectError> {
    match stmt.contains(super::schema::NEW_UID) {
        true => Ok(stmt.replace(super::schema::NEW_UID, "LOWER(REPLACE(UUID(), '-', ''))")),
        false => Err(DialectError(format!("unknown statement: {stmt}"))),
    }
}

/// Every (table, column) that is part of a primary key or an index.
fn key_columns(migrations: &[&str]) -> Result<HashSet<(String, String)>, DialectError> {
    let mut keys = HashSet::new();
    for stmt in migrations.iter().flat_map(|m| statements(m)) {
        if let Some(t) = parse_create_table(&stmt) {
            for item in &t.items {
                if let Some(pk) = item.strip_prefix("PRIMARY KEY") {
                    keys.extend(column_list(pk).into_iter().map(|c| (t.name.clone(), c)));
                } else if item.contains("PRIMARY KEY") {
                    let col = item.split_whitespace().next().unwrap_or_default();
                    keys.insert((t.name.clone(), col.to_string()));
                }
            }
        } else if let Some(i) = parse_create_index(&stmt) {
            keys.extend(i.columns.into_iter().map(|c| (i.table.clone(), c)));
        } else if !stmt.starts_with("ALTER TABLE ") && !stmt.starts_with("UPDATE ") {
            return Err(DialectError(format!("unknown statement: {stmt}")));
        }
    }
    Ok(keys)
}

/// The server type for SQLite type `ty` of `table.column`.
fn mysql_type(ty: &str, table: &str, column: &str, keys: &HashSet<(String, String)>) -> String {
    let key = keys.contains(&(table.to_string(), column.to_string()));
    let hashed = HASHED_KEYS.contains(&(table, column));
    match ty.to_ascii_uppercase().as_str() {
        "INTEGER" => "BIGINT".into(),
        "REAL" => "DOUBLE".into(),
        "BLOB" => "LONGBLOB".into(),
        "TEXT" if key && !hashed => KEY_TEXT.into(),
        "TEXT" => "LONGTEXT".into(),
        other => other.into(),
    }
}

/// One column definition translated; a column-level REFERENCES clause is
/// returned apart as a table-level FOREIGN KEY.
fn mysql_column(
    item: &str,
    table: &str,
    keys: &HashSet<(String, String)>,
) -> Result<(String, Option<String>), DialectError> {
    let (def, reference) = match item.split_once(" REFERENCES ") {
        Some((d, r)) => (d.trim(), Some(r.trim())),
        None => (item, None),
    };
    let mut words = def.split_whitespace();
    let (Some(name), Some(ty)) = (words.next(), words.next()) else {
        return Err(DialectError(format!("unknown column in {table}: {item}")));
    };
    let rest: Vec<&str> = words.collect();
    let rest = rest.join(" ");
    let column = if name == "id" && ty == "INTEGER" && rest == "PRIMARY KEY" {
        "`id` BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY".to_string()
    } else {
        let ty = mysql_type(ty, table, name, keys);
        let space = if rest.is_empty() { "" } else { " " };
        format!("{} {ty}{space}{rest}", quoted(name))
    };
    let foreign = reference.map(|r| format!("FOREIGN KEY ({}) REFERENCES {r}", quoted(name)));
    Ok((column, foreign))
}

/// The key of table `table` over `pk` (a `PRIMARY KEY (…)` list): a
/// hashed column stands in for a long text one, and such a key is unique
/// rather than primary (see the module doc).
fn mysql_key(table: &str, pk: &str) -> String {
    let mut hashed = false;
    let cols: Vec<String> = column_list(pk)
        .into_iter()
        .map(|c| {
            if HASHED_KEYS.contains(&(table, c.as_str())) {
                hashed = true;
                format!("{c}_sha")
            } else {
                c
            }
        })
        .collect();
    match hashed {
        true => format!("UNIQUE KEY {table}_key ({})", quoted_list(&cols)),
        false => format!("PRIMARY KEY ({})", quoted_list(&cols)),
    }
}

/// An index as a server table's item (`[UNIQUE] KEY name (columns)`).
fn index_item(i: &CreateIndex) -> String {
    let unique = if i.unique { "UNIQUE " } else { "" };
    format!("{unique}KEY {} ({})", i.name, quoted_list(&i.columns))
}

/// `CREATE TABLE` for the server, with `indexes` inline.
fn mysql_create_table(
    t: &CreateTable,
    indexes: &[CreateIndex],
    keys: &HashSet<(String, String)>,
) -> Result<String, DialectError> {
    let (mut items, mut foreign) = (Vec::new(), Vec::new());
    for item in &t.items {
        if let Some(pk) = item.strip_prefix("PRIMARY KEY") {
            items.push(mysql_key(&t.name, pk));
            continue;
        }
        let (column, fk) = mysql_column(item, &t.name, keys)?;
        items.push(column);
        foreign.extend(fk);
    }
    for (_, column) in HASHED_KEYS.iter().filter(|(tb, _)| *tb == t.name) {
        let sha = format!(
            "{} BINARY(32) AS (UNHEX(SHA2({}, 256))) STORED",
            quoted(&format!("{column}_sha")),
            quoted(column)
        );
        let at = items.iter().position(|i| i.starts_with("UNIQUE KEY"));
        items.insert(at.unwrap_or(items.len()), sha);
    }
    for i in indexes {
        items.push(index_item(i));
    }
    items.extend(foreign);
    Ok(format!(
        "CREATE TABLE IF NOT EXISTS {} ({}) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin",
        t.name,
        items.join(", ")
    ))
}

/// One migration's server statements (see the module doc).
fn mysql_migration(
    sql: &str,
    keys: &HashSet<(String, String)>,
) -> Result<Vec<String>, DialectError> {
    let stmts = statements(sql);
    let mut indexes: BTreeMap<String, Vec<CreateIndex>> = BTreeMap::new();
    for i in stmts.iter().filter_map(|s| parse_create_index(s)) {
        indexes.entry(i.table.clone()).or_default().push(i);
    }
    let created: HashSet<String> = stmts
        .iter()
        .filter_map(|s| parse_create_table(s).map(|t| t.name))
        .collect();
    let (mut out, mut updates) = (Vec::new(), Vec::new());
    let mut added: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for stmt in &stmts {
        if let Some(t) = parse_create_table(stmt) {
            let inline = indexes.remove(&t.name).unwrap_or_default();
            out.push(mysql_create_table(&t, &inline, keys)?);
        } else if stmt.starts_with("UPDATE ") {
            updates.push(mysql_update(stmt)?);
        } else if let Some(rest) = stmt.strip_prefix("ALTER TABLE ") {
            let Some((table, column)) = rest.split_once(" ADD COLUMN ") else {
                return Err(DialectError(format!("unknown statement: {stmt}")));
            };
            let (column, fk) = mysql_column(column.trim(), table.trim(), keys)?;
            if fk.is_some() {
                return Err(DialectError(format!("a reference added later: {stmt}")));
            }
            added
                .entry(table.trim().to_string())
                .or_default()
                .push(format!("ADD COLUMN {column}"));
        }
    }
    // An index on a table a column was added to in the same migration
    // joins that table's one ALTER (after its columns); any other is a
    // form not known here.
    for (table, list) in indexes {
        let Some(adds) = added.get_mut(&table).filter(|_| !created.contains(&table)) else {
            return Err(DialectError(format!(
                "an index on {table}, a table neither created nor altered in the same migration"
            )));
        };
        adds.extend(list.iter().map(|i| format!("ADD {}", index_item(i))));
    }
    out.extend(
        added
            .into_iter()
            .map(|(table, adds)| format!("ALTER TABLE {table} {}", adds.join(", "))),
    );
    out.extend(updates);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_keys_and_cascades_are_translated() {
        let sql = "
            CREATE TABLE runs (
                id INTEGER PRIMARY KEY,
                point_hash TEXT,        -- identity; with ';' in a comment
                summary TEXT
            );
            CREATE INDEX runs_point ON runs(point_hash);
            CREATE TABLE profile_stacks (
                run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
                kind TEXT NOT NULL,
                stack TEXT NOT NULL,
                weight INTEGER NOT NULL,
                PRIMARY KEY (run_id, kind, stack)
            ) WITHOUT ROWID;
            ALTER TABLE runs ADD COLUMN excluded INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE runs ADD COLUMN note TEXT;
        ";
        let steps = mysql_migrations(&[sql]).unwrap();
        assert_eq!(steps.len(), 1);
        let s = &steps[0];
        assert_eq!(s.len(), 3, "{s:#?}");
        assert_eq!(
            s[0],
            "CREATE TABLE IF NOT EXISTS runs (`id` BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY, \
             `point_hash` VARCHAR(255), `summary` LONGTEXT, KEY runs_point (`point_hash`)) \
             ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin"
        );
        assert_eq!(
            s[1],
            "CREATE TABLE IF NOT EXISTS profile_stacks (`run_id` BIGINT NOT NULL, \
             `kind` VARCHAR(255) NOT NULL, `stack` LONGTEXT NOT NULL, `weight` BIGINT NOT NULL, \
             `stack_sha` BINARY(32) AS (UNHEX(SHA2(`stack`, 256))) STORED, \
             UNIQUE KEY profile_stacks_key (`run_id`, `kind`, `stack_sha`), \
             FOREIGN KEY (`run_id`) REFERENCES runs(id) ON DELETE CASCADE) \
             ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin"
        );
        assert_eq!(
            s[2],
            "ALTER TABLE runs ADD COLUMN `excluded` BIGINT NOT NULL DEFAULT 0, ADD COLUMN `note` LONGTEXT"
        );
    }

    #[test]
    fn a_later_unique_index_and_uid_fill_are_translated() {
        let sql = "
            ALTER TABLE runs ADD COLUMN uid TEXT;
            CREATE UNIQUE INDEX runs_uid ON runs(uid);
            UPDATE runs SET uid = lower(hex(randomblob(16))) WHERE uid IS NULL;
        ";
        let steps = mysql_migrations(&[sql]).unwrap();
        assert_eq!(
            steps[0],
            vec![
                "ALTER TABLE runs ADD COLUMN `uid` VARCHAR(255), ADD UNIQUE KEY runs_uid (`uid`)"
                    .to_string(),
                "UPDATE runs SET uid = LOWER(REPLACE(UUID(), '-', '')) WHERE uid IS NULL".into(),
            ]
        );
        assert!(mysql_migrations(&["UPDATE runs SET note = 'x';"]).is_err());
    }

    #[test]
    fn unknown_forms_are_refused() {
        assert!(mysql_migrations(&["DROP TABLE runs;"]).is_err());
        assert!(mysql_migrations(&["CREATE INDEX i ON t(a);"]).is_err());
    }

    #[test]
    fn every_migration_of_the_store_translates() {
        let steps = mysql_migrations(super::super::schema::MIGRATIONS).unwrap();
        assert_eq!(steps.len(), super::super::schema::MIGRATIONS.len());
        let all = steps.concat().join(";\n");
        for sqlite_only in [
            "WITHOUT ROWID",
            " TEXT",
            "INTEGER",
            " REAL",
            " BLOB",
            "CREATE INDEX",
        ] {
            assert!(!all.contains(sqlite_only), "{sqlite_only} in:\n{all}");
        }
    }
}
