//! dbSTRESS's tables, where each object's history lives, and the
//! bookkeeping table a prepare leaves its scale in (`dbs_meta`): the
//! objects table, `--history-tables` history tables (object `o` keeps its
//! history in table `(o - 1) % T + 1`; table 1 is the hot one).

/// The objects table.
pub(crate) const OBJECTS: &str = "dbs_object";
/// The bookkeeping table: the scale a prepare loaded, and `complete`.
pub(crate) const META: &str = "dbs_meta";

/// History table `t` (1-based).
pub(crate) fn history(t: u32) -> String {
    format!("dbs_history{t}")
}

/// Every table of a prepare of `tables` history tables, the bookkeeping
/// table last.
pub(crate) fn all_tables(tables: u32) -> Vec<String> {
    let mut v = vec![OBJECTS.to_string()];
    v.extend((1..=tables).map(history));
    v.push(META.to_string());
    v
}

/// The history table object `o` (1-based) keeps its history in.
pub(crate) fn table_of(o: u64, tables: u32) -> u32 {
    ((o - 1) % u64::from(tables)) as u32 + 1
}

/// Objects whose history is in table `t`: ids `t + tables * k`.
pub(crate) fn objects_in(t: u32, tables: u32, objects: u32) -> u64 {
    if t > objects {
        return 0;
    }
    u64::from(objects - t) / u64::from(tables) + 1
}

/// The object id of the `k`-th object (0-based) of table `t`.
pub(crate) fn object_id(t: u32, tables: u32, k: u64) -> u64 {
    u64::from(t) + u64::from(tables) * k
}

pub(crate) fn create_objects_sql(engine: &str) -> String {
    format!(
        "CREATE TABLE {OBJECTS} (
  id BIGINT UNSIGNED NOT NULL, name VARCHAR(32) NOT NULL, section INT NOT NULL, zone INT NOT NULL,
  created DATETIME NOT NULL, updated DATETIME NULL, writes BIGINT UNSIGNED NOT NULL DEFAULT 0,
  last_value INT NOT NULL DEFAULT 0, note VARCHAR(64) NOT NULL, PRIMARY KEY (id)
) ENGINE={engine}"
    )
}

pub(crate) fn create_history_sql(t: u32, engine: &str) -> String {
    format!(
        "CREATE TABLE {} (
  object_id BIGINT UNSIGNED NOT NULL, seq BIGINT UNSIGNED NOT NULL, ts DATETIME NOT NULL,
  value INT NOT NULL, note VARCHAR(64) NOT NULL, PRIMARY KEY (object_id, seq)
) ENGINE={engine}",
        history(t)
    )
}

pub(crate) fn create_meta_sql() -> String {
    format!("CREATE TABLE {META} (part VARCHAR(40) NOT NULL PRIMARY KEY, value BIGINT NOT NULL)")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn objects_spread_over_the_tables_and_back() {
        let (tables, objects) = (4, 10);
        let mut seen = Vec::new();
        for t in 1..=tables {
            for k in 0..objects_in(t, tables, objects) {
                let o = object_id(t, tables, k);
                assert_eq!(table_of(o, tables), t);
                seen.push(o);
            }
        }
        seen.sort();
        assert_eq!(seen, (1..=10).collect::<Vec<u64>>());
        assert_eq!(objects_in(4, 4, 3), 0);
    }
}
