//! What a load connection costs in memory, bounded (issue 37 item 3): a
//! run holds one of each of these per connection, a thousand at 1,024
//! connections, so a field or buffer added here shows a thousand times
//! over in the process's RSS. Sizes and capacities, never timings or RSS:
//! these fail on a gross regression on any host.

use super::io::{PacketIo, Stream};
use super::stmt::{Param, Stmt};
use std::sync::Arc;

/// sysbench's INSERT of oltp_read_write: the largest of its templates.
const INSERT: &str = "INSERT INTO sbtest1 (id, k, c, pad) VALUES (?, ?, ?, ?)";
const INSERT_PARAMS: [Param; 4] = [Param::Int, Param::Int, Param::Char(120), Param::Char(60)];

#[test]
fn a_fresh_connection_holds_its_read_buffer_and_no_more() {
    // 16 KiB: a range select's 100 rows (~13 KB) in one receive. The
    // write buffer grows on demand (a prepared workload writes its
    // handshake and prepares there, nothing else).
    let io = PacketIo::new(Stream::Detached);
    assert_eq!(io.buffer_capacity(), 16 * 1024);
}

#[test]
fn closes_held_back_cost_their_bytes() {
    // COM_STMT_CLOSE: command byte and statement id, 9 bytes framed
    let mut io = PacketIo::new(Stream::Detached);
    for id in 1..=10u32 {
        let mut close = vec![0x19];
        close.extend_from_slice(&id.to_le_bytes());
        assert_eq!(io.hold_command(&close), 9 * id as usize);
    }
    // (Vec's doubling: at most twice the 90 bytes held)
    let extra = io.buffer_capacity() - 16 * 1024;
    assert!((90..=180).contains(&extra), "{extra} bytes for 10 closes");
}

#[test]
fn a_statement_stays_small() {
    // 38 a connection under sysbench's read_write with 4 tables.
    let size = std::mem::size_of::<Stmt>();
    assert!(
        size <= 120,
        "a Stmt is {size} bytes (104 when written, 184 before)"
    );
    let s = Stmt::new(7, INSERT, &INSERT_PARAMS);
    // header(4) cmd(1) id(4) flags(1) iter(4) bitmap(1) bound(1) types(8)
    // values 4 + 4 + 1+120 + 1+60: built at its length, never grown
    assert_eq!(s.framed().len(), 214);
    assert_eq!(s.packet.capacity(), 214);
    assert_eq!(s.params.len(), 4);
    assert_eq!(s.offsets.len(), 4);
}

#[test]
fn statements_prepared_like_a_template_share_its_text() {
    let template = Stmt::new_text(INSERT, &INSERT_PARAMS);
    let a = Stmt::new(1, INSERT, &INSERT_PARAMS).with_sql(&template.sql);
    let b = Stmt::new(2, INSERT, &INSERT_PARAMS).with_sql(&template.sql);
    assert!(Arc::ptr_eq(&a.sql, &b.sql));
    assert!(Arc::ptr_eq(&a.sql, &template.sql));
    // and so does its text-protocol twin
    assert!(Arc::ptr_eq(&a.as_text().sql, &a.sql));
}
