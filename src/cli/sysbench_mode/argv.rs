//! sysbench 1.0.20's command line, parsed as sysbench parses it: words
//! that start with `--` are options (`--name=value`, or `--name` alone
//! for on), anywhere on the line; the first other word names the test,
//! the second its command, a third is refused. An option given twice
//! takes its last value (wrappers append overrides). Names compare with
//! `-` and `_` alike; sysbench's messages name an option with `_`. The
//! deprecated `--test=NAME` names the test (the last one given wins, over
//! a positional word too), so the first word is then the command; each
//! one is warned of on stderr as it is read.

/// A parse failure: the text sysbench prints, on its stream, and the
/// exit code (always 1 in 1.0.20).
#[derive(Debug, PartialEq)]
pub enum Refusal {
    /// Printed on stderr, before the banner (bad general option values).
    Stderr(String),
    /// Printed on stdout, before the banner (`FATAL: …` range checks).
    Stdout(String),
}

/// The words of a sysbench command line.
#[derive(Debug, Default, Clone)]
pub struct SbArgs {
    /// The test: a built-in name, a bundled script's name or a script path.
    pub test: Option<String>,
    /// The command (`prepare`, `run`, `cleanup`, `help`, a script's own).
    pub command: Option<String>,
    /// Every option in order: (name with `-`, value as typed; None when
    /// given without `=`), and the word as typed.
    pub opts: Vec<(String, Option<String>, String)>,
    /// The whole command line, program name first (a script's
    /// `sysbench.cmdline.argv`).
    pub argv: Vec<String>,
    /// How many `--test=NAME` words the line has: sysbench warns of each
    /// on stderr while it parses, before anything else.
    pub test_option: usize,
}

/// sysbench 1.0.20's warning for each `--test=NAME`.
pub const TEST_OPTION_WARNING: &str = "WARNING: the --test option is deprecated. You can pass a script name or path on the command line without any options.";

/// The general options sysbench 1.0.20 knows before it loads a test.
pub const GENERAL: [&str; 29] = [
    "threads",
    "events",
    "time",
    "forced-shutdown",
    "thread-stack-size",
    "rate",
    "report-interval",
    "report-checkpoints",
    "debug",
    "validate",
    "help",
    "version",
    "config-file",
    "tx-rate",
    "max-requests",
    "max-time",
    "num-threads",
    "rand-type",
    "rand-spec-iter",
    "rand-spec-pct",
    "rand-spec-res",
    "rand-seed",
    "rand-pareto-h",
    "verbosity",
    "percentile",
    "histogram",
    "db-driver",
    "db-ps-mode",
    "db-debug",
];

/// Splits `argv` (program name first) into options and positional words.
pub fn split(argv: &[String]) -> Result<SbArgs, Refusal> {
    let mut a = SbArgs {
        argv: argv.to_vec(),
        ..SbArgs::default()
    };
    for w in argv.iter().skip(1) {
        if let Some(name) = w.strip_prefix("--test=") {
            // (sysbench sets the test's name and reads on; a positional
            // word already taken as the test is replaced)
            a.test_option += 1;
            a.test = Some(name.to_string());
        } else if let Some(body) = w.strip_prefix("--") {
            let (name, value) = match body.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (body, None),
            };
            a.opts.push((name.replace('_', "-"), value, w.clone()));
        } else if a.test.is_none() {
            a.test = Some(w.clone());
        } else if a.command.is_none() {
            a.command = Some(w.clone());
        } else {
            return Err(Refusal::Stderr(format!(
                "{}Unrecognized command line argument: {w}",
                format!("{TEST_OPTION_WARNING}\n").repeat(a.test_option)
            )));
        }
    }
    Ok(a)
}

impl SbArgs {
    /// The last value given for `name` (`-` or `_`): Some(None) when the
    /// last one had no `=value`.
    pub fn last(&self, name: &str) -> Option<Option<&str>> {
        let name = name.replace('_', "-");
        self.opts
            .iter()
            .rev()
            .find(|(n, _, _)| *n == name)
            .map(|(_, v, _)| v.as_deref())
    }

    /// Whether `name` was given at all.
    pub fn given(&self, name: &str) -> bool {
        self.last(name).is_some()
    }

