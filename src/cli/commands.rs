//! The dispatcher: each command to the file that does it end to end
//! (sandboxes.rs, load_commands.rs, sweep.rs, results.rs, quickstart.rs, and the
//! other command groups' files), after checking the state directory. A
//! load command's arguments become its plan here (`LoadPlan::from_args`).

use super::args::{Cli, Cmd};
use super::plan::LoadPlan;
use crate::report;
use anyhow::{bail, Result};

/// Runs the command; returns the process exit code.
pub fn dispatch(cli: Cli) -> Result<i32> {
    check_state_dir()?;
    match cli.cmd {
        Cmd::Server { cmd } => super::sandboxes::server(cmd).map(|_| 0),
        Cmd::Prepare(a) => super::load_commands::cmd_prepare(&LoadPlan::from_args(&a)?).map(|_| 0),
        Cmd::Run(a) => super::metrics_listen::serving(&a.monitor.metrics, || {
            super::load_commands::cmd_run(&LoadPlan::from_args(&a)?)
        }),
        Cmd::Agent(a) => super::agent::agent(&a),
        Cmd::Cleanup(a) => super::load_commands::cmd_cleanup(&LoadPlan::from_args(&a)?).map(|_| 0),
        Cmd::Check(a) => {
            let p = LoadPlan::from_args(&a)?;
            if p.linkbench().is_some() {
                super::linkbench::check(&p)
            } else if p.dbt3().is_some() {
                super::dbt3::check(&p)
            } else if p.dbstress().is_some() {
                super::dbstress::check(&p)
            } else if p.ibench().is_some() {
                super::ibench::check(&p)
            } else {
                super::tpcc::check(&p)
            }
        }
        Cmd::Command(c) => super::load_commands::cmd_script_command(&c).map(|_| 0),
        Cmd::Help(h) => super::help_topics::help(&h).map(|_| 0),
        Cmd::Workloads => {
            out!("{}", report::sysbench::workloads_text());
            Ok(0)
        }
        Cmd::Quickstart(a) => super::quickstart::quickstart(&a),
        Cmd::Runs(a) => super::results::cmd_runs(&a).map(|_| 0),
        Cmd::Sweep(a) => {
            super::metrics_listen::serving(&a.load.monitor.metrics, || super::sweep::sweep(&a))
        }
        Cmd::Scalability(a) => super::results::analysis(&a, None).map(|_| 0),
        Cmd::Best(a) => {
            let f = report::table::Format::from(a.format.format);
            out!(
                "{}",
                report::analysis::best_table(&super::results::finished_runs(&a)?, f)
            );
            Ok(0)
        }
        Cmd::Compare(a) => super::results::compare_runs(&a).map(|_| 0),
        Cmd::Ratio(a) => super::results::analysis(&a.filter, Some(&a)).map(|_| 0),
        Cmd::Campaign { cmd } => super::campaign::campaign(cmd),
        Cmd::Show(a) => super::results::cmd_show(&a).map(|_| 0),
        Cmd::Tag(a) => super::run_curation::tag(&a).map(|_| 0),
        Cmd::Note(a) => super::run_curation::note(&a).map(|_| 0),
        Cmd::Exclude(a) => super::run_curation::exclude(&a).map(|_| 0),
        Cmd::Delete(a) => super::run_curation::delete(&a).map(|_| 0),
        Cmd::Baseline(a) => super::run_curation::baseline(&a).map(|_| 0),
        Cmd::Diff(a) => super::run_curation::diff(&a).map(|_| 0),
        Cmd::Monitor(a) => {
            super::metrics_listen::serving(&a.monitor.metrics, || super::live::monitor(&a))
        }
        Cmd::Iostat(a) => super::live::iostat(&a),
        Cmd::Top(a) => super::live::top(&a),
        Cmd::Metrics(a) => super::live::metrics(&a).map(|_| 0),
        Cmd::Ui(a) => super::pages::ui(&a).map(|_| 0),
        Cmd::Store { cmd } => super::store_copy::store(&cmd).map(|_| 0),
        Cmd::Report(a) => super::pages::report(&a).map(|_| 0),
        Cmd::Profile(a) => super::profile::profile(&a),
        Cmd::Flamegraph(a) => super::profile::flamegraph(&a).map(|_| 0),
        Cmd::Chart(a) => super::pages::chart(&a).map(|_| 0),
        Cmd::Export(a) => super::results::export(&a).map(|_| 0),
    }
}

/// The state directory, when it exists, must be a directory: said once
/// here, with its path, rather than as a bare "Not a directory" from
/// whichever command first creates something in it.
fn check_state_dir() -> Result<()> {
    let dir = crate::server::state_dir();
    if dir.exists() && !dir.is_dir() {
        let from = if std::env::var_os("QPSLAB_HOME").is_some_and(|h| !h.is_empty()) {
            "QPSLAB_HOME"
        } else {
            "the state directory"
        };
        bail!(
            "{from} {} is not a directory: point QPSLAB_HOME at a directory (it is created if missing)",
            dir.display()
        );
    }
    Ok(())
}
