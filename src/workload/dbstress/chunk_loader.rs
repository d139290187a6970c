//! `prepare dbstress`: creates the tables and loads them in parallel.
//!
//! The objects are cut into chunks of consecutive ids, which `loaders`
//! connections take in turn; a chunk is one multi-row INSERT of its
//! objects and one per history table of their history rows (seq 1..H),
//! each auto-committed, so no transaction is ever large; a chunk that
//! fails on a deadlock is deleted and loaded again. The scale is
//! written to `dbs_meta` last, with `complete`: a run refuses tables
//! without it. An interrupted prepare is not resumed: cleanup and prepare
//! again.

use super::knobs::DbstressOpts;
use super::tables::{self, META, OBJECTS};
use crate::protocol::{Conn, ConnOpts};
use crate::workload::bulk_load::{self, ChunkLoader, LoadCtx, LoadFailure};
use crate::workload::family::PrepareReport;
use crate::workload::prepare_events::Progress;
use anyhow::{anyhow, bail, Context, Result};
use std::fmt::Write;
use std::time::Instant;

/// History rows per chunk, about (so one INSERT stays well under the
/// server's max_allowed_packet).
const CHUNK_ROWS: u64 = 20_000;

/// Objects per chunk for `history` rows per object.
fn chunk_objects(history: u32) -> u64 {
    (CHUNK_ROWS / (u64::from(history) + 1)).clamp(1, 1_000)
}

/// A cheap, fixed mix of `x` (the data's filler: the same on every
/// prepare, no random stream needed).
fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Refuses a database that already holds dbSTRESS's tables.
async fn refuse_existing(conn: &mut Conn, tables: u32) -> Result<()> {
    let have = bulk_load::existing_tables(conn).await?;
    if let Some(t) = tables::all_tables(tables)
        .into_iter()
        .find(|t| have.contains(t))
    {
        bail!("table {t} already exists (an earlier or interrupted prepare): run `qpslab cleanup dbstress --history-tables {tables}` first, or use another --db");
    }
    Ok(())
}

/// Creates and loads the tables with `loaders` connections.
pub fn prepare(
    opts: &ConnOpts,
    o: &DbstressOpts,
    loaders: usize,
    progress: &mut dyn FnMut(Progress),
    stop: fn() -> bool,
) -> Result<PrepareReport> {
    let started = Instant::now();
    let rt = bulk_load::runtime()?;
    rt.block_on(async {
        let mut conn = Conn::connect(opts).await?;
        refuse_existing(&mut conn, o.history_tables).await?;
        conn.exec(&tables::create_objects_sql(&o.storage_engine))
            .await
            .context("creating dbs_object")?;
        for t in 1..=o.history_tables {
            conn.exec(&tables::create_history_sql(t, &o.storage_engine))
                .await
                .with_context(|| format!("creating {}", tables::history(t)))?;
        }
        conn.exec(&tables::create_meta_sql()).await?;
        conn.quit().await;
        Ok::<_, anyhow::Error>(())
    })?;
    let total = u64::from(o.objects) * (1 + u64::from(o.history_per_object));
    let per_chunk = chunk_objects(o.history_per_object);
    let chunks: Vec<(u64, u64)> = (0..u64::from(o.objects).div_ceil(per_chunk))
        .map(|c| {
            let first = c * per_chunk + 1;
            (first, ((c + 1) * per_chunk).min(u64::from(o.objects)))
        })
        .collect();
    let make = |_| ObjectLoader { o: o.clone() };
    let loaded = bulk_load::run_loaders(opts, chunks, loaders, make, total, progress, stop)
        .map_err(|f| match f {
            LoadFailure::Interrupted { rows, .. } => anyhow!("prepare interrupted after {rows} of {total} rows: run `qpslab cleanup dbstress` and prepare again"),
            LoadFailure::Refused(e) => e,
            LoadFailure::Failed(e) => e.context(
                "loading dbSTRESS: run `qpslab cleanup dbstress` and prepare again once fixed",
            ),
        })?;
    rt.block_on(mark_complete(opts, o))?;
    Ok(PrepareReport {
        tables: 1 + o.history_tables,
        rows: loaded.rows,
        seconds: started.elapsed().as_secs_f64(),
        piped: loaded.piped,
        pipe_note: loaded.pipe_note,
    })
}

/// Writes the scale and `complete` into `dbs_meta`.
async fn mark_complete(opts: &ConnOpts, o: &DbstressOpts) -> Result<()> {
    let mut conn = Conn::connect(opts).await?;
    conn.exec(&format!(
        "INSERT INTO {META} VALUES ('objects', {}), ('history_per_object', {}), ('history_tables', {}), ('complete', 1)",
        o.objects, o.history_per_object, o.history_tables
    ))
    .await?;
    conn.quit().await;
    Ok(())
}