    /// An integer option (sysbench's N): the last value, else `default`.
    pub fn int(&self, name: &str, default: i64) -> Result<i64, Refusal> {
        match self.last(name) {
            None => Ok(default),
            Some(v) => {
                let v = v.unwrap_or("");
                v.parse::<i64>().map_err(|_| invalid(name, v))
            }
        }
    }

    /// A floating-point option (sysbench's DOUBLE).
    pub fn double(&self, name: &str, default: f64) -> Result<f64, Refusal> {
        match self.last(name) {
            None => Ok(default),
            Some(v) => {
                let v = v.unwrap_or("");
                v.parse::<f64>().map_err(|_| invalid(name, v))
            }
        }
    }

    /// A size option (sysbench's SIZE: a number with an optional
    /// K/M/G/T suffix, powers of 1024).
    pub fn size(&self, name: &str, default: u64) -> Result<u64, Refusal> {
        match self.last(name) {
            None => Ok(default),
            Some(v) => parse_size(v.unwrap_or("")).ok_or_else(|| invalid(name, v.unwrap_or(""))),
        }
    }

    /// A string option.
    pub fn text<'a>(&'a self, name: &str, default: &'a str) -> &'a str {
        match self.last(name) {
            None => default,
            Some(v) => v.unwrap_or(""),
        }
    }

    /// A boolean option: None when its value is not one sysbench takes
    /// (sysbench then refuses the option as invalid, after its banner).
    pub fn flag(&self, name: &str) -> Option<bool> {
        match self.last(name) {
            None => Some(false),
            Some(v) => parse_bool(v),
        }
    }

    /// A comma-separated list option (`--report-checkpoints=10,20`).
    pub fn list(&self, name: &str) -> Vec<String> {
        match self.last(name) {
            Some(Some(v)) if !v.is_empty() => v.split(',').map(str::to_string).collect(),
            _ => Vec::new(),
        }
    }
}

/// The general options that are on/off.
const GENERAL_FLAGS: [&str; 6] = [
    "debug",
    "validate",
    "help",
    "version",
    "histogram",
    "db-debug",
];

impl SbArgs {
    /// The first general on/off option given a value that is neither, as
    /// typed: sysbench leaves it for the test's options, which refuse it
    /// (`invalid option:`, after the banner).
    pub fn bad_general_flag(&self) -> Option<&str> {
        self.opts
            .iter()
            .find(|(n, v, _)| {
                GENERAL_FLAGS.contains(&n.as_str()) && parse_bool(v.as_deref()).is_none()
            })
            .map(|(_, _, word)| word.as_str())
    }
}

/// sysbench's boolean values (no value: on).
pub fn parse_bool(v: Option<&str>) -> Option<bool> {
    match v.map(str::to_ascii_lowercase).as_deref() {
        None | Some("on" | "true" | "yes" | "1") => Some(true),
        Some("off" | "false" | "no" | "0") => Some(false),
        _ => None,
    }
}

pub use crate::workload::parse_size;

fn invalid(name: &str, v: &str) -> Refusal {
    Refusal::Stderr(format!(
        "Invalid value for the '{}' option: '{v}'",
        name.replace('-', "_")
    ))
}

/// sysbench's general options, read from the command line.
#[derive(Debug, Clone)]
pub struct General {
    /// --threads (or the deprecated --num-threads).
    pub threads: u32,
    /// --events (--max-requests); 0 = no limit.
    pub events: u64,
    /// --time (--max-time) in seconds; 0 = no limit.
    pub time: u64,
    /// --rate (--tx-rate), events/s; 0 = closed loop.
    pub rate: u64,
    /// --report-interval in seconds; 0 = none.
    pub report_interval: u64,
    /// --report-interval as given (sysbench echoes a negative one and
    /// then never reports).
    pub report_interval_given: i64,
    /// --report-checkpoints, seconds from the start.
    pub report_checkpoints: Vec<u64>,
    /// --verbosity, 0..5 (3 by default).
    pub verbosity: u32,
    /// --percentile, 0 (off) or 1..100.
    pub percentile: u32,
    /// --histogram.
    pub histogram: bool,
    /// --db-debug: the driver's debug statistics after the SQL
    /// statistics (at --verbosity=5).
    pub db_debug: bool,
    /// --rand-seed; 0 = from the current time.
    pub rand_seed: u64,
    /// --rand-type.
    pub rand_type: String,
    /// --debug (it also raises the verbosity to 5).
    pub debug: bool,
    /// --validate.
    pub validate: bool,
    /// --forced-shutdown: seconds after --time to stop a hung run (None:
    /// off, or no time limit).
    pub forced_shutdown_s: Option<u64>,
    /// --help was given (on).
    pub help: bool,
    /// --version was given (on).
    pub version: bool,
    /// Warnings for deprecated names, printed before the banner.
    pub warnings: Vec<String>,
}

