//! LinkBench's options under LinkBench's own names and defaults
//! (config/FBWorkload.properties, LinkConfigMysql.properties): their
//! declarations, `--config FILE` (a LinkBench .properties file whose
//! known keys fill the options not given on the command line), `--mix`,
//! and the checks (shares adding to 100, maxid1 > startid1 + 1). Knows
//! nothing of SQL or the draws.

use crate::workload::option_checks::plain_word;
use crate::workload::options::{OptKind, OptSpec, OptValues};

/// The ten operations, in LinkBench's cumulative order (the order
/// LinkBenchRequest tests its draw against), as (property name, event
/// class name).
pub const OPS: [(&str, &str); 10] = [
    ("addlink", "add_link"),
    ("deletelink", "delete_link"),
    ("updatelink", "update_link"),
    ("countlink", "count_link"),
    ("getlink", "multiget_link"),
    ("getlinklist", "get_links_list"),
    ("addnode", "add_node"),
    ("updatenode", "update_node"),
    ("deletenode", "delete_node"),
    ("getnode", "get_node"),
];

/// FBWorkload.properties' mix, in `OPS` order (percent).
const DEFAULT_MIX: [&str; 10] = [
    "8.9886601",
    "2.9907664",
    "8.0122125",
    "4.8863567",
    "0.5261142",
    "50.7119145",
    "2.5732789",
    "7.366437",
    "1.0115914",
    "12.9326683",
];

/// A payload generator's parameters (MotifDataGenerator).
#[derive(Debug, Clone, Copy, serde::Serialize)]
pub struct DataGen {
    /// Lowest byte.
    pub start: u8,
    /// Highest byte.
    pub end: u8,
    /// Share of chunks drawn new.
    pub uniqueness: f64,
}

/// LinkBench's options, checked.
#[derive(Debug, Clone, serde::Serialize)]
pub struct LinkBenchOpts {
    /// First node id.
    pub startid1: u64,
    /// End node id of the load, exclusive.
    pub maxid1: u64,
    /// Distinct link types.
    pub link_type_count: u32,
    /// Share of each operation in `OPS` order, percent.
    pub mix: [f64; 10],
    /// Percent of getlinklist that page back through a long list.
    pub getlinklist_history: f64,
    /// Zipf shape of correlated link reads.
    pub read_shape: f64,
    /// Percent of link reads drawn uncorrelated.
    pub read_uncorr_blend: f64,
    /// Zipf shape of uncorrelated link reads.
    pub read_uncorr_shape: f64,
    /// Zipf shape of correlated link writes.
    pub write_shape: f64,
    /// Percent of link writes drawn uncorrelated.
    pub write_uncorr_blend: f64,
    /// Zipf shape of uncorrelated link writes.
    pub write_uncorr_shape: f64,
    /// Zipf shape of node reads.
    pub node_read_shape: f64,
    /// Zipf shape of node updates.
    pub node_update_shape: f64,
    /// Fewest id2s of a multiget.
    pub multiget_min: u32,
    /// Most id2s of a multiget.
    pub multiget_max: u32,
    /// Geometric parameter of the multiget size.
    pub multiget_prob: f64,
    /// Median link payload bytes.
    pub link_datasize: f64,
    /// Median node payload bytes.
    pub node_datasize: f64,
    /// Payload of added links.
    pub link_add: DataGen,
    /// Payload of updated links.
    pub link_up: DataGen,
    /// Payload of added nodes.
    pub node_add: DataGen,
    /// Payload of updated nodes.
    pub node_up: DataGen,
    /// getlinklist's LIMIT (LinkStore's default range limit).
    pub range_limit: u32,
    /// id1s per loading chunk.
    pub loader_chunk_size: u32,
    /// Loader connections (0: the command's default).
    pub loaders: u32,
    /// `PARTITION BY KEY(id1) PARTITIONS n` on linktable (0: none).
    pub partitions: u32,
    /// Engine of the tables.
    pub storage_engine: String,
    /// Appended to each CREATE TABLE.
    pub table_options: String,
    /// Load the nodes only (no links, no counts).
    pub nodes_only: bool,
    /// LOAD DATA LOCAL INFILE (true) or multi-row INSERTs.
    pub load_infile: bool,
}

