//! What a prepare tells its caller while it loads: typed events handed to
//! a sink the caller passes in (the workload layer never prints). Each
//! line event's `Display` is the line cli prints for it (sysbench's
//! wording for the oltp tables); the row counts drive a progress bar.

use std::fmt;

/// One step of a prepare.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Progress {
    /// oltp: table `sbtestN` is being created.
    CreatingTable(u32),
    /// oltp: `rows` rows are being loaded into `sbtestN`.
    Inserting {
        /// N of `sbtestN`.
        table: u32,
        /// Rows to load into it.
        rows: u32,
    },
    /// oltp: the secondary index of `sbtestN` is being built.
    CreatingIndex(u32),
    /// TPC-C: the tables of a set are being created.
    CreatingSet {
        /// The set's number.
        set: u32,
        /// Warehouses in the set.
        warehouses: u32,
    },
    /// TPC-C: an interrupted prepare of a set goes on.
    ResumingSet {
        /// The set's number.
        set: u32,
        /// Parts (load units) already loaded.
        loaded: usize,
        /// Parts still to load.
        to_go: usize,
    },
    /// TPC-C: the secondary indexes of a set are being built.
    CreatingSetIndexes(u32),
    /// LinkBench's tables are being created for a graph of this many
    /// nodes.
    CreatingGraph(u64),
    /// An interrupted prepare loaded in chunks (LinkBench, DBT3) resumes:
    /// chunks loaded, to go.
    ResumingChunks {
        /// The workload as the line names it ("LinkBench", "DBT3").
        family: &'static str,
        /// Chunks already in.
        loaded: usize,
        /// Chunks to load.
        to_go: usize,
    },
    /// A chunk a loader was loading met a deadlock with another loader
    /// (error 1213): what it had sent was rolled back and it is loaded
    /// again.
    LoadRetried {
        /// The chunk's number, from 1, in this load's list of chunks.
        chunk: usize,
        /// Chunks in this load (a resumed prepare's: those it had to go).
        chunks: usize,
        /// Rows of the failed attempt, taken back from the count.
        rows: u64,
        /// This retry's number, from 1.
        retry: u32,
        /// How many retries a chunk is allowed.
        of: u32,
    },
    /// Loading begins: about this many rows in all.
    LoadStart(u64),
    /// Rows loaded so far.
    Loaded(u64),
    /// Loading ended (the indexes may still be built).
    LoadEnd,
}

impl fmt::Display for Progress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Progress::CreatingTable(t) => write!(f, "Creating table 'sbtest{t}'..."),
            Progress::Inserting { table, rows } => {
                write!(f, "Inserting {rows} records into 'sbtest{table}'")
            }
            Progress::CreatingIndex(t) => {
                write!(f, "Creating a secondary index on 'sbtest{t}'...")
            }
            Progress::CreatingSet { set, warehouses } => write!(
                f,
                "Creating the TPC-C tables of set {set} ({})...",
                crate::out::counted(warehouses, "warehouse")
            ),
            Progress::ResumingSet { set, loaded, to_go } => write!(
                f,
                "Resuming the interrupted prepare of set {set}: {loaded} of {} parts are loaded, {to_go} to go",
                loaded + to_go
            ),
            Progress::CreatingSetIndexes(set) => {
                write!(f, "Creating the secondary indexes of set {set}...")
            }
            Progress::CreatingGraph(nodes) => {
                write!(f, "Creating the LinkBench tables for {nodes} nodes...")
            }
            Progress::ResumingChunks {
                family,
                loaded,
                to_go,
            } => write!(
                f,
                "Resuming the interrupted {family} prepare: {loaded} of {} chunks are loaded, {to_go} to go",
                loaded + to_go
            ),
            Progress::LoadRetried {
                chunk,
                chunks,
                rows,
                retry,
                of,
            } => write!(
                f,
                "note: chunk {chunk} of {chunks} met a deadlock with another loader (error 1213): rolled back ({}) and loaded again (retry {retry} of {of})",
                crate::out::counted(rows, "row")
            ),
            Progress::LoadStart(total) => write!(f, "loading about {total} rows"),
            Progress::Loaded(rows) => write!(f, "{rows} rows loaded"),
            Progress::LoadEnd => write!(f, "loading done"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_keep_their_wording() {
        assert_eq!(
            Progress::CreatingTable(3).to_string(),
            "Creating table 'sbtest3'..."
        );
        assert_eq!(
            Progress::Inserting {
                table: 3,
                rows: 10000
            }
            .to_string(),
            "Inserting 10000 records into 'sbtest3'"
        );
        assert_eq!(
            Progress::ResumingSet {
                set: 1,
                loaded: 2,
                to_go: 5
            }
            .to_string(),
            "Resuming the interrupted prepare of set 1: 2 of 7 parts are loaded, 5 to go"
        );
        assert_eq!(
            Progress::ResumingChunks {
                family: "DBT3",
                loaded: 30,
                to_go: 4
            }
            .to_string(),
            "Resuming the interrupted DBT3 prepare: 30 of 34 chunks are loaded, 4 to go"
        );
        assert_eq!(
            Progress::LoadRetried {
                chunk: 3,
                chunks: 4,
                rows: 1,
                retry: 1,
                of: 3
            }
            .to_string(),
            "note: chunk 3 of 4 met a deadlock with another loader (error 1213): rolled back (1 row) and loaded again (retry 1 of 3)"
        );
    }
}
