//! LinkBench (Facebook's social-graph benchmark) as a workload family:
//! its three tables (tables.rs), its workload model from LinkBench's own
//! configuration and sources (model.rs: the out-degree histogram, the
//! shuffles, the Zipf, geometric and log-normal draws, the payload
//! generator; graph.rs: degrees and access per operation), the loader
//! (loader.rs), the ten operations as LinkBench's MySQL store runs them
//! (ops.rs), the run ledger of what they did to the row counts
//! (ledger.rs) and the consistency check (count_check.rs); its options are
//! params.rs. What follows LinkBench and what deviates is docs/LINKBENCH.md.
//!
//! Like every family it says what to execute and nothing else: exec runs
//! the requesters, times each operation (the family's event classes) and
//! retries deadlocks and lock-wait timeouts; the lab layer prints and
//! stores.

mod count_check;
mod graph;
mod ledger;
mod loader;
mod model;
mod ops;
mod params;
mod tables;

pub use count_check::Condition;
pub(crate) use params::option_specs;
pub use params::LinkBenchOpts;

use super::family::{BoxFuture, Family, PrepareReport, Session, StatementSpec};
use super::options::OptValues;
use crate::protocol::{Conn, ConnOpts};
use std::sync::Arc;

/// The family's name on the command line.
pub const NAME: &str = "linkbench";

/// Whether a workload word names LinkBench.
pub fn is_linkbench(word: &str) -> bool {
    word.eq_ignore_ascii_case(NAME)
}

/// LinkBench with its options.
pub struct LinkBench {
    o: Arc<LinkBenchOpts>,
    g: Arc<graph::Graph>,
    deck: Arc<ops::Deck>,
    seed: u64,
    /// As runs are stored: `linkbench-10000000n`, so that graphs of
    /// different sizes are different series.
    name: String,
}

impl LinkBench {
    /// The family for options `o`; `seed` seeds every requester's stream.
    pub fn new(o: LinkBenchOpts, seed: u64) -> LinkBench {
        let name = format!("{NAME}-{}n", o.nodes());
        let g = Arc::new(graph::Graph::new(&o));
        let deck = Arc::new(ops::Deck::new(&o.mix, seed));
        LinkBench {
            o: Arc::new(o),
            g,
            deck,
            seed,
            name,
        }
    }

    /// Its options.
    pub fn opts(&self) -> &LinkBenchOpts {
        &self.o
    }

    /// The consistency conditions (on a quiet database).
    pub async fn check(&self, conn: &mut Conn) -> anyhow::Result<Vec<Condition>> {
        let links = if self.o.nodes_only {
            0
        } else {
            (self.g.start..self.g.start + self.g.n)
                .map(|id1| self.loaded_links(id1))
                .sum()
        };
        let loaded = count_check::Loaded {
            nodes: self.o.nodes(),
            links,
        };
        count_check::check(conn, loaded).await
    }

    /// Out-links the load gives `id1` over every type.
    pub fn loaded_links(&self, id1: u64) -> u64 {
        (0..self.g.types).map(|t| self.g.links(id1, t)).sum()
    }
}

impl Family for LinkBench {
    fn name(&self) -> &str {
        &self.name
    }

    fn options(&self) -> serde_json::Value {
        serde_json::to_value(&*self.o).unwrap_or_default()
    }

    fn statements(&self) -> Vec<StatementSpec> {
        ops::STATEMENTS
            .iter()
            .map(|(_, sql)| StatementSpec {
                sql: sql.to_string(),
                params: Vec::new(),
                dynamic: true,
            })
            .collect()
    }

    fn stat_names(&self) -> Vec<String> {
        ops::stat_names()
    }

    fn event_classes(&self) -> Vec<String> {
        params::OPS.iter().map(|(_, c)| c.to_string()).collect()
    }

    fn required_tables(&self) -> Vec<String> {
        tables::TABLES.iter().map(|t| t.to_string()).collect()
    }

    fn ready_checks(&self) -> Vec<(String, String)> {
        vec![(
            format!(
                "SELECT 1 FROM {p} a JOIN {p} b ON b.part = 'graph' WHERE a.part = 'complete' AND b.value = '{}'",
                loader::graph_key(&self.o),
                p = tables::PROGRESS
            ),
            format!(
                "the LinkBench tables are not a complete load of this graph ({}): run `{}` to finish it, or `qpslab cleanup linkbench` and prepare again",
                loader::graph_key(&self.o),
                self.prepare_command()
            ),
        )]
    }

    fn setup_sql(&self) -> Vec<String> {
        vec![ledger::create_sql()]
    }

    fn prepare_command(&self) -> String {
        format!("qpslab prepare linkbench --maxid1 {}", self.o.maxid1)
    }

    fn prepare(
        &self,
        opts: &ConnOpts,
        loaders: usize,
        progress: &mut dyn FnMut(super::Progress),
        stop: fn() -> bool,
    ) -> anyhow::Result<PrepareReport> {
        let method = if self.o.load_infile {
            loader::Method::Infile
        } else {
            loader::Method::Insert
        };
        loader::prepare(
            opts, &self.o, &self.g, loaders, method, self.seed, progress, stop,
        )
    }

    fn cleanup<'a>(
        &'a self,
        conn: &'a mut Conn,
        each: &'a mut dyn FnMut(&str),
    ) -> BoxFuture<'a, anyhow::Result<()>> {
        Box::pin(async move {
            for t in tables::TABLES {
                each(t);
                conn.exec(&format!("DROP TABLE IF EXISTS {t}")).await?;
            }
            Ok(())
        })
    }

    fn session(&self, thread: u32, _threads: u32, seed: u64) -> Box<dyn Session> {
        let seed = seed ^ u64::from(thread).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        Box::new(ops::Requester::new(
            self.o.clone(),
            self.g.clone(),
            self.deck.clone(),
            seed,
        ))
    }

    fn advice(&self, code: u16) -> Option<String> {
        (code == 1146).then(|| {
            format!(
                "the LinkBench tables are missing: run `{}` first",
                self.prepare_command()
            )
        })
    }
}

/// The family a load command names, when it is LinkBench.
pub fn family(workload: &str, v: &OptValues, seed: u64) -> Option<Result<Arc<LinkBench>, String>> {
    is_linkbench(workload)
        .then(|| LinkBenchOpts::from_values(v).map(|o| Arc::new(LinkBench::new(o, seed))))
}