pub(crate) fn option_specs() -> Vec<OptSpec> {
    use OptKind::*;
    let o = |n: &str, k: OptKind, d: &str, h: &str| OptSpec::new(n, k, d, h);
    let mut v = vec![
        o("maxid1", Text, "10000001", "end node id of the load, exclusive: the graph's size (1M ids is about 1 GB)"),
        o("startid1", Text, "1", "first node id"),
        o("link_type_count", Count, "2", "distinct link types (out-degree is shared among them)"),
        o("mix", Text, "", "the operation mix as name=percent,… (addlink, deletelink, updatelink, countlink, getlink, getlinklist, addnode, updatenode, deletenode, getnode); unnamed ones get 0; must add to 100"),
        o("config", Text, "", "a LinkBench .properties file: its known keys set the options not given here"),
        o("getlinklist_history", Float, "0.3", "percent of getlinklist that page back through a list seen longer than the range limit"),
        o("read_shape", Float, "0.8", "Zipf shape of link reads (correlated with out-degree)"),
        o("read_uncorr_blend", Float, "99.5", "percent of link reads drawn uncorrelated with out-degree"),
        o("read_uncorr_shape", Float, "0.8", "Zipf shape of the uncorrelated link reads"),
        o("write_shape", Float, "0.741", "Zipf shape of link writes (correlated with out-degree)"),
        o("write_uncorr_blend", Float, "95", "percent of link writes drawn uncorrelated with out-degree"),
        o("write_uncorr_shape", Float, "0.741", "Zipf shape of the uncorrelated link writes"),
        o("node_read_shape", Float, "0.625", "Zipf shape of node reads"),
        o("node_update_shape", Float, "0.606", "Zipf shape of node updates (node deletes are uniform)"),
        o("link_multiget_dist_min", Count, "1", "fewest id2s a multiget asks for"),
        o("link_multiget_dist_max", Count, "128", "most id2s a multiget asks for"),
        o("link_multiget_dist_prob", Float, "0.382", "geometric parameter of the multiget size (mean about 2.6)"),
        o("link_datasize", Float, "8", "median link payload bytes (log-normal, sigma 1, below 255)"),
        o("node_datasize", Float, "128", "median node payload bytes (log-normal, sigma 1)"),
        o("range_limit", Count, "10000", "LIMIT of a getlinklist (LinkStore's default range limit)"),
        o("loaders", Count, "0", "loader connections of prepare (0: --threads when above 1, else one per CPU)"),
        o("loader_chunk_size", Count, "2048", "id1s per loading chunk (the unit a resumed prepare redoes)"),
        o("partitions", Count, "0", "PARTITION BY KEY(id1) PARTITIONS N on linktable, as LinkBench's README creates it (0: none)"),
        o("storage_engine", Text, "InnoDB", "engine of the tables").alias("mysql_storage_engine"),
        o("table_options", Text, "", "appended to every CREATE TABLE, e.g. ROW_FORMAT=COMPRESSED"),
        o("load_method", Text, "infile", "how prepare sends rows: infile (LOAD DATA, streamed through a named pipe or LOCAL, see --load-via) or insert (multi-row INSERTs of 1024 rows)"),
        o("nodes_only", Bool, "off", "prepare the nodes only (no links, no counts)"),
    ];
    for (i, (name, class)) in OPS.iter().enumerate() {
        v.push(o(
            name,
            Float,
            DEFAULT_MIX[i],
            &format!("percent of operations that are {class}"),
        ));
    }
    for (gen, start, end, uniq) in [
        ("link_add_datagen", "32", "100", "0.225"),
        ("link_up_datagen", "32", "100", "0.225"),
        ("node_add_datagen", "50", "220", "0.63"),
        ("node_up_datagen", "50", "220", "0.63"),
    ] {
        v.push(o(
            &format!("{gen}_startbyte"),
            Count,
            start,
            "lowest payload byte",
        ));
        v.push(o(
            &format!("{gen}_endbyte"),
            Count,
            end,
            "highest payload byte",
        ));
        v.push(o(
            &format!("{gen}_uniqueness"),
            Float,
            uniq,
            "share of 128-byte chunks drawn new rather than from the motifs",
        ));
    }
    v
}

/// Keys of a LinkBench properties file that are not options here but
/// name what qpslab does one way only; any other value is refused.
const FIXED: [(&str, &str); 7] = [
    ("nlinks_func", "real"),
    (
        "read_function",
        "com.facebook.LinkBench.distributions.ZipfDistribution",
    ),
    (
        "read_uncorr_function",
        "com.facebook.LinkBench.distributions.ZipfDistribution",
    ),
    (
        "write_function",
        "com.facebook.LinkBench.distributions.ZipfDistribution",
    ),
    (
        "node_read_function",
        "com.facebook.LinkBench.distributions.ZipfDistribution",
    ),
    (
        "node_update_function",
        "com.facebook.LinkBench.distributions.ZipfDistribution",
    ),
    (
        "node_delete_function",
        "com.facebook.LinkBench.distributions.UniformDistribution",
    ),
];

