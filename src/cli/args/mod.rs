//! Command-line definitions. Option names follow sysbench (`--tables`,
//! `--table-size`, `--mysql-host` …) so that existing scripts keep working.
//!
//! Grouped by concern: `choices` (value enums), `shared` (blocks every
//! command reuses, value parsers), `conn` (which server), `load` (the load
//! commands), `views` (stored runs and live views), `tree` (the command
//! tree that holds them). Here: the parsing steps (sysbench's shape, a
//! family's own options, help and errors). The children import from each
//! other, never from this file.

mod choices;
mod conn;
mod help;
mod load;
mod manage;
mod shared;
mod sysbench_general;
mod tree;
mod views;

pub(crate) use choices::*;
pub(crate) use conn::*;
pub use help::command as help_command;
pub(crate) use load::*;
pub(crate) use manage::*;
pub(crate) use shared::*;
pub(crate) use tree::{Cli, Cmd, HelpArgs, ScriptCommandArgs};
pub(crate) use views::*;

use crate::workload::OptValues;

/// A load command's arguments from words (the parsing steps are here).
impl LoadArgs {
    /// Parses run options given as command-line words (workload first), as
    /// campaign files and the quickstart describe their runs.
    pub(crate) fn from_words(words: &[String]) -> anyhow::Result<LoadArgs> {
        #[derive(clap::Parser)]
        #[command(name = "qpslab run")]
        struct P {
            #[command(flatten)]
            l: LoadArgs,
        }
        let (values, rest) = split_workload_options(words, "run").map_err(anyhow::Error::msg)?;
        let argv = std::iter::once("qpslab".to_string()).chain(rest);
        let mut l = <P as clap::Parser>::try_parse_from(argv)
            .map(|p| p.l)
            .map_err(|e| anyhow::anyhow!("{}", one_line(&e)))?;
        l.options = values;
        Ok(l)
    }
}

/// The commands whose words carry a workload family's options.
const LOAD_COMMANDS: [&str; 6] = ["run", "prepare", "cleanup", "sweep", "command", "check"];

/// sysbench's command-line shape, `qpslab [options] WORKLOAD [options]
/// COMMAND`, becomes qpslab's `qpslab COMMAND WORKLOAD [options]`; a
/// script's own command (`qpslab prewarm x.lua`, or `qpslab x.lua
/// prewarm`) becomes `qpslab command prewarm x.lua`. Anything else is
/// returned as it is.
pub(crate) fn sysbench_shape(argv: &[String]) -> Vec<String> {
    use clap::CommandFactory;
    let known: Vec<String> = Cli::command()
        .get_subcommands()
        .map(|c| c.get_name().to_string())
        .collect();
    // Long options of the load commands that take a value in the next
    // word (`--server t`): that word is not a workload or a command.
    let cmd = Cli::command();
    let (mut valued, mut flags) = (Vec::new(), Vec::new());
    for a in cmd
        .find_subcommand("run")
        .into_iter()
        .flat_map(|r| r.get_arguments())
    {
        if let Some(long) = a.get_long() {
            if a.get_action().takes_values() {
                valued.push(long.to_string());
            } else {
                flags.push(long.to_string());
            }
        }
    }
    let mut bare: Vec<usize> = Vec::new();
    let mut i = 1;
    while i < argv.len() {
        let w = &argv[i];
        i += 1;
        let Some(name) = w.strip_prefix("--") else {
            if !w.starts_with('-') {
                bare.push(i - 1);
            }
            continue;
        };
        let Some(next) = argv.get(i).filter(|n| !n.starts_with('-')) else {
            continue;
        };
        let ours = valued.iter().any(|v| v == name);
        // A workload option with its value after it (not a command, and
        // not the last word, which is the command in sysbench's shape).
        let workload = !ours
            && !flags.iter().any(|f| f == name)
            && !name.contains('=')
            && i + 1 < argv.len()
            && !known.contains(next);
        if (ours && !name.contains('=')) || workload {
            i += 1;
        }
    }
    // The command: the first known one after the workload, else the last.
    let last = bare
        .iter()
        .skip(1)
        .find(|&&b| known.contains(&argv[b]))
        .or(bare.last())
        .copied();
    let (Some(&first), Some(last)) = (bare.first(), last) else {
        return argv.to_vec();
    };
    if known.contains(&argv[first]) || first == last {
        return argv.to_vec();
    }
    let is_workload = |w: &str| {
        crate::workload::script::is_script(w)
            || crate::workload::tpcc::is_tpcc(w)
            || crate::workload::linkbench::is_linkbench(w)
            || crate::workload::dbstress::is_dbstress(w)
            || crate::workload::ibench::is_ibench(w)
            || crate::workload::dbt3::is_dbt3(w)
            || crate::workload::Workload::parse(w).is_ok()
    };
    let others = |skip: &[usize]| -> Vec<String> {
        (1..argv.len())
            .filter(|i| !skip.contains(i))
            .map(|i| argv[i].clone())
            .collect()
    };
    let prog = argv[0].clone();
    if is_workload(&argv[first]) {
        let (workload, command) = (argv[first].clone(), argv[last].clone());
        if command == "help" {
            // sysbench's `sysbench SCRIPT help`: the workload's options.
            return vec![prog, "run".into(), workload, "--help".into()];
        }
        let mut out = vec![prog];
        if !known.contains(&command) && crate::workload::script::is_script(&workload) {
            out.push("command".into());
        }
        out.push(command);
        out.push(workload);
        out.extend(others(&[first, last]));
        return out;
    }
    if crate::workload::script::is_script(&argv[bare[1]]) {
        let mut out = vec![prog, "command".into()];
        out.extend(others(&[]));
        return out;
    }
    argv.to_vec()
}

