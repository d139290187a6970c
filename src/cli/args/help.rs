//! What `--help` and `qpslab help` show: the command tree with each
//! command's own options under headings (connection, load shape, output,
//! monitor, store …), per-command wording where a shared option means
//! something else, and the topic pages (`qpslab help workloads|campaign|
//! store|metrics`). Parsing is clap's; this only shapes what it prints.

use super::tree::Cli;
use clap::{Arg, Command, CommandFactory};

/// Help headings, in the order sysbench's `--help` reads.
pub(crate) const CONNECTION: &str = "Connection";
pub const LOAD: &str = "Load shape";
pub(crate) const RANDOM: &str = "Random numbers";
pub const STATEMENTS: &str = "Statements and errors";
pub(crate) const OUTPUT: &str = "Output";
pub const STORE: &str = "Results store";
pub(crate) const CLIENT: &str = "Client threads";
pub(crate) const AGENTS: &str = "Agents";
pub(crate) const MONITOR: &str = "Monitor";
pub(crate) const PROFILER: &str = "Profiler";

/// The options `prepare` uses beyond the connection; run's other options
/// are accepted (a sysbench line works with `prepare` in place of `run`)
/// and left out of its help.
const PREPARE_OWN: &[&str] = &[
    "workload",
    "threads",
    "rand_seed",
    "rand_type",
    "format",
    "load_via",
];
const CLEANUP_OWN: &[&str] = &["workload"];
const CHECK_OWN: &[&str] = &["workload", "format"];

/// Connection options that only a command loading rows uses (prepare,
/// `run --create`, sweep, quickstart): the commands that load
/// nothing accept them (one connection block for all) and do not list them.
const LOADING_ONLY: &[&str] = &["load_via"];

/// The command line's definition as parsed and as its help prints.
pub fn command() -> Command {
    Cli::command()
        .disable_help_subcommand(true)
        .after_help("Topics: qpslab help workloads | campaign | store | metrics. A command's options: qpslab help COMMAND (or COMMAND --help). sysbench's command lines work as they are: qpslab oltp_read_write --threads=8 --time=60 run.")
        .mut_subcommand("prepare", |c| {
            own_options_only(c, PREPARE_OWN).mut_arg("threads", |a| {
                a.help("Tables loaded at once (sysbench's parallel prepare); the OLTP family loads with up to this many connections")
            })
        })
        .mut_subcommand("cleanup", |c| own_options_only(c, CLEANUP_OWN))
        .mut_subcommand("check", |c| own_options_only(c, CHECK_OWN))
        .mut_subcommand("monitor", loads_nothing)
        .mut_subcommand("iostat", loads_nothing)
        .mut_subcommand("profile", loads_nothing)
        .mut_subcommand("top", |c| {
            loads_nothing(c)
                .mut_arg("interval", |a| a.help("Seconds between screens"))
                .mut_arg("count", |a| a.help("Stop after N screens; 0 = until Ctrl-C"))
        })
        .mut_subcommand("sweep", |c| {
            c.mut_arg("threads", |a| {
                a.help("The concurrencies, in order, e.g. 1,4,16,64 (alias --users)")
            })
        })
}

/// Hides every option of a load command but the connection's and `own`:
/// still accepted, not listed.
fn own_options_only(c: Command, own: &[&str]) -> Command {
    c.mut_args(|a: Arg| {
        let id = a.get_id().as_str();
        let keep = own.contains(&id)
            || (a.get_help_heading() == Some(CONNECTION) && !LOADING_ONLY.contains(&id))
            || id == "help";
        if keep {
            a
        } else {
            a.hide(true)
        }
    })
    .after_help(
        "run's other options are accepted here and change nothing, so that a sysbench command line works with this command in place of `run`.",
    )
}

/// Hides the connection options only a load uses ([`LOADING_ONLY`]).
fn loads_nothing(c: Command) -> Command {
    LOADING_ONLY
        .iter()
        .fold(c, |c, id| c.mut_arg(*id, |a| a.hide(true)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn walk(c: &Command, path: &str, out: &mut Vec<String>) {
        for a in c.get_arguments() {
            let id = a.get_id().as_str();
            if a.is_hide_set() || id == "help" || id == "version" {
                continue;
            }
            let help = a.get_help().map(|h| h.to_string()).unwrap_or_default();
            let name = format!(
                "{path} {}",
                a.get_long()
                    .map(|l| format!("--{l}"))
                    .unwrap_or(id.to_uppercase())
            );
            if help.trim().is_empty() {
                out.push(format!("{name}: no description"));
                continue;
            }
            let takes = a.get_action().takes_values();
            let positional = a.get_long().is_none();
            let documented_default = !a.get_default_values().is_empty()
                || help.contains("[default:")
                || a.is_required_set()
                || positional;
            if takes && !documented_default {
                out.push(format!("{name}: no default"));
            }
            if takes && !positional && a.get_help_heading().is_none() && path != "qpslab" {
                let _ = &help;
            }
        }
        for s in c.get_subcommands() {
            if s.is_hide_set() {
                continue;
            }
            walk(s, &format!("{path} {}", s.get_name()), out);
        }
    }

    /// Every option a user can see says what it does and what it is when
    /// not given.
    #[test]
    fn every_visible_option_has_a_description_and_a_default() {
        let mut missing = Vec::new();
        walk(&command(), "qpslab", &mut missing);
        assert!(
            missing.is_empty(),
            "{} options:\n{}",
            missing.len(),
            missing.join("\n")
        );
    }

    /// Each command shows its own options, under headings; a load
    /// command that ignores run's options does not list them.
    #[test]
    fn each_command_lists_its_own_options_under_headings() {
        command().debug_assert();
        let help = |name: &str| {
            command()
                .find_subcommand_mut(name)
                .unwrap()
                .render_long_help()
                .to_string()
        };
        let run = help("run");
        for h in [
            CONNECTION, LOAD, RANDOM, STATEMENTS, OUTPUT, STORE, CLIENT, AGENTS, MONITOR, PROFILER,
        ] {
            assert!(
                run.contains(&format!("\n{h}:\n")),
                "run --help has no {h} heading"
            );
        }
        assert!(
            run.contains("--mysql-host")
                && run.contains("--rate")
                && !run.contains("a list: 1,2,4")
        );
        let prepare = help("prepare");
        assert!(prepare.contains("--host") && prepare.contains("--threads"));
        for other in [
            "--rate",
            "--time",
            "--monitor-interval",
            "--profile",
            "--percentile",
        ] {
            assert!(!prepare.contains(other), "prepare --help lists {other}");
        }
        assert!(!help("cleanup").contains("--threads"));
        // --load-via where rows are loaded, and nowhere else
        for loads in ["prepare", "run", "sweep", "quickstart"] {
            assert!(help(loads).contains("--load-via"), "{loads} --help");
        }
        for not in ["cleanup", "check", "monitor", "iostat", "top", "profile"] {
            assert!(!help(not).contains("--load-via"), "{not} --help lists it");
        }
        assert!(help("sweep").contains("The concurrencies, in order"));
        assert!(help("top").contains("Seconds between screens"));
        assert!(help("iostat").contains("Seconds between lines"));
    }
}
