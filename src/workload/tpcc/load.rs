//! `prepare tpcc`: creates the table sets and loads them in parallel.
//!
//! The data is cut into parts (a set's items; per warehouse its row and
//! districts, its stock, customers, history, and per district its orders
//! with their new-orders and order lines), which `loaders` connections
//! take in turn. Rows are generated in the client by the spec's rules
//! (random_rules.rs) and streamed with `LOAD DATA LOCAL INFILE`, at most
//! `BATCH_ROWS` rows per statement, so no transaction is ever large. The
//! secondary indexes are built after the rows are in.
//!
//! Progress is kept in each set's `qpslab_tpccN` table: the warehouse
//! count, each part once its rows are in, then `indexes` and `complete`.
//! A prepare that was interrupted is resumed by running it again: the
//! parts not recorded are cleared and loaded again.

use super::opts::TpccOpts;
use super::random_rules::{self, CUSTOMERS, DISTRICTS, FIRST_NEW_ORDER, ITEMS, ORDERS};
use super::schema::{create_progress_sql, create_sql, index_sql, progress_table, TABLES};
use crate::protocol::{Conn, ConnOpts};
use crate::workload::bulk_load::{self, resume, Batching, ChunkLoader, LoadCtx, LoadFailure};
use crate::workload::family::PrepareReport;
use crate::workload::prepare_events::Progress;
use crate::workload::rand::Rng;
use crate::workload::RandParams;
use anyhow::{anyhow, bail, Context, Result};
use std::io::Write;
use std::time::Instant;

/// Rows per LOAD DATA statement (its own transaction), and per packet of
/// its stream.
const BATCHING: Batching = Batching {
    statement_rows: 10_000,
    packet_rows: 1_000,
};

/// One unit of loading work.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part {
    Item,
    /// The warehouse row and its ten districts.
    Warehouse(u32),
    Stock(u32),
    Customer(u32),
    History(u32),
    /// One district's orders, new-orders and order lines.
    Orders(u32, u32),
}

impl Part {
    fn key(self) -> String {
        match self {
            Part::Item => "item".into(),
            Part::Warehouse(w) => format!("warehouse.{w}"),
            Part::Stock(w) => format!("stock.{w}"),
            Part::Customer(w) => format!("customer.{w}"),
            Part::History(w) => format!("history.{w}"),
            Part::Orders(w, d) => format!("orders.{w}.{d}"),
        }
    }

    /// Rows the part loads (order lines on average).
    fn rows(self) -> u64 {
        match self {
            Part::Item => u64::from(ITEMS),
            Part::Warehouse(_) => 1 + u64::from(DISTRICTS),
            Part::Stock(_) => u64::from(ITEMS),
            Part::Customer(_) | Part::History(_) => u64::from(CUSTOMERS * DISTRICTS),
            Part::Orders(..) => u64::from(ORDERS) * 11 + u64::from(ORDERS - FIRST_NEW_ORDER + 1),
        }
    }

    /// What clears a part's rows before it is loaded again.
    fn clear_sql(self, n: u32) -> Vec<String> {
        match self {
            Part::Item => vec![format!("DELETE FROM item{n}")],
            Part::Warehouse(w) => vec![
                format!("DELETE FROM warehouse{n} WHERE w_id = {w}"),
                format!("DELETE FROM district{n} WHERE d_w_id = {w}"),
            ],
            Part::Stock(w) => vec![format!("DELETE FROM stock{n} WHERE s_w_id = {w}")],
            Part::Customer(w) => vec![format!("DELETE FROM customer{n} WHERE c_w_id = {w}")],
            Part::History(w) => vec![format!("DELETE FROM history{n} WHERE h_c_w_id = {w}")],
            Part::Orders(w, d) => vec![
                format!("DELETE FROM orders{n} WHERE o_w_id = {w} AND o_d_id = {d}"),
                format!("DELETE FROM new_orders{n} WHERE no_w_id = {w} AND no_d_id = {d}"),
                format!("DELETE FROM order_line{n} WHERE ol_w_id = {w} AND ol_d_id = {d}"),
            ],
        }
    }
}

