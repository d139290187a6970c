//! `prepare linkbench`: creates the three tables and loads the graph in
//! parallel, as LinkBench's loaders do (NodeLoader, LinkBenchLoad): the
//! nodes startid1..maxid1 (type 2048, version 1, a payload of log-normal
//! size), each node's out-links per type (id2 = id1 + i, visible, a
//! payload, a time up to 2^32 ms back), and a count row per (id1, type)
//! with links, equal to the links loaded.
//!
//! The ids are cut into chunks of `loader_chunk_size`; `loaders`
//! connections take them in turn, generate the rows in the client and
//! stream them with LOAD DATA (through a named pipe the server reads
//! when it is on this host and may, else `LOAD DATA LOCAL INFILE`: the
//! loader pool's route, `--load-via`) or multi-row INSERTs with
//! `--load-method insert`, a chunk's nodes, links and counts each one
//! statement. Progress is kept in `qpslab_linkbench`: the graph's size,
//! each chunk once its rows are in, then `complete`. An interrupted
//! prepare is resumed by running it again: chunks not recorded are
//! cleared and loaded again.

use super::graph::{Graph, LINK_TYPE_BASE, MAX_LINK_DATA, MAX_NODE_DATA, NODE_TYPE};
use super::model::{lognormal_size, Motif};
use super::params::LinkBenchOpts;
use super::tables::{create_progress_sql, create_sql, PROGRESS, TABLES};
use crate::protocol::{Conn, ConnOpts};
use crate::workload::bulk_load::{self, resume, ChunkLoader, LoadCtx, LoadFailure, StreamError};
use crate::workload::family::PrepareReport;
use crate::workload::prepare_events::Progress;
use crate::workload::xoroshiro::Xoroshiro;
use anyhow::{anyhow, bail, Context, Result};
use std::io::Write;
use std::sync::Arc;
use std::time::Instant;

/// How rows go to the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Method {
    /// LOAD DATA, streamed (through a named pipe or LOCAL, `--load-via`).
    Infile,
    /// Multi-row INSERT statements.
    Insert,
}

/// Rows per multi-row INSERT (LinkStoreMysql's bulk insert batch).
const INSERT_ROWS: usize = 1024;
/// Rows per LOAD DATA statement (and most per INSERT run): no
/// transaction of the load is larger.
const STATEMENT_ROWS: usize = 10_000;

/// What the database holds when prepare starts: None, or the chunks in.
async fn state(conn: &mut Conn, o: &LinkBenchOpts) -> Result<Option<Vec<String>>> {
    let have = bulk_load::existing_tables(conn).await?;
    let present: Vec<&str> = TABLES[..3]
        .iter()
        .copied()
        .filter(|t| have.iter().any(|h| h == t))
        .collect();
    if !have.iter().any(|h| h == PROGRESS) {
        if present.is_empty() {
            return Ok(None);
        }
        bail!("table {} exists but was not loaded by `qpslab prepare linkbench` (LinkBench's own loader, or another tool's): drop it with `qpslab cleanup linkbench`, or use another --db", present[0]);
    }
    let rec = resume::read(conn, PROGRESS, "graph").await?;
    let (size, complete, done) = (rec.shape, rec.complete, rec.done);
    let want = graph_key(o);
    if size.as_deref() != Some(want.as_str()) {
        bail!(
            "the LinkBench tables were prepared for another graph ({}), not {want}: run with the options it was prepared with, or `qpslab cleanup linkbench` and prepare again",
            size.unwrap_or_else(|| "?".into())
        );
    }
    if complete {
        bail!("the LinkBench graph is already loaded ({want}): run the workload, or `qpslab cleanup linkbench` first to load it again");
    }
    Ok(Some(done))
}

/// What the progress table records of the graph's shape.
pub(crate) fn graph_key(o: &LinkBenchOpts) -> String {
    format!(
        "startid1={} maxid1={} types={}{}",
        o.startid1,
        o.maxid1,
        o.link_type_count,
        if o.nodes_only { " nodes-only" } else { "" }
    )
}