/// Takes the workload family's options (`--tables`, `--table-size` …) out
/// of a load command's words, so that clap sees only its own. The family
/// declares them: the OLTP family (`workload::oltp::option_specs`), or a
/// sysbench script named among the words (its `sysbench.cmdline.options`,
/// read by loading it for `command`). Returns their values and the other
/// words, in order.
pub(crate) fn split_workload_options(
    words: &[String],
    command: &str,
) -> Result<(OptValues, Vec<String>), String> {
    let (script, specs) = crate::workload::options_for(words, command)?;
    // A script that declares no options takes any `--name=value`, as
    // sysbench lets it (bulk_insert.lua): those clap does not know.
    let free = script.is_some() && specs.is_empty();
    let mut v = OptValues::new(specs);
    if free {
        use clap::CommandFactory;
        let cmd = Cli::command();
        let ours: Vec<String> = cmd
            .find_subcommand(command)
            .into_iter()
            .flat_map(|c| c.get_arguments())
            .flat_map(|a| {
                // (sysbench's names are aliases: `--mysql-socket=…` is ours)
                let aliases = a.get_all_aliases().unwrap_or_default();
                a.get_long().into_iter().chain(aliases).map(str::to_string)
            })
            .collect();
        for w in words {
            if let Some((name, _)) = w.strip_prefix("--").and_then(|b| b.split_once('=')) {
                if !ours.iter().any(|o| o == name) {
                    v.declare_text(name);
                }
            }
        }
    }
    let rest = v.take_from(words)?;
    Ok((v, rest))
}

/// Parses a whole command line (program name first).
#[cfg(test)]
pub(crate) fn parse_from(argv: &[String]) -> Result<Cli, clap::Error> {
    parse_shaped(&sysbench_shape(argv))
}

/// Parses words with the command as its help shows it (`help::command`).
fn parse_with_help(argv: &[String]) -> Result<Cli, clap::Error> {
    use clap::FromArgMatches;
    let m = help::command().try_get_matches_from(argv)?;
    Cli::from_arg_matches(&m)
}

