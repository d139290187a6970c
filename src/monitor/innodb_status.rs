//! SHOW ENGINE INNODB STATUS text into numbers: history list length, LSNs
//! and checkpoint age, pending IO, semaphore waits, row operations. Lines a
//! version does not print are simply absent from the result. MySQL and
//! MariaDB 5.5 print transaction ids in hexadecimal and say "pending log
//! writes" where later versions say "pending log flushes": the layout is
//! told by that line.

/// Line prefixes and the names of the integers that follow, in order.
const RULES: &[(&str, &[&str])] = &[
    ("History list length", &["history_list_length"]),
    ("Log sequence number", &["lsn"]),
    ("Log flushed up to", &["lsn_flushed"]),
    ("Pages flushed up to", &["lsn_pages_flushed"]),
    ("Last checkpoint at", &["lsn_checkpoint"]),
    (
        "Pending flushes (fsync) log:",
        &["pending_fsync_log", "pending_fsync_buffer_pool"],
    ),
    ("Pending flushes (fsync):", &["pending_fsyncs"]),
    ("Pending reads", &["pending_reads"]),
    (
        "Pending writes: LRU",
        &[
            "pending_writes_lru",
            "pending_writes_flush_list",
            "pending_writes_single_page",
        ],
    ),
    ("Modified db pages", &["modified_db_pages"]),
    ("Database pages", &["database_pages"]),
    ("Free buffers", &["free_buffers"]),
    ("Buffer pool size", &["buffer_pool_pages"]),
    ("Pages read ahead", &[]),
    (
        "Pages read",
        &["pages_read", "pages_created", "pages_written"],
    ),
    (
        "OS WAIT ARRAY INFO: reservation count",
        &["os_wait_reservations", "os_wait_signals"],
    ),
    ("OS WAIT ARRAY INFO: signal count", &["os_wait_signals"]),
    (
        "Mutex spin waits",
        &["mutex_spin_waits", "mutex_spin_rounds", "mutex_os_waits"],
    ),
    (
        "RW-shared spins",
        &["rw_shared_spins", "rw_shared_rounds", "rw_shared_os_waits"],
    ),
    (
        "RW-excl spins",
        &["rw_excl_spins", "rw_excl_rounds", "rw_excl_os_waits"],
    ),
    (
        "RW-sx spins",
        &["rw_sx_spins", "rw_sx_rounds", "rw_sx_os_waits"],
    ),
    (
        "Number of rows inserted",
        &["rows_inserted", "rows_updated", "rows_deleted", "rows_read"],
    ),
];

/// Lines where the numbers come first.
const SUFFIX_RULES: &[(&str, &[&str])] = &[
    (
        "OS file reads",
        &["os_file_reads", "os_file_writes", "os_fsyncs"],
    ),
    ("read views open inside InnoDB", &["read_views"]),
    (
        "queries inside InnoDB",
        &["queries_inside", "queries_in_queue"],
    ),
    (
        "pending log flushes",
        &["pending_log_flushes", "pending_chkp_writes"],
    ),
    (
        "pending log writes",
        &["pending_log_flushes", "pending_chkp_writes"],
    ),
];

fn numbers(s: &str) -> impl Iterator<Item = f64> + '_ {
    s.split(|c: char| c.is_whitespace() || matches!(c, ',' | ';' | ':' | '[' | ']'))
        .filter_map(|t| t.parse::<f64>().ok())
}

