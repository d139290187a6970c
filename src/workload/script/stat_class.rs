//! The statement classes a script's latencies are reported by (sysbench's
//! reads/writes/other split comes from them). Knows SQL text only.

/// Statement classes a script's latencies are reported by, from the
/// statement's first word.
pub(crate) const STAT_NAMES: [&str; 9] = [
    "other", "select", "insert", "update", "delete", "replace", "begin", "commit", "rollback",
];

/// The class of `sql` in [`STAT_NAMES`].
pub(crate) fn stat_class(sql: &str) -> usize {
    let word = sql
        .trim_start_matches(|c: char| c.is_whitespace() || c == '(')
        .split(|c: char| !c.is_ascii_alphabetic())
        .next()
        .unwrap_or("");
    STAT_NAMES
        .iter()
        .position(|n| n.eq_ignore_ascii_case(word))
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statements_are_classed_by_their_first_word() {
        assert_eq!(STAT_NAMES[stat_class("SELECT c FROM t")], "select");
        assert_eq!(STAT_NAMES[stat_class("  (select 1)")], "select");
        assert_eq!(STAT_NAMES[stat_class("Begin")], "begin");
        assert_eq!(STAT_NAMES[stat_class("SET autocommit=1")], "other");
        assert_eq!(STAT_NAMES[stat_class("")], "other");
    }
}