/// Sets from the properties `text` every known option not given in `v`.
pub(crate) fn apply_properties(v: &mut OptValues, text: &str, file: &str) -> Result<(), String> {
    let known: Vec<String> = option_specs().into_iter().map(|s| s.name).collect();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') || line.starts_with('!') {
            continue;
        }
        let Some((key, value)) = line.split_once(['=', ':']) else {
            continue;
        };
        let (key, value) = (key.trim(), value.trim());
        if let Some((_, want)) = FIXED.iter().find(|(k, _)| *k == key) {
            if !value.eq_ignore_ascii_case(want) && !want.ends_with(value) {
                return Err(format!(
                    "--config {file}:{}: {key} = {value} is not supported (qpslab runs {want})",
                    n + 1
                ));
            }
            continue;
        }
        if key == "mix" || key == "config" || !known.iter().any(|k| k == key) || v.is_given(key) {
            continue;
        }
        v.set(key, value)
            .map_err(|e| format!("--config {file}:{}: {e}", n + 1))?;
    }
    Ok(())
}

fn float(v: &OptValues, name: &str) -> f64 {
    v.text(name).trim().parse().unwrap_or(0.0)
}

fn byte(v: &OptValues, name: &str) -> Result<u8, String> {
    u8::try_from(v.count(name))
        .map_err(|_| format!("--{} must be 0 to 255", name.replace('_', "-")))
}

fn datagen(v: &OptValues, prefix: &str) -> Result<DataGen, String> {
    let g = DataGen {
        start: byte(v, &format!("{prefix}_startbyte"))?,
        end: byte(v, &format!("{prefix}_endbyte"))?,
        uniqueness: float(v, &format!("{prefix}_uniqueness")),
    };
    if g.start >= g.end || !(0.0..=1.0).contains(&g.uniqueness) {
        return Err(format!(
            "--{prefix}-*: startbyte must be below endbyte and uniqueness from 0 to 1"
        ));
    }
    Ok(g)
}

/// The shares `--mix` names (others 0), or each operation's own option.
fn mix(v: &OptValues) -> Result<[f64; 10], String> {
    let mut m = [0.0; 10];
    let text = v.text("mix").trim();
    if text.is_empty() {
        for (i, (name, _)) in OPS.iter().enumerate() {
            m[i] = float(v, name);
        }
    } else {
        for part in text.split(',').filter(|p| !p.trim().is_empty()) {
            let (name, share) = part
                .split_once('=')
                .ok_or_else(|| format!("--mix: '{}' is not name=percent", part.escape_debug()))?;
            let name = name.trim().to_ascii_lowercase().replace(['_', '-'], "");
            let i = OPS
                .iter()
                .position(|(p, c)| {
                    *p == name
                        || c.replace('_', "") == name
                        || (name == "multiget" && *p == "getlink")
                })
                .ok_or_else(|| {
                    format!(
                        "--mix: unknown operation '{}' (one of {})",
                        name.escape_debug(),
                        OPS.map(|o| o.0).join(", ")
                    )
                })?;
            m[i] = share.trim().parse().map_err(|_| {
                format!(
                    "--mix: {name}'s share '{}' is not a number",
                    share.escape_debug()
                )
            })?;
        }
    }
    if m.iter().any(|s| !(0.0..=100.0).contains(s)) {
        return Err("--mix: each share must be from 0 to 100".into());
    }
    let sum: f64 = m.iter().sum();
    if (sum - 100.0).abs() > 0.01 {
        return Err(format!("--mix: the shares add to {sum:.4}, not 100"));
    }
    Ok(m)
}

