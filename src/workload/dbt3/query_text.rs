//! The 22 TPC-H query templates (clause 2.4) in the MySQL/MariaDB
//! dialect, with qgen's placeholders `:1`, `:2`, … for the substitution
//! parameters (qgen_params.rs draws them). Dialect: `INTERVAL n unit`
//! date arithmetic instead of `interval 'n' unit`; `LIMIT n` for the
//! spec's row counts (Q2 100, Q3 10, Q10 20, Q18 100, Q21 100); Q15's
//! view is created and dropped around the query (`revenue0`, as qgen's
//! MySQL variant does), so Q15 is three statements; Q13's `c_orders
//! (c_custkey, c_count)` column list is written as an alias inside the
//! derived table; `extract(year from …)` as it is. Runs nothing.

/// The template of query `q` (1..=22); Q15 is its three statements
/// separated by `;\n`.
pub fn template(q: u32) -> &'static str {
    TEMPLATES[(q as usize).clamp(1, 22) - 1]
}

const TEMPLATES: [&str; 22] = [
    // Q1: pricing summary report
    "SELECT l_returnflag, l_linestatus, SUM(l_quantity) AS sum_qty, SUM(l_extendedprice) AS sum_base_price,
 SUM(l_extendedprice * (1 - l_discount)) AS sum_disc_price,
 SUM(l_extendedprice * (1 - l_discount) * (1 + l_tax)) AS sum_charge, AVG(l_quantity) AS avg_qty,
 AVG(l_extendedprice) AS avg_price, AVG(l_discount) AS avg_disc, COUNT(*) AS count_order
FROM lineitem WHERE l_shipdate <= DATE '1998-12-01' - INTERVAL :1 DAY
GROUP BY l_returnflag, l_linestatus ORDER BY l_returnflag, l_linestatus",
    // Q2: minimum cost supplier
    "SELECT s_acctbal, s_name, n_name, p_partkey, p_mfgr, s_address, s_phone, s_comment
FROM part, supplier, partsupp, nation, region
WHERE p_partkey = ps_partkey AND s_suppkey = ps_suppkey AND p_size = :1 AND p_type LIKE '%:2'
 AND s_nationkey = n_nationkey AND n_regionkey = r_regionkey AND r_name = ':3'
 AND ps_supplycost = (SELECT MIN(ps_supplycost) FROM partsupp, supplier, nation, region
  WHERE p_partkey = ps_partkey AND s_suppkey = ps_suppkey AND s_nationkey = n_nationkey
  AND n_regionkey = r_regionkey AND r_name = ':3')
ORDER BY s_acctbal DESC, n_name, s_name, p_partkey LIMIT 100",
    // Q3: shipping priority
    "SELECT l_orderkey, SUM(l_extendedprice * (1 - l_discount)) AS revenue, o_orderdate, o_shippriority
FROM customer, orders, lineitem
WHERE c_mktsegment = ':1' AND c_custkey = o_custkey AND l_orderkey = o_orderkey
 AND o_orderdate < DATE ':2' AND l_shipdate > DATE ':2'
GROUP BY l_orderkey, o_orderdate, o_shippriority ORDER BY revenue DESC, o_orderdate LIMIT 10",
    // Q4: order priority checking
    "SELECT o_orderpriority, COUNT(*) AS order_count FROM orders
WHERE o_orderdate >= DATE ':1' AND o_orderdate < DATE ':1' + INTERVAL 3 MONTH
 AND EXISTS (SELECT * FROM lineitem WHERE l_orderkey = o_orderkey AND l_commitdate < l_receiptdate)
GROUP BY o_orderpriority ORDER BY o_orderpriority",
    // Q5: local supplier volume
    "SELECT n_name, SUM(l_extendedprice * (1 - l_discount)) AS revenue
FROM customer, orders, lineitem, supplier, nation, region
WHERE c_custkey = o_custkey AND l_orderkey = o_orderkey AND l_suppkey = s_suppkey
 AND c_nationkey = s_nationkey AND s_nationkey = n_nationkey AND n_regionkey = r_regionkey
 AND r_name = ':1' AND o_orderdate >= DATE ':2' AND o_orderdate < DATE ':2' + INTERVAL 1 YEAR
GROUP BY n_name ORDER BY revenue DESC",
    // Q6: forecasting revenue change
    "SELECT SUM(l_extendedprice * l_discount) AS revenue FROM lineitem
WHERE l_shipdate >= DATE ':1' AND l_shipdate < DATE ':1' + INTERVAL 1 YEAR
 AND l_discount BETWEEN :2 - 0.01 AND :2 + 0.01 AND l_quantity < :3",
    // Q7: volume shipping
    "SELECT supp_nation, cust_nation, l_year, SUM(volume) AS revenue FROM (
 SELECT n1.n_name AS supp_nation, n2.n_name AS cust_nation, EXTRACT(YEAR FROM l_shipdate) AS l_year,
  l_extendedprice * (1 - l_discount) AS volume
 FROM supplier, lineitem, orders, customer, nation n1, nation n2
 WHERE s_suppkey = l_suppkey AND o_orderkey = l_orderkey AND c_custkey = o_custkey
  AND s_nationkey = n1.n_nationkey AND c_nationkey = n2.n_nationkey
  AND ((n1.n_name = ':1' AND n2.n_name = ':2') OR (n1.n_name = ':2' AND n2.n_name = ':1'))
  AND l_shipdate BETWEEN DATE '1995-01-01' AND DATE '1996-12-31') AS shipping
