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
];

/// The family a frame's name belongs to, if any.
pub fn of_frame(frame: &str) -> Option<&'static str> {
    let matches = |p: &&str| match p.strip_prefix('=') {
        Some(whole) => frame == whole,
        None => frame.contains(*p),
    };
    FAMILIES
        .iter()
        .find(|(_, pats)| pats.iter().any(matches))
        .map(|(f, _)| *f)
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