impl LinkBenchOpts {
    /// The options from their values (and `--config`'s file), checked.
    pub fn from_values(given: &OptValues) -> Result<LinkBenchOpts, String> {
        let mut v = given.clone();
        let file = v.text("config").trim().to_string();
        if !file.is_empty() {
            let text =
                std::fs::read_to_string(&file).map_err(|e| format!("--config {file}: {e}"))?;
            apply_properties(&mut v, &text, &file)?;
        }
        let o = LinkBenchOpts {
            startid1: v.whole("startid1")?,
            maxid1: v.whole("maxid1")?,
            link_type_count: v.count("link_type_count"),
            mix: mix(&v)?,
            getlinklist_history: float(&v, "getlinklist_history"),
            read_shape: float(&v, "read_shape"),
            read_uncorr_blend: float(&v, "read_uncorr_blend"),
            read_uncorr_shape: float(&v, "read_uncorr_shape"),
            write_shape: float(&v, "write_shape"),
            write_uncorr_blend: float(&v, "write_uncorr_blend"),
            write_uncorr_shape: float(&v, "write_uncorr_shape"),
            node_read_shape: float(&v, "node_read_shape"),
            node_update_shape: float(&v, "node_update_shape"),
            multiget_min: v.count("link_multiget_dist_min"),
            multiget_max: v.count("link_multiget_dist_max"),
            multiget_prob: float(&v, "link_multiget_dist_prob"),
            link_datasize: float(&v, "link_datasize"),
            node_datasize: float(&v, "node_datasize"),
            link_add: datagen(&v, "link_add_datagen")?,
            link_up: datagen(&v, "link_up_datagen")?,
            node_add: datagen(&v, "node_add_datagen")?,
            node_up: datagen(&v, "node_up_datagen")?,
            range_limit: v.count("range_limit"),
            loader_chunk_size: v.count("loader_chunk_size"),
            loaders: v.count("loaders"),
            partitions: v.count("partitions"),
            storage_engine: v.text("storage_engine").to_string(),
            table_options: v.text("table_options").to_string(),
            nodes_only: v.flag("nodes_only"),
            load_infile: match v.text("load_method").trim().to_ascii_lowercase().as_str() {
                "infile" | "load_data" => true,
                "insert" => false,
                m => {
                    return Err(format!(
                        "--load-method '{}' is not infile or insert",
                        m.escape_debug()
                    ))
                }
            },
        };
        o.check()?;
        Ok(o)
    }

    fn check(&self) -> Result<(), String> {
        if self.startid1 == 0 || self.maxid1 < self.startid1 + 2 || self.maxid1 > 1 << 40 {
            return Err(format!(
                "--maxid1 must be at least --startid1 + 2 (a graph of two nodes or more) and --startid1 at least 1; got maxid1 {} and startid1 {}",
                self.maxid1, self.startid1
            ));
        }
        if self.link_type_count == 0 || self.link_type_count > 1000 {
            return Err("--link-type-count must be from 1 to 1000".into());
        }
        for (name, s) in [
            ("read-shape", self.read_shape),
            ("read-uncorr-shape", self.read_uncorr_shape),
            ("write-shape", self.write_shape),
            ("write-uncorr-shape", self.write_uncorr_shape),
            ("node-read-shape", self.node_read_shape),
            ("node-update-shape", self.node_update_shape),
        ] {
            if !(s > 0.0 && s != 1.0 && s < 10.0) {
                return Err(format!(
                    "--{name} must be a Zipf shape above 0 (not 1), got {s}"
                ));
            }
        }
        for (name, p) in [
            ("read-uncorr-blend", self.read_uncorr_blend),
            ("write-uncorr-blend", self.write_uncorr_blend),
            ("getlinklist-history", self.getlinklist_history),
        ] {
            if !(0.0..=100.0).contains(&p) {
                return Err(format!("--{name} is a percentage (0 to 100), got {p}"));
            }
        }
        if self.multiget_min == 0
            || self.multiget_min > self.multiget_max
            || !(self.multiget_prob > 0.0 && self.multiget_prob <= 1.0)
        {
            return Err("--link-multiget-dist-*: need 1 <= min <= max and 0 < prob <= 1".into());
        }
        if self.range_limit == 0 || self.loader_chunk_size == 0 || self.partitions > 1024 {
            return Err("--range-limit and --loader-chunk-size must be at least 1, --partitions at most 1024".into());
        }
        if !(self.link_datasize > 0.0 && self.node_datasize > 0.0) {
            return Err("--link-datasize and --node-datasize must be above 0".into());
        }
        plain_word("storage-engine", &self.storage_engine)?;
        plain_word("table-options", &self.table_options)
    }

    /// The defaults with `maxid1` (a campaign's `[data] maxid1`).
    pub fn with_maxid1(maxid1: u64) -> Result<LinkBenchOpts, String> {
        let mut v = OptValues::new(option_specs());
        v.set("maxid1", &maxid1.to_string())?;
        LinkBenchOpts::from_values(&v)
    }

    /// Node ids loaded: startid1 .. maxid1.
    pub fn nodes(&self) -> u64 {
        self.maxid1 - self.startid1
    }
}

/// Options for unit tests: the defaults with `maxid1`.
#[cfg(test)]
pub(crate) fn test_opts(maxid1: &str) -> LinkBenchOpts {
    let mut v = OptValues::new(option_specs());
    v.set("maxid1", maxid1).expect("maxid1");
    LinkBenchOpts::from_values(&v).expect("options")
}
