//! `prepare` and `cleanup`: create and load the sbtest tables.
//!
//! Tables load in parallel, one loader thread (with its own connection) per
//! table at a time. Rows are generated in the client and streamed with
//! `LOAD DATA LOCAL INFILE` (no file is read or written): on MariaDB 10.11
//! the server spends about half the CPU per row that multi-row INSERTs cost
//! it (200k rows: 1.0 s vs 1.8 s). The secondary index k_N is built after
//! the load, as sysbench does. Data and schema are sysbench's.

use super::family::PrepareReport;
use super::oltp_plan::OltpOpts;
use super::prepare_events::Progress;
use super::rand::Rng;
use super::sbtest_data::{fill_groups, C_LEN, PAD_LEN};
use crate::protocol::{Conn, ConnOpts};
use anyhow::{anyhow, bail, Context, Result};
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

/// Rows per LOAD DATA packet (≈ 900 KB).
const ROWS_PER_CHUNK: u32 = 5000;

/// A table to create is there already (the statement and the server's
/// error kept, for sysbench mode's text).
#[derive(Debug, thiserror::Error)]
#[error("table sbtest{table} already exists; run `qpslab cleanup` first (same --tables), or use another --db")]
pub struct TableExists {
    /// N of sbtestN.
    pub table: u32,
    /// The CREATE TABLE sent.
    pub sql: String,
    /// What the server said.
    pub server: crate::protocol::ServerError,
}

/// sbtestN's CREATE TABLE, as sysbench's oltp_common.lua words it (its
/// table options, none, after the engine).
pub(crate) fn create_table_sql(t: u32, o: &OltpOpts) -> String {
    let id = if o.auto_inc {
        "INTEGER NOT NULL AUTO_INCREMENT"
    } else {
        "INTEGER NOT NULL"
    };
    format!(
        "CREATE TABLE sbtest{t}(\n  id {id},\n  k INTEGER DEFAULT '0' NOT NULL,\n  c CHAR(120) DEFAULT '' NOT NULL,\n  pad CHAR(60) DEFAULT '' NOT NULL,\n  PRIMARY KEY (id)\n) /*! ENGINE = {} */ ",
        o.storage_engine
    )
}

/// The one-line error for a server that refuses LOAD DATA LOCAL.
pub(crate) fn local_infile_refused(e: &crate::protocol::ProtoError) -> Option<anyhow::Error> {
    matches!(e.code(), Some(1148) | Some(3948)).then(|| anyhow!("the server refuses LOAD DATA LOCAL (local_infile is off); enable it with SET GLOBAL local_infile=1, or start the sandbox with --set local_infile=1"))
}

/// Loaders when not set: four per CPU. Each alternates generating a chunk
/// and sending it, so more streams keep the server busy (8 x 200k rows on
/// 2 CPUs: 2 loaders 7.2 s, 8 loaders 5.8 s).
pub fn default_loaders() -> usize {
    4 * std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
}

/// Creates and loads sbtest1..N with `loaders` parallel connections,
/// telling `progress` each step (from this thread: the loaders' events come
/// through a channel). `stop` is polled between chunks: when it says so,
/// loading ends with an error that says which tables are incomplete.
pub fn prepare(
    opts: &ConnOpts,
    o: &OltpOpts,
    loaders: usize,
    seed: u64,
    progress: &mut dyn FnMut(Progress),
    stop: fn() -> bool,
) -> Result<PrepareReport> {
    let started = Instant::now();
    let loaders = loaders.clamp(1, o.tables.max(1) as usize);
    let next_table = Arc::new(AtomicU32::new(1));
    let rows_done = Arc::new(AtomicU64::new(0));
    let failed = Arc::new(AtomicBool::new(false));
    let total = u64::from(o.tables) * u64::from(o.table_size);
    progress(Progress::LoadStart(total));
    let (tell, told) = mpsc::channel();
    let mut handles = Vec::new();
    for l in 0..loaders {
        let (mut opts, o, next, rows, failed, tell) = (
            opts.clone(),
            o.clone(),
            next_table.clone(),
            rows_done.clone(),
            failed.clone(),
            tell.clone(),
        );
        opts.local_infile = true;
        handles.push(std::thread::spawn(move || -> Result<()> {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()?;
            rt.block_on(async {
                let mut conn = Conn::connect(&opts).await?;
                let mut rng = Rng::new(&o.rand, seed.wrapping_add(l as u64 * 7919));
                loop {
                    if failed.load(Ordering::Relaxed) {
                        break;
                    }
                    let t = next.fetch_add(1, Ordering::Relaxed);
                    if t > o.tables {
                        break;
                    }
                    if let Err(e) = load_table(&mut conn, t, &o, &mut rng, &rows, &tell, stop).await
                    {
                        failed.store(true, Ordering::Relaxed);
                        return Err(e);
                    }
                }
                conn.quit().await;
                Ok(())
            })
        }));
    }
    drop(tell);
    while handles.iter().any(|h| !h.is_finished()) {
        told.try_iter().for_each(&mut *progress);
        progress(Progress::Loaded(rows_done.load(Ordering::Relaxed)));
        std::thread::sleep(Duration::from_millis(100));
    }
    told.try_iter().for_each(&mut *progress);
    progress(Progress::LoadEnd);
    let results: Vec<Result<()>> = handles
        .into_iter()
        .map(|h| h.join().map_err(|_| anyhow!("a loader thread panicked"))?)
        .collect();
    if stop() {
        bail!(
            "prepare interrupted after {} of {total} rows: the tables are incomplete; run `qpslab cleanup` (same --tables) and prepare again",
            rows_done.load(Ordering::Relaxed)
        );
    }
    for r in results {
        r?;
    }
    let seconds = started.elapsed().as_secs_f64();
    Ok(PrepareReport {
        tables: o.tables,
        rows: total,
        seconds,
    })
}