/// The chunks: [lo, hi) id ranges.
fn chunks(o: &LinkBenchOpts) -> Vec<(u64, u64)> {
    let step = u64::from(o.loader_chunk_size);
    (0..o.nodes().div_ceil(step))
        .map(|i| {
            let lo = o.startid1 + i * step;
            (lo, (lo + step).min(o.maxid1))
        })
        .collect()
}

fn chunk_key(lo: u64) -> String {
    format!("chunk.{lo}")
}

/// Rows a chunk loads.
fn chunk_rows(g: &Graph, o: &LinkBenchOpts, (lo, hi): (u64, u64)) -> u64 {
    if o.nodes_only {
        return hi - lo;
    }
    (lo..hi)
        .map(|id1| {
            1 + (0..g.types)
                .map(|t| g.links(id1, t))
                .map(|n| n + u64::from(n > 0))
                .sum::<u64>()
        })
        .sum()
}

/// Creates the tables (or resumes) and loads the graph with `loaders`
/// connections by `method`, telling `progress` each step.
#[allow(clippy::too_many_arguments)]
pub fn prepare(
    opts: &ConnOpts,
    o: &LinkBenchOpts,
    g: &Arc<Graph>,
    loaders: usize,
    method: Method,
    seed: u64,
    progress: &mut dyn FnMut(Progress),
    stop: fn() -> bool,
) -> Result<PrepareReport> {
    if method == Method::Insert && opts.load_via == crate::protocol::LoadVia::Pipe {
        bail!("--load-via pipe needs --load-method infile (INSERTs send their rows over the connection); drop --load-via or use --load-method infile");
    }
    let started = Instant::now();
    let rt = bulk_load::runtime()?;
    let work: Vec<((u64, u64), bool)> = rt.block_on(async {
        let mut conn = Conn::connect(opts).await?;
        let work = match state(&mut conn, o).await? {
            None => {
                progress(Progress::CreatingGraph(o.nodes()));
                for sql in create_sql(&o.storage_engine, &o.table_options, o.partitions) {
                    conn.exec(&sql)
                        .await
                        .with_context(|| format!("`{}`", sql.lines().next().unwrap_or("")))?;
                }
                conn.exec(&create_progress_sql()).await?;
                conn.exec(&resume::shape_sql(PROGRESS, "graph", &graph_key(o)))
                    .await?;
                chunks(o).into_iter().map(|c| (c, false)).collect()
            }
            Some(done) => {
                let todo: Vec<_> = chunks(o)
                    .into_iter()
                    .filter(|c| !done.contains(&chunk_key(c.0)))
                    .collect();
                progress(Progress::ResumingChunks {
                    family: "LinkBench",
                    loaded: done.len(),
                    to_go: todo.len(),
                });
                todo.into_iter().map(|c| (c, true)).collect()
            }
        };
        conn.quit().await;
        Ok::<_, anyhow::Error>(work)
    })?;
    // The heaviest chunks first (the most linked node alone has 311,772
    // links), so that the loaders finish together.
    let mut sized: Vec<_> = work
        .into_iter()
        .map(|w| (chunk_rows(g, o, w.0), w))
        .collect();
    sized.sort_by_key(|(rows, _)| std::cmp::Reverse(*rows));
    let total: u64 = sized.iter().map(|(rows, _)| rows).sum();
    // (chunks an earlier, interrupted prepare committed: the interrupted
    // line counts chunks as the resume line does)
    let all = chunks(o).len();
    let kept = all - sized.len();
    let work = sized.into_iter().map(|(_, w)| w).collect();
    let mut load_opts = opts.clone();
    load_opts.local_infile = method == Method::Infile;
    let make = |l: usize| {
        let seed = seed ^ (l as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        GraphLoader::new(o, g, method, seed)
    };
    let loaded = bulk_load::run_loaders(&load_opts, work, loaders, make, total, progress, stop)
        .map_err(|f| match f {
            LoadFailure::Interrupted { rows, committed } => anyhow!("prepare interrupted after {rows} of {total} rows sent: {} of {all} chunks are loaded and kept; run the same `qpslab prepare linkbench` again to resume, or `qpslab cleanup linkbench`", kept + committed),
            LoadFailure::Refused(e) => e,
            LoadFailure::Failed(e) => e.context("loading LinkBench: the chunks loaded so far are kept; fix the cause and run the same prepare again to resume"),
        })?;
    rt.block_on(async {
        let mut conn = Conn::connect(opts).await?;
        conn.exec(&resume::complete_sql(PROGRESS)).await?;
        conn.quit().await;
        Ok::<_, anyhow::Error>(())
    })?;
    Ok(PrepareReport {
        tables: 3,
        rows: loaded.rows,
        seconds: started.elapsed().as_secs_f64(),
        piped: loaded.piped,
        pipe_note: loaded.pipe_note,
    })
}

impl GraphLoader {
    /// A loader whose payloads and times come from `seed`.
    fn new(o: &LinkBenchOpts, g: &Arc<Graph>, method: Method, seed: u64) -> GraphLoader {
        let mut x = Xoroshiro::from_seed(seed);
        let gens = [
            Motif::new(
                o.node_add.start,
                o.node_add.end,
                o.node_add.uniqueness,
                &mut x,
            ),
            Motif::new(
                o.link_add.start,
                o.link_add.end,
                o.link_add.uniqueness,
                &mut x,
            ),
        ];
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64);
        GraphLoader {
            method,
            o: o.clone(),
            g: g.clone(),
            x,
            gens,
            now,
            buf: Vec::new(),
            data: Vec::new(),
        }
    }
}

