//! Lock families: which lock a stack is about, from its frames' names.
//! The names are those of MariaDB's and MySQL's functions (exported
//! symbols of Debian's mariadbd), matched by substring (or, after `=`, as
//! the whole name) from the innermost frame out; the first frame that
//! names a family wins.

/// (family, patterns of frame names that mean it), most specific first.
const FAMILIES: &[(&str, &[&str])] = &[
    (
        "MDL",
        &[
            "MDL_context::",
            "MDL_lock::",
            "MDL_ticket::",
            "MDL_map::",
            "=lock_table_names",
        ],
    ),
    (
        "THR_LOCK (table lock)",
        &[
            "thr_lock",
            "thr_multi_lock",
            "mysql_lock_tables",
            "=lock_tables",
            "wait_for_lock",
            "THR_LOCK",
        ],
    ),
    (
        "table cache",
        &[
            "tdc_acquire_share",
            "tdc_release_share",
            "Table_cache",
            "tc_acquire_table",
            "tc_release_table",
        ],
    ),
    ("trx_sys", &["trx_sys_t::", "trx_sys."]),
    (
        "lock_sys",
        &[
            "lock_sys_t::",
            "lock_rec_",
            "=lock_table",
            "lock_wait",
            "lock_release",
            "lock_trx_",
        ],
    ),
    (
        "buf_pool",
        &["buf_pool_t::", "buf_page_get", "buf_LRU_", "buf_flush_"],
    ),
    (
        "log_sys (redo)",
        &[
            "log_t::",
            "log_write_up_to",
            "log_sys",
            "log_buffer_flush",
            "mtr_t::commit",
        ],
    ),
    (
        "dict_sys",
        &["dict_sys_t::", "dict_table_open", "dict_table_close"],
    ),
    (
        "InnoDB srw/sync",
        &[
            "srw_lock",
            "srw_mutex",
            "ssux_lock",
            "sync_array",
            "rw_lock_",
            "sux_lock",
        ],
    ),
    (
        "server mutex (LOCK_*)",
        &["inline_mysql_mutex_lock", "LOCK_"],
    ),
    (CLIENT_WAIT, &["vio_read", "vio_io_wait", "my_net_read"]),
];

/// Not a lock: a connection thread reading from its client (blocked:
/// waiting for the next statement, idle from the server's side).
pub(crate) const CLIENT_WAIT: &str = "client (network read)";

/// Not a lock: file reads, writes and syncs.
pub(crate) const FILE_IO: &str = "file I/O";

/// Whether a family is a lock (the others are idle or I/O time, never a
/// scaling limiter by themselves).
pub fn is_lock(family: &str) -> bool {
    family != CLIENT_WAIT && family != FILE_IO
}

/// The family of a Performance Schema wait event
/// (`wait/synch/mutex/innodb/trx_sys_mutex`, `wait/lock/table/sql/handler`,
/// `wait/io/file/innodb/innodb_log_file`), the same families as stacks'.
pub(crate) fn of_wait_event(name: &str) -> Option<&'static str> {
    let n = name.to_ascii_lowercase();
    let has = |p: &str| n.contains(p);
    Some(if n.starts_with("wait/lock/table/") {
        "THR_LOCK (table lock)"
    } else if n.starts_with("wait/lock/metadata/") || has("mdl") {
        "MDL"
    } else if has("innodb_log_file")
        || has("log_sys")
        || has("log_flush_order")
        || has("redo")
        || has("innodb/log_")
    {
        "log_sys (redo)"
    } else if n.starts_with("wait/io/socket/") {
        CLIENT_WAIT
    } else if n.starts_with("wait/io/file/") {
        FILE_IO
    } else if has("trx_sys") {
        "trx_sys"
    } else if has("innodb/kernel_mutex") {
        // MySQL 5.5's one mutex over the lock and transaction systems
        // (split into lock_sys and trx_sys in 5.6).
        "kernel_mutex (lock_sys+trx_sys)"
    } else if has("innodb/lock_") || has("lock_sys") || has("lock_wait") {
        "lock_sys"
    } else if has("buf_pool") || has("buf_page") || has("innodb/buf_") {
        "buf_pool"
    } else if has("dict_sys") || has("dict_operation") {
        "dict_sys"
    } else if has("lock_table_cache") || has("lock_open") || has("tdc_") || has("table_cache") {
        "table cache"
    } else if n.starts_with("wait/synch/") && has("/sql/") && has("lock_") {
        "server mutex (LOCK_*)"
    } else if n.starts_with("wait/synch/") && has("/innodb/") {
        "InnoDB srw/sync"
    } else {
        return None;
    })
}

