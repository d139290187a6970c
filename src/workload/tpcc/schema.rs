//! The nine TPC-C tables (clause 1.3) of each table set, their secondary
//! indexes (built after the load), and the bookkeeping table a prepare
//! keeps its progress in (`qpslab_tpccN`: which parts are loaded, the
//! warehouse count, whether the set is complete).

/// The tables of one set, in the order they are created and dropped.
pub const TABLES: [&str; 9] = [
    "warehouse",
    "district",
    "customer",
    "history",
    "new_orders",
    "orders",
    "order_line",
    "item",
    "stock",
];

/// The progress table of set `n`.
pub(crate) fn progress_table(n: u32) -> String {
    format!("qpslab_tpcc{n}")
}

/// Every table of set `n`, the progress table last.
pub(crate) fn set_tables(n: u32) -> Vec<String> {
    let mut v: Vec<String> = TABLES.iter().map(|t| format!("{t}{n}")).collect();
    v.push(progress_table(n));
    v
}

fn columns(table: &str) -> &'static str {
    match table {
        "warehouse" => {
            "w_id INT NOT NULL, w_name VARCHAR(10), w_street_1 VARCHAR(20), w_street_2 VARCHAR(20),
  w_city VARCHAR(20), w_state CHAR(2), w_zip CHAR(9), w_tax DECIMAL(4,4), w_ytd DECIMAL(12,2),
  PRIMARY KEY (w_id)"
        }
        "district" => {
            "d_id TINYINT NOT NULL, d_w_id INT NOT NULL, d_name VARCHAR(10), d_street_1 VARCHAR(20),
  d_street_2 VARCHAR(20), d_city VARCHAR(20), d_state CHAR(2), d_zip CHAR(9), d_tax DECIMAL(4,4),
  d_ytd DECIMAL(12,2), d_next_o_id INT, PRIMARY KEY (d_w_id, d_id)"
        }
        "customer" => {
            "c_id INT NOT NULL, c_d_id TINYINT NOT NULL, c_w_id INT NOT NULL, c_first VARCHAR(16),
  c_middle CHAR(2), c_last VARCHAR(16), c_street_1 VARCHAR(20), c_street_2 VARCHAR(20),
  c_city VARCHAR(20), c_state CHAR(2), c_zip CHAR(9), c_phone CHAR(16), c_since DATETIME,
  c_credit CHAR(2), c_credit_lim DECIMAL(12,2), c_discount DECIMAL(4,4), c_balance DECIMAL(12,2),
  c_ytd_payment DECIMAL(12,2), c_payment_cnt SMALLINT, c_delivery_cnt SMALLINT, c_data VARCHAR(500),
  PRIMARY KEY (c_w_id, c_d_id, c_id)"
        }
        "history" => {
            "h_c_id INT, h_c_d_id TINYINT, h_c_w_id INT, h_d_id TINYINT, h_w_id INT, h_date DATETIME,
  h_amount DECIMAL(6,2), h_data VARCHAR(24)"
        }
        "new_orders" => {
            "no_o_id INT NOT NULL, no_d_id TINYINT NOT NULL, no_w_id INT NOT NULL,
  PRIMARY KEY (no_w_id, no_d_id, no_o_id)"
        }
        "orders" => {
            "o_id INT NOT NULL, o_d_id TINYINT NOT NULL, o_w_id INT NOT NULL, o_c_id INT,
  o_entry_d DATETIME, o_carrier_id TINYINT, o_ol_cnt TINYINT, o_all_local TINYINT,
  PRIMARY KEY (o_w_id, o_d_id, o_id)"
        }
        "order_line" => {
            "ol_o_id INT NOT NULL, ol_d_id TINYINT NOT NULL, ol_w_id INT NOT NULL, ol_number TINYINT NOT NULL,
  ol_i_id INT, ol_supply_w_id INT, ol_delivery_d DATETIME, ol_quantity TINYINT,
  ol_amount DECIMAL(6,2), ol_dist_info CHAR(24), PRIMARY KEY (ol_w_id, ol_d_id, ol_o_id, ol_number)"
        }
        "item" => {
            "i_id INT NOT NULL, i_im_id INT, i_name VARCHAR(24), i_price DECIMAL(5,2), i_data VARCHAR(50),
  PRIMARY KEY (i_id)"
        }
        _ => {
            "s_i_id INT NOT NULL, s_w_id INT NOT NULL, s_quantity SMALLINT, s_dist_01 CHAR(24),
  s_dist_02 CHAR(24), s_dist_03 CHAR(24), s_dist_04 CHAR(24), s_dist_05 CHAR(24), s_dist_06 CHAR(24),
  s_dist_07 CHAR(24), s_dist_08 CHAR(24), s_dist_09 CHAR(24), s_dist_10 CHAR(24), s_ytd DECIMAL(8,0),
  s_order_cnt SMALLINT, s_remote_cnt SMALLINT, s_data VARCHAR(50), PRIMARY KEY (s_w_id, s_i_id)"
        }
    }
}

/// CREATE TABLE for `table` of set `n` with the engine and any further
/// table options (e.g. `ROW_FORMAT=COMPRESSED`).
pub(crate) fn create_sql(table: &str, n: u32, engine: &str, options: &str) -> String {
    format!(
        "CREATE TABLE {table}{n} (\n  {}\n) ENGINE={engine} {options}",
        columns(table)
    )
}

/// The progress table of set `n`.
pub(crate) fn create_progress_sql(n: u32) -> String {
    crate::workload::bulk_load::resume::create_sql(&progress_table(n))
}

/// The secondary indexes, built once the rows are in: customers by last
/// name (Payment and Order-Status by name) and a customer's latest order
/// (Order-Status).
pub(crate) fn index_sql(n: u32) -> [String; 2] {
    [
        format!("CREATE INDEX idx_customer{n} ON customer{n} (c_w_id, c_d_id, c_last, c_first)"),
        format!("CREATE INDEX idx_orders{n} ON orders{n} (o_w_id, o_d_id, o_c_id, o_id)"),
    ]
}