impl ChunkLoader for GraphLoader {
    /// A chunk's ids [lo, hi), and whether an earlier prepare began it.
    type Work = ((u64, u64), bool);

    async fn start(&mut self, conn: &mut Conn) -> Result<()> {
        conn.exec(bulk_load::SHARED_TABLES_SESSION).await?;
        conn.exec("SET NAMES latin1").await?;
        Ok(())
    }

    async fn load(
        &mut self,
        conn: &mut Conn,
        _: usize,
        &((lo, hi), resumed): &Self::Work,
        ctx: &LoadCtx<'_>,
    ) -> Result<()> {
        if resumed {
            self.clear(conn, &((lo, hi), resumed)).await?;
        }
        let n = self
            .chunk(conn, lo, hi, ctx)
            .await
            .with_context(|| format!("loading ids {lo}..{hi}"))?;
        ctx.add_rows(n);
        Ok(())
    }

    async fn clear(&mut self, conn: &mut Conn, &((lo, hi), _): &Self::Work) -> Result<bool> {
        for sql in [
            format!("DELETE FROM nodetable WHERE id >= {lo} AND id < {hi}"),
            format!("DELETE FROM linktable WHERE id1 >= {lo} AND id1 < {hi}"),
            format!("DELETE FROM counttable WHERE id >= {lo} AND id < {hi}"),
        ] {
            conn.exec_unbounded(&sql).await?;
        }
        Ok(true)
    }

    async fn done(&mut self, conn: &mut Conn, &((lo, _), _): &Self::Work) -> Result<()> {
        conn.exec(&resume::part_done_sql(PROGRESS, &chunk_key(lo)))
            .await?;
        Ok(())
    }
}

