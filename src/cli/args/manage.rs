//! The commands that curate stored runs: tag, note, exclude, delete,
//! baseline, and diff (two runs' server counters). RUN words take ids,
//! ranges and lists: `12`, `12-15`, `3,5,9`.

use super::shared::{StoreArg, TableFormatArg};
use clap::Args;

/// The most runs one RUN word may name (a range like `1-99999999` is a
/// typo, not a wish).
const MAX_RANGE: i64 = 100_000;

/// Run ids from one RUN word: `12`, `12-15` or `3,5,12-15`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct RunIds(pub Vec<i64>);

/// Parses a RUN word (see `RunIds`).
pub(crate) fn run_ids(s: &str) -> Result<RunIds, String> {
    let bad = || {
        format!("'{s}' is not a run: give an id (12), a range (12-15) or a list (3,5,9); see `qpslab runs`")
    };
    let mut ids = Vec::new();
    for part in s.split(',').map(str::trim) {
        let (lo, hi) = match part.split_once('-') {
            Some((a, b)) => (a.trim().parse::<i64>(), b.trim().parse::<i64>()),
            None => (part.parse::<i64>(), part.parse::<i64>()),
        };
        let (Ok(lo), Ok(hi)) = (lo, hi) else {
            return Err(bad());
        };
        if lo < 1 || hi < lo || hi - lo >= MAX_RANGE {
            return Err(bad());
        }
        ids.extend(lo..=hi);
    }
    Ok(RunIds(ids))
}

/// The ids of several RUN words, in order, each once.
pub(crate) fn all_ids(words: &[RunIds]) -> Vec<i64> {
    let mut out: Vec<i64> = Vec::new();
    for id in words.iter().flat_map(|w| w.0.iter()) {
        if !out.contains(id) {
            out.push(*id);
        }
    }
    out
}

#[derive(Args, Debug)]
pub(crate) struct TagArgs {
    /// The runs: an id, a range (12-15) or a list (3,5,9).
    #[arg(value_name = "RUN", value_parser = run_ids)]
    pub runs: RunIds,
    /// The tags to add (or remove): words without spaces or commas.
    #[arg(value_name = "TAG", required = true)]
    pub tags: Vec<String>,
    /// Remove the tags instead of adding them.
    #[arg(long, short = 'd')]
    pub remove: bool,
    #[command(flatten)]
    pub store: StoreArg,
}

#[derive(Args, Debug)]
pub(crate) struct NoteArgs {
    /// The runs: an id, a range (12-15) or a list (3,5,9).
    #[arg(value_name = "RUN", value_parser = run_ids)]
    pub runs: RunIds,
    /// The note (replaces the one before); quote it in the shell.
    #[arg(
        value_name = "TEXT",
        required_unless_present = "clear",
        conflicts_with = "clear"
    )]
    pub text: Option<String>,
    /// Remove the note.
    #[arg(long)]
    pub clear: bool,
    #[command(flatten)]
    pub store: StoreArg,
}

#[derive(Args, Debug)]
pub(crate) struct ExcludeArgs {
    /// The runs: ids, ranges (12-15) or lists (3,5,9).
    #[arg(value_name = "RUN", value_parser = run_ids, required = true)]
    pub runs: Vec<RunIds>,
    /// Take the runs back into analyses.
    #[arg(long)]
    pub undo: bool,
    #[command(flatten)]
    pub store: StoreArg,
}

#[derive(Args, Debug)]
pub(crate) struct DeleteArgs {
    /// The runs: ids, ranges (12-15) or lists (3,5,9).
    #[arg(value_name = "RUN", value_parser = run_ids, required = true)]
    pub runs: Vec<RunIds>,
    /// Delete without asking (needed when stdin is not a terminal).
    #[arg(long, short = 'y')]
    pub yes: bool,
    #[command(flatten)]
    pub store: StoreArg,
}

#[derive(Args, Debug)]
pub(crate) struct BaselineArgs {
    /// Pin this run as its workload's baseline (for its label when it has
    /// one) [default: none: list the pinned baselines].
    #[arg(value_name = "RUN", conflicts_with_all = ["list", "clear"])]
    pub run: Option<i64>,
    /// List the pinned baselines.
    #[arg(long)]
    pub list: bool,
    /// Unpin the baseline of this workload (with --label: that label's)
    /// [default: none: pin RUN, or list].
    #[arg(long, value_name = "WORKLOAD")]
    pub clear: Option<String>,
    /// With --clear: the label whose baseline is unpinned [default: none:
    /// the workload's baseline for any label].
    #[arg(long, requires = "clear")]
    pub label: Option<String>,
    #[command(flatten)]
    pub store: StoreArg,
}

