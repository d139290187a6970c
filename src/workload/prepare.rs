//! `prepare` and `cleanup`: create and load the sbtest tables.
//!
//! Tables load in parallel, one loader thread (with its own connection) per
//! table at a time. Rows are generated in the client and streamed with
//! `LOAD DATA LOCAL INFILE` (no file is written): on MariaDB 10.11 the
//! server spends about half the CPU per row that multi-row INSERTs cost it
//! (200k rows: 1.0 s vs 1.8 s). When the server is on this host and may
//! read files, the same statement goes through a named pipe it reads
//! itself (bulk_load/pipe.rs, `--load-via`). The secondary index k_N is
//! built after the load, as sysbench does. Data and schema are sysbench's.

use super::bulk_load::{self, Batching, ChunkLoader, LoadCtx, LoadFailure, StreamError};
use super::family::PrepareReport;
use super::oltp_plan::OltpOpts;
use super::prepare_events::Progress;
use super::rand::Rng;
use super::sbtest_data::{fill_groups, C_LEN, PAD_LEN};
use crate::protocol::{Conn, ConnOpts};
use anyhow::{anyhow, Context, Result};
use std::io::Write;
use std::time::{Duration, Instant};

/// A table is one LOAD DATA statement, ≈ 900 KB packets.
const BATCHING: Batching = Batching {
    statement_rows: u64::MAX,
    packet_rows: 5000,
};

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
    let total = u64::from(o.tables) * u64::from(o.table_size);
    let mut infile_opts = opts.clone();
    infile_opts.local_infile = true;
    let make = |l: usize| TableLoader {
        o: o.clone(),
        rng: Rng::new(&o.rand, seed.wrapping_add(l as u64 * 7919)),
    };
    let tables: Vec<u32> = (1..=o.tables).collect();
    let loaded = bulk_load::run_loaders(&infile_opts, tables, loaders, make, total, progress, stop).map_err(
        |f| match f {
            LoadFailure::Interrupted { rows, .. } => anyhow!("prepare interrupted after {rows} of {total} rows: the tables are incomplete; run `qpslab cleanup` (same --tables) and prepare again"),
            LoadFailure::Refused(e) => e,
            LoadFailure::Failed(e) => e,
        },
    )?;
    let seconds = started.elapsed().as_secs_f64();
    Ok(PrepareReport {
        tables: o.tables,
        rows: total,
        seconds,
        piped: loaded.piped,
        pipe_note: loaded.pipe_note,
    })
}

/// One loader thread: its random stream runs on across its tables.
struct TableLoader {
    o: OltpOpts,
    rng: Rng,
}

impl ChunkLoader for TableLoader {
    /// N of sbtestN.
    type Work = u32;

    async fn load(&mut self, conn: &mut Conn, _: usize, &t: &u32, ctx: &LoadCtx<'_>) -> Result<()> {
        load_table(conn, t, &self.o, &mut self.rng, ctx).await
    }
}

/// Creates sbtest`t`, loads it and builds its index, telling `ctx` each
/// step.
async fn load_table(
    conn: &mut Conn,
    t: u32,
    o: &OltpOpts,
    rng: &mut Rng,
    ctx: &LoadCtx<'_>,
) -> Result<()> {
    ctx.tell(Progress::CreatingTable(t));
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
        ctx.tell(Progress::Inserting {
            table: t,
            rows: o.table_size,
        });
        conn.exec("SET SESSION unique_checks=0, foreign_key_checks=0")
            .await?;
        let sql = format!("LOAD DATA LOCAL INFILE 'qpslab-sbtest{t}' INTO TABLE sbtest{t} FIELDS TERMINATED BY ',' (id, k, c, pad)");
        let (mut c, mut pad) = ([0u8; C_LEN], [0u8; PAD_LEN]);
        let row = |i: u64, buf: &mut Vec<u8>| {
            fill_groups(&mut c, rng.stream());
            fill_groups(&mut pad, rng.stream());
            let k = rng.default_in(1, o.table_size);
            let _ = write!(buf, "{},{k},", i + 1);
            buf.extend_from_slice(&c);
            buf.push(b',');
            buf.extend_from_slice(&pad);
        };
        let name = format!("sbtest{t}");
        let count = u64::from(o.table_size);
        match bulk_load::stream_rows(conn, &sql, &name, count, BATCHING, row, ctx).await {
            Ok(()) => {}
            Err(StreamError::Protocol(e)) => {
                return Err(e).with_context(|| format!("loading sbtest{t}"))
            }
            Err(StreamError::Short { loaded, sent, .. }) => {
                return Err(anyhow!(
                    "sbtest{t}: the server loaded {loaded} rows of {sent}"
                ))
            }
            Err(e) => return Err(e.into()),
        }
        conn.exec("SET SESSION unique_checks=1, foreign_key_checks=1")
            .await?;
    }
    if o.create_secondary {
        ctx.tell(Progress::CreatingIndex(t));
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