/// One loader: a chunk (objects `first..=last`) is its INSERTs.
struct ObjectLoader {
    o: DbstressOpts,
}

impl ChunkLoader for ObjectLoader {
    type Work = (u64, u64);

    async fn load(
        &mut self,
        conn: &mut Conn,
        _: usize,
        &(first, last): &(u64, u64),
        ctx: &LoadCtx<'_>,
    ) -> Result<()> {
        for sql in chunk_sql(&self.o, first, last) {
            conn.exec_unbounded(&sql)
                .await
                .with_context(|| format!("loading objects {first}..{last}"))?;
        }
        ctx.add_rows((last - first + 1) * (1 + u64::from(self.o.history_per_object)));
        Ok(())
    }

    /// After a deadlock: deletes what the chunk's statements committed
    /// before the one that failed (each is auto-committed; on an engine
    /// without transactions the failed one's rows too).
    async fn clear(&mut self, conn: &mut Conn, &(first, last): &(u64, u64)) -> Result<bool> {
        for sql in clear_sql(&self.o, first, last) {
            conn.exec_unbounded(&sql).await?;
        }
        Ok(true)
    }
}

/// The DELETEs that remove objects `first..=last` and their history.
fn clear_sql(o: &DbstressOpts, first: u64, last: u64) -> Vec<String> {
    let mut out = vec![format!(
        "DELETE FROM {OBJECTS} WHERE id BETWEEN {first} AND {last}"
    )];
    out.extend((1..=o.history_tables).map(|t| {
        format!(
            "DELETE FROM {} WHERE object_id BETWEEN {first} AND {last}",
            tables::history(t)
        )
    }));
    out
}

/// The INSERTs of objects `first..=last` and their history rows.
fn chunk_sql(o: &DbstressOpts, first: u64, last: u64) -> Vec<String> {
    let mut objects =
        format!("INSERT INTO {OBJECTS} (id, name, section, zone, created, note) VALUES ");
    let tables = o.history_tables;
    let mut history: Vec<String> = (1..=tables)
        .map(|t| {
            format!(
                "INSERT INTO {} (object_id, seq, ts, value, note) VALUES ",
                tables::history(t)
            )
        })
        .collect();
    let mut used = vec![false; tables as usize];
    for id in first..=last {
        let m = mix(id);
        if id > first {
            objects.push(',');
        }
        let _ = write!(
            objects,
            "({id},'object-{id}',{},{},NOW(),'{m:016x}')",
            m % 100,
            (m >> 8) % 10
        );
        let t = tables::table_of(id, tables) as usize - 1;
        let h = &mut history[t];
        for seq in 1..=u64::from(o.history_per_object) {
            if used[t] {
                h.push(',');
            }
            used[t] = true;
            let v = mix(id << 20 ^ seq);
            let _ = write!(
                h,
                "({id},{seq},NOW() - INTERVAL {} MINUTE,{},'{v:016x}')",
                u64::from(o.history_per_object) - seq,
                v % 1_000_000
            );
        }
    }
    let mut out = vec![objects];
    out.extend(
        history
            .into_iter()
            .zip(used)
            .filter(|(_, u)| *u)
            .map(|(h, _)| h),
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_put_each_history_row_in_its_objects_table_and_clear_only_their_own() {
        let o = DbstressOpts {
            objects: 5,
            history_per_object: 2,
            history_tables: 2,
            hot_share: 80,
            rw_ratio: 1,
            think_time_ms: 0,
            storage_engine: "InnoDB".into(),
        };
        let sql = chunk_sql(&o, 1, 5);
        assert_eq!(sql.len(), 3);
        assert_eq!(sql[0].matches("'object-").count(), 5);
        assert!(sql[1].starts_with("INSERT INTO dbs_history1") && sql[1].contains("(5,2,"));
        assert!(!sql[1].contains("(2,1,") && sql[2].contains("(2,1,"));
        assert_eq!(sql[2].matches("),(").count() + 1, 4);
        let clear = clear_sql(&o, 6, 10);
        assert_eq!(clear[0], "DELETE FROM dbs_object WHERE id BETWEEN 6 AND 10");
        assert_eq!(
            clear[1..],
            [1, 2].map(|t| format!("DELETE FROM dbs_history{t} WHERE object_id BETWEEN 6 AND 10"))
        );
        assert_eq!(chunk_objects(20), 952);
        assert_eq!(chunk_objects(100_000), 1);
    }
}
