//! `prepare` and `cleanup`: create and load the sbtest tables.
//!
//! Tables load in parallel, one loader thread (with its own connection) per
//! table at a time. Each table is filled in one transaction of large
//! multi-row INSERTs with unique and foreign-key checks off — on MariaDB ≥
//! 10.6 that is InnoDB's bulk-insert path into an empty table (one undo
//! record for the whole table). The secondary index k_N is built after the
//! load, as sysbench does.

use super::data::{fill_groups, C_LEN, PAD_LEN};
use super::rand::Rng;
use super::OltpOpts;
use crate::protocol::{Conn, ConnOpts, ProtoError};
use anyhow::{anyhow, bail, Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Rows per INSERT statement (≈ 190 KB, well under max_allowed_packet).
const ROWS_PER_INSERT: u32 = 1000;

pub fn create_table_sql(t: u32, o: &OltpOpts) -> String {
    let id = if o.auto_inc {
        "INTEGER NOT NULL AUTO_INCREMENT"
    } else {
        "INTEGER NOT NULL"
    };
    format!(
        "CREATE TABLE sbtest{t}(\n  id {id},\n  k INTEGER DEFAULT '0' NOT NULL,\n  c CHAR(120) DEFAULT '' NOT NULL,\n  pad CHAR(60) DEFAULT '' NOT NULL,\n  PRIMARY KEY (id)\n) /*! ENGINE = {} */",
        o.storage_engine
    )
}

/// What a prepare did.
pub struct PrepareReport {
    pub tables: u32,
    pub rows: u64,
    pub seconds: f64,
}

/// Creates and loads sbtest1..N with `loaders` parallel connections.
pub fn prepare(
    opts: &ConnOpts,
    o: &OltpOpts,
    loaders: usize,
    seed: u64,
    quiet: bool,
) -> Result<PrepareReport> {
    let started = Instant::now();
    let loaders = loaders.clamp(1, o.tables.max(1) as usize);
    let next_table = Arc::new(AtomicU32::new(1));
    let rows_done = Arc::new(AtomicU64::new(0));
    let failed = Arc::new(AtomicBool::new(false));
    let total = u64::from(o.tables) * u64::from(o.table_size);
    let bar = if quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(total)
    };
    bar.set_style(
        ProgressStyle::with_template("{spinner} loading [{bar:30}] {human_pos}/{human_len} rows  {per_sec}  eta {eta}  {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    let mut handles = Vec::new();
    for l in 0..loaders {
        let (opts, o, next, rows, failed) = (
            opts.clone(),
            o.clone(),
            next_table.clone(),
            rows_done.clone(),
            failed.clone(),
        );
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
                    if let Err(e) = load_table(&mut conn, t, &o, &mut rng, &rows, quiet).await {
                        failed.store(true, Ordering::Relaxed);
                        return Err(e);
                    }
                }
                conn.quit().await;
                Ok(())
            })
        }));
    }
    while handles.iter().any(|h| !h.is_finished()) {
        bar.set_position(rows_done.load(Ordering::Relaxed));
        std::thread::sleep(Duration::from_millis(200));
    }
    bar.finish_and_clear();
    for h in handles {
        h.join()
            .map_err(|_| anyhow!("a loader thread panicked"))??;
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
    quiet: bool,
) -> Result<()> {
    let say = |m: String| {
        if !quiet {
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "{m}");
        }
    };
    say(format!("Creating table 'sbtest{t}'..."));
    if let Err(e) = conn.exec(&create_table_sql(t, o)).await {
        if e.code() == Some(1050) {
            bail!("table sbtest{t} already exists; run `qpslab cleanup` first (same --tables), or use another --db");
        }
        return Err(e).with_context(|| format!("creating sbtest{t}"));
    }
    if o.table_size > 0 {
        say(format!(
            "Inserting {} records into 'sbtest{t}'",
            o.table_size
        ));
    }
    conn.exec("SET SESSION unique_checks=0, foreign_key_checks=0")
        .await?;
    conn.exec("BEGIN").await?;
    let mut sql = Vec::with_capacity(ROWS_PER_INSERT as usize * 200 + 64);
    let mut c = [0u8; C_LEN];
    let mut pad = [0u8; PAD_LEN];
    let mut id = 1u32;
    while id <= o.table_size {
        let last = (id + ROWS_PER_INSERT - 1).min(o.table_size);
        sql.clear();
        write!(sql, "INSERT INTO sbtest{t}(id, k, c, pad) VALUES")?;
        for row in id..=last {
            fill_groups(&mut c, rng);
            fill_groups(&mut pad, rng);
            let k = rng.default_in(1, o.table_size);
            if row > id {
                sql.push(b',');
            }
            write!(sql, "({row},{k},'")?;
            sql.extend_from_slice(&c);
            sql.extend_from_slice(b"','");
            sql.extend_from_slice(&pad);
            sql.extend_from_slice(b"')");
        }
        let text = std::str::from_utf8(&sql).expect("ascii");
        conn.exec(text)
            .await
            .with_context(|| format!("loading sbtest{t}"))?;
        rows.fetch_add(u64::from(last - id + 1), Ordering::Relaxed);
        id = last + 1;
    }
    conn.exec("COMMIT").await?;
    conn.exec("SET SESSION unique_checks=1, foreign_key_checks=1")
        .await?;
    if o.create_secondary {
        say(format!("Creating a secondary index on 'sbtest{t}'..."));
        conn.exec(&format!("CREATE INDEX k_{t} ON sbtest{t}(k)"))
            .await?;
    }
    Ok(())
}

/// Drops sbtest1..N.
pub async fn cleanup(conn: &mut Conn, tables: u32) -> Result<(), ProtoError> {
    for t in 1..=tables {
        println!("Dropping table 'sbtest{t}'...");
        conn.exec(&format!("DROP TABLE IF EXISTS sbtest{t}"))
            .await?;
    }
    Ok(())
}

/// Drops sbtest1..N without printing.
pub async fn cleanup_quiet(conn: &mut Conn, tables: u32) -> Result<(), ProtoError> {
    for t in 1..=tables {
        conn.exec(&format!("DROP TABLE IF EXISTS sbtest{t}"))
            .await?;
    }
    Ok(())
}
