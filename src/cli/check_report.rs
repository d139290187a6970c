//! How a `check` command prints what it found, for every family alike: as
//! JSON, the family's document and `violated`; as text, one line per
//! condition (`LABEL: ok` or `LABEL: VIOLATED, e.g. …`), the family's
//! notes, then the verdict. Owns that wording (tests compare it), not what
//! the conditions are (the family's check in workload/).
//!
//! To adopt (a family's `check` in cli/): map each condition to a
//! [`Condition`] and call [`print`] with the document JSON shows; return
//! its exit code.

use serde::Serialize;

/// One condition as printed.
pub(super) struct Condition<'a> {
    /// What the line starts with (what the condition requires).
    pub label: String,
    /// Its offenders (none: it holds).
    pub violations: &'a [String],
}

/// Prints a check's conditions, `json` as `{doc_key: doc, "violated": N}`,
/// else as lines with `notes` before the verdict; returns the exit code (1
/// when a condition is broken).
pub(super) fn print(
    json: bool,
    (doc_key, doc): (&str, &impl Serialize),
    conditions: &[Condition<'_>],
    notes: &[String],
) -> anyhow::Result<i32> {
    let broken = conditions
        .iter()
        .filter(|c| !c.violations.is_empty())
        .count();
    if json {
        let mut m = serde_json::Map::new();
        m.insert(doc_key.to_string(), serde_json::to_value(doc)?);
        m.insert("violated".to_string(), broken.into());
        outln!("{}", serde_json::Value::Object(m));
    } else {
        for c in conditions {
            if c.violations.is_empty() {
                outln!("{}: ok", c.label);
            } else {
                outln!("{}: VIOLATED, e.g. {}", c.label, c.violations.join(" | "));
            }
        }
        for n in notes {
            outln!("{n}");
        }
        if broken == 0 {
            outln!("consistent: all {} conditions hold", conditions.len());
        } else {
            outln!(
                "INCONSISTENT: {broken} of {} conditions violated",
                conditions.len()
            );
        }
    }
    Ok(i32::from(broken > 0))
}