impl General {
    /// Reads the general options; a bad value is refused as sysbench
    /// refuses it (stream, text).
    pub fn read(a: &SbArgs) -> Result<General, Refusal> {
        let mut warnings = Vec::new();
        let mut pick = |new: &str, old: &str, default: i64| -> Result<i64, Refusal> {
            // the deprecated alias counts when it comes after the new name
            let newer = a.opts.iter().rposition(|(n, _, _)| n == new);
            let older = a.opts.iter().rposition(|(n, _, _)| n == old);
            // (1.0.20 warns when the alias is set off its own default:
            // 1 thread, else 0)
            let alias_default = if old == "num-threads" { 1 } else { 0 };
            if older.is_some() && a.int(old, alias_default)? != alias_default {
                warnings.push(format!(
                    "WARNING: --{old} is deprecated, use --{new} instead"
                ));
            }
            match (newer, older) {
                (_, Some(o)) if newer.is_none_or(|n| o > n) => a.int(old, default),
                _ => a.int(new, default),
            }
        };
        let threads = pick("threads", "num-threads", 1)?;
        let events = pick("events", "max-requests", 0)?;
        let time = pick("time", "max-time", 10)?;
        let rate = pick("rate", "tx-rate", 0)?;
        let report_interval = a.int("report-interval", 0)?;
        let verbosity = a.int("verbosity", 3)?;
        let percentile = a.int("percentile", 95)?;
        let rand_seed = a.int("rand-seed", 0)?;
        if events == 0 && time == 0 {
            warnings.push(
                "WARNING: Both event and time limits are disabled, running an endless test".into(),
            );
        }
        let forced_shutdown_s = forced_shutdown(a, time)?;
        let rand_type = a.text("rand-type", "special");
        let debug = a.flag("debug").unwrap_or(false);
        let verbosity = if debug { 5 } else { verbosity };
        let mut report_checkpoints = Vec::new();
        for c in a.list("report-checkpoints") {
            match c.parse::<u64>() {
                Ok(s) if s <= i32::MAX as u64 => report_checkpoints.push(s),
                _ => {
                    return Err(Refusal::Stdout(format!(
                        "FATAL: Invalid value for --report-checkpoints: '{c}'"
                    )))
                }
            }
        }
        report_checkpoints.sort_unstable();
        if !(0..=5).contains(&verbosity) {
            // (sysbench keeps it in a byte: -1 reads 255)
            return Err(Refusal::Stdout(format!(
                "Invalid value for verbosity: {}",
                verbosity.rem_euclid(256)
            )));
        }
        if !(0..=100).contains(&percentile) {
            return Err(Refusal::Stdout(format!(
                "FATAL: Invalid value for --percentile: {percentile}"
            )));
        }
        if threads <= 0 {
            return Err(Refusal::Stdout(format!(
                "FATAL: Invalid value for --threads: {threads}.\n"
            )));
        }
        Ok(General {
            threads: threads as u32,
            events: events.max(0) as u64,
            time: time.max(0) as u64,
            rate: rate.max(0) as u64,
            report_interval: report_interval.max(0) as u64,
            report_interval_given: report_interval,
            report_checkpoints,
            verbosity: verbosity.clamp(0, 5) as u32,
            percentile: percentile as u32,
            histogram: a.flag("histogram").unwrap_or(false),
            db_debug: a.flag("db-debug").unwrap_or(false),
            rand_seed: rand_seed as u64,
            rand_type: rand_type.to_string(),
            debug,
            validate: a.flag("validate").unwrap_or(false),
            forced_shutdown_s,
            help: a.flag("help").unwrap_or(false),
            version: a.flag("version").unwrap_or(false),
            warnings,
        })
    }
}