/// Every part of a set of `warehouses` warehouses, the largest first so
/// that loaders finish together.
fn parts(warehouses: u32) -> Vec<Part> {
    let mut v = vec![Part::Item];
    for w in 1..=warehouses {
        v.push(Part::Stock(w));
    }
    for w in 1..=warehouses {
        for d in 1..=DISTRICTS {
            v.push(Part::Orders(w, d));
        }
        v.extend([Part::Customer(w), Part::History(w), Part::Warehouse(w)]);
    }
    v
}

/// What a set holds when prepare starts.
enum SetState {
    /// None of its tables exist.
    Empty,
    /// An earlier prepare stopped: these parts are in.
    Partial(Vec<String>),
}

/// Reads what set `n` holds; refuses a complete set, a set loaded with
/// another warehouse count, and tables qpslab did not load.
async fn set_state(conn: &mut Conn, n: u32, warehouses: u32) -> Result<SetState> {
    let have = bulk_load::existing_tables(conn).await?;
    let progress = progress_table(n);
    let present: Vec<String> = TABLES
        .iter()
        .map(|t| format!("{t}{n}"))
        .filter(|t| have.contains(t))
        .collect();
    if !have.contains(&progress) {
        if present.is_empty() {
            return Ok(SetState::Empty);
        }
        bail!(
            "table {} exists but was not loaded by `qpslab prepare tpcc` (sysbench-tpcc's, or another tool's): drop set {n} with `qpslab cleanup tpcc --tables {n}`, or use another --db",
            present[0]
        );
    }
    let rec = resume::read(conn, &progress, "warehouses").await?;
    let loaded_with = rec.shape.and_then(|w| w.parse::<u32>().ok());
    if loaded_with != Some(warehouses) {
        bail!(
            "table set {n} was prepared with --warehouses {}: run `qpslab run tpcc --warehouses {}`, or `qpslab cleanup tpcc` and prepare again",
            loaded_with.map(|w| w.to_string()).unwrap_or("?".into()),
            loaded_with.map(|w| w.to_string()).unwrap_or("N".into())
        );
    }
    if rec.complete {
        bail!("table set {n} is already loaded ({warehouses} warehouses): run the workload, or `qpslab cleanup tpcc` first to load it again");
    }
    Ok(SetState::Partial(rec.done))
}

/// Creates and loads every table set with `loaders` connections, telling
/// `progress` each step; `stop` is polled between packets.
pub fn prepare(
    opts: &ConnOpts,
    o: &TpccOpts,
    loaders: usize,
    seed: u64,
    progress: &mut dyn FnMut(Progress),
    stop: fn() -> bool,
) -> Result<PrepareReport> {
    let started = Instant::now();
    let rt = bulk_load::runtime()?;
    // What to load: every part not already in.
    let (work, now, kept) = rt.block_on(async {
        let mut conn = Conn::connect(opts).await?;
        let mut work: Vec<(u32, Part, bool)> = Vec::new();
        // (parts an earlier, interrupted prepare committed)
        let mut kept = 0;
        for n in 1..=o.tables {
            match set_state(&mut conn, n, o.warehouses).await? {
                SetState::Empty => {
                    progress(Progress::CreatingSet {
                        set: n,
                        warehouses: o.warehouses,
                    });
                    for t in TABLES {
                        conn.exec(&create_sql(t, n, &o.storage_engine, &o.table_options))
                            .await
                            .with_context(|| format!("creating {t}{n}"))?;
                    }
                    conn.exec(&create_progress_sql(n)).await?;
                    conn.exec(&resume::shape_sql(
                        &progress_table(n),
                        "warehouses",
                        &o.warehouses.to_string(),
                    ))
                    .await?;
                    work.extend(parts(o.warehouses).into_iter().map(|p| (n, p, false)));
                }
                SetState::Partial(done) => {
                    let todo: Vec<Part> = parts(o.warehouses)
                        .into_iter()
                        .filter(|p| !done.contains(&p.key()))
                        .collect();
                    kept += done.len();
                    progress(Progress::ResumingSet {
                        set: n,
                        loaded: done.len(),
                        to_go: todo.len(),
                    });
                    work.extend(todo.into_iter().map(|p| (n, p, true)));
                }
            }
        }
        let now = conn
            .query("SELECT DATE_FORMAT(NOW(), '%Y-%m-%d %H:%i:%s')")
            .await?
            .rows
            .into_iter()
            .next()
            .and_then(|r| r.into_iter().next().flatten())
            .ok_or_else(|| anyhow!("the server did not say the time"))?;
        conn.quit().await;
        Ok::<_, anyhow::Error>((work, now, kept))
    })?;
    let all_parts = kept + work.len();

    let total: u64 = work.iter().map(|w| w.1.rows()).sum();
    let mut infile_opts = opts.clone();
    infile_opts.local_infile = true;
    let make = |loader| PartLoader {
        now: now.clone(),
        seed,
        loader,
    };
    let loaded = bulk_load::run_loaders(&infile_opts, work, loaders, make, total, progress, stop)
        .map_err(|f| match f {
            LoadFailure::Interrupted { rows, committed } => anyhow!("prepare interrupted after {rows} of about {total} rows sent: {} of {all_parts} parts are loaded and kept; run the same `qpslab prepare tpcc` again to resume, or `qpslab cleanup tpcc`", kept + committed),
            LoadFailure::Refused(e) => e,
            LoadFailure::Failed(e) => e.context(
                "loading TPC-C: the parts loaded so far are kept; fix the cause and run the same prepare again to resume",
            ),
        })?;
    rt.block_on(finish(opts, o, progress))?;
    Ok(PrepareReport {
        tables: o.tables * TABLES.len() as u32,
        rows: loaded.rows,
        seconds: started.elapsed().as_secs_f64(),
        piped: loaded.piped,
        pipe_note: loaded.pipe_note,
    })
}

