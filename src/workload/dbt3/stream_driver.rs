//! DBT3's own driver (its runs do not fit exec's per-event model: a
//! stream is 22 long statements in a fixed order, timed one by one): the
//! power test (one stream: RF1, the queries in stream 0's order, RF2) and
//! the throughput test (S query streams in the spec's permuted orders at
//! once, beside a refresh stream of S refresh pairs), each on its own
//! connection. Each query's plan (EXPLAIN FORMAT=JSON) is read before it
//! runs, untimed; a query past `--query-timeout` is killed server-side
//! (KILL QUERY from another connection, MySQL and MariaDB alike) and
//! marked. A power test tells a caller's [`Windows`] when each query and
//! refresh function starts and ends (a profiler draws one window each).
//! Fills the document's DBT3 block; prints and stores nothing.

use super::qgen_params::{self, Draw};
use super::query_text;
use super::refresh_sql;
use super::settings::{Dbt3Opts, Test};
use crate::protocol::{Conn, ConnOpts, ProtoError};
use crate::stats::document::{geomean, Dbt3Block, QueryFigure, COMPOSITE_NAME};
use anyhow::{Context, Result};
use std::collections::BTreeMap;
use std::sync::mpsc::Sender;
use std::time::{Duration, Instant};

/// The spec's query orders (Appendix A) for streams 0 to 40, as qgen's
/// permutation table holds them; stream `s` takes order `s mod 41`.
const ORDERS: [[u32; 22]; 41] = [
    [
        14, 2, 9, 20, 6, 17, 18, 8, 21, 13, 3, 22, 16, 4, 11, 15, 1, 10, 19, 5, 7, 12,
    ],
    [
        21, 3, 18, 5, 11, 7, 6, 20, 17, 12, 16, 15, 13, 10, 2, 8, 14, 19, 9, 22, 1, 4,
    ],
    [
        6, 17, 14, 16, 19, 10, 9, 2, 15, 8, 5, 22, 12, 7, 13, 18, 1, 4, 20, 3, 11, 21,
    ],
    [
        8, 5, 4, 6, 17, 7, 1, 18, 22, 14, 9, 10, 15, 11, 20, 2, 21, 19, 13, 16, 12, 3,
    ],
    [
        5, 21, 14, 19, 15, 17, 12, 6, 4, 9, 8, 16, 11, 2, 10, 18, 1, 13, 7, 22, 3, 20,
    ],
    [
        21, 15, 4, 6, 7, 16, 19, 18, 14, 22, 11, 13, 3, 1, 2, 5, 8, 20, 12, 17, 10, 9,
    ],
    [
        10, 3, 15, 13, 6, 8, 9, 7, 4, 11, 22, 18, 12, 1, 5, 16, 2, 14, 19, 20, 17, 21,
    ],
    [
        18, 8, 20, 21, 2, 4, 22, 17, 1, 11, 9, 19, 3, 13, 5, 7, 10, 16, 6, 14, 15, 12,
    ],
    [
        19, 1, 15, 17, 5, 8, 9, 12, 14, 7, 4, 3, 20, 16, 6, 22, 10, 13, 2, 21, 18, 11,
    ],
    [
        8, 13, 2, 20, 17, 3, 6, 21, 18, 11, 19, 10, 15, 4, 22, 1, 7, 12, 9, 14, 5, 16,
    ],
    [
        6, 15, 18, 17, 12, 1, 7, 2, 22, 13, 21, 10, 14, 9, 3, 16, 20, 19, 11, 4, 8, 5,
    ],
    [
        15, 14, 18, 17, 10, 20, 16, 11, 1, 8, 4, 22, 5, 12, 3, 9, 21, 2, 13, 6, 19, 7,
    ],
    [
        1, 7, 16, 17, 18, 22, 12, 6, 8, 9, 11, 4, 2, 5, 20, 21, 13, 10, 19, 3, 14, 15,
    ],
    [
        21, 17, 7, 3, 1, 10, 12, 22, 9, 16, 6, 11, 2, 4, 5, 14, 8, 20, 13, 18, 15, 19,
    ],
    [
        2, 9, 5, 4, 18, 1, 20, 15, 16, 17, 7, 21, 13, 14, 19, 8, 22, 11, 10, 3, 12, 6,
    ],
    [
        16, 9, 17, 8, 14, 11, 10, 12, 6, 21, 7, 3, 15, 5, 22, 20, 1, 13, 19, 2, 4, 18,
    ],
    [
        1, 3, 6, 5, 2, 16, 14, 22, 17, 20, 4, 9, 10, 11, 15, 8, 12, 19, 18, 13, 7, 21,
    ],
    [
        3, 16, 5, 11, 21, 9, 2, 15, 10, 18, 17, 7, 8, 19, 14, 13, 1, 4, 22, 20, 6, 12,
    ],
    [
        14, 4, 13, 5, 21, 11, 8, 6, 3, 17, 2, 20, 1, 19, 10, 9, 12, 18, 15, 7, 22, 16,
    ],
    [
        4, 12, 22, 14, 5, 15, 16, 2, 8, 10, 17, 9, 21, 7, 3, 6, 13, 18, 11, 20, 19, 1,
    ],
    [
        16, 15, 14, 13, 4, 22, 18, 19, 7, 1, 12, 17, 5, 10, 20, 3, 9, 21, 11, 2, 6, 8,
    ],
    [
        20, 14, 21, 12, 15, 17, 4, 19, 13, 10, 11, 1, 16, 5, 18, 7, 8, 22, 9, 6, 3, 2,
    ],
    [
        16, 14, 13, 2, 21, 10, 11, 4, 1, 22, 18, 12, 19, 5, 7, 8, 6, 3, 15, 20, 9, 17,
    ],
    [
        18, 15, 9, 14, 12, 2, 8, 11, 22, 21, 16, 1, 6, 17, 5, 10, 19, 4, 20, 13, 3, 7,
    ],
    [
        7, 3, 10, 14, 13, 21, 18, 6, 20, 4, 9, 8, 22, 15, 2, 1, 5, 12, 19, 17, 11, 16,
    ],
    [
        18, 1, 13, 7, 16, 10, 14, 2, 19, 5, 21, 11, 22, 15, 8, 17, 20, 3, 4, 12, 6, 9,
    ],
    [
        13, 2, 22, 5, 11, 21, 20, 14, 7, 10, 4, 9, 19, 18, 6, 3, 1, 8, 15, 12, 17, 16,
    ],
    [
        14, 17, 21, 8, 2, 9, 6, 4, 5, 13, 22, 7, 15, 3, 1, 18, 16, 11, 10, 12, 20, 19,
    ],
    [
        10, 22, 1, 12, 13, 18, 21, 20, 2, 14, 16, 7, 15, 3, 4, 17, 5, 19, 6, 8, 9, 11,
    ],
    [
        10, 8, 9, 18, 12, 6, 1, 5, 20, 11, 17, 22, 16, 3, 13, 2, 15, 21, 14, 19, 7, 4,
    ],
    [
        7, 17, 22, 5, 3, 10, 13, 18, 9, 1, 14, 15, 21, 19, 16, 12, 8, 6, 11, 20, 4, 2,
    ],
    [
        2, 9, 21, 3, 4, 7, 1, 11, 16, 5, 20, 19, 18, 8, 17, 13, 10, 12, 15, 6, 14, 22,
    ],
    [
        15, 12, 8, 4, 22, 13, 16, 17, 18, 3, 7, 5, 6, 1, 9, 11, 21, 10, 14, 20, 19, 2,
    ],
    [
        15, 16, 2, 11, 17, 7, 5, 14, 20, 4, 21, 3, 10, 9, 12, 8, 13, 6, 18, 19, 22, 1,
    ],
    [
        1, 13, 11, 3, 4, 21, 6, 14, 15, 22, 18, 9, 7, 5, 10, 20, 12, 16, 17, 8, 19, 2,
    ],
    [
        14, 17, 22, 20, 8, 16, 5, 10, 1, 13, 2, 21, 12, 9, 4, 18, 3, 7, 6, 19, 15, 11,
    ],
    [
        9, 17, 7, 4, 5, 13, 21, 18, 11, 3, 22, 1, 6, 16, 20, 14, 15, 10, 8, 2, 12, 19,
    ],
    [
        13, 14, 5, 22, 19, 11, 9, 6, 18, 15, 8, 10, 7, 4, 17, 16, 3, 1, 12, 2, 21, 20,
    ],
    [
        20, 5, 4, 14, 11, 1, 6, 16, 8, 22, 7, 3, 2, 12, 21, 19, 17, 13, 10, 15, 18, 9,
    ],
    [
        3, 7, 14, 15, 6, 5, 21, 20, 18, 10, 4, 16, 19, 1, 13, 9, 8, 17, 11, 12, 22, 2,
    ],
    [
        13, 15, 17, 1, 22, 11, 3, 4, 7, 20, 14, 21, 9, 8, 2, 18, 16, 6, 10, 12, 5, 19,
    ],
];

