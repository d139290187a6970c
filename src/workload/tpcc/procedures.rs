//! `--procedures`: the five transactions as stored procedures, so that
//! figures compare with tools that run TPC-C that way (HammerDB). Each
//! transaction is then one `CALL` with the terminal's draws as arguments
//! (a New-Order's lines as comma lists); the procedure runs the same
//! profile as the client-side SQL, inside its own START TRANSACTION …
//! COMMIT, and returns no result set. The unused item of a rolled-back
//! New-Order is met inside and rolled back there.
//!
//! Installed (DROP PROCEDURE IF EXISTS, then CREATE PROCEDURE: MySQL has
//! no CREATE PROCEDURE) before a run that asks for them, on the
//! run's checking connection (not by every terminal).

/// The statements installing the five procedures of set `n`: for each, a
/// DROP PROCEDURE IF EXISTS and its CREATE PROCEDURE.
pub(crate) fn create_sql(n: u32) -> Vec<String> {
    [NEW_ORDER, PAYMENT, ORDER_STATUS, DELIVERY, STOCK_LEVEL]
        .iter()
        .flat_map(|body| {
            let create = body
                .replace("{by_name(p_cw, p_cd)}", &by_name("p_cw", "p_cd"))
                .replace("{by_name(p_w, p_d)}", &by_name("p_w", "p_d"))
                .replace("{n}", &n.to_string());
            let name = create["CREATE PROCEDURE ".len()..]
                .split('(')
                .next()
                .unwrap_or_default()
                .to_string();
            [format!("DROP PROCEDURE IF EXISTS {name}"), create]
        })
        .collect()
}

/// The customer chosen by last name (when `p_by_name`): the middle one of
/// those with the name in warehouse `w`, district `d`, by first name.
fn by_name(w: &str, d: &str) -> String {
    format!(
        "  IF p_by_name = 1 THEN
    SELECT COUNT(*) INTO v_n FROM customer{{n}} WHERE c_w_id = {w} AND c_d_id = {d} AND c_last = p_last;
    SET v_n = (v_n - 1) DIV 2;
    SELECT c_id INTO v_c FROM customer{{n}} WHERE c_w_id = {w} AND c_d_id = {d} AND c_last = p_last
      ORDER BY c_first LIMIT v_n, 1;
  END IF;
"
    )
}

/// The CALL statements of set `n`, in `txn::Tx` order.
pub(crate) fn call_sql(n: u32) -> [String; 5] {
    [
        format!("CALL tpcc_new_order{n}(?, ?, ?, ?, ?, ?, ?, ?)"),
        format!("CALL tpcc_payment{n}(?, ?, ?, ?, ?, ?, ?, ?)"),
        format!("CALL tpcc_order_status{n}(?, ?, ?, ?, ?)"),
        format!("CALL tpcc_delivery{n}(?, ?)"),
        format!("CALL tpcc_stock_level{n}(?, ?, ?)"),
    ]
}

const NEW_ORDER: &str = "CREATE PROCEDURE tpcc_new_order{n}(IN p_w INT, IN p_d INT, IN p_c INT, IN p_cnt INT,
  IN p_all_local INT, IN p_items VARCHAR(255), IN p_supply VARCHAR(255), IN p_qty VARCHAR(255))