GROUP BY supp_nation, cust_nation, l_year ORDER BY supp_nation, cust_nation, l_year",
    // Q8: national market share
    "SELECT o_year, SUM(CASE WHEN nation = ':1' THEN volume ELSE 0 END) / SUM(volume) AS mkt_share FROM (
 SELECT EXTRACT(YEAR FROM o_orderdate) AS o_year, l_extendedprice * (1 - l_discount) AS volume,
  n2.n_name AS nation
 FROM part, supplier, lineitem, orders, customer, nation n1, nation n2, region
 WHERE p_partkey = l_partkey AND s_suppkey = l_suppkey AND l_orderkey = o_orderkey
  AND o_custkey = c_custkey AND c_nationkey = n1.n_nationkey AND n1.n_regionkey = r_regionkey
  AND r_name = ':2' AND s_nationkey = n2.n_nationkey
  AND o_orderdate BETWEEN DATE '1995-01-01' AND DATE '1996-12-31' AND p_type = ':3') AS all_nations
GROUP BY o_year ORDER BY o_year",
    // Q9: product type profit measure
    "SELECT nation, o_year, SUM(amount) AS sum_profit FROM (
 SELECT n_name AS nation, EXTRACT(YEAR FROM o_orderdate) AS o_year,
  l_extendedprice * (1 - l_discount) - ps_supplycost * l_quantity AS amount
 FROM part, supplier, lineitem, partsupp, orders, nation
 WHERE s_suppkey = l_suppkey AND ps_suppkey = l_suppkey AND ps_partkey = l_partkey
  AND p_partkey = l_partkey AND o_orderkey = l_orderkey AND s_nationkey = n_nationkey
  AND p_name LIKE '%:1%') AS profit
GROUP BY nation, o_year ORDER BY nation, o_year DESC",
    // Q10: returned item reporting
    "SELECT c_custkey, c_name, SUM(l_extendedprice * (1 - l_discount)) AS revenue, c_acctbal, n_name,
 c_address, c_phone, c_comment
FROM customer, orders, lineitem, nation
WHERE c_custkey = o_custkey AND l_orderkey = o_orderkey AND o_orderdate >= DATE ':1'
 AND o_orderdate < DATE ':1' + INTERVAL 3 MONTH AND l_returnflag = 'R' AND c_nationkey = n_nationkey
GROUP BY c_custkey, c_name, c_acctbal, c_phone, n_name, c_address, c_comment
ORDER BY revenue DESC LIMIT 20",
    // Q11: important stock identification
    "SELECT ps_partkey, SUM(ps_supplycost * ps_availqty) AS value
FROM partsupp, supplier, nation
WHERE ps_suppkey = s_suppkey AND s_nationkey = n_nationkey AND n_name = ':1'
GROUP BY ps_partkey HAVING SUM(ps_supplycost * ps_availqty) > (
 SELECT SUM(ps_supplycost * ps_availqty) * :2 FROM partsupp, supplier, nation
 WHERE ps_suppkey = s_suppkey AND s_nationkey = n_nationkey AND n_name = ':1')
ORDER BY value DESC",
    // Q12: shipping modes and order priority
    "SELECT l_shipmode,
 SUM(CASE WHEN o_orderpriority = '1-URGENT' OR o_orderpriority = '2-HIGH' THEN 1 ELSE 0 END) AS high_line_count,
 SUM(CASE WHEN o_orderpriority <> '1-URGENT' AND o_orderpriority <> '2-HIGH' THEN 1 ELSE 0 END) AS low_line_count