/// Builds the secondary indexes and marks each set complete.
async fn finish(opts: &ConnOpts, o: &TpccOpts, progress: &mut dyn FnMut(Progress)) -> Result<()> {
    let mut conn = Conn::connect(opts).await?;
    for n in 1..=o.tables {
        progress(Progress::CreatingSetIndexes(n));
        let rows = u32::try_from(u64::from(o.warehouses) * 300_000).unwrap_or(u32::MAX);
        conn.set_read_timeout(crate::workload::prepare::index_build_timeout(
            conn.read_timeout(),
            rows,
        ));
        for sql in index_sql(n) {
            match conn.exec(&sql).await {
                // Already built by the run that was interrupted.
                Err(e) if e.code() == Some(1061) => {}
                r => {
                    r.with_context(|| format!("`{sql}`"))?;
                }
            }
        }
        conn.exec(&resume::complete_sql(&progress_table(n))).await?;
    }
    conn.quit().await;
    Ok(())
}

/// One loader thread's state: a work item is (set, part, resumed).
struct PartLoader {
    /// The load's timestamp (c_since, h_date, o_entry_d).
    now: String,
    seed: u64,
    loader: usize,
}

impl ChunkLoader for PartLoader {
    type Work = (u32, Part, bool);

    async fn start(&mut self, conn: &mut Conn) -> Result<()> {
        conn.exec(bulk_load::SHARED_TABLES_SESSION).await?;
        Ok(())
    }

    async fn load(
        &mut self,
        conn: &mut Conn,
        i: usize,
        &(n, part, resumed): &(u32, Part, bool),
        ctx: &LoadCtx<'_>,
    ) -> Result<()> {
        if resumed {
            self.clear(conn, &(n, part, resumed)).await?;
        }
        let mut rng = Rng::new(
            &RandParams::default(),
            self.seed ^ (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ self.loader as u64,
        );
        let mut l = PartRows {
            conn,
            ctx,
            n,
            now: &self.now,
        };
        l.part(part, &mut rng)
            .await
            .with_context(|| format!("loading {} of set {n}", part.key()))
    }

    async fn clear(&mut self, conn: &mut Conn, &(n, part, _): &(u32, Part, bool)) -> Result<bool> {
        for sql in part.clear_sql(n) {
            conn.exec_unbounded(&sql).await?;
        }
        Ok(true)
    }

    async fn done(&mut self, conn: &mut Conn, &(n, part, _): &(u32, Part, bool)) -> Result<()> {
        conn.exec(&resume::part_done_sql(&progress_table(n), &part.key()))
            .await?;
        Ok(())
    }
}

/// Streams the rows of parts of set `n` over one connection.
struct PartRows<'a> {
    conn: &'a mut Conn,
    ctx: &'a LoadCtx<'a>,
    n: u32,
    /// The load's timestamp (c_since, h_date, o_entry_d).
    now: &'a str,
}

