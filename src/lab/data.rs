//! A workload's data on a target: checking it is there before a run (and
//! reading the server's environment on the same connection), creating it,
//! dropping it. What the data is belongs to the workload family.

use super::environment_capture::{capture, Environment};
use super::target::{check, Target};
use crate::protocol::Conn;
use crate::workload::{Family, PrepareReport};
use anyhow::{bail, Result};

/// Checks that the tables `family` needs exist, before a run opens all its
/// connections, and reads the server's environment on the same connection.
/// A target that reaches no server (a dry run) has nothing to check.
pub async fn ready(t: &Target, family: &dyn Family) -> Result<Environment> {
    if !t.opts.reaches_server() {
        return Ok(Environment::without_server());
    }
    let mut c = check(t).await?;
    let env = capture(t, &mut c).await?;
    let r = c.query("SHOW TABLES").await?;
    let have: Vec<String> = r
        .rows
        .into_iter()
        .filter_map(|r| r.into_iter().next().flatten())
        .collect();
    let missing = family
        .required_tables()
        .into_iter()
        .find(|name| !have.iter().any(|h| h == name));
    if missing.is_none() {
        for (sql, error) in family.ready_checks() {
            if c.query(&sql).await?.rows.is_empty() {
                c.quit().await;
                bail!("{error}");
            }
        }
        for sql in family.setup_sql() {
            let head: String = sql
                .lines()
                .next()
                .unwrap_or_default()
                .chars()
                .take(80)
                .collect();
            if let Err(e) = c.exec(&sql).await {
                c.quit().await;
                bail!("setting up the workload (`{head}` …): {e}");
            }
        }
    }
    c.quit().await;
    if let Some(table) = missing {
        return Err(MissingTable {
            table,
            db: t.opts.db.clone().unwrap_or_default(),
            on: t.describe(),
            prepare: family.prepare_command(),
        }
        .into());
    }
    Ok(env)
}

/// A table the workload needs is not in the database (the names kept,
/// for sysbench mode's text).
#[derive(Debug, thiserror::Error)]
#[error("table {table} is missing in database '{db}' on {on}: run `{prepare}` first")]
pub struct MissingTable {
    /// The table's name.
    pub table: String,
    /// The database looked in.
    pub db: String,
    on: String,
    prepare: String,
}

/// The largest id of `table` on the target (the rows a sysbench-style
/// prepare made); None when the table is missing or empty.
pub fn largest_id(t: &Target, table: &str) -> Result<Option<u64>> {
    let quoted = table.replace('`', "``");
    super::runtime::block_on(async {
        let mut c = check(t).await?;
        let r = c.query(&format!("SELECT MAX(id) FROM `{quoted}`")).await;
        c.quit().await;
        Ok::<_, anyhow::Error>(match r {
            Ok(r) => r
                .rows
                .into_iter()
                .next()
                .and_then(|row| row.into_iter().next().flatten())
                .and_then(|v| v.parse().ok()),
            Err(_) => None,
        })
    })?
}

/// Creates the workload's data with `loaders` connections, telling
/// `progress` each step; Ctrl-C stops it with a message saying what is
/// incomplete.
pub fn prepare(
    t: &Target,
    family: &dyn Family,
    loaders: usize,
    progress: &mut dyn FnMut(crate::workload::Progress),
) -> Result<PrepareReport> {
    super::runtime::block_on(async {
        check(t).await?.quit().await;
        Ok::<_, anyhow::Error>(())
    })??;
    let _ctrl_c = crate::exec::Cooperative::enter();
    family.prepare(&t.opts, loaders, progress, crate::exec::interrupted)
}

/// Drops the workload's data, telling `each` each table's name first, and
/// the named pipes a killed prepare left where the server reads files.
pub fn cleanup(t: &Target, family: &dyn Family, mut each: impl FnMut(&str)) -> Result<()> {
    super::runtime::block_on(async {
        let mut c = check(t).await?;
        family.cleanup(&mut c, &mut each).await?;
        crate::workload::sweep_left_pipes(&mut c, &t.opts).await;
        c.quit().await;
        Ok::<_, anyhow::Error>(())
    })?
}

/// Runs a family's check `f` on one connection to the target, with a
/// read timeout long enough for a check's full scans (10 minutes at
/// least).
fn on_quiet_db<T>(t: &Target, f: impl AsyncFnOnce(&mut Conn) -> Result<T>) -> Result<T> {
    super::runtime::block_on(async {
        let mut c = check(t).await?;
        c.set_read_timeout(c.read_timeout().max(std::time::Duration::from_secs(600)));
        let r = f(&mut c).await;
        c.quit().await;
        r
    })?
}

/// TPC-C's consistency conditions on the target (a quiet database).
pub fn check_tpcc(
    t: &Target,
    tpcc: &crate::workload::tpcc::Tpcc,
) -> Result<Vec<crate::workload::tpcc::Condition>> {
    on_quiet_db(t, async |c| tpcc.check(c).await)
}

/// LinkBench's count conditions on the target (a quiet database).
pub fn check_linkbench(
    t: &Target,
    lb: &crate::workload::linkbench::LinkBench,
) -> Result<Vec<crate::workload::linkbench::Condition>> {
    on_quiet_db(t, async |c| lb.check(c).await)
}

/// DBT3's row counts and order/line-item conditions on the target (a
/// quiet database).
pub fn check_dbt3(
    t: &Target,
    family: &crate::workload::dbt3::Dbt3,
) -> Result<Vec<crate::workload::dbt3::Condition>> {
    on_quiet_db(t, async |c| family.check(c).await)
}

/// DBT3's validation queries' answers on the target against
/// `references` (each query's reference answer text).
pub fn check_dbt3_answers(
    t: &Target,
    family: &crate::workload::dbt3::Dbt3,
    references: &std::collections::BTreeMap<u32, String>,
) -> Result<Vec<crate::workload::dbt3::AnswerCheck>> {
    on_quiet_db(t, async |c| family.check_answers(c, references).await)
}

/// dbSTRESS's consistency conditions on the target (a quiet database).
pub fn check_dbstress(
    t: &Target,
    family: &crate::workload::dbstress::Dbstress,
) -> Result<crate::workload::dbstress::CheckReport> {
    on_quiet_db(t, async |c| family.check(c).await)
}

/// `check insert-benchmark`: purchases_index's indexes against its rows.
pub fn check_ibench(t: &Target) -> Result<crate::workload::ibench::index_check::IndexReport> {
    on_quiet_db(t, async |c| {
        crate::workload::ibench::index_check::check(c).await
    })
}

/// Runs a script's command (prepare, cleanup, or its own such as
/// `prewarm`) on the target; Ctrl-C stops it.
pub fn script_command(
    t: &Target,
    script: &crate::workload::script::Script,
    name: &str,
) -> Result<()> {
    super::runtime::block_on(async {
        check(t).await?.quit().await;
        Ok::<_, anyhow::Error>(())
    })??;
    let _ctrl_c = crate::exec::Cooperative::enter();
    script
        .run_command(name, &t.opts, crate::exec::interrupted)
        .map_err(anyhow::Error::msg)
}
