//! `qpslab check tpcc`: the consistency conditions of clause 3.3.2 over
//! every table set, run on a quiet database (after prepare, or after a
//! run has ended). Each condition is one query returning the rows that
//! break it; a report lists each with its first offenders.

use crate::protocol::Conn;
use crate::workload::offenders::offenders;
use anyhow::Result;

/// One condition's outcome.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Condition {
    /// The table set checked.
    pub set: u32,
    /// The condition's number in the spec (3.3.2.x).
    pub number: u32,
    /// What it requires, in words.
    pub what: &'static str,
    /// Rows that break it (at most `offenders::SHOWN`), as text.
    pub violations: Vec<String>,
}

fn conditions(n: u32) -> [(u32, &'static str, String); 6] {
    [
        (0, "warehouses and districts are all there", format!(
            "SELECT 'warehouses', COUNT(*) FROM warehouse{n} HAVING COUNT(*) <> (SELECT value FROM qpslab_tpcc{n} WHERE part = 'warehouses')
             UNION ALL SELECT 'districts', COUNT(*) FROM district{n} HAVING COUNT(*) <> 10 * (SELECT value FROM qpslab_tpcc{n} WHERE part = 'warehouses')")),
        (1, "W_YTD = sum(D_YTD)", format!(
            "SELECT w_id, w_ytd, d.s FROM warehouse{n} JOIN (SELECT d_w_id, SUM(d_ytd) s FROM district{n} GROUP BY d_w_id) d ON d.d_w_id = w_id WHERE w_ytd <> d.s")),
        (2, "D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID)", format!(
            "SELECT d_w_id, d_id, d_next_o_id, o.m, no.m FROM district{n}
             LEFT JOIN (SELECT o_w_id, o_d_id, MAX(o_id) m FROM orders{n} GROUP BY o_w_id, o_d_id) o ON o.o_w_id = d_w_id AND o.o_d_id = d_id
             LEFT JOIN (SELECT no_w_id, no_d_id, MAX(no_o_id) m FROM new_orders{n} GROUP BY no_w_id, no_d_id) no ON no.no_w_id = d_w_id AND no.no_d_id = d_id
             WHERE o.m IS NULL OR d_next_o_id - 1 <> o.m OR (no.m IS NOT NULL AND no.m <> o.m)")),
        (3, "max(NO_O_ID) - min(NO_O_ID) + 1 = new-orders in the district", format!(
            "SELECT no_w_id, no_d_id, MAX(no_o_id) - MIN(no_o_id) + 1, COUNT(*) FROM new_orders{n} GROUP BY no_w_id, no_d_id HAVING MAX(no_o_id) - MIN(no_o_id) + 1 <> COUNT(*)")),
        (4, "sum(O_OL_CNT) = order lines in the district", format!(
            "SELECT o.o_w_id, o.o_d_id, o.s, l.c FROM (SELECT o_w_id, o_d_id, SUM(o_ol_cnt) s FROM orders{n} GROUP BY o_w_id, o_d_id) o
             LEFT JOIN (SELECT ol_w_id, ol_d_id, COUNT(*) c FROM order_line{n} GROUP BY ol_w_id, ol_d_id) l ON l.ol_w_id = o.o_w_id AND l.ol_d_id = o.o_d_id
             WHERE l.c IS NULL OR o.s <> l.c")),
        (5, "O_CARRIER_ID is null exactly for orders in NEW-ORDER", format!(
            "SELECT o_w_id, o_d_id, o_id, o_carrier_id FROM orders{n} LEFT JOIN new_orders{n} ON no_w_id = o_w_id AND no_d_id = o_d_id AND no_o_id = o_id
             WHERE (o_carrier_id IS NULL) <> (no_o_id IS NOT NULL)")),
    ]
}

/// Runs every condition on sets 1..=`sets`.
pub async fn check(conn: &mut Conn, sets: u32) -> Result<Vec<Condition>> {
    let mut out = Vec::new();
    for n in 1..=sets {
        for (number, what, sql) in conditions(n) {
            let violations =
                offenders(conn, &sql, &format!("condition {number} on set {n}")).await?;
            out.push(Condition {
                set: n,
                number,
                what,
                violations,
            });
        }
    }
    Ok(out)
}