/// Prints the options of the workload that a load command's words name
/// (the OLTP family's when they name none), after its help: sysbench's
/// `help`, the script's own help() included.
pub(crate) fn print_workload_options(words: &[String]) {
    match crate::workload::options_for(words, "help") {
        Ok((Some(path), specs)) => {
            outln!("\n{} options:", path.display());
            out!("{}", OptValues::new(specs).help());
            if let Err(m) = crate::workload::script::script_help(&path) {
                outln!("\n{m}");
            }
        }
        Ok((None, specs)) if words.iter().any(|w| crate::workload::tpcc::is_tpcc(w)) => {
            outln!("\nTPC-C options (docs/TPCC.md):");
            out!("{}", OptValues::new(specs).help());
        }
        Ok((None, specs))
            if words
                .iter()
                .any(|w| crate::workload::linkbench::is_linkbench(w)) =>
        {
            outln!("\nLinkBench options (LinkBench's names and defaults; docs/LINKBENCH.md):");
            out!("{}", OptValues::new(specs).help());
        }
        Ok((None, specs))
            if words
                .iter()
                .any(|w| crate::workload::dbstress::is_dbstress(w)) =>
        {
            outln!("\ndbSTRESS options (docs/WORKLOADS.md):");
            out!("{}", OptValues::new(specs).help());
        }
        Ok((None, specs)) if words.iter().any(|w| crate::workload::ibench::is_ibench(w)) => {
            outln!("\nInsert benchmark options (iibench.py's names; docs/WORKLOADS.md):");
            out!("{}", OptValues::new(specs).help());
        }
        Ok((None, specs)) => {
            outln!("\nWorkload options (the OLTP family; sysbench's names and defaults):");
            out!("{}", OptValues::new(specs).help());
        }
        Err(m) => outln!("\n{m}"),
    }
}

/// Prints the long help of the command at `path` (`["campaign", "run"]`),
/// with a load command's workload options; false when no command has
/// that path.
pub(crate) fn print_command_help(path: &[String]) -> bool {
    let mut cmd = help::command();
    for p in path {
        match cmd.find_subcommand(p) {
            Some(c) => cmd = c.clone(),
            None => return false,
        }
    }
    let mut cmd = cmd.bin_name(format!("qpslab {}", path.join(" ")));
    out!("{}", cmd.render_long_help());
    if path.len() == 1 && LOAD_COMMANDS.contains(&path[0].as_str()) {
        print_workload_options(&[]);
    }
    true
}

/// Parses a command line already in qpslab's word order.
fn parse_shaped(argv: &[String]) -> Result<Cli, clap::Error> {
    let is_load = argv
        .get(1)
        .is_some_and(|c| LOAD_COMMANDS.contains(&c.as_str()));
    if !is_load {
        return parse_with_help(argv);
    }
    let (values, rest) = split_workload_options(&argv[2..], &argv[1])
        .map_err(|m| clap::Error::raw(clap::error::ErrorKind::ValueValidation, m))?;
    let words: Vec<String> = argv[..2].iter().chain(rest.iter()).cloned().collect();
    let mut cli = parse_with_help(&words)?;
    match &mut cli.cmd {
        Cmd::Run(a) | Cmd::Prepare(a) | Cmd::Cleanup(a) | Cmd::Check(a) => a.options = values,
        Cmd::Sweep(s) => s.load.options = values,
        Cmd::Command(c) => c.load.options = values,
        _ => {}
    }
    Ok(cli)
}

/// Parses a command line that sysbench mode built (program name first):
/// sysbench's general options translated, its word order shaped.
pub(crate) fn parse_translated(argv: &[String]) -> Result<Cli, String> {
    let (words, _notes) = sysbench_general::translate(argv)?;
    parse_shaped(&sysbench_shape(&words)).map_err(|e| one_line(&e))
}

/// Parses the command line; a mistake is one line on stderr and exit 2
/// (help and version print as clap prints them; a load command's help
/// adds the workload's own options, as sysbench's `help` does).
pub(crate) fn parse_command_line() -> Cli {
    use clap::error::ErrorKind;
    let (words, notes) = match sysbench_general::translate(&std::env::args().collect::<Vec<_>>()) {
        Ok(x) => x,
        Err(m) => {
            errln!("qpslab: {m}");
            exit(2)
        }
    };
    for n in &notes {
        errln!("note: {n}");
    }
    let argv = sysbench_shape(&words);
    match parse_shaped(&argv) {
        Ok(c) => c,
        Err(e) => match e.kind() {
            ErrorKind::DisplayHelp
                if argv
                    .get(1)
                    .is_some_and(|c| LOAD_COMMANDS.contains(&c.as_str())) =>
            {
                out!("{}", e.render());
                print_workload_options(&argv[2..]);
                exit(0)
            }
            ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
                // clap's own text (no colours), on the stream clap would
                // use, through out's writers: a closed or full stdout is
                // handled as every other command's.
                if e.use_stderr() {
                    errout!("{}", e.render());
                } else {
                    out!("{}", e.render());
                }
                exit(e.exit_code())
            }
            _ => {
                errln!("qpslab: {}", one_line(&e));
                exit(2)
            }
        },
    }
}