BEGIN
  DECLARE v_w_tax, v_d_tax, v_disc DECIMAL(4,4);
  DECLARE v_last VARCHAR(16);
  DECLARE v_credit CHAR(2);
  DECLARE v_o, v_item, v_sw, v_q, v_sq INT;
  DECLARE v_i INT DEFAULT 1;
  DECLARE v_price DECIMAL(5,2);
  DECLARE v_dist CHAR(24);
  DECLARE v_data VARCHAR(50);
  DECLARE v_missing INT DEFAULT 0;
  DECLARE CONTINUE HANDLER FOR NOT FOUND SET v_missing = 1;
  START TRANSACTION;
  SELECT w_tax INTO v_w_tax FROM warehouse{n} WHERE w_id = p_w;
  SELECT d_next_o_id, d_tax INTO v_o, v_d_tax FROM district{n} WHERE d_w_id = p_w AND d_id = p_d FOR UPDATE;
  UPDATE district{n} SET d_next_o_id = v_o + 1 WHERE d_w_id = p_w AND d_id = p_d;
  SELECT c_discount, c_last, c_credit INTO v_disc, v_last, v_credit FROM customer{n}
    WHERE c_w_id = p_w AND c_d_id = p_d AND c_id = p_c;
  INSERT INTO orders{n} (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local)
    VALUES (v_o, p_d, p_w, p_c, NOW(), NULL, p_cnt, p_all_local);
  INSERT INTO new_orders{n} (no_o_id, no_d_id, no_w_id) VALUES (v_o, p_d, p_w);
  each_line: WHILE v_i <= p_cnt DO
    SET v_item = SUBSTRING_INDEX(SUBSTRING_INDEX(p_items, ',', v_i), ',', -1);
    SET v_sw = SUBSTRING_INDEX(SUBSTRING_INDEX(p_supply, ',', v_i), ',', -1);
    SET v_q = SUBSTRING_INDEX(SUBSTRING_INDEX(p_qty, ',', v_i), ',', -1);
    SET v_missing = 0;
    SELECT i_price INTO v_price FROM item{n} WHERE i_id = v_item;
    IF v_missing = 1 THEN
      ROLLBACK;
      LEAVE each_line;
    END IF;
    SELECT s_quantity, s_data, CASE p_d WHEN 1 THEN s_dist_01 WHEN 2 THEN s_dist_02 WHEN 3 THEN s_dist_03
        WHEN 4 THEN s_dist_04 WHEN 5 THEN s_dist_05 WHEN 6 THEN s_dist_06 WHEN 7 THEN s_dist_07
        WHEN 8 THEN s_dist_08 WHEN 9 THEN s_dist_09 ELSE s_dist_10 END
      INTO v_sq, v_data, v_dist FROM stock{n} WHERE s_i_id = v_item AND s_w_id = v_sw FOR UPDATE;
    UPDATE stock{n} SET s_quantity = IF(v_sq - v_q >= 10, v_sq - v_q, v_sq - v_q + 91),
      s_ytd = s_ytd + v_q, s_order_cnt = s_order_cnt + 1, s_remote_cnt = s_remote_cnt + (v_sw <> p_w)
      WHERE s_i_id = v_item AND s_w_id = v_sw;
    INSERT INTO order_line{n} (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id,
        ol_delivery_d, ol_quantity, ol_amount, ol_dist_info)
      VALUES (v_o, p_d, p_w, v_i, v_item, v_sw, NULL, v_q, v_q * v_price, v_dist);
    SET v_i = v_i + 1;
  END WHILE each_line;
  IF v_missing = 0 THEN
    COMMIT;
  END IF;
END";

const PAYMENT: &str = "CREATE PROCEDURE tpcc_payment{n}(IN p_w INT, IN p_d INT, IN p_cw INT, IN p_cd INT,
  IN p_c INT, IN p_by_name INT, IN p_last VARCHAR(16), IN p_amount DECIMAL(6,2))
BEGIN
  DECLARE v_wname, v_dname VARCHAR(10);
  DECLARE v_c, v_n INT;
  DECLARE v_credit CHAR(2);
  DECLARE v_first VARCHAR(16);
  DECLARE v_balance DECIMAL(12,2);
  DECLARE v_data VARCHAR(500);
  START TRANSACTION;
  UPDATE warehouse{n} SET w_ytd = w_ytd + p_amount WHERE w_id = p_w;
  SELECT w_name INTO v_wname FROM warehouse{n} WHERE w_id = p_w;
  UPDATE district{n} SET d_ytd = d_ytd + p_amount WHERE d_w_id = p_w AND d_id = p_d;
  SELECT d_name INTO v_dname FROM district{n} WHERE d_w_id = p_w AND d_id = p_d;
  SET v_c = p_c;
{by_name(p_cw, p_cd)}  SELECT c_first, c_credit, c_balance INTO v_first, v_credit, v_balance FROM customer{n}
    WHERE c_w_id = p_cw AND c_d_id = p_cd AND c_id = v_c FOR UPDATE;
  IF v_credit = 'BC' THEN
    SELECT c_data INTO v_data FROM customer{n} WHERE c_w_id = p_cw AND c_d_id = p_cd AND c_id = v_c;
    UPDATE customer{n} SET c_balance = c_balance - p_amount, c_ytd_payment = c_ytd_payment + p_amount,
      c_payment_cnt = c_payment_cnt + 1,
      c_data = LEFT(CONCAT_WS(' ', v_c, p_cd, p_cw, p_d, p_w, p_amount, v_data), 500)
      WHERE c_w_id = p_cw AND c_d_id = p_cd AND c_id = v_c;
  ELSE
    UPDATE customer{n} SET c_balance = c_balance - p_amount, c_ytd_payment = c_ytd_payment + p_amount,
      c_payment_cnt = c_payment_cnt + 1 WHERE c_w_id = p_cw AND c_d_id = p_cd AND c_id = v_c;
  END IF;
  INSERT INTO history{n} (h_c_d_id, h_c_w_id, h_c_id, h_d_id, h_w_id, h_date, h_amount, h_data)
    VALUES (p_cd, p_cw, v_c, p_d, p_w, NOW(), p_amount, CONCAT(v_wname, '    ', v_dname));
  COMMIT;