#[derive(Args, Debug)]
pub(crate) struct DiffArgs {
    /// Run A (the reference); alone: diffed against its workload's pinned
    /// baseline (`qpslab baseline`).
    #[arg(value_name = "A")]
    pub run_a: i64,
    /// Run B, compared with A.
    #[arg(value_name = "B")]
    pub run_b: Option<i64>,
    /// Show every counter, those zero in both runs too.
    #[arg(long)]
    pub all: bool,
    #[command(flatten)]
    pub store: StoreArg,
    #[command(flatten)]
    pub format: TableFormatArg,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prune_dates_are_days_or_utc_instants() {
        assert_eq!(prune_date("2026-01-31").unwrap(), "2026-01-31");
        assert_eq!(
            prune_date("2026-01-31T12:00:00Z").unwrap(),
            "2026-01-31T12:00:00Z"
        );
        for bad in [
            "",
            "2026",
            "2026-13-01",
            "26-01-31",
            "2026-01-31 12:00",
            "yesterday",
            "2026-01-3x",
        ] {
            assert!(prune_date(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn run_words_take_ids_ranges_and_lists() {
        assert_eq!(run_ids("12").unwrap().0, vec![12]);
        assert_eq!(run_ids("12-14").unwrap().0, vec![12, 13, 14]);
        assert_eq!(run_ids("3,5-6").unwrap().0, vec![3, 5, 6]);
        for bad in ["", "x", "5-3", "0", "-2", "1-999999999", "3,,4"] {
            assert!(run_ids(bad).is_err(), "{bad:?}");
        }
        let words = [run_ids("3-4").unwrap(), run_ids("4,1").unwrap()];
        assert_eq!(all_ids(&words), vec![3, 4, 1]);
    }
}

/// What `export` writes.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq)]
pub(crate) enum ExportFormat {
    /// OpenMetrics text with the samples' own timestamps (promtool tsdb
    /// create-blocks-from openmetrics backfills it into Prometheus).
    Openmetrics,
}

#[derive(Args, Debug)]
pub(crate) struct ExportArgs {
    /// The runs: ids, ranges (12-15) or lists (3,5,9); or give --campaign.
    #[arg(value_name = "RUN", value_parser = run_ids, required_unless_present = "campaign")]
    pub runs: Vec<RunIds>,
    /// Every finished run of this campaign (its host tests included)
    /// [default: none: give RUN].
    #[arg(long, conflicts_with = "runs")]
    pub campaign: Option<i64>,
    /// The format.
    #[arg(long, value_enum, default_value_t = ExportFormat::Openmetrics)]
    pub format: ExportFormat,
    /// Output file [default: stdout].
    #[arg(long, short = 'o')]
    pub output: Option<std::path::PathBuf>,
    #[command(flatten)]
    pub store: StoreArg,
}

/// `qpslab store …`.
#[derive(clap::Subcommand, Debug)]
pub(crate) enum StoreCmd {
    /// Copy runs (with their samples, statements, histograms, counters,
    /// profiles, tags, baseline pins and campaigns) from one store into
    /// another: SQLite → server, server → SQLite or SQLite → SQLite. Ids
    /// are the destination's; a run the destination already holds (by its
    /// uid) is skipped, so copying again adds nothing.
    Copy(StoreCopyArgs),
    /// Delete the runs started before a date, with their samples,
    /// statements, histograms, counters and profiles: prints what goes
    /// (runs, samples, MB) and asks first (--yes where stdin is not a
    /// terminal). Pinned baselines and running runs are always kept. The
    /// file keeps its size until `qpslab store vacuum`.
    Prune(StorePruneArgs),
    /// Give the space of deleted runs back to the file system: rewrites
    /// the store without its free pages (SQLite's VACUUM; needs free disk
    /// about the store's size while it runs) and says how much it gained.
    Vacuum(StoreVacuumArgs),
}

#[derive(Args, Debug)]
pub(crate) struct StorePruneArgs {
    /// Delete the runs started before this day (YYYY-MM-DD, UTC) or
    /// instant (YYYY-MM-DDTHH:MM:SSZ).
    #[arg(long, value_name = "DATE", value_parser = prune_date, required = true)]
    pub before: String,
    /// Keep the runs that belong to a campaign or a sweep.
    #[arg(long)]
    pub keep_campaigns: bool,
    /// Keep the runs that have a tag (`qpslab tag`).
    #[arg(long)]
    pub keep_tagged: bool,
    /// Print what would be deleted and delete nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Delete without asking (needed when stdin is not a terminal).
    #[arg(long, short = 'y')]
    pub yes: bool,
    #[command(flatten)]
    pub store: StoreArg,
}

/// Parses `--before`: a day or a UTC instant, in the store's own form
/// (runs' start times are RFC 3339 UTC, compared as text).
pub(crate) fn prune_date(s: &str) -> Result<String, String> {
    let bad = || {
        format!("'{s}' is not a date: give YYYY-MM-DD (e.g. 2026-01-31) or YYYY-MM-DDTHH:MM:SSZ")
    };
    let s = s.trim();
    let day = s.get(..10).filter(|d| d.is_ascii()).ok_or_else(bad)?;
    let digits = |r: std::ops::Range<usize>| day[r].bytes().all(|b| b.is_ascii_digit());
    let shaped =
        digits(0..4) && &day[4..5] == "-" && digits(5..7) && &day[7..8] == "-" && digits(8..10);
    let (m, d): (u32, u32) = (
        day[5..7].parse().unwrap_or(0),
        day[8..10].parse().unwrap_or(0),
    );
    if !shaped || !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return Err(bad());
    }
    match &s[10..] {
        "" => Ok(day.to_string()),
        t if t.len() == 10 && t.starts_with('T') && t.ends_with('Z') => Ok(s.to_string()),
        _ => Err(bad()),
    }
}

#[derive(Args, Debug)]
pub(crate) struct StoreVacuumArgs {
    #[command(flatten)]
    pub store: StoreArg,
}

#[derive(Args, Debug)]
pub(crate) struct StoreCopyArgs {
    /// The store to copy from: a SQLite file, or
    /// mysql://user[:password]@host[:port]/db (password also from
    /// MYSQL_PWD, else asked).
    #[arg(value_name = "FROM")]
    pub from: String,
    /// The store to copy into (created or migrated as needed): a SQLite
    /// file, or a mysql:// server store.
    #[arg(value_name = "TO")]
    pub to: String,
    /// Only these runs of FROM: ids, ranges and lists (`1,2,5-9`)
    /// [default: every finished run].
    #[arg(long, value_name = "RUNS", value_parser = run_ids, conflicts_with = "campaign")]
    pub runs: Option<RunIds>,
    /// Only this campaign (or sweep) of FROM, with its runs [default:
    /// every finished run].
    #[arg(long, value_name = "ID")]
    pub campaign: Option<i64>,
}