impl PartRows<'_> {
    async fn part(&mut self, part: Part, rng: &mut Rng) -> Result<()> {
        match part {
            Part::Item => self.items(rng).await,
            Part::Warehouse(w) => self.warehouse(w, rng).await,
            Part::Stock(w) => self.stock(w, rng).await,
            Part::Customer(w) => self.customers(w, rng).await,
            Part::History(w) => self.history(w, rng).await,
            Part::Orders(w, d) => self.orders(w, d, rng).await,
        }
    }

    /// The item table's rows.
    async fn items(&mut self, rng: &mut Rng) -> Result<()> {
        self.table(
            "item",
            "i_id, i_im_id, i_name, i_price, i_data",
            ITEMS,
            |i, b, r| {
                let _ = write!(b, "{},{},", i + 1, r.uniform(1, 10_000));
                random_rules::astring(r, 14, 24, b);
                b.push(b',');
                random_rules::money(r.uniform(100, 10_000), b);
                b.push(b',');
                random_rules::data_original(r, b);
            },
            rng,
        )
        .await
    }

    /// A warehouse's row and its districts'.
    async fn warehouse(&mut self, w: u32, rng: &mut Rng) -> Result<()> {
        self.table(
            "warehouse",
            "w_id, w_name, w_street_1, w_street_2, w_city, w_state, w_zip, w_tax, w_ytd",
            1,
            |_, b, r| {
                let _ = write!(b, "{w},");
                address(r, b);
                b.push(b',');
                random_rules::tax(r, b);
                b.extend_from_slice(b",300000.00");
            },
            rng,
        )
        .await?;
        self.table(
            "district",
            "d_id, d_w_id, d_name, d_street_1, d_street_2, d_city, d_state, d_zip, d_tax, d_ytd, d_next_o_id",
            DISTRICTS,
            |i, b, r| {
                let _ = write!(b, "{},{w},", i + 1);
                address(r, b);
                b.push(b',');
                random_rules::tax(r, b);
                let _ = write!(b, ",30000.00,{}", ORDERS + 1);
            },
            rng,
        )
        .await
    }

    /// A warehouse's stock.
    async fn stock(&mut self, w: u32, rng: &mut Rng) -> Result<()> {
        self.table(
            "stock",
            "s_i_id, s_w_id, s_quantity, s_dist_01, s_dist_02, s_dist_03, s_dist_04, s_dist_05, s_dist_06, s_dist_07, s_dist_08, s_dist_09, s_dist_10, s_ytd, s_order_cnt, s_remote_cnt, s_data",
            ITEMS,
            |i, b, r| {
                let _ = write!(b, "{},{w},{},", i + 1, r.uniform(10, 100));
                for _ in 0..10 {
                    random_rules::astring(r, 24, 24, b);
                    b.push(b',');
                }
                b.extend_from_slice(b"0,0,0,");
                random_rules::data_original(r, b);
            },
            rng,
        )
        .await
    }

    /// A warehouse's customers.
    async fn customers(&mut self, w: u32, rng: &mut Rng) -> Result<()> {
        let now = self.now.as_bytes();
        let mut last = Vec::with_capacity(16);
        self.table(
            "customer",
            "c_id, c_d_id, c_w_id, c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, c_since, c_credit, c_credit_lim, c_discount, c_balance, c_ytd_payment, c_payment_cnt, c_delivery_cnt, c_data",
            CUSTOMERS * DISTRICTS,
            |i, b, r| {
                let (d, c) = (i / CUSTOMERS + 1, i % CUSTOMERS + 1);
                let _ = write!(b, "{c},{d},{w},");
                random_rules::astring(r, 8, 16, b);
                b.extend_from_slice(b",OE,");
                random_rules::load_last_name(r, c, &mut last);
                b.extend_from_slice(&last);
                b.push(b',');
                street(r, b);
                b.push(b',');
                random_rules::nstring(r, 16, b);
                b.push(b',');
                b.extend_from_slice(now);
                b.extend_from_slice(if r.uniform(1, 10) == 1 { b",BC" } else { b",GC" });
                b.extend_from_slice(b",50000.00,");
                let _ = write!(b, "0.{:04}", r.uniform(0, 5000));
                b.extend_from_slice(b",-10.00,10.00,1,0,");
                random_rules::astring(r, 300, 500, b);
            },
            rng,
        )
        .await
    }

    /// A warehouse's history rows.
    async fn history(&mut self, w: u32, rng: &mut Rng) -> Result<()> {
        let now = self.now.as_bytes();
        self.table(
            "history",
            "h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data",
            CUSTOMERS * DISTRICTS,
            |i, b, r| {
                let (d, c) = (i / CUSTOMERS + 1, i % CUSTOMERS + 1);
                let _ = write!(b, "{c},{d},{w},{d},{w},");
                b.extend_from_slice(now);
                b.extend_from_slice(b",10.00,");
                random_rules::astring(r, 12, 24, b);
            },
            rng,
        )
        .await
    }

    /// A district's orders, new orders and order lines.
    async fn orders(&mut self, w: u32, d: u32, rng: &mut Rng) -> Result<()> {
        let now = self.now.as_bytes();
        let customers = random_rules::permutation(rng, ORDERS);
        let counts: Vec<u8> = (0..ORDERS).map(|_| rng.uniform(5, 15) as u8).collect();
        self.table(
            "orders",
            "o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local",
            ORDERS,
            |i, b, r| {
                let o_id = i + 1;
                let _ = write!(b, "{o_id},{d},{w},{},", customers[i as usize]);
                b.extend_from_slice(now);
                if o_id < FIRST_NEW_ORDER {
                    let _ = write!(b, ",{}", r.uniform(1, 10));
                } else {
                    b.extend_from_slice(b",\\N");
                }
                let _ = write!(b, ",{},1", counts[i as usize]);
            },
            rng,
        )
        .await?;
        self.table(
            "new_orders",
            "no_o_id, no_d_id, no_w_id",
            ORDERS - FIRST_NEW_ORDER + 1,
            |i, b, _| {
                let _ = write!(b, "{},{d},{w}", FIRST_NEW_ORDER + i);
            },
            rng,
        )
        .await?;
        let lines: Vec<(u32, u8)> = counts
            .iter()
            .enumerate()
            .flat_map(|(i, &n)| (1..=n).map(move |l| (i as u32 + 1, l)))
            .collect();
        self.table(
            "order_line",
            "ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_delivery_d, ol_quantity, ol_amount, ol_dist_info",
            lines.len() as u32,
            |i, b, r| {
                let (o_id, l) = lines[i as usize];
                let _ = write!(b, "{o_id},{d},{w},{l},{},{w},", r.uniform(1, ITEMS));
                if o_id < FIRST_NEW_ORDER {
                    b.extend_from_slice(now);
                    b.extend_from_slice(b",5,0.00,");
                } else {
                    b.extend_from_slice(b"\\N,5,");
                    random_rules::money(r.uniform(1, 999_999), b);
                    b.push(b',');
                }
                random_rules::astring(r, 24, 24, b);
            },
            rng,
        )
        .await
    }

    /// Loads `count` rows of `table`, `row(i, line, rng)` writing row i
    /// (without its newline), in statements of `BATCHING`.
    async fn table(
        &mut self,
        table: &str,
        cols: &str,
        count: u32,
        mut row: impl FnMut(u32, &mut Vec<u8>, &mut Rng),
        rng: &mut Rng,
    ) -> Result<()> {
        let n = self.n;
        let sql = format!(
            "LOAD DATA LOCAL INFILE 'qpslab-tpcc' INTO TABLE {table}{n} FIELDS TERMINATED BY ',' ({cols})"
        );
        let each = |i: u64, b: &mut Vec<u8>| row(i as u32, b, rng);
        let name = format!("{table}{n}");
        bulk_load::stream_rows(
            self.conn,
            &sql,
            &name,
            u64::from(count),
            BATCHING,
            each,
            self.ctx,
        )
        .await?;
        Ok(())
    }
}

/// Name, two streets, city, state and zip of a warehouse or district.
fn address(r: &mut Rng, b: &mut Vec<u8>) {
    random_rules::astring(r, 6, 10, b);
    b.push(b',');
    street(r, b);
}

/// Two streets, city, state, zip.
fn street(r: &mut Rng, b: &mut Vec<u8>) {
    for _ in 0..3 {
        random_rules::astring(r, 10, 20, b);
        b.push(b',');
    }
    for _ in 0..2 {
        b.push(b'A' + r.uniform(0, 25) as u8);
    }
    b.push(b',');
    random_rules::zip(r, b);
}