END";

const ORDER_STATUS: &str =
    "CREATE PROCEDURE tpcc_order_status{n}(IN p_w INT, IN p_d INT, IN p_c INT,
  IN p_by_name INT, IN p_last VARCHAR(16))
BEGIN
  DECLARE v_c, v_n, v_o, v_item, v_sw, v_q INT;
  DECLARE v_balance DECIMAL(12,2);
  DECLARE v_first VARCHAR(16);
  DECLARE v_amount DECIMAL(6,2);
  DECLARE v_delivered DATETIME;
  DECLARE v_done INT DEFAULT 0;
  DECLARE c_lines CURSOR FOR SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d
    FROM order_line{n} WHERE ol_w_id = p_w AND ol_d_id = p_d AND ol_o_id = v_o;
  DECLARE CONTINUE HANDLER FOR NOT FOUND SET v_done = 1;
  START TRANSACTION;
  SET v_c = p_c;
{by_name(p_w, p_d)}  SELECT c_balance, c_first INTO v_balance, v_first FROM customer{n}
    WHERE c_w_id = p_w AND c_d_id = p_d AND c_id = v_c;
  SELECT o_id INTO v_o FROM orders{n} WHERE o_w_id = p_w AND o_d_id = p_d AND o_c_id = v_c
    ORDER BY o_id DESC LIMIT 1;
  OPEN c_lines;
  fetching: LOOP
    FETCH c_lines INTO v_item, v_sw, v_q, v_amount, v_delivered;
    IF v_done = 1 THEN
      LEAVE fetching;
    END IF;
  END LOOP fetching;
  CLOSE c_lines;
  COMMIT;
END";

const DELIVERY: &str = "CREATE PROCEDURE tpcc_delivery{n}(IN p_w INT, IN p_carrier INT)
BEGIN
  DECLARE v_d INT DEFAULT 1;
  DECLARE v_o, v_c INT;
  DECLARE v_sum DECIMAL(12,2);
  DECLARE v_missing INT DEFAULT 0;
  DECLARE CONTINUE HANDLER FOR NOT FOUND SET v_missing = 1;
  START TRANSACTION;
  WHILE v_d <= 10 DO
    SET v_missing = 0;
    SELECT no_o_id INTO v_o FROM new_orders{n} WHERE no_w_id = p_w AND no_d_id = v_d
      ORDER BY no_o_id LIMIT 1 FOR UPDATE;
    IF v_missing = 0 THEN
      DELETE FROM new_orders{n} WHERE no_w_id = p_w AND no_d_id = v_d AND no_o_id = v_o;
      SELECT o_c_id INTO v_c FROM orders{n} WHERE o_w_id = p_w AND o_d_id = v_d AND o_id = v_o;
      UPDATE orders{n} SET o_carrier_id = p_carrier WHERE o_w_id = p_w AND o_d_id = v_d AND o_id = v_o;
      UPDATE order_line{n} SET ol_delivery_d = NOW() WHERE ol_w_id = p_w AND ol_d_id = v_d AND ol_o_id = v_o;
      SELECT SUM(ol_amount) INTO v_sum FROM order_line{n} WHERE ol_w_id = p_w AND ol_d_id = v_d AND ol_o_id = v_o;
      UPDATE customer{n} SET c_balance = c_balance + v_sum, c_delivery_cnt = c_delivery_cnt + 1
        WHERE c_w_id = p_w AND c_d_id = v_d AND c_id = v_c;
    END IF;
    SET v_d = v_d + 1;
  END WHILE;
  COMMIT;
END";

const STOCK_LEVEL: &str = "CREATE PROCEDURE tpcc_stock_level{n}(IN p_w INT, IN p_d INT, IN p_threshold INT)
BEGIN
  DECLARE v_o, v_count INT;
  START TRANSACTION;
  SELECT d_next_o_id INTO v_o FROM district{n} WHERE d_w_id = p_w AND d_id = p_d;
  SELECT COUNT(DISTINCT s_i_id) INTO v_count FROM order_line{n} JOIN stock{n}
    ON s_w_id = ol_w_id AND s_i_id = ol_i_id
    WHERE ol_w_id = p_w AND ol_d_id = p_d AND ol_o_id < v_o AND ol_o_id >= v_o - 20 AND s_quantity < p_threshold;
  COMMIT;
END";
