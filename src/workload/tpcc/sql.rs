//! The statements of the five transactions (clause 2), prepared once per
//! connection and table set. `{n}` is the set's number; `S` names each
//! statement's position in a set's block of statements, which is also the
//! latency class it is reported under.

/// Positions of the statements in a set's block.
pub mod s {
    pub(crate) const NO_CUST: usize = 0;
    pub(crate) const NO_WH: usize = 1;
    pub(crate) const NO_DIST: usize = 2;
    pub(crate) const NO_DIST_UPD: usize = 3;
    pub(crate) const NO_ORDER_INS: usize = 4;
    pub(crate) const NO_NEWORD_INS: usize = 5;
    pub(crate) const NO_ITEM: usize = 6;
    pub(crate) const NO_STOCK_UPD: usize = 7;
    pub(crate) const NO_OL_INS: usize = 8;
    pub(crate) const P_WH_UPD: usize = 9;
    pub(crate) const P_WH: usize = 10;
    pub(crate) const P_DIST_UPD: usize = 11;
    pub(crate) const P_DIST: usize = 12;
    pub(crate) const CUST_BY_NAME: usize = 13;
    pub(crate) const P_CUST: usize = 14;
    pub(crate) const P_CUST_DATA: usize = 15;
    pub(crate) const P_CUST_UPD_BC: usize = 16;
    pub(crate) const P_CUST_UPD: usize = 17;
    pub(crate) const P_HIST_INS: usize = 18;
    pub(crate) const OS_CUST: usize = 19;
    pub(crate) const OS_ORDER: usize = 20;
    pub(crate) const OS_LINES: usize = 21;
    pub(crate) const D_NEWORD: usize = 22;
    pub(crate) const D_NEWORD_DEL: usize = 23;
    pub(crate) const D_ORDER: usize = 24;
    pub(crate) const D_ORDER_UPD: usize = 25;
    pub(crate) const D_OL_UPD: usize = 26;
    pub(crate) const D_OL_SUM: usize = 27;
    pub(crate) const D_CUST_UPD: usize = 28;
    pub(crate) const SL_DIST: usize = 29;
    pub(crate) const SL_COUNT: usize = 30;
    /// The stock row of an item for district d (1..=10): NO_STOCK + d - 1.
    pub(crate) const NO_STOCK: usize = 31;
    /// Statements per set.
    pub const COUNT: usize = 41;
}