/// Writes a value's bytes escaped for LOAD DATA (`infile`) or for a
/// quoted SQL literal.
fn escaped(b: &mut Vec<u8>, v: &[u8], infile: bool) {
    for &c in v {
        match c {
            b'\\' => b.extend_from_slice(b"\\\\"),
            b'\t' => b.extend_from_slice(b"\\t"),
            b'\n' => b.extend_from_slice(b"\\n"),
            b'\r' => b.extend_from_slice(b"\\r"),
            0 => b.extend_from_slice(b"\\0"),
            b'\'' if !infile => b.extend_from_slice(b"\\'"),
            26 if !infile => b.extend_from_slice(b"\\Z"),
            c => b.push(c),
        }
    }
}

/// One loader thread's state: generates and sends a chunk's rows.
struct GraphLoader {
    method: Method,
    o: LinkBenchOpts,
    g: Arc<Graph>,
    x: Xoroshiro,
    /// Node and link payload generators.
    gens: [Motif; 2],
    /// The load's time, ms since the epoch.
    now: u64,
    buf: Vec<u8>,
    data: Vec<u8>,
}

/// One row's values: numbers, with the payload at its place.
enum Val {
    Int(u64),
    Data,
}

impl GraphLoader {
    /// Loads ids lo..hi: nodes, then links and counts; returns the rows.
    async fn chunk(&mut self, conn: &mut Conn, lo: u64, hi: u64, ctx: &LoadCtx<'_>) -> Result<u64> {
        let secs = self.now / 1000;
        let mut nodes: Vec<[Val; 5]> = Vec::new();
        let mut sizes = Vec::new();
        for id in lo..hi {
            nodes.push([
                Val::Int(id),
                Val::Int(u64::from(NODE_TYPE)),
                Val::Int(1),
                Val::Int(secs),
                Val::Data,
            ]);
            sizes.push(lognormal_size(
                &mut self.x,
                self.o.node_datasize,
                MAX_NODE_DATA,
            ));
        }
        let mut n = self
            .send_all(
                conn,
                ctx,
                ("nodetable", "id, type, version, time, data"),
                &nodes,
                &sizes,
                0,
            )
            .await?;
        if self.o.nodes_only {
            return Ok(n);
        }
        let (mut links, mut counts): (Vec<[Val; 7]>, Vec<[Val; 5]>) = (Vec::new(), Vec::new());
        sizes.clear();
        for id1 in lo..hi {
            for t in 0..self.g.types {
                let k = self.g.links(id1, t);
                let link_type = LINK_TYPE_BASE + u64::from(t);
                for i in 0..k {
                    // now - 2^31 + a signed 32-bit draw: up to ~50 days back.
                    let time = (self.now + (self.x.next_u64() >> 32)).saturating_sub(1 << 32);
                    links.push([
                        Val::Int(id1),
                        Val::Int(id1 + i),
                        Val::Int(link_type),
                        Val::Int(1),
                        Val::Data,
                        Val::Int(time),
                        Val::Int(0),
                    ]);
                    sizes.push(lognormal_size(
                        &mut self.x,
                        self.o.link_datasize,
                        MAX_LINK_DATA,
                    ));
                }
                if k > 0 {
                    counts.push([
                        Val::Int(id1),
                        Val::Int(link_type),
                        Val::Int(k),
                        Val::Int(self.now),
                        Val::Int(0),
                    ]);
                }
            }
            if links.len() >= STATEMENT_ROWS {
                n += self
                    .send_all(
                        conn,
                        ctx,
                        (
                            "linktable",
                            "id1, id2, link_type, visibility, data, time, version",
                        ),
                        &links,
                        &sizes,
                        1,
                    )
                    .await?;
                links.clear();
                sizes.clear();
            }
        }
        n += self
            .send_all(
                conn,
                ctx,
                (
                    "linktable",
                    "id1, id2, link_type, visibility, data, time, version",
                ),
                &links,
                &sizes,
                1,
            )
            .await?;
        n += self
            .send_all(
                conn,
                ctx,
                ("counttable", "id, link_type, count, time, version"),
                &counts,
                &[],
                1,
            )
            .await?;
        Ok(n)
    }

