//! The graph a LinkBench run works on, from its options: each node's
//! out-degree per link type (what the load wrote, which the operations
//! aim their id2s by, as ID2Chooser does) and the id1 each kind of
//! operation draws (LinkBenchRequest.chooseRequestID: a Zipf rank, blended
//! with an uncorrelated one for links, scattered by the kind's shuffler).
//! Shared read-only by the loaders and every session.

use super::model::{degree_at, Shuffler, Zipf, NLINKS_SEED, NODE_SEED, UNCORR_SEED};
use super::params::LinkBenchOpts;
use crate::workload::xoroshiro::Xoroshiro;

/// LinkStore.DEFAULT_LINK_TYPE: the first link type; the others follow.
pub const LINK_TYPE_BASE: u64 = 123_456_789;
/// LinkStore.DEFAULT_NODE_TYPE.
pub const NODE_TYPE: u32 = 2048;
/// LinkStore.MAX_LINK_DATA: linktable.data is VARCHAR(255).
pub const MAX_LINK_DATA: usize = 255;
/// NodeStore.MAX_NODE_DATA.
pub const MAX_NODE_DATA: usize = 1 << 20;

/// ID2Chooser's wished-for chances that an operation's link exists.
pub const P_GET_EXIST: f64 = 0.5;
pub const P_UPDATE_EXIST: f64 = 0.9;
pub const P_DELETE_EXIST: f64 = 0.9;
pub const P_ADD_EXIST: f64 = 0.05;

/// What an operation draws its id1 for.
#[derive(Debug, Clone, Copy)]
pub enum Access {
    LinkRead,
    LinkWrite,
    NodeRead,
    NodeUpdate,
    NodeDelete,
}

/// The graph's shape and access distributions.
#[derive(Debug, Clone)]
pub struct Graph {
    pub start: u64,
    pub n: u64,
    pub types: u32,
    nlinks: Shuffler,
    uncorr: Shuffler,
    node: Shuffler,
    read: Zipf,
    read_uncorr: Zipf,
    write: Zipf,
    write_uncorr: Zipf,
    node_read: Zipf,
    node_update: Zipf,
    read_blend: f64,
    write_blend: f64,
}

impl Graph {
    pub fn new(o: &LinkBenchOpts) -> Graph {
        let (start, max, n) = (o.startid1, o.maxid1, o.nodes());
        Graph {
            start,
            n,
            types: o.link_type_count,
            nlinks: Shuffler::new(NLINKS_SEED, n),
            uncorr: Shuffler::new(UNCORR_SEED, n),
            node: Shuffler::new(NODE_SEED, n),
            read: Zipf::new(start, max, o.read_shape),
            read_uncorr: Zipf::new(start, max, o.read_uncorr_shape),
            write: Zipf::new(start, max, o.write_shape),
            write_uncorr: Zipf::new(start, max, o.write_uncorr_shape),
            node_read: Zipf::new(start, max, o.node_read_shape),
            node_update: Zipf::new(start, max, o.node_update_shape),
            read_blend: o.read_uncorr_blend / 100.0,
            write_blend: o.write_uncorr_blend / 100.0,
        }
    }

    /// Out-links of `id1` over every type as loaded (RealDistribution's
    /// getNlinks of the id before the shuffle: low ranks, many links).
    pub fn total_links(&self, id1: u64) -> u64 {
        if id1 < self.start || id1 >= self.start + self.n {
            return 0;
        }
        let rank = self.nlinks.permute(id1 - self.start, true);
        degree_at(1.0 - rank as f64 / self.n as f64)
    }

    /// Out-links of `id1` of type number `t` (0-based), as
    /// ID2Chooser.calcLinkCount splits them: its `leftOver` is the total
    /// less the even share (not the remainder), so with two types a node
    /// of 3 links loads 2 + 2; kept so that the load and the operations
    /// agree as LinkBench's do.
    pub fn links(&self, id1: u64, t: u32) -> u64 {
        let total = self.total_links(id1);
        let even = total / u64::from(self.types);
        if u64::from(t) < total - even {
            even + 1
        } else {
            even
        }
    }

    /// The id1 of an operation of kind `a`.
    pub fn id1(&self, a: Access, x: &mut Xoroshiro) -> u64 {
        let (zipf, shuffler) = match a {
            Access::LinkRead if x.unit() < self.read_blend => (&self.read_uncorr, &self.uncorr),
            Access::LinkRead => (&self.read, &self.nlinks),
            Access::LinkWrite if x.unit() < self.write_blend => (&self.write_uncorr, &self.uncorr),
            Access::LinkWrite => (&self.write, &self.nlinks),
            Access::NodeRead => (&self.node_read, &self.node),
            Access::NodeUpdate => (&self.node_update, &self.node),
            Access::NodeDelete => {
                let r = (x.unit() * self.n as f64) as u64;
                return self.start + self.node.permute(r.min(self.n - 1), false);
            }
        };
        let r = zipf.quantile(x.unit()) - self.start;
        self.start + shuffler.permute(r, false)
    }

    /// A link type drawn evenly.
    pub fn link_type(&self, x: &mut Xoroshiro) -> u64 {
        LINK_TYPE_BASE + (x.unit() * f64::from(self.types)) as u64
    }

    /// The id2 range an operation draws from so that about `p_exist` of
    /// its links exist (ID2Chooser.calcID2Range).
    pub fn id2_range(&self, id1: u64, link_type: u64, p_exist: f64) -> u64 {
        let t = (link_type - LINK_TYPE_BASE) as u32;
        ((self.links(id1, t) as f64 / p_exist).ceil() as u64).max(1)
    }

    /// An id2 for an operation on (id1, type).
    pub fn id2(&self, id1: u64, link_type: u64, p_exist: f64, x: &mut Xoroshiro) -> u64 {
        let range = self.id2_range(id1, link_type, p_exist);
        id1 + (x.unit() * range as f64) as u64
    }

    /// `n` distinct id2s for a multiget (ID2Chooser.chooseMultipleForOp).
    pub fn id2s(&self, id1: u64, link_type: u64, n: u32, x: &mut Xoroshiro, out: &mut Vec<u64>) {
        out.clear();
        let range = self.id2_range(id1, link_type, P_GET_EXIST);
        if range <= u64::from(n) {
            out.extend((0..u64::from(n)).map(|i| id1 + i));
            return;
        }
        for _ in 0..n {
            let mut id2 = id1 + (x.unit() * range as f64) as u64;
            let mut tries = 0;
            while out.contains(&id2) && tries < 100 {
                id2 = id1 + (x.unit() * range as f64) as u64;
                tries += 1;
            }
            out.push(id2);
        }
    }
}
