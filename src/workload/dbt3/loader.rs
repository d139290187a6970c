//! `prepare dbt3`: creates the eight tables, streams each chunk of
//! `tpchgen`'s rows into them by LOAD DATA over the loader pool's
//! `loaders` connections (through a named pipe the server reads when it
//! is on this host and may, else LOCAL: `--load-via`), then adds the
//! secondary indexes. Resumable: each chunk is
//! loaded in one transaction with its row in the progress table, so an
//! interrupted prepare (Ctrl-C, a lost server) goes on where it stopped
//! when run again at the same scale (exact on a transactional engine;
//! on MyISAM a chunk cut off mid-way is loaded twice: clean up instead).
//! A chunk that meets a deadlock (two loaders at one empty table) is
//! rolled back with its transaction and loaded again by the pool.

use super::datagen::{self, Chunk};
use super::settings::Dbt3Opts;
use super::tpch_schema::{self as tables, PROGRESS};
use crate::protocol::{Conn, ConnOpts};
use crate::workload::bulk_load::{self, ChunkLoader, LoadCtx, LoadFailure, StreamError};
use crate::workload::family::PrepareReport;
use crate::workload::prepare_events::Progress;
use anyhow::{anyhow, bail, Context, Result};
use std::collections::HashSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Creates the tables (or finds an interrupted prepare's) and returns
/// the chunks already loaded.
async fn begin(conn: &mut Conn, o: &Dbt3Opts) -> Result<HashSet<String>> {
    let have: Vec<String> = conn
        .query("SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE()")
        .await?
        .rows
        .into_iter()
        .filter_map(|r| r.into_iter().next().flatten())
        .map(|t| t.to_lowercase())
        .collect();
    let scale = o.scale_text();
    if have.iter().any(|t| t == PROGRESS) {
        let r = conn
            .query(&format!("SELECT part, value FROM {PROGRESS}"))
            .await?;
        let rows: Vec<(String, String)> = r
            .rows
            .into_iter()
            .map(|row| {
                let mut v = row.into_iter().map(Option::unwrap_or_default);
                (v.next().unwrap_or_default(), v.next().unwrap_or_default())
            })
            .collect();
        let held = rows
            .iter()
            .find(|(p, _)| p == "scale")
            .map(|(_, v)| v.as_str());
        if held != Some(scale.as_str()) {
            let held = held.unwrap_or("?");
            bail!("the DBT3 tables hold scale {held} (or an interrupted prepare of it), not {scale}: run `qpslab cleanup dbt3` first, or prepare with --scale {held}");
        }
        if rows.iter().any(|(p, _)| p == "complete") {
            bail!("the DBT3 tables are already prepared at scale {scale}: run `qpslab cleanup dbt3` first to load them again");
        }
        let done: HashSet<String> = rows.into_iter().map(|(p, _)| p).collect();
        return Ok(done);
    }
    if let Some(t) = tables::ALL
        .iter()
        .find(|t| have.iter().any(|h| h == t.name()))
    {
        bail!(
            "table {} already exists (not from a DBT3 prepare): run `qpslab cleanup dbt3` first, or use another --db",
            t.name()
        );
    }
    for t in tables::ALL {
        conn.exec(&tables::create_sql(
            t,
            &o.storage_engine,
            &o.table_options,
            o.partition,
        ))
        .await
        .with_context(|| format!("creating {}", t.name()))?;
    }
    conn.exec(&tables::create_progress_sql()).await?;
    conn.exec(&format!(
        "INSERT INTO {PROGRESS} VALUES ('scale', '{scale}')"
    ))
    .await?;
    Ok(HashSet::new())
}

/// Creates and loads the tables with `loaders` connections.
pub fn prepare(
    opts: &ConnOpts,
    o: &Dbt3Opts,
    loaders: usize,
    progress: &mut dyn FnMut(Progress),
    stop: fn() -> bool,
) -> Result<PrepareReport> {
    let started = Instant::now();
    datagen::warm_up();
    let mut opts = opts.clone();
    opts.local_infile = true;
    let rt = bulk_load::runtime()?;
    let done = rt.block_on(async {
        let mut conn = Conn::connect(&opts).await?;
        let done = begin(&mut conn, o).await;
        conn.quit().await;
        done
    })?;
    let all = datagen::chunks(o.scale);
    let chunks = all.len();
    let work: Vec<Chunk> = all
        .into_iter()
        .filter(|c| !done.contains(&c.key()))
        .collect();
    // (chunks an earlier, interrupted prepare committed)
    let kept = chunks - work.len();
    // (an interrupted prepare's progress table holds at least its scale)
    if !done.is_empty() {
        progress(Progress::ResumingChunks {
            family: "DBT3",
            loaded: kept,
            to_go: work.len(),
        });
    }
    let total: u64 = work
        .iter()
        .map(|c| datagen::rows_about(c.table, o.scale) / c.parts as u64)
        .sum();
    let loaded = bulk_load::run_loaders(&opts, work, loaders, |_| ChunkLoad { sf: o.scale }, total, progress, stop)
        .map_err(|f| match f {
            LoadFailure::Interrupted { rows, committed } => anyhow!("prepare interrupted after {rows} rows sent: {} of {chunks} chunks are loaded and kept; run the same `qpslab prepare dbt3 --scale {}` again to resume, or `qpslab cleanup dbt3`", kept + committed, o.scale_text()),
            LoadFailure::Refused(e) => e,
            LoadFailure::Failed(e) => e.context("loading DBT3: the chunks loaded so far are kept; fix the cause and run the same prepare again to resume"),
        })?;
    rt.block_on(finish(&opts, &done))?;
    Ok(PrepareReport {
        tables: tables::ALL.len() as u32,
        rows: loaded.rows,
        seconds: started.elapsed().as_secs_f64(),
        piped: loaded.piped,
        pipe_note: loaded.pipe_note,
    })
}

/// Adds the secondary indexes not yet added, then marks the load
/// complete.
async fn finish(opts: &ConnOpts, done: &HashSet<String>) -> Result<()> {
    let mut conn = Conn::connect(opts).await?;
    for t in tables::ALL {
        let key = format!("index:{}", t.name());
        let Some(sql) = tables::index_sql(t).filter(|_| !done.contains(&key)) else {
            continue;
        };
        conn.exec_unbounded(&sql)
            .await
            .with_context(|| format!("adding the indexes of {}", t.name()))?;
        conn.exec(&format!("INSERT INTO {PROGRESS} VALUES ('{key}', NOW())"))
            .await?;
    }
    conn.exec(&format!(
        "INSERT INTO {PROGRESS} VALUES ('complete', NOW())"
    ))
    .await?;
    conn.quit().await;
    Ok(())
}

/// One loader thread's part: the scale it generates rows at.
struct ChunkLoad {
    sf: f64,
}

impl ChunkLoader for ChunkLoad {
    type Work = Chunk;

    async fn start(&mut self, conn: &mut Conn) -> Result<()> {
        conn.set_read_timeout(conn.read_timeout().max(Duration::from_secs(600)));
        conn.exec(bulk_load::SHARED_TABLES_SESSION).await?;
        Ok(())
    }

    /// Loads chunk `c` and records it, in one transaction.
    async fn load(
        &mut self,
        conn: &mut Conn,
        _: usize,
        &c: &Chunk,
        ctx: &LoadCtx<'_>,
    ) -> Result<()> {
        let counted = Arc::new(AtomicU64::new(0));
        let mut fill = datagen::chunk_rows(c, self.sf, counted.clone());
        conn.exec("START TRANSACTION").await?;
        let mut told = 0;
        let loaded = match ctx
            .load_data(conn, &datagen::load_sql(c.table), |b| {
                let more = fill(b);
                let now = counted.load(Ordering::Relaxed);
                ctx.add_rows(now - told);
                told = now;
                more
            })
            .await
        {
            Err(StreamError::Protocol(e)) => {
                return Err(e).with_context(|| format!("loading {}", c.key()))
            }
            Err(refused) => return Err(refused.into()),
            Ok(n) => n,
        };
        let sent = counted.load(Ordering::Relaxed);
        if loaded != sent {
            conn.exec("ROLLBACK").await?;
            bail!(
                "{}: the server took {loaded} rows of {sent} (see SHOW WARNINGS)",
                c.key()
            );
        }
        conn.exec(&format!(
            "INSERT INTO {PROGRESS} VALUES ('{}', '{loaded}')",
            c.key()
        ))
        .await?;
        conn.exec("COMMIT").await?;
        Ok(())
    }

    /// After a deadlock: a chunk is one transaction, which the deadlock
    /// rolled back (the ROLLBACK ends what a statement-level failure left
    /// open), so nothing of it is left to remove where the table's engine
    /// is transactional; on any other engine the rows sent stay, so the
    /// chunk cannot be loaded again and the load fails.
    async fn clear(&mut self, conn: &mut Conn, c: &Chunk) -> Result<bool> {
        conn.exec("ROLLBACK").await?;
        let r = conn
            .query(&format!(
                "SELECT e.transactions FROM information_schema.tables t \
                 JOIN information_schema.engines e ON e.engine = t.engine \
                 WHERE t.table_schema = DATABASE() AND t.table_name = '{}'",
                c.table.name()
            ))
            .await?;
        let yes = r
            .rows
            .first()
            .and_then(|row| row.first().cloned().flatten());
        Ok(yes.is_some_and(|v| v.eq_ignore_ascii_case("yes")))
    }
}