FROM orders, lineitem
WHERE o_orderkey = l_orderkey AND l_shipmode IN (':1', ':2') AND l_commitdate < l_receiptdate
 AND l_shipdate < l_commitdate AND l_receiptdate >= DATE ':3'
 AND l_receiptdate < DATE ':3' + INTERVAL 1 YEAR
GROUP BY l_shipmode ORDER BY l_shipmode",
    // Q13: customer distribution
    "SELECT c_count, COUNT(*) AS custdist FROM (
 SELECT c_custkey, COUNT(o_orderkey) AS c_count
 FROM customer LEFT OUTER JOIN orders ON c_custkey = o_custkey AND o_comment NOT LIKE '%:1%:2%'
 GROUP BY c_custkey) AS c_orders
GROUP BY c_count ORDER BY custdist DESC, c_count DESC",
    // Q14: promotion effect
    "SELECT 100.00 * SUM(CASE WHEN p_type LIKE 'PROMO%' THEN l_extendedprice * (1 - l_discount) ELSE 0 END)
 / SUM(l_extendedprice * (1 - l_discount)) AS promo_revenue
FROM lineitem, part
WHERE l_partkey = p_partkey AND l_shipdate >= DATE ':1' AND l_shipdate < DATE ':1' + INTERVAL 1 MONTH",
    // Q15: top supplier (the view, the query, the view dropped)
    "CREATE OR REPLACE VIEW revenue:s (supplier_no, total_revenue) AS
 SELECT l_suppkey, SUM(l_extendedprice * (1 - l_discount)) FROM lineitem
 WHERE l_shipdate >= DATE ':1' AND l_shipdate < DATE ':1' + INTERVAL 3 MONTH GROUP BY l_suppkey;
SELECT s_suppkey, s_name, s_address, s_phone, total_revenue FROM supplier, revenue:s
WHERE s_suppkey = supplier_no AND total_revenue = (SELECT MAX(total_revenue) FROM revenue:s)
ORDER BY s_suppkey;
DROP VIEW revenue:s",
    // Q16: parts/supplier relationship
    "SELECT p_brand, p_type, p_size, COUNT(DISTINCT ps_suppkey) AS supplier_cnt
FROM partsupp, part
WHERE p_partkey = ps_partkey AND p_brand <> ':1' AND p_type NOT LIKE ':2%'
 AND p_size IN (:3, :4, :5, :6, :7, :8, :9, :10)
 AND ps_suppkey NOT IN (SELECT s_suppkey FROM supplier WHERE s_comment LIKE '%Customer%Complaints%')
GROUP BY p_brand, p_type, p_size ORDER BY supplier_cnt DESC, p_brand, p_type, p_size",
    // Q17: small-quantity-order revenue
    "SELECT SUM(l_extendedprice) / 7.0 AS avg_yearly FROM lineitem, part
WHERE p_partkey = l_partkey AND p_brand = ':1' AND p_container = ':2'
 AND l_quantity < (SELECT 0.2 * AVG(l_quantity) FROM lineitem WHERE l_partkey = p_partkey)",
    // Q18: large volume customer
    "SELECT c_name, c_custkey, o_orderkey, o_orderdate, o_totalprice, SUM(l_quantity)
FROM customer, orders, lineitem
WHERE o_orderkey IN (SELECT l_orderkey FROM lineitem GROUP BY l_orderkey HAVING SUM(l_quantity) > :1)
 AND c_custkey = o_custkey AND o_orderkey = l_orderkey
GROUP BY c_name, c_custkey, o_orderkey, o_orderdate, o_totalprice
ORDER BY o_totalprice DESC, o_orderdate LIMIT 100",
    // Q19: discounted revenue
    "SELECT SUM(l_extendedprice * (1 - l_discount)) AS revenue FROM lineitem, part
