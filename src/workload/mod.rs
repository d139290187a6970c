//! workload: what a run executes.
//!
//! Owns the `Family`/`Session` interface that exec drives (family.rs), the
//! sysbench Lua scripts on it (script/: an embedded LuaJIT running
//! sysbench's script API), TPC-C (tpcc/: schema, loader, the five
//! transactions as terminals, consistency checks), LinkBench
//! (linkbench/: the social graph, its loader, the ten operations,
//! the count check), dbSTRESS (dbstress/), the insert benchmark
//! (ibench/), DBT3 (dbt3/: TPC-H's tables, dbgen's data through the
//! tpchgen crate, the 22 queries and refresh functions), and the
//! sysbench-compatible OLTP family
//! (oltp.rs, its workloads' plans in oltp_plan.rs): the schema, the data format, the statements, the per-event
//! plan of each workload and the random draws of its parameters. It says
//! *what* to execute; it never opens connections for load, times anything
//! or keeps statistics (that is exec and stats), and prints nothing of its
//! own (a script's `print` is the script's). `prepare`/`cleanup` and a
//! script's commands live here because they are part of a family's
//! definition (sysbench's prepare command).

mod bulk_load;
pub mod dbstress;
pub mod dbt3;
pub mod family;
mod glibc_random;
pub mod ibench;
pub mod linkbench;
mod offenders;
pub mod oltp;
mod oltp_plan;
mod option_checks;
mod options;
pub mod prepare;
pub mod prepare_events;
mod rand;
mod sbtest_data;
pub mod script;
mod statements;
pub mod tpcc;
mod xoroshiro;

pub use bulk_load::sweep_left_pipes;
pub use family::{Consume, Family, OnError, PrepareReport, Session, StatementSpec};
pub use oltp::Oltp;
pub use oltp_plan::{OltpOpts, Op, Workload, ALL};
pub use options::{parse_size, OptKind, OptValues};
pub use prepare_events::Progress;
pub use rand::{RandParams, RandType, Rng, Unique};
pub use statements::Kind;

/// The options of the workload named among a load command's `words`: a
/// sysbench script's (loaded for `command`; its path returned too), else
/// the OLTP family's.
pub fn options_for(
    words: &[String],
    command: &str,
) -> Result<(Option<std::path::PathBuf>, Vec<options::OptSpec>), String> {
    if words.iter().any(|w| tpcc::is_tpcc(w)) {
        return Ok((None, tpcc::option_specs()));
    }
    if words.iter().any(|w| linkbench::is_linkbench(w)) {
        return Ok((None, linkbench::option_specs()));
    }
    if words.iter().any(|w| dbstress::is_dbstress(w)) {
        return Ok((None, dbstress::option_specs()));
    }
    if words.iter().any(|w| dbt3::is_dbt3(w)) {
        return Ok((None, dbt3::option_specs()));
    }
    if words.iter().any(|w| ibench::is_ibench(w)) {
        return Ok((None, ibench::option_specs()));
    }
    match words
        .iter()
        .find(|w| !w.starts_with('-') && script::is_script(w))
    {
        Some(w) => {
            let path = script::find_script(w)?;
            let specs = script::script_options(&path, command)?;
            Ok((Some(path), specs))
        }
        None => Ok((None, oltp::option_specs())),
    }
}
