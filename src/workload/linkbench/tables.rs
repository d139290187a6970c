//! LinkBench's three tables as its README creates them for MySQL
//! (nodetable, linktable with the covering id1_type index and optional
//! KEY(id1) partitions, counttable), and the bookkeeping table a prepare
//! keeps its progress in (`qpslab_linkbench`: the graph's size, each
//! loaded chunk, `complete`).

/// Every table, the progress table last (the order cleanup drops them).
pub const TABLES: [&str; 4] = ["linktable", "counttable", "nodetable", PROGRESS];

/// The progress table.
pub const PROGRESS: &str = "qpslab_linkbench";

/// CREATE TABLE for each of the three tables, with the engine, any
/// further table options and `partitions` KEY(id1) partitions of
/// linktable (0: none).
pub(crate) fn create_sql(engine: &str, options: &str, partitions: u32) -> [String; 3] {
    let parts = if partitions > 0 {
        format!(" PARTITION BY KEY(id1) PARTITIONS {partitions}")
    } else {
        String::new()
    };
    [
        format!(
            "CREATE TABLE linktable (
  id1 BIGINT UNSIGNED NOT NULL DEFAULT 0,
  id2 BIGINT UNSIGNED NOT NULL DEFAULT 0,
  link_type BIGINT UNSIGNED NOT NULL DEFAULT 0,
  visibility TINYINT NOT NULL DEFAULT 0,
  data VARCHAR(255) NOT NULL DEFAULT '',
  time BIGINT UNSIGNED NOT NULL DEFAULT 0,
  version INT UNSIGNED NOT NULL DEFAULT 0,
  PRIMARY KEY (link_type, id1, id2),
  KEY id1_type (id1, link_type, visibility, time, id2, version, data)
) ENGINE={engine} DEFAULT CHARSET=latin1 {options}{parts}"
        ),
        format!(
            "CREATE TABLE counttable (
  id BIGINT UNSIGNED NOT NULL DEFAULT 0,
  link_type BIGINT UNSIGNED NOT NULL DEFAULT 0,
  count INT UNSIGNED NOT NULL DEFAULT 0,
  time BIGINT UNSIGNED NOT NULL DEFAULT 0,
  version BIGINT UNSIGNED NOT NULL DEFAULT 0,
  PRIMARY KEY (id, link_type)
) ENGINE={engine} DEFAULT CHARSET=latin1 {options}"
        ),
        format!(
            "CREATE TABLE nodetable (
  id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
  type INT UNSIGNED NOT NULL,
  version BIGINT UNSIGNED NOT NULL,
  time INT UNSIGNED NOT NULL,
  data MEDIUMTEXT NOT NULL,
  PRIMARY KEY (id)
) ENGINE={engine} DEFAULT CHARSET=latin1 {options}"
        ),
    ]
}

/// The progress table.
pub(crate) fn create_progress_sql() -> String {
    crate::workload::bulk_load::resume::create_sql(PROGRESS)
}
