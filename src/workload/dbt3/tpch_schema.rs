//! The eight TPC-H tables as the spec defines them (clause 1.4: columns,
//! types, primary keys), the secondary indexes DBT3's MySQL scripts add
//! after the load (one per foreign key and the date columns the queries
//! range over), and the bookkeeping table a prepare keeps its progress in
//! (`qpslab_dbt3`: the scale, each loaded chunk, `complete`). Owns no
//! data and runs nothing.

/// One of the eight tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Table {
    /// 5 rows.
    Region,
    /// 25 rows.
    Nation,
    /// SF × 200,000 rows.
    Part,
    /// SF × 10,000 rows.
    Supplier,
    /// SF × 800,000 rows.
    PartSupp,
    /// SF × 150,000 rows.
    Customer,
    /// SF × 1,500,000 rows.
    Orders,
    /// About SF × 6,000,000 rows (1 to 7 per order).
    LineItem,
}

/// Every table, in the order they are loaded (the small ones first).
pub const ALL: [Table; 8] = [
    Table::Region,
    Table::Nation,
    Table::Supplier,
    Table::Customer,
    Table::Part,
    Table::PartSupp,
    Table::Orders,
    Table::LineItem,
];

/// The progress table.
pub const PROGRESS: &str = "qpslab_dbt3";

impl Table {
    /// The table's name.
    pub fn name(self) -> &'static str {
        match self {
            Table::Region => "region",
            Table::Nation => "nation",
            Table::Part => "part",
            Table::Supplier => "supplier",
            Table::PartSupp => "partsupp",
            Table::Customer => "customer",
            Table::Orders => "orders",
            Table::LineItem => "lineitem",
        }
    }

    /// Its columns and primary key, as in CREATE TABLE.
    fn columns(self) -> &'static str {
        match self {
            Table::Region => "r_regionkey INT NOT NULL, r_name CHAR(25) NOT NULL, r_comment VARCHAR(152) NOT NULL,
  PRIMARY KEY (r_regionkey)",
            Table::Nation => "n_nationkey INT NOT NULL, n_name CHAR(25) NOT NULL, n_regionkey INT NOT NULL,
  n_comment VARCHAR(152) NOT NULL, PRIMARY KEY (n_nationkey)",
            Table::Part => "p_partkey INT NOT NULL, p_name VARCHAR(55) NOT NULL, p_mfgr CHAR(25) NOT NULL,
  p_brand CHAR(10) NOT NULL, p_type VARCHAR(25) NOT NULL, p_size INT NOT NULL,
  p_container CHAR(10) NOT NULL, p_retailprice DECIMAL(15,2) NOT NULL, p_comment VARCHAR(23) NOT NULL,
  PRIMARY KEY (p_partkey)",
            Table::Supplier => "s_suppkey INT NOT NULL, s_name CHAR(25) NOT NULL, s_address VARCHAR(40) NOT NULL,
  s_nationkey INT NOT NULL, s_phone CHAR(15) NOT NULL, s_acctbal DECIMAL(15,2) NOT NULL,
  s_comment VARCHAR(101) NOT NULL, PRIMARY KEY (s_suppkey)",
            Table::PartSupp => "ps_partkey INT NOT NULL, ps_suppkey INT NOT NULL, ps_availqty INT NOT NULL,
  ps_supplycost DECIMAL(15,2) NOT NULL, ps_comment VARCHAR(199) NOT NULL,
  PRIMARY KEY (ps_partkey, ps_suppkey)",
            Table::Customer => "c_custkey INT NOT NULL, c_name VARCHAR(25) NOT NULL, c_address VARCHAR(40) NOT NULL,
  c_nationkey INT NOT NULL, c_phone CHAR(15) NOT NULL, c_acctbal DECIMAL(15,2) NOT NULL,
  c_mktsegment CHAR(10) NOT NULL, c_comment VARCHAR(117) NOT NULL, PRIMARY KEY (c_custkey)",
            Table::Orders => "o_orderkey BIGINT NOT NULL, o_custkey INT NOT NULL, o_orderstatus CHAR(1) NOT NULL,
  o_totalprice DECIMAL(15,2) NOT NULL, o_orderdate DATE NOT NULL, o_orderpriority CHAR(15) NOT NULL,
  o_clerk CHAR(15) NOT NULL, o_shippriority INT NOT NULL, o_comment VARCHAR(79) NOT NULL,
  PRIMARY KEY (o_orderkey)",
            Table::LineItem => "l_orderkey BIGINT NOT NULL, l_partkey INT NOT NULL, l_suppkey INT NOT NULL,
  l_linenumber INT NOT NULL, l_quantity DECIMAL(15,2) NOT NULL, l_extendedprice DECIMAL(15,2) NOT NULL,
  l_discount DECIMAL(15,2) NOT NULL, l_tax DECIMAL(15,2) NOT NULL, l_returnflag CHAR(1) NOT NULL,
  l_linestatus CHAR(1) NOT NULL, l_shipdate DATE NOT NULL, l_commitdate DATE NOT NULL,
  l_receiptdate DATE NOT NULL, l_shipinstruct CHAR(25) NOT NULL, l_shipmode CHAR(10) NOT NULL,
  l_comment VARCHAR(44) NOT NULL, PRIMARY KEY (l_orderkey, l_linenumber)",
        }
    }

    /// The secondary indexes built after the load (DBT3's MySQL set):
    /// each foreign key, and the dates Q1, Q3-Q7, Q10, Q12, Q14, Q15 and
    /// Q20 range over.
    pub fn indexes(self) -> &'static [(&'static str, &'static str)] {
        match self {
            Table::Region => &[],
            Table::Nation => &[("i_n_regionkey", "n_regionkey")],
            Table::Part => &[],
            Table::Supplier => &[("i_s_nationkey", "s_nationkey")],
            Table::PartSupp => &[("i_ps_suppkey", "ps_suppkey")],
            Table::Customer => &[("i_c_nationkey", "c_nationkey")],
            Table::Orders => &[
                ("i_o_orderdate", "o_orderdate"),
                ("i_o_custkey", "o_custkey"),
            ],
            Table::LineItem => &[
                ("i_l_shipdate", "l_shipdate"),
                ("i_l_suppkey_partkey", "l_partkey, l_suppkey"),
                ("i_l_partkey", "l_partkey"),
                ("i_l_suppkey", "l_suppkey"),
                ("i_l_receiptdate", "l_receiptdate"),
                ("i_l_commitdate", "l_commitdate"),
            ],
        }
    }
}