impl General {
    /// What the option echo says (report::host_text).
    pub fn echo(&self) -> crate::report::host_text::Echo {
        crate::report::host_text::Echo {
            threads: self.threads,
            rate: self.rate,
            report_interval: self.report_interval_given,
            checkpoints: self.report_checkpoints.clone(),
            debug: self.debug,
            validate: self.validate,
            rand_seed: self.rand_seed,
            forced_shutdown_s: self.forced_shutdown_s,
        }
    }
}

/// --forced-shutdown with a time limit of `time` s: N seconds, N% of the
/// time, `off` (the default), or no value (a twentieth of the time).
fn forced_shutdown(a: &SbArgs, time: i64) -> Result<Option<u64>, Refusal> {
    if time <= 0 {
        return Ok(None);
    }
    let time = time as u64;
    let v = match a.last("forced-shutdown") {
        None => return Ok(None),
        Some(None) => return Ok(Some(time + time / 20)),
        Some(Some(v)) => v,
    };
    if v.eq_ignore_ascii_case("off") {
        return Ok(None);
    }
    let bad = || Refusal::Stdout(format!("FATAL: Invalid value for --forced-shutdown: '{v}'"));
    let (digits, percent) = match v.strip_suffix('%') {
        Some(d) => (d, true),
        None => (v, false),
    };
    let n: u64 = digits.parse().map_err(|_| bad())?;
    Ok(Some(time + if percent { n * time / 100 } else { n }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn the_test_option_names_the_test_and_the_first_word_is_the_command() {
        let a = split(&w("sysbench --test=a.lua --test=b.lua --events=2 run")).unwrap();
        assert_eq!(a.test.as_deref(), Some("b.lua"));
        assert_eq!(a.command.as_deref(), Some("run"));
        assert_eq!(a.test_option, 2);
        assert!(a.opts.iter().all(|o| o.0 != "test"), "not an option");
        // (a word taken as the test is replaced; the next is the command)
        let a = split(&w("sysbench cpu --test=a.lua run")).unwrap();
        assert_eq!(
            (a.test.as_deref(), a.command.as_deref()),
            (Some("a.lua"), Some("run"))
        );
        assert_eq!(
            split(&w("sysbench --test=a.lua cpu run")).unwrap_err(),
            Refusal::Stderr(format!(
                "{TEST_OPTION_WARNING}\nUnrecognized command line argument: run"
            ))
        );
    }

    #[test]
    fn the_last_occurrence_wins_and_words_go_where_sysbench_puts_them() {
        let a = split(&w(
            "sysbench --threads=8 oltp_read_only --tables=2 --threads=1 run",
        ))
        .unwrap();
        assert_eq!(a.test.as_deref(), Some("oltp_read_only"));
        assert_eq!(a.command.as_deref(), Some("run"));
        let g = General::read(&a).unwrap();
        assert_eq!(g.threads, 1);
        assert_eq!(a.int("table_size", 10000).unwrap(), 10000);
        assert_eq!(
            split(&w("sysbench --threads 2 cpu run")).unwrap_err(),
            Refusal::Stderr("Unrecognized command line argument: run".into())
        );
        let a = split(&w("sysbench --threads=5x cpu run")).unwrap();
        assert_eq!(
            General::read(&a).unwrap_err(),
            Refusal::Stderr("Invalid value for the 'threads' option: '5x'".into())
        );
        let a = split(&w("sysbench --num_threads=2 cpu run")).unwrap();
        let g = General::read(&a).unwrap();
        assert_eq!((g.threads, g.warnings.len()), (2, 1));
        let a = split(&w("sysbench --num-threads=1 cpu run")).unwrap();
        assert_eq!(General::read(&a).unwrap().warnings.len(), 0);
        let a = split(&w("sysbench --max-time=5 cpu run")).unwrap();
        assert_eq!(General::read(&a).unwrap().warnings.len(), 1);
        assert_eq!(parse_size("64K"), Some(65536));
        assert_eq!(parse_size("2g"), Some(2 << 30));
        assert_eq!(parse_size("x"), None);
        assert_eq!(parse_bool(None), Some(true));
        assert_eq!(parse_bool(Some("maybe")), None);
    }
}