/// Exits with `code` after `out::settle` (which says on stderr when the
/// output could not be written, and turns a 0 into its exit code).
fn exit(code: i32) -> ! {
    std::process::exit(crate::out::settle(code))
}

/// A clap error as one line: `--rand-type 'weird' is not one of uniform,
/// …` for a bad choice, else clap's first line with its tip.
pub fn one_line(e: &clap::Error) -> String {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    if e.kind() == ErrorKind::InvalidValue {
        if let (Some(ContextValue::String(arg)), Some(ContextValue::String(val))) = (
            e.get(ContextKind::InvalidArg),
            e.get(ContextKind::InvalidValue),
        ) {
            let flag = arg.split_whitespace().next().unwrap_or(arg);
            if val.trim().is_empty() {
                return format!("{flag} was given an empty value: give it one (see --help)");
            }
            return match e.get(ContextKind::ValidValue) {
                Some(ContextValue::Strings(v)) if !v.is_empty() => {
                    format!("{flag} '{val}' is not one of {}", v.join(", "))
                }
                _ => format!("{flag} '{val}' is not a valid value"),
            };
        }
    }
    let usage = match e.get(ContextKind::Usage) {
        Some(ContextValue::StyledStr(u)) => u.to_string(),
        _ => String::new(),
    };
    let usage = usage.trim().trim_start_matches("Usage:").trim();
    if e.kind() == ErrorKind::MissingRequiredArgument {
        if let Some(ContextValue::Strings(missing)) = e.get(ContextKind::InvalidArg) {
            let command: Vec<&str> = usage
                .split_whitespace()
                .take_while(|w| !w.starts_with(['-', '[', '<']))
                .collect();
            let command = command.join(" ");
            return format!(
                "missing {}: usage: {usage} (see {command} --help)",
                missing.join(", ")
            );
        }
    }
    let text = e.render().to_string();
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
    let first = lines
        .next()
        .unwrap_or("bad arguments")
        .trim_start_matches("error: ");
    // clap puts what a message is about on the next line ("…: \n <RUN>").
    let first = match first.strip_suffix(':') {
        Some(head) => format!("{head}: {}", lines.next().unwrap_or("")),
        None => first.to_string(),
    };
    match lines.find(|l| l.starts_with("tip:") || l.contains("possible values")) {
        Some(more) => format!("{first} ({more}; see --help)"),
        None => format!("{first} (see --help)"),
    }
}

#[cfg(test)]
mod shape_tests {
    use super::sysbench_shape;

    fn w(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn sysbench_order_becomes_qpslab_order() {
        for (given, want) in [
            (
                "qpslab oltp_read_write.lua --threads=8 --time=60 run",
                "qpslab run oltp_read_write.lua --threads=8 --time=60",
            ),
            (
                "qpslab --threads 4 oltp_point_select run",
                "qpslab run oltp_point_select --threads 4",
            ),
            ("qpslab x.lua --tables 2 run", "qpslab run x.lua --tables 2"),
            ("qpslab x.lua help", "qpslab run x.lua --help"),
            ("qpslab x.lua run --tables 2", "qpslab run x.lua --tables 2"),
            (
                "qpslab x.lua prewarm --server t",
                "qpslab command prewarm x.lua --server t",
            ),
            (
                "qpslab prewarm x.lua --db d",
                "qpslab command prewarm x.lua --db d",
            ),
            // qpslab's own order, and anything else, stay as they are.
            ("qpslab run x.lua --tables 2", "qpslab run x.lua --tables 2"),
            ("qpslab runs --last 3", "qpslab runs --last 3"),
            ("qpslab typo word", "qpslab typo word"),
        ] {
            assert_eq!(sysbench_shape(&w(given)), w(want), "{given}");
        }
    }
}