/// The order of stream `s`.
pub fn order(s: u32) -> &'static [u32; 22] {
    &ORDERS[s as usize % ORDERS.len()]
}

/// Told around each query and refresh function of a power test (one
/// stream, one statement at a time): `begin` just before its first timed
/// statement (after its plan is read, except Q15's, whose plan needs its
/// view), `end` after its last, whatever happened. A profiler draws one
/// window each; a throughput test's streams overlap and tell nothing.
pub trait Windows {
    /// `what` ("Q9", "RF1") starts.
    fn begin(&mut self, what: &str);
    /// `what` ended.
    fn end(&mut self, what: &str);
}

/// What a run tells its caller as it goes, one line each.
#[derive(Debug, Clone)]
pub enum Event {
    /// A query finished (or was killed, or failed).
    Query {
        /// Its stream.
        stream: u32,
        /// Its number.
        q: u32,
        /// Its figures.
        fig: QueryFigure,
    },
    /// A refresh function finished.
    Refresh {
        /// RF1 or RF2.
        name: &'static str,
        /// Its pair.
        pair: u32,
        /// Its seconds.
        seconds: f64,
    },
}

impl std::fmt::Display for Event {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            Event::Query { stream, q, fig } => {
                let mark = if fig.timed_out {
                    " TIMED OUT (killed)".to_string()
                } else if let Some(e) = &fig.error {
                    format!(" FAILED: {e}")
                } else {
                    format!(" ({} rows)", fig.rows)
                };
                write!(f, "stream {stream}: Q{q} {:.3} s{mark}", fig.seconds)
            }
            Event::Refresh {
                name,
                pair,
                seconds,
            } => write!(f, "refresh {pair}: {name} {seconds:.3} s"),
        }
    }
}

