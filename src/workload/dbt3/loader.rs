//! `prepare dbt3`: creates the eight tables, streams each chunk of
//! `tpchgen`'s rows into them by LOAD DATA LOCAL INFILE over `loaders`
//! connections, then adds the secondary indexes. Resumable: each chunk is
//! loaded in one transaction with its row in the progress table, so an
//! interrupted prepare (Ctrl-C, a lost server) goes on where it stopped
//! when run again at the same scale (exact on a transactional engine;
//! on MyISAM a chunk cut off mid-way is loaded twice: clean up instead).

use super::datagen::{self, Chunk};
use super::settings::Dbt3Opts;
use super::tpch_schema::{self as tables, PROGRESS};
use crate::protocol::{Conn, ConnOpts};
use crate::workload::family::PrepareReport;
use crate::workload::prepare_events::Progress;
use anyhow::{anyhow, bail, Context, Result};
use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// What loaders share.
struct Shared {
    work: Vec<Chunk>,
    next: AtomicUsize,
    rows: Arc<AtomicU64>,
    failed: AtomicBool,
    first_error: Mutex<Option<anyhow::Error>>,
}

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
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let done = rt.block_on(async {
        let mut conn = Conn::connect(&opts).await?;
        let done = begin(&mut conn, o).await;
        conn.quit().await;
        done
    })?;
    let work: Vec<Chunk> = datagen::chunks(o.scale)
        .into_iter()
        .filter(|c| !done.contains(&c.key()))
        .collect();
    let total: u64 = work
        .iter()
        .map(|c| datagen::rows_about(c.table, o.scale) / c.parts as u64)
        .sum();
    progress(Progress::LoadStart(total));
    let shared = Arc::new(Shared {
        work,
        next: AtomicUsize::new(0),
        rows: Arc::new(AtomicU64::new(0)),
        failed: AtomicBool::new(false),
        first_error: Mutex::new(None),
    });
    let mut handles = Vec::new();
    for _ in 0..loaders.clamp(1, shared.work.len().max(1)) {
        let (opts, sf, shared) = (opts.clone(), o.scale, shared.clone());
        handles.push(std::thread::spawn(move || {
            if let Err(e) = load_chunks(&opts, sf, &shared, stop) {
                shared.failed.store(true, Ordering::Relaxed);
                if let Ok(mut f) = shared.first_error.lock() {
                    f.get_or_insert(e);
                }
            }
        }));
    }
    while handles.iter().any(|h| !h.is_finished()) {
        progress(Progress::Loaded(shared.rows.load(Ordering::Relaxed)));
        std::thread::sleep(Duration::from_millis(100));
    }
    progress(Progress::LoadEnd);
    for h in handles {
        h.join().map_err(|_| anyhow!("a loader thread panicked"))?;
    }
    let loaded = shared.rows.load(Ordering::Relaxed);
    if stop() {
        bail!("prepare interrupted after {loaded} rows: the loaded chunks are kept; run the same `qpslab prepare dbt3 --scale {}` again to resume, or `qpslab cleanup dbt3`", o.scale_text());
    }
    if let Some(e) = shared.first_error.lock().ok().and_then(|mut f| f.take()) {
        return Err(e.context("loading DBT3: the chunks loaded so far are kept; fix the cause and run the same prepare again to resume"));
    }
    rt.block_on(finish(&opts, &done))?;
    Ok(PrepareReport {
        tables: tables::ALL.len() as u32,
        rows: loaded,
        seconds: started.elapsed().as_secs_f64(),
        piped: false,
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

/// One loader: takes chunks until none is left, one connection.
fn load_chunks(opts: &ConnOpts, sf: f64, shared: &Shared, stop: fn() -> bool) -> Result<()> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    rt.block_on(async {
        let mut conn = Conn::connect(opts).await?;
        conn.set_read_timeout(conn.read_timeout().max(Duration::from_secs(600)));
        conn.exec("SET SESSION unique_checks=0, foreign_key_checks=0")
            .await?;
        loop {
            if shared.failed.load(Ordering::Relaxed) || stop() {
                break;
            }
            let i = shared.next.fetch_add(1, Ordering::Relaxed);
            let Some(&c) = shared.work.get(i) else {
                break;
            };
            load_chunk(&mut conn, c, sf, &shared.rows).await?;
        }
        conn.quit().await;
        Ok(())
    })
}

/// Loads chunk `c` and records it, in one transaction.
async fn load_chunk(conn: &mut Conn, c: Chunk, sf: f64, all: &Arc<AtomicU64>) -> Result<()> {
    let counted = Arc::new(AtomicU64::new(0));
    let mut fill = datagen::chunk_rows(c, sf, all.clone());
    let mine = counted.clone();
    conn.exec("START TRANSACTION").await?;
    let sql = datagen::load_sql(c.table);
    let loaded = match crate::workload::bulk_load::load_data(conn, &sql, |b| {
        let before = b.len();
        let more = fill(b);
        mine.fetch_add(
            b[before..].iter().filter(|&&x| x == b'\n').count() as u64,
            Ordering::Relaxed,
        );
        more
    })
    .await
    {
        Err(crate::workload::bulk_load::StreamError::Protocol(e)) => {
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