WHERE (p_partkey = l_partkey AND p_brand = ':1'
  AND p_container IN ('SM CASE', 'SM BOX', 'SM PACK', 'SM PKG') AND l_quantity >= :4
  AND l_quantity <= :4 + 10 AND p_size BETWEEN 1 AND 5 AND l_shipmode IN ('AIR', 'AIR REG')
  AND l_shipinstruct = 'DELIVER IN PERSON')
 OR (p_partkey = l_partkey AND p_brand = ':2'
  AND p_container IN ('MED BAG', 'MED BOX', 'MED PKG', 'MED PACK') AND l_quantity >= :5
  AND l_quantity <= :5 + 10 AND p_size BETWEEN 1 AND 10 AND l_shipmode IN ('AIR', 'AIR REG')
  AND l_shipinstruct = 'DELIVER IN PERSON')
 OR (p_partkey = l_partkey AND p_brand = ':3'
  AND p_container IN ('LG CASE', 'LG BOX', 'LG PACK', 'LG PKG') AND l_quantity >= :6
  AND l_quantity <= :6 + 10 AND p_size BETWEEN 1 AND 15 AND l_shipmode IN ('AIR', 'AIR REG')
  AND l_shipinstruct = 'DELIVER IN PERSON')",
    // Q20: potential part promotion
    "SELECT s_name, s_address FROM supplier, nation
WHERE s_suppkey IN (SELECT ps_suppkey FROM partsupp
  WHERE ps_partkey IN (SELECT p_partkey FROM part WHERE p_name LIKE ':1%')
  AND ps_availqty > (SELECT 0.5 * SUM(l_quantity) FROM lineitem
   WHERE l_partkey = ps_partkey AND l_suppkey = ps_suppkey AND l_shipdate >= DATE ':2'
   AND l_shipdate < DATE ':2' + INTERVAL 1 YEAR))
 AND s_nationkey = n_nationkey AND n_name = ':3'
ORDER BY s_name",
    // Q21: suppliers who kept orders waiting
    "SELECT s_name, COUNT(*) AS numwait FROM supplier, lineitem l1, orders, nation
WHERE s_suppkey = l1.l_suppkey AND o_orderkey = l1.l_orderkey AND o_orderstatus = 'F'
 AND l1.l_receiptdate > l1.l_commitdate
 AND EXISTS (SELECT * FROM lineitem l2 WHERE l2.l_orderkey = l1.l_orderkey AND l2.l_suppkey <> l1.l_suppkey)
 AND NOT EXISTS (SELECT * FROM lineitem l3 WHERE l3.l_orderkey = l1.l_orderkey
  AND l3.l_suppkey <> l1.l_suppkey AND l3.l_receiptdate > l3.l_commitdate)
 AND s_nationkey = n_nationkey AND n_name = ':1'
GROUP BY s_name ORDER BY numwait DESC, s_name LIMIT 100",
    // Q22: global sales opportunity
    "SELECT cntrycode, COUNT(*) AS numcust, SUM(c_acctbal) AS totacctbal FROM (
 SELECT SUBSTRING(c_phone FROM 1 FOR 2) AS cntrycode, c_acctbal FROM customer
 WHERE SUBSTRING(c_phone FROM 1 FOR 2) IN (':1', ':2', ':3', ':4', ':5', ':6', ':7')
  AND c_acctbal > (SELECT AVG(c_acctbal) FROM customer WHERE c_acctbal > 0.00
   AND SUBSTRING(c_phone FROM 1 FOR 2) IN (':1', ':2', ':3', ':4', ':5', ':6', ':7'))
  AND NOT EXISTS (SELECT * FROM orders WHERE o_custkey = c_custkey)) AS custsale
GROUP BY cntrycode ORDER BY cntrycode",
];

/// Query `q`'s statements with `params` substituted (`:1` is
/// `params[0]`; `:s` the stream's number, for Q15's view); the last
/// statement is the one timed as the query's answer, except Q15's, whose
/// answer is its middle one.
pub fn statements(q: u32, params: &[String], stream: u32) -> Vec<String> {
    let mut text = template(q).replace(":s", &stream.to_string());
    // the highest placeholder first, so that :1 does not eat :10's 1
    for (i, p) in params.iter().enumerate().rev() {
        text = text.replace(&format!(":{}", i + 1), p);
    }
    text.split(";\n").map(str::to_string).collect()
}

/// Which of query `q`'s statements returns its answer.
pub fn answer_statement(q: u32) -> usize {
    usize::from(q == 15)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn substitution_leaves_no_placeholder() {
        let ten: Vec<String> = (1..=10).map(|i| format!("{}", 100 + i)).collect();
        for q in 1..=22 {
            for s in statements(q, &ten, 3) {
                assert!(!s.contains(':'), "Q{q}: {s}");
            }
        }
        let q16 = statements(16, &ten, 0).join("");
        assert!(
            q16.contains("IN (103, 104, 105, 106, 107, 108, 109, 110)"),
            "{q16}"
        );
        assert_eq!(statements(15, &ten, 2).len(), 3);
        assert!(statements(15, &ten, 2)[1].contains("revenue2"));
    }
}
