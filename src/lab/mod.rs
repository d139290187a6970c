//! lab: the use cases, composed from the layers below: which server
//! (`Target`), its environment, a workload's data on it, the monitor beside
//! the load, recording into the store (a row at the start, samples as they
//! arrive, totals and the monitor's figures at the end), sweeps, campaigns,
//! the quickstart, monitor sessions and live views. Takes typed inputs and
//! reports progress through callbacks; never parses arguments or prints
//! (cli does), never renders (report does). Its SQL is limited to checking
//! a target and applying a campaign variant's settings.

pub mod agent;
mod campaign_points;
mod curation;
mod data;
mod dbt3_record;
mod environment_capture;
mod export;
mod host_characterisation;
mod host_record;
pub mod insert_phases;
mod last_run_live;
mod live_feed;
mod live_session;
mod preflight;
pub use preflight::{describe as preflight_line, noisy as preflight_noisy};
mod profiling;
mod quickstart;
mod record;
mod run;
mod runtime;
mod sandbox;
pub mod server_store;
mod summary;
mod sweep;
mod tags;
mod target;
mod watch;

pub use crate::analyze::limiter::Profiled;
pub use crate::analyze::variants::{campaign_file, variant_diffs, VariantDiff};
pub use campaign_points::{lock_campaign, open_campaign, run_campaign, CampaignRun};
pub use curation::{
    baseline_diff, baseline_of, check_runs, check_tag, delete_runs, deletion_plan, run_diff,
    run_row,
};
pub use data::{
    check_dbstress, check_dbt3, check_dbt3_answers, check_ibench, check_linkbench, check_tpcc,
    cleanup, largest_id, prepare, ready, script_command, MissingTable,
};
pub use dbt3_record::{dbt3_options, run_dbt3, Dbt3Run};
pub use environment_capture::Environment;
pub use export::{export_data, ExportData};
pub use host_record::{record_host_test, HostRecord};
pub use last_run_live::{last_finished_run, publish_run};
pub use live_session::{live_view, monitor_session, probe, SessionRecord};
pub use profiling::{
    profile, server_pid, server_pid_on, summary as profile_summary, ProfilePlan, Profiling,
};
pub use quickstart::{fresh_data, quickstart, QuickPlan};
pub use record::{
    open_store, open_store_to_edit, read_store, store_path, stored_run, EXIT_NOT_STORED,
};
pub use run::{run_document, run_once, RunPlan, StepRun};
pub use runtime::block_on;
pub use sandbox::{running_sandbox, start_sandbox, SandboxChange, DEFAULT_SANDBOX};
pub use sweep::{new_sweep, sweep, SweepPlan};
pub use tags::RunTags;
pub use target::{connect_error, sandbox_existing, sandbox_target, Target};