/// CREATE TABLE for `t`, with the engine and any further table options;
/// `partitions` > 0 partitions orders and lineitem by HASH of the order
/// key into that many partitions (the key every unique key of both holds,
/// so an order and its line items share a partition number).
pub fn create_sql(t: Table, engine: &str, options: &str, partitions: u32) -> String {
    let by = match t {
        Table::Orders => "o_orderkey",
        Table::LineItem => "l_orderkey",
        _ => "",
    };
    let partition = if partitions > 0 && !by.is_empty() {
        format!(" PARTITION BY HASH ({by}) PARTITIONS {partitions}")
    } else {
        String::new()
    };
    format!(
        "CREATE TABLE {} (\n  {}\n) ENGINE={engine} DEFAULT CHARSET=latin1 {options}{partition}",
        t.name(),
        t.columns()
    )
}

/// The ALTER TABLE that adds `t`'s secondary indexes (None: it has none).
pub fn index_sql(t: Table) -> Option<String> {
    let adds: Vec<String> = t
        .indexes()
        .iter()
        .map(|(name, cols)| format!("ADD INDEX {name} ({cols})"))
        .collect();
    (!adds.is_empty()).then(|| format!("ALTER TABLE {} {}", t.name(), adds.join(", ")))
}

/// The progress table.
pub fn create_progress_sql() -> String {
    format!("CREATE TABLE {PROGRESS} (part VARCHAR(40) NOT NULL PRIMARY KEY, value VARCHAR(100))")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_table_has_its_key_and_lineitem_its_indexes() {
        for t in ALL {
            assert!(create_sql(t, "InnoDB", "", 0).contains("PRIMARY KEY"));
            assert!(!create_sql(t, "InnoDB", "", 0).contains("PARTITION"));
        }
        assert!(create_sql(Table::LineItem, "InnoDB", "", 4)
            .ends_with("PARTITION BY HASH (l_orderkey) PARTITIONS 4"));
        assert!(!create_sql(Table::Part, "InnoDB", "", 4).contains("PARTITION"));
        let li = index_sql(Table::LineItem).unwrap_or_default();
        assert!(li.starts_with("ALTER TABLE lineitem ADD INDEX i_l_shipdate"));
        assert_eq!(index_sql(Table::Region), None);
    }
}