/// The connection a query's killer uses: the server and the victim.
struct Killer {
    opts: ConnOpts,
    id: String,
}

impl Killer {
    async fn kill(&self) {
        if let Ok(mut c) = Conn::connect(&self.opts).await {
            let _ = c.exec(&format!("KILL QUERY {}", self.id)).await;
            c.quit().await;
        }
    }
}

/// A connection for a stream, with its id for the killer.
async fn stream_conn(opts: &ConnOpts, timeout_s: u32) -> Result<(Conn, Killer)> {
    let mut conn = Conn::connect(opts).await?;
    // a query is bounded by --query-timeout, not by the read timeout
    let wait = if timeout_s > 0 {
        u64::from(timeout_s) + 300
    } else {
        30 * 86_400
    };
    conn.set_read_timeout(Duration::from_secs(wait));
    let r = conn.query("SELECT CONNECTION_ID()").await?;
    let id = r
        .rows
        .first()
        .and_then(|r| r.first().cloned().flatten())
        .unwrap_or_default();
    Ok((
        conn,
        Killer {
            opts: opts.clone(),
            id,
        },
    ))
}

/// Runs `sql`, killed at `timeout` (None: no limit): its rows, and
/// whether it was killed.
async fn timed(
    conn: &mut Conn,
    sql: &str,
    timeout: Option<Duration>,
    killer: &Killer,
) -> (Result<u64, ProtoError>, bool) {
    let Some(t) = timeout else {
        return (conn.query(sql).await.map(|r| r.rows.len() as u64), false);
    };
    let fut = async { conn.query(sql).await.map(|r| r.rows.len() as u64) };
    tokio::pin!(fut);
    tokio::select! {
        r = &mut fut => (r, false),
        _ = tokio::time::sleep(t) => {
            killer.kill().await;
            (fut.await, true)
        }
    }
}

