//! What a run is tagged with when it is recorded: its series (label,
//! variant), its campaign point, its command line and pre-flight check.

/// Series naming and campaign membership of a run.
#[derive(Default, Clone)]
pub struct RunTags {
    /// The series' label (e.g. a server build); None: unlabelled.
    pub label: Option<String>,
    /// The variant (a configuration change) within the label.
    pub variant: Option<String>,
    /// The campaign the run belongs to.
    pub campaign_id: Option<i64>,
    /// The campaign point the run measures (its hash; see `campaign`).
    pub point_hash: Option<String>,
    /// The command line as it may be recorded (secrets already removed).
    pub command_line: String,
    /// The campaign round's pre-flight host check, kept in the run's host
    /// document.
    pub preflight: Option<crate::stats::document::Preflight>,
}