/// Parses the status text; see the module doc.
pub fn parse(text: &str) -> Vec<(String, f64)> {
    let mut out: Vec<(String, f64)> = Vec::new();
    let mut semaphore_waits = 0.0;
    let mut pending_aio = (0.0, 0.0, false);
    let mut trx_id = None;
    for line in text.lines().map(str::trim) {
        if let Some(rest) = line.strip_prefix("Trx id counter") {
            trx_id = rest.split_whitespace().next();
            continue;
        }
        if line.starts_with("--Thread") && line.contains("has waited") {
            semaphore_waits += 1.0;
            continue;
        }
        if let Some(rest) = line.strip_prefix("Pending normal aio reads:") {
            let (r, w) = rest.split_once("aio writes:").unwrap_or((rest, ""));
            pending_aio = (numbers(r).sum(), numbers(w).sum(), true);
            continue;
        }
        if let Some((prefix, names)) = RULES.iter().find(|(p, _)| line.starts_with(p)) {
            let rest = &line[prefix.len()..];
            for (name, v) in names.iter().zip(numbers(rest)) {
                out.push((name.to_string(), v));
            }
            continue;
        }
        if let Some((_, names)) = SUFFIX_RULES.iter().find(|(p, _)| line.contains(p)) {
            for (name, v) in names.iter().zip(numbers(line)) {
                out.push((name.to_string(), v));
            }
        }
    }
    let get = |out: &[(String, f64)], n: &str| out.iter().find(|(k, _)| k == n).map(|(_, v)| *v);
    if let (Some(lsn), Some(cp)) = (get(&out, "lsn"), get(&out, "lsn_checkpoint")) {
        out.push(("checkpoint_age".into(), lsn - cp));
    }
    let hex = text.contains("pending log writes");
    if let Some(v) = trx_id.and_then(|t| {
        if hex {
            u64::from_str_radix(t, 16).ok()
        } else {
            t.parse().ok()
        }
    }) {
        out.push(("trx_id_counter".into(), v as f64));
    }
    out.push(("semaphore_waits".into(), semaphore_waits));
    if pending_aio.2 {
        out.push(("pending_aio_reads".into(), pending_aio.0));
        out.push(("pending_aio_writes".into(), pending_aio.1));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::parse;

    const MARIADB_10_11: &str = "
Trx id counter 186953
History list length 12
FILE I/O
Pending flushes (fsync): 2
179 OS file reads, 8942 OS file writes, 40282 OS fsyncs
Log sequence number 191784157
Log flushed up to   191784150
Pages flushed up to 187953824
Last checkpoint at  187953824
Buffer pool size   259584
Modified db pages  351
Pending reads 0
Pending writes: LRU 0, flush list 3
Pages read ahead 0.00/s, evicted without access 0.00/s
Pages read 170, created 4267, written 8879
0 read views open inside InnoDB
";

    const MYSQL_8: &str = "
OS WAIT ARRAY INFO: reservation count 57
OS WAIT ARRAY INFO: signal count 55
--Thread 140 has waited at buf0buf.cc line 100 for 0 seconds the semaphore:
RW-shared spins 10, rounds 20, OS waits 5
Pending normal aio reads: [0, 1, 0, 0] , aio writes: [2, 0, 0, 0] ,
Pending flushes (fsync) log: 1; buffer pool: 4
Number of rows inserted 5, updated 6, deleted 7, read 8
3 queries inside InnoDB, 2 queries in queue
";

    const MYSQL_5_5: &str = "
Mutex spin waits 2, rounds 28, OS waits 0
Trx id counter 41A00
History list length 121
465 OS file reads, 3 OS file writes, 3 OS fsyncs
Log sequence number 156228793
Last checkpoint at  156228000
1 pending log writes, 0 pending chkp writes
Number of rows inserted 0, updated 0, deleted 0, read 0
";

    #[test]
    fn mysql_5_5_layout() {
        let v = parse(MYSQL_5_5);
        assert_eq!(get(&v, "trx_id_counter"), Some(0x41A00 as f64));
        assert_eq!(get(&v, "history_list_length"), Some(121.0));
        assert_eq!(get(&v, "pending_log_flushes"), Some(1.0));
        assert_eq!(get(&v, "checkpoint_age"), Some(793.0));
        assert_eq!(get(&v, "mutex_spin_rounds"), Some(28.0));
        // Decimal elsewhere.
        assert_eq!(get(&parse(MARIADB_10_11), "trx_id_counter"), Some(186953.0));
    }

    fn get(v: &[(String, f64)], k: &str) -> Option<f64> {
        v.iter().find(|(n, _)| n == k).map(|(_, x)| *x)
    }

    #[test]
    fn mariadb_numbers() {
        let v = parse(MARIADB_10_11);
        assert_eq!(get(&v, "history_list_length"), Some(12.0));
        assert_eq!(get(&v, "checkpoint_age"), Some(191784157.0 - 187953824.0));
        assert_eq!(get(&v, "pending_fsyncs"), Some(2.0));
        assert_eq!(get(&v, "os_fsyncs"), Some(40282.0));
        assert_eq!(get(&v, "pending_writes_flush_list"), Some(3.0));
        assert_eq!(get(&v, "pages_written"), Some(8879.0));
        assert_eq!(get(&v, "read_views"), Some(0.0));
        assert_eq!(get(&v, "modified_db_pages"), Some(351.0));
    }

    #[test]
    fn mysql_numbers() {
        let v = parse(MYSQL_8);
        assert_eq!(get(&v, "os_wait_reservations"), Some(57.0));
        assert_eq!(get(&v, "os_wait_signals"), Some(55.0));
        assert_eq!(get(&v, "semaphore_waits"), Some(1.0));
        assert_eq!(get(&v, "rw_shared_os_waits"), Some(5.0));
        assert_eq!(get(&v, "pending_aio_reads"), Some(1.0));
        assert_eq!(get(&v, "pending_aio_writes"), Some(2.0));
        assert_eq!(get(&v, "pending_fsync_buffer_pool"), Some(4.0));
        assert_eq!(get(&v, "rows_read"), Some(8.0));
        assert_eq!(get(&v, "queries_in_queue"), Some(2.0));
    }
}
