//! The refresh functions (TPC-H clause 2.5) as SQL: RF1 inserts SF × 1500
//! new orders with their line items, RF2 deletes as many. Deviation from
//! dbgen's update sets, documented in docs/WORKLOADS.md: pair `u`'s new
//! orders are the generator's rows of slice `u` (of 1000) of the loaded
//! orders, keyed into the sparse key space dbgen leaves unused (bit 3 of
//! the order key set, a key the load never holds), and RF2 deletes
//! exactly the orders RF1 inserted, so that a refresh pair leaves the
//! data as the load made it and runs repeat on the same data. Runs
//! nothing itself.

use tpchgen::generators::{LineItemGenerator, OrderGenerator};

/// Slices the orders are cut into: one per refresh pair (0.1% each).
const SLICES: i32 = 1000;
/// Added to a loaded order key to make a refresh order's key (dbgen's
/// sparse keys leave bits 3 and 4 at zero in the load).
const KEY_OFFSET: i64 = 8;
/// Rows per INSERT or keys per DELETE.
const BATCH: usize = 500;

fn slice(pair: u32) -> i32 {
    (pair.saturating_sub(1) % SLICES as u32) as i32 + 1
}

/// A `.tbl` line's fields as a VALUES tuple, its first field (the order
/// key) moved into the refresh key space.
fn tuple(line: &str) -> String {
    let mut out = String::from("(");
    for (i, f) in line.trim_end_matches('|').split('|').enumerate() {
        if i > 0 {
            out.push(',');
        }
        if i == 0 {
            let k: i64 = f.parse().unwrap_or(0);
            out.push_str(&(k + KEY_OFFSET).to_string());
        } else {
            out.push('\'');
            out.push_str(&f.replace('\'', "''"));
            out.push('\'');
        }
    }
    out.push(')');
    out
}

fn inserts(table: &str, lines: Vec<String>) -> Vec<String> {
    lines
        .chunks(BATCH)
        .map(|c| {
            let values: Vec<String> = c.iter().map(|l| tuple(l)).collect();
            format!("INSERT INTO {table} VALUES {}", values.join(","))
        })
        .collect()
}

/// The keys of pair `pair`'s refresh orders at scale `sf`.
pub fn keys(sf: f64, pair: u32) -> Vec<i64> {
    OrderGenerator::new(sf, slice(pair), SLICES)
        .iter()
        .map(|o| o.o_orderkey + KEY_OFFSET)
        .collect()
}

/// RF1 of pair `pair`: its statements, in one transaction.
pub fn rf1(sf: f64, pair: u32) -> Vec<String> {
    let orders: Vec<String> = OrderGenerator::new(sf, slice(pair), SLICES)
        .iter()
        .map(|o| o.to_string())
        .collect();
    let items: Vec<String> = LineItemGenerator::new(sf, slice(pair), SLICES)
        .iter()
        .map(|l| l.to_string())
        .collect();
    let mut out = vec!["START TRANSACTION".to_string()];
    out.extend(inserts("orders", orders));
    out.extend(inserts("lineitem", items));
    out.push("COMMIT".into());
    out
}

/// RF2 of pair `pair`: its statements, in one transaction.
pub fn rf2(sf: f64, pair: u32) -> Vec<String> {
    let mut out = vec!["START TRANSACTION".to_string()];
    for c in keys(sf, pair).chunks(BATCH) {
        let list: Vec<String> = c.iter().map(i64::to_string).collect();
        let list = list.join(",");
        out.push(format!("DELETE FROM lineitem WHERE l_orderkey IN ({list})"));
        out.push(format!("DELETE FROM orders WHERE o_orderkey IN ({list})"));
    }
    out.push("COMMIT".into());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refresh_keys_are_outside_the_load() {
        let k = keys(0.01, 1);
        assert_eq!(k.len(), 15);
        assert!(k.iter().all(|k| k & 0b11000 != 0));
        let rf1 = rf1(0.01, 1);
        assert!(rf1[1].starts_with(&format!("INSERT INTO orders VALUES ({},", k[0])));
        assert_eq!(rf1.last().map(String::as_str), Some("COMMIT"));
        assert!(rf2(0.01, 1)[1].contains(&k[14].to_string()));
        assert_ne!(keys(0.01, 2)[0], k[0]);
    }
}