/// (latency class name, SQL) of the statements before the per-district
/// stock selects, in `s` order.
const FIXED: [(&str, &str); 31] = [
    ("no_customer", "SELECT c_discount, c_last, c_credit FROM customer{n} WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?"),
    ("no_warehouse", "SELECT w_tax FROM warehouse{n} WHERE w_id = ?"),
    ("no_district", "SELECT d_next_o_id, d_tax FROM district{n} WHERE d_w_id = ? AND d_id = ? FOR UPDATE"),
    ("no_district_upd", "UPDATE district{n} SET d_next_o_id = ? WHERE d_w_id = ? AND d_id = ?"),
    ("no_order_ins", "INSERT INTO orders{n} (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local) VALUES (?, ?, ?, ?, NOW(), NULL, ?, ?)"),
    ("no_new_order_ins", "INSERT INTO new_orders{n} (no_o_id, no_d_id, no_w_id) VALUES (?, ?, ?)"),
    ("no_item", "SELECT i_price, i_name, i_data FROM item{n} WHERE i_id = ?"),
    ("no_stock_upd", "UPDATE stock{n} SET s_quantity = ?, s_ytd = s_ytd + ?, s_order_cnt = s_order_cnt + 1, s_remote_cnt = s_remote_cnt + ? WHERE s_i_id = ? AND s_w_id = ?"),
    ("no_order_line_ins", "INSERT INTO order_line{n} (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_delivery_d, ol_quantity, ol_amount, ol_dist_info) VALUES (?, ?, ?, ?, ?, ?, NULL, ?, ?, ?)"),
    ("p_warehouse_upd", "UPDATE warehouse{n} SET w_ytd = w_ytd + ? WHERE w_id = ?"),
    ("p_warehouse", "SELECT w_street_1, w_street_2, w_city, w_state, w_zip, w_name FROM warehouse{n} WHERE w_id = ?"),
    ("p_district_upd", "UPDATE district{n} SET d_ytd = d_ytd + ? WHERE d_w_id = ? AND d_id = ?"),
    ("p_district", "SELECT d_street_1, d_street_2, d_city, d_state, d_zip, d_name FROM district{n} WHERE d_w_id = ? AND d_id = ?"),
    ("customer_by_name", "SELECT c_id FROM customer{n} WHERE c_w_id = ? AND c_d_id = ? AND c_last = ? ORDER BY c_first"),
    ("p_customer", "SELECT c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, c_credit, c_credit_lim, c_discount, c_balance, c_since FROM customer{n} WHERE c_w_id = ? AND c_d_id = ? AND c_id = ? FOR UPDATE"),
    ("p_customer_data", "SELECT c_data FROM customer{n} WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?"),
    ("p_customer_upd_bc", "UPDATE customer{n} SET c_balance = c_balance - ?, c_ytd_payment = c_ytd_payment + ?, c_payment_cnt = c_payment_cnt + 1, c_data = ? WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?"),
    ("p_customer_upd", "UPDATE customer{n} SET c_balance = c_balance - ?, c_ytd_payment = c_ytd_payment + ?, c_payment_cnt = c_payment_cnt + 1 WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?"),
    ("p_history_ins", "INSERT INTO history{n} (h_c_d_id, h_c_w_id, h_c_id, h_d_id, h_w_id, h_date, h_amount, h_data) VALUES (?, ?, ?, ?, ?, NOW(), ?, ?)"),
    ("os_customer", "SELECT c_balance, c_first, c_middle, c_last FROM customer{n} WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?"),
    ("os_order", "SELECT o_id, o_carrier_id, o_entry_d FROM orders{n} WHERE o_w_id = ? AND o_d_id = ? AND o_c_id = ? ORDER BY o_id DESC LIMIT 1"),
    ("os_order_lines", "SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM order_line{n} WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?"),
    ("d_new_order", "SELECT no_o_id FROM new_orders{n} WHERE no_w_id = ? AND no_d_id = ? ORDER BY no_o_id LIMIT 1 FOR UPDATE"),
    ("d_new_order_del", "DELETE FROM new_orders{n} WHERE no_w_id = ? AND no_d_id = ? AND no_o_id = ?"),
    ("d_order", "SELECT o_c_id FROM orders{n} WHERE o_w_id = ? AND o_d_id = ? AND o_id = ?"),
    ("d_order_upd", "UPDATE orders{n} SET o_carrier_id = ? WHERE o_w_id = ? AND o_d_id = ? AND o_id = ?"),
    ("d_order_line_upd", "UPDATE order_line{n} SET ol_delivery_d = NOW() WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?"),
    ("d_order_line_sum", "SELECT SUM(ol_amount) FROM order_line{n} WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?"),
    ("d_customer_upd", "UPDATE customer{n} SET c_balance = c_balance + ?, c_delivery_cnt = c_delivery_cnt + 1 WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?"),
    ("sl_district", "SELECT d_next_o_id FROM district{n} WHERE d_w_id = ? AND d_id = ?"),
    ("sl_stock_count", "SELECT COUNT(DISTINCT s_i_id) FROM order_line{n} JOIN stock{n} ON s_w_id = ol_w_id AND s_i_id = ol_i_id WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id < ? AND ol_o_id >= ? AND s_quantity < ?"),
];

/// The latency class names, in `s` order (the ten stock selects share one).
pub fn stat_names() -> Vec<String> {
    let mut v: Vec<String> = FIXED.iter().map(|(n, _)| n.to_string()).collect();
    v.push("no_stock".into());
    v
}

/// The latency class of statement `i` of a set.
pub(crate) fn stat_of(i: usize) -> usize {
    i.min(s::NO_STOCK)
}

/// The SQL of every statement of set `n`, in `s` order.
pub(crate) fn set_sql(n: u32) -> Vec<String> {
    let set = n.to_string();
    let mut v: Vec<String> = FIXED.iter().map(|(_, q)| q.replace("{n}", &set)).collect();
    for d in 1..=10 {
        v.push(format!(
            "SELECT s_quantity, s_data, s_dist_{d:02} FROM stock{n} WHERE s_i_id = ? AND s_w_id = ? FOR UPDATE"
        ));
    }
    debug_assert_eq!(v.len(), s::COUNT);
    v
}
