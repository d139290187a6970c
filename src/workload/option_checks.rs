//! Checked readers of a family's option values: a count within a range, a
//! whole number, a plain table-option word, each failing with the one-line
//! error the families word alike (`--name must be from MIN to MAX, got N`).
//! Owns the wording of these checks; the options themselves (declarations,
//! parsing, defaults) are options.rs's, and what a family's values must
//! satisfy together stays the family's.
//!
//! To adopt (a family's `from_values`): read `v.count_in("name", min,
//! max)?` where it read `v.count("name")` and checked the range, check a
//! value computed after reading with [`in_range`], a table option or
//! engine text with [`plain_word`].

use super::options::OptValues;

/// `--name` as the user types it (underscores as dashes).
fn flag(name: &str) -> String {
    name.replace('_', "-")
}

/// Ok unless `n` is outside `min..=max`: `--name must be from MIN to MAX,
/// got N`.
pub(crate) fn in_range(name: &str, n: u32, min: u32, max: u32) -> Result<u32, String> {
    if n < min || n > max {
        return Err(format!(
            "--{} must be from {min} to {max}, got {n}",
            flag(name)
        ));
    }
    Ok(n)
}

/// Ok when `v` holds only what a table option or engine name needs
/// (letters, digits, `_= ,'`).
pub(crate) fn plain_word(name: &str, v: &str) -> Result<(), String> {
    if v.chars()
        .all(|c| c.is_ascii_alphanumeric() || "_= ,'".contains(c))
    {
        Ok(())
    } else {
        Err(format!(
            "--{}: '{v}' has characters a table option never needs",
            flag(name)
        ))
    }
}

impl OptValues {
    /// A count option's value, checked to be from `min` to `max`.
    pub(crate) fn count_in(&self, name: &str, min: u32, max: u32) -> Result<u32, String> {
        in_range(name, self.count(name), min, max)
    }

    /// A text option's value as a whole number (`--name 'x' is not a
    /// whole number`).
    pub(crate) fn whole(&self, name: &str) -> Result<u64, String> {
        let text = self.text(name);
        text.trim().parse().map_err(|_| {
            format!(
                "--{} '{}' is not a whole number",
                flag(name),
                text.escape_debug()
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::options::{OptKind, OptSpec};

    #[test]
    fn checks_keep_the_families_wording() {
        let mut v = OptValues::new(vec![
            OptSpec::new("think_time", OptKind::Count, "0", ""),
            OptSpec::new("maxid1", OptKind::Text, "10", ""),
        ]);
        assert_eq!(v.count_in("think_time", 0, 5), Ok(0));
        v.set("think_time", "7").expect("set");
        assert_eq!(
            v.count_in("think_time", 0, 5),
            Err("--think-time must be from 0 to 5, got 7".to_string())
        );
        assert_eq!(v.whole("maxid1"), Ok(10));
        v.set("maxid1", "x1").expect("set");
        assert_eq!(
            v.whole("maxid1"),
            Err("--maxid1 'x1' is not a whole number".to_string())
        );
        assert!(plain_word("table_options", "ROW_FORMAT=COMPRESSED").is_ok());
        assert_eq!(
            plain_word("storage_engine", "a;b"),
            Err("--storage-engine: 'a;b' has characters a table option never needs".to_string())
        );
    }
}