/// The family a frame's name belongs to, if any. The C library's and the
/// kernel's own frames (`__lll_lock_wait`, `__pthread_mutex_lock`,
/// `futex_wait_[k]`) name no server lock, whatever their names contain:
/// the server frame that called them does.
pub(crate) fn of_frame(frame: &str) -> Option<&'static str> {
    if is_wait_plumbing(frame) {
        return None;
    }
    let matches = |p: &&str| match p.strip_prefix('=') {
        Some(whole) => frame == whole,
        None => frame.contains(*p),
    };
    FAMILIES
        .iter()
        .find(|(_, pats)| pats.iter().any(matches))
        .map(|(f, _)| *f)
}

/// Frames that only carry a wait out (the kernel's, the C library's
/// internals, pthread and Performance Schema wrappers, bare addresses):
/// they say how a thread waits, never for which lock.
pub fn is_wait_plumbing(frame: &str) -> bool {
    frame.ends_with("_[k]")
        || frame.starts_with("__")
        || frame.starts_with("pthread_")
        || frame.starts_with("psi_")
        || frame.starts_with("futex")
        || (frame.starts_with('[') && frame.ends_with(']'))
}

/// The family of a stack (frames root first): its innermost frame that
/// names one.
pub fn of_stack(frames_root_first: &[&str]) -> Option<&'static str> {
    frames_root_first.iter().rev().find_map(|f| of_frame(f))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_name_their_family() {
        assert_eq!(of_frame("thr_multi_lock"), Some("THR_LOCK (table lock)"));
        assert_eq!(of_frame("MDL_context::acquire_lock"), Some("MDL"));
        assert_eq!(of_frame("lock_rec_lock"), Some("lock_sys"));
        assert_eq!(of_frame("dispatch_command"), None);
        // the server's table locking is not InnoDB's lock_sys
        assert_eq!(of_frame("lock_tables"), Some("THR_LOCK (table lock)"));
        assert_eq!(of_frame("open_and_lock_tables"), None);
        assert_eq!(of_frame("lock_table"), Some("lock_sys"));
        assert_eq!(of_frame("vio_read"), Some(CLIENT_WAIT));
        // glibc's lock wait under a table lock is not InnoDB's lock_wait
        assert_eq!(of_frame("__GI___lll_lock_wait"), None);
        assert_eq!(
            of_stack(&[
                "do_command",
                "thr_multi_lock",
                "pthread_cond_timedwait",
                "__lll_lock_wait",
                "futex_wait_[k]"
            ]),
            Some("THR_LOCK (table lock)")
        );
        assert!(!is_lock(CLIENT_WAIT) && is_lock("MDL"));
        // wait events name the same families
        let ev = |n| of_wait_event(n);
        assert_eq!(
            ev("wait/lock/table/sql/handler"),
            Some("THR_LOCK (table lock)")
        );
        assert_eq!(ev("wait/synch/rwlock/sql/MDL_lock::rwlock"), Some("MDL"));
        assert_eq!(ev("wait/synch/mutex/innodb/trx_sys_mutex"), Some("trx_sys"));
        assert_eq!(ev("wait/synch/mutex/innodb/lock_mutex"), Some("lock_sys"));
        assert_eq!(
            ev("wait/synch/mutex/innodb/kernel_mutex"),
            Some("kernel_mutex (lock_sys+trx_sys)")
        );
        assert_eq!(
            ev("wait/io/file/innodb/innodb_log_file"),
            Some("log_sys (redo)")
        );
        assert_eq!(
            ev("wait/synch/mutex/sql/LOCK_plugin"),
            Some("server mutex (LOCK_*)")
        );
        assert_eq!(
            ev("wait/synch/mutex/sql/LOCK_table_cache"),
            Some("table cache")
        );
        assert_eq!(ev("wait/io/file/sql/binlog"), Some(FILE_IO));
        assert_eq!(ev("wait/synch/cond/sql/COND_thread_cache"), None);
        // the innermost naming frame wins
        assert_eq!(
            of_stack(&[
                "do_command",
                "mysql_lock_tables",
                "MDL_context::acquire_lock",
                "futex_wait"
            ]),
            Some("MDL")
        );
    }
}