async fn load_table(
    conn: &mut Conn,
    t: u32,
    o: &OltpOpts,
    rng: &mut Rng,
    rows: &AtomicU64,
    tell: &mpsc::Sender<Progress>,
    stop: fn() -> bool,
) -> Result<()> {
    let say = |p: Progress| {
        let _ = tell.send(p);
    };
    say(Progress::CreatingTable(t));
    let create = create_table_sql(t, o);
    if let Err(e) = conn.exec(&create).await {
        if let crate::protocol::ProtoError::Server(server) = &e {
            if server.code == 1050 {
                return Err(TableExists {
                    table: t,
                    sql: create,
                    server: server.clone(),
                }
                .into());
            }
        }
        return Err(e).with_context(|| format!("creating sbtest{t}"));
    }
    if o.table_size > 0 {
        say(Progress::Inserting {
            table: t,
            rows: o.table_size,
        });
        conn.exec("SET SESSION unique_checks=0, foreign_key_checks=0")
            .await?;
        let sql = format!("LOAD DATA LOCAL INFILE 'qpslab-sbtest{t}' INTO TABLE sbtest{t} FIELDS TERMINATED BY ',' (id, k, c, pad)");
        let mut next = 1u32;
        let (mut c, mut pad) = ([0u8; C_LEN], [0u8; PAD_LEN]);
        let fill = |buf: &mut Vec<u8>| {
            if stop() {
                return false;
            }
            let last = next.saturating_add(ROWS_PER_CHUNK - 1).min(o.table_size);
            for id in next..=last {
                fill_groups(&mut c, rng.stream());
                fill_groups(&mut pad, rng.stream());
                let k = rng.default_in(1, o.table_size);
                let _ = write!(buf, "{id},{k},");
                buf.extend_from_slice(&c);
                buf.push(b',');
                buf.extend_from_slice(&pad);
                buf.push(b'\n');
            }
            rows.fetch_add(u64::from(last + 1 - next), Ordering::Relaxed);
            next = last + 1;
            next <= o.table_size
        };
        let loaded = match conn.load_data(&sql, fill).await {
            Err(e) => match local_infile_refused(&e) {
                Some(refused) => return Err(refused),
                None => return Err(e).with_context(|| format!("loading sbtest{t}")),
            },
            Ok(n) => n,
        };
        if stop() {
            bail!("interrupted while loading sbtest{t}");
        }
        if loaded != u64::from(o.table_size) {
            bail!(
                "sbtest{t}: the server loaded {loaded} rows of {}",
                o.table_size
            );
        }
        conn.exec("SET SESSION unique_checks=1, foreign_key_checks=1")
            .await?;
    }
    if o.create_secondary {
        say(Progress::CreatingIndex(t));
        // An index build answers only when done: allow it time in
        // proportion to the rows (at least 10,000 rows/s).
        conn.set_read_timeout(index_build_timeout(conn.read_timeout(), o.table_size));
        conn.exec(&format!("CREATE INDEX k_{t} ON sbtest{t}(k)"))
            .await
            .with_context(|| format!("creating the index k_{t}"))?;
    }
    Ok(())
}

/// The read timeout while an index is built over `rows` rows.
pub(crate) fn index_build_timeout(read_timeout: Duration, rows: u32) -> Duration {
    read_timeout + Duration::from_secs(u64::from(rows) / 10_000)
}

/// Drops sbtest1..N, telling `each` the name of each table before it goes.
pub async fn cleanup(conn: &mut Conn, tables: u32, each: &mut dyn FnMut(&str)) -> Result<()> {
    for t in 1..=tables {
        each(&format!("sbtest{t}"));
        conn.exec(&format!("DROP TABLE IF EXISTS sbtest{t}"))
            .await
            .with_context(|| {
                format!("dropping sbtest{t} (a very large table may need a longer --read-timeout)")
            })?;
    }
    Ok(())
}