/// The plan of `sql` as EXPLAIN FORMAT=JSON gives it (None when the
/// server gives none).
async fn plan(conn: &mut Conn, sql: &str) -> Option<serde_json::Value> {
    let r = conn
        .query(&format!("EXPLAIN FORMAT=JSON {sql}"))
        .await
        .ok()?;
    let text = r.rows.first()?.first()?.clone()?;
    Some(serde_json::from_str(&text).unwrap_or(serde_json::Value::String(text)))
}

/// Runs query `q` of stream `stream` with `params`.
async fn run_query(
    conn: &mut Conn,
    killer: &Killer,
    q: u32,
    params: Vec<String>,
    stream: u32,
    timeout: Option<Duration>,
    windows: &mut Option<&mut dyn Windows>,
) -> QueryFigure {
    let label = format!("Q{q}");
    let stmts = query_text::statements(q, &params, stream);
    let answer = query_text::answer_statement(q);
    let mut fig = QueryFigure {
        params,
        ..QueryFigure::default()
    };
    for (i, sql) in stmts.iter().enumerate() {
        if i == answer {
            fig.plan = plan(conn, sql).await;
            fig.plan_fingerprint = fig
                .plan
                .as_ref()
                .map(crate::stats::document::plan_fingerprint);
        }
        if i == 0 {
            if let Some(w) = windows.as_deref_mut() {
                w.begin(&label);
            }
        }
        let left = timeout.map(|t| t.saturating_sub(Duration::from_secs_f64(fig.seconds)));
        let started = Instant::now();
        let (r, killed) = timed(conn, sql, left, killer).await;
        fig.seconds += started.elapsed().as_secs_f64();
        match r {
            Ok(rows) if i == answer => fig.rows = rows,
            Ok(_) => {}
            Err(e) => {
                fig.timed_out = killed;
                if !killed {
                    fig.error = Some(e.to_string());
                }
                if q == 15 {
                    // the view goes whatever happened
                    let _ = conn
                        .exec(&format!("DROP VIEW IF EXISTS revenue{stream}"))
                        .await;
                }
                break;
            }
        }
    }
    if let Some(w) = windows.as_deref_mut() {
        w.end(&label);
    }
    fig
}