    /// Sends `rows` in statements of at most `STATEMENT_ROWS` rows (each
    /// its own transaction).
    async fn send_all<const N: usize>(
        &mut self,
        conn: &mut Conn,
        ctx: &LoadCtx<'_>,
        (table, cols): (&str, &str),
        rows: &[[Val; N]],
        sizes: &[usize],
        gen: usize,
    ) -> Result<u64> {
        let mut n = 0;
        for (k, part) in rows.chunks(STATEMENT_ROWS).enumerate() {
            let at = k * STATEMENT_ROWS;
            let sizes = sizes.get(at..at + part.len()).unwrap_or(&[]);
            n += self
                .send(conn, ctx, (table, cols), part, sizes, gen)
                .await?;
        }
        Ok(n)
    }

    /// Sends `rows` to `table` (its columns `cols`), payload i of `sizes[i]` bytes from
    /// generator `gen`.
    async fn send<const N: usize>(
        &mut self,
        conn: &mut Conn,
        ctx: &LoadCtx<'_>,
        (table, cols): (&str, &str),
        rows: &[[Val; N]],
        sizes: &[usize],
        gen: usize,
    ) -> Result<u64> {
        if rows.is_empty() {
            return Ok(0);
        }
        let infile = self.method == Method::Infile;
        let mut at = 0;
        let row_text = |b: &mut Vec<u8>, i: usize, s: &mut Self| {
            for (k, v) in rows[i].iter().enumerate() {
                if k > 0 {
                    b.push(if infile { b'\t' } else { b',' });
                }
                match v {
                    Val::Int(n) => {
                        let _ = write!(b, "{n}");
                    }
                    Val::Data => {
                        s.gens[gen].fill(&mut s.x, sizes[i], &mut s.data);
                        if !infile {
                            b.push(b'\'');
                        }
                        escaped(b, &s.data, infile);
                        if !infile {
                            b.push(b'\'');
                        }
                    }
                }
            }
        };
        if infile {
            let sql = format!("LOAD DATA LOCAL INFILE 'qpslab-linkbench' INTO TABLE {table} CHARACTER SET latin1 FIELDS TERMINATED BY '\\t' ({cols})");
            let mut i = 0;
            let (mut x, mut data, gens) =
                (self.x, std::mem::take(&mut self.data), self.gens.clone());
            let fill = |buf: &mut Vec<u8>| {
                let end = (i + 1000).min(rows.len());
                for k in i..end {
                    for (c, v) in rows[k].iter().enumerate() {
                        if c > 0 {
                            buf.push(b'\t');
                        }
                        match v {
                            Val::Int(n) => {
                                let _ = write!(buf, "{n}");
                            }
                            Val::Data => {
                                gens[gen].fill(&mut x, sizes[k], &mut data);
                                escaped(buf, &data, true);
                            }
                        }
                    }
                    buf.push(b'\n');
                }
                i = end;
                i < rows.len()
            };
            let loaded = ctx.load_data(conn, &sql, fill).await?;
            self.x = Xoroshiro::from_seed(x.next_u64());
            if loaded != rows.len() as u64 {
                return Err(StreamError::Short {
                    table: table.to_string(),
                    loaded,
                    sent: rows.len() as u64,
                }
                .into());
            }
            return Ok(loaded);
        }
        let head = format!("INSERT INTO {table} ({cols}) VALUES ");
        while at < rows.len() {
            let end = (at + INSERT_ROWS).min(rows.len());
            let mut b = std::mem::take(&mut self.buf);
            b.clear();
            b.extend_from_slice(head.as_bytes());
            for i in at..end {
                if i > at {
                    b.push(b',');
                }
                b.push(b'(');
                row_text(&mut b, i, self);
                b.push(b')');
            }
            conn.exec_bytes(&b)
                .await
                .with_context(|| format!("inserting into {table}"))?;
            self.buf = b;
            at = end;
        }
        Ok(rows.len() as u64)
    }
}