/// Runs refresh function `name` (RF1 or RF2) of pair `pair`, inside a
/// window of `windows` when given; its seconds.
async fn refresh(
    conn: &mut Conn,
    name: &str,
    sf: f64,
    pair: u32,
    windows: &mut Option<&mut dyn Windows>,
) -> Result<f64> {
    let stmts = if name == "RF1" {
        refresh_sql::rf1(sf, pair)
    } else {
        refresh_sql::rf2(sf, pair)
    };
    if let Some(w) = windows.as_deref_mut() {
        w.begin(name);
    }
    let started = Instant::now();
    let mut failed = None;
    for sql in &stmts {
        if let Err(e) = conn.exec_unbounded(sql).await {
            let _ = conn.exec("ROLLBACK").await;
            failed = Some(e);
            break;
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    if let Some(w) = windows.as_deref_mut() {
        w.end(name);
    }
    match failed {
        Some(e) => Err(e).with_context(|| format!("{name} of refresh pair {pair}")),
        None => Ok(seconds),
    }
}

/// What every query stream of a run shares: the options, the seed, where
/// events go and the stop.
struct Shared<'a> {
    o: &'a Dbt3Opts,
    seed: u64,
    events: &'a Sender<Event>,
    stop: fn() -> bool,
}

/// One query stream's queries, each sent to `events` as it ends.
async fn query_stream(
    conn: &mut Conn,
    killer: &Killer,
    sh: &Shared<'_>,
    stream: u32,
    windows: &mut Option<&mut dyn Windows>,
) -> BTreeMap<String, QueryFigure> {
    let (o, events, stop) = (sh.o, sh.events, sh.stop);
    let mut draw = Draw::new(sh.seed, stream);
    let timeout =
        (o.query_timeout_s > 0).then(|| Duration::from_secs(u64::from(o.query_timeout_s)));
    let mut out = BTreeMap::new();
    for q in o.chosen(order(stream)) {
        if stop() {
            break;
        }
        let drawn = draw.params(q, o.scale);
        let params = if o.validation {
            qgen_params::validation(q, o.scale)
        } else {
            drawn
        };
        let fig = run_query(conn, killer, q, params, stream, timeout, windows).await;
        let _ = events.send(Event::Query {
            stream,
            q,
            fig: fig.clone(),
        });
        out.insert(format!("Q{q}"), fig);
    }
    out
}

fn runtime() -> Result<tokio::runtime::Runtime> {
    Ok(tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?)
}

/// Runs the test `o` asks for against `opts`, query parameters drawn
/// from `seed`; `events` hears each query and refresh function as it
/// ends; `stop` (Ctrl-C) ends it between queries; a power test tells
/// `windows` around each query and refresh function.
pub fn run(
    opts: &ConnOpts,
    o: &Dbt3Opts,
    seed: u64,
    events: Sender<Event>,
    stop: fn() -> bool,
    windows: Option<&mut dyn Windows>,
) -> Result<Dbt3Block> {
    let started = Instant::now();
    let mut block = Dbt3Block {
        test: match o.test {
            Test::Power => "power".into(),
            Test::Throughput => "throughput".into(),
        },
        scale: o.scale,
        streams: if o.test == Test::Power { 1 } else { o.streams },
        validation: o.validation,
        composite_name: COMPOSITE_NAME.into(),
        ..Dbt3Block::default()
    };
    match o.test {
        Test::Power => power(opts, o, seed, &events, stop, windows, &mut block)?,
        Test::Throughput => throughput(opts, o, seed, &events, stop, &mut block)?,
    }
    block.elapsed_s = started.elapsed().as_secs_f64();
    figures(&mut block, o);
    Ok(block)
}

fn power(
    opts: &ConnOpts,
    o: &Dbt3Opts,
    seed: u64,
    events: &Sender<Event>,
    stop: fn() -> bool,
    mut windows: Option<&mut dyn Windows>,
    block: &mut Dbt3Block,
) -> Result<()> {
    runtime()?.block_on(async {
        let (mut conn, killer) = stream_conn(opts, o.query_timeout_s).await?;
        if o.refresh {
            let s = refresh(&mut conn, "RF1", o.scale, 1, &mut windows).await?;
            let _ = events.send(Event::Refresh {
                name: "RF1",
                pair: 1,
                seconds: s,
            });
            block.refresh.insert("RF1".into(), s);
        }
        let sh = Shared {
            o,
            seed,
            events,
            stop,
        };
        block.queries = query_stream(&mut conn, &killer, &sh, 0, &mut windows).await;
        if o.refresh {
            let s = refresh(&mut conn, "RF2", o.scale, 1, &mut windows).await?;
            let _ = events.send(Event::Refresh {
                name: "RF2",
                pair: 1,
                seconds: s,
            });
            block.refresh.insert("RF2".into(), s);
        }
        conn.quit().await;
        Ok(())
    })
}

fn throughput(
    opts: &ConnOpts,
    o: &Dbt3Opts,
    seed: u64,
    events: &Sender<Event>,
    stop: fn() -> bool,
    block: &mut Dbt3Block,
) -> Result<()> {
    let mut handles = Vec::new();
    for s in 1..=o.streams {
        let (opts, o, events) = (opts.clone(), o.clone(), events.clone());
        handles.push(std::thread::spawn(move || -> Result<_> {
            runtime()?.block_on(async {
                let (mut conn, killer) = stream_conn(&opts, o.query_timeout_s).await?;
                let sh = Shared {
                    o: &o,
                    seed,
                    events: &events,
                    stop,
                };
                let out = query_stream(&mut conn, &killer, &sh, s, &mut None).await;
                conn.quit().await;
                Ok(out)
            })
        }));
    }
    if o.refresh {
        runtime()?.block_on(async {
            let mut conn = Conn::connect(opts).await?;
            for pair in 1..=o.streams {
                for name in ["RF1", "RF2"] {
                    if stop() {
                        break;
                    }
                    let s = refresh(&mut conn, name, o.scale, pair, &mut None).await?;
                    let _ = events.send(Event::Refresh {
                        name,
                        pair,
                        seconds: s,
                    });
                    *block.refresh.entry(name.into()).or_default() += s;
                }
            }
            conn.quit().await;
            Ok::<_, anyhow::Error>(())
        })?;
    }
    for h in handles {
        let out = h
            .join()
            .map_err(|_| anyhow::anyhow!("a query stream panicked"))??;
        block.stream_queries.push(out);
    }
    let mut mean: BTreeMap<String, QueryFigure> = BTreeMap::new();
    for stream in &block.stream_queries {
        for (k, f) in stream {
            let m = mean.entry(k.clone()).or_default();
            m.seconds += f.seconds / f64::from(o.streams);
            m.rows = f.rows;
            m.timed_out |= f.timed_out;
        }
    }
    block.queries = mean;
    Ok(())
}

/// The geometric mean, Power@Size, Throughput@Size and the composite.
fn figures(b: &mut Dbt3Block, o: &Dbt3Opts) {
    let clean =
        |m: &BTreeMap<String, QueryFigure>| m.values().all(|f| !f.timed_out && f.error.is_none());
    let all_clean = clean(&b.queries) && b.stream_queries.iter().all(clean);
    let secs: Vec<f64> = b.queries.values().map(|f| f.seconds).collect();
    b.geomean_s = geomean(&secs).filter(|_| all_clean);
    let complete = all_clean && b.queries.len() == 22;
    if o.test == Test::Power && complete && b.refresh.len() == 2 {
        let mut all = secs.clone();
        all.extend(b.refresh.values());
        b.power = geomean(&all).map(|g| 3600.0 * o.scale / g);
    }
    if o.test == Test::Throughput && complete && b.stream_queries.len() == o.streams as usize {
        b.throughput = Some(f64::from(o.streams) * 22.0 * 3600.0 / b.elapsed_s.max(1e-9) * o.scale);
    }
    b.composite = match (b.power, b.throughput) {
        (Some(p), Some(t)) => Some((p * t).sqrt()),
        (p, t) => p.or(t),
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_0_to_40_take_appendix_a_orders() {
        let mut seen = std::collections::BTreeSet::new();
        for s in 0..=40 {
            let mut o = order(s).to_vec();
            assert!(seen.insert(o.clone()), "stream {s} repeats an order");
            o.sort_unstable();
            assert_eq!(o, (1..=22).collect::<Vec<u32>>(), "stream {s}");
        }
        assert_eq!(order(0)[..3], [14, 2, 9]);
        assert_eq!(order(11)[..3], [15, 14, 18]);
        assert_eq!(order(40)[..3], [13, 15, 17]);
        assert_eq!(order(40)[21], 19);
        // past the table, qgen's rule: stream s takes order s mod 41
        assert_eq!(order(41), order(0));
        assert_eq!(order(52), order(11));
    }
}
