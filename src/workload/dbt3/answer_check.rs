//! The queries' answers at the validation parameters compared with a
//! reference answer set (`check dbt3 --answers DIR`): the published
//! TPC-H answers at SF 1, or another engine's on the same rows (the test
//! harness's DuckDB at SF 0.01). Runs the queries on the connection it is
//! given; reads no file (its caller hands it each reference's text).
//!
//! A reference is TPC-H's answer-file form: a header line of column
//! names, then one row a line, fields separated by `|` (padding around a
//! field is ignored). The spec's rules for a match (clause 2.1.3.5): the
//! same rows in the same order; text and counts exactly; sums and ratios
//! rounded to cents (a difference of at most 0.01, the two roundings may
//! fall either side of a half cent); averages within 1%.

use super::qgen_params::validation;
use super::query_text::{answer_statement, statements};
use crate::protocol::Conn;
use anyhow::{Context, Result};
use std::collections::BTreeMap;

/// The most differences told for one query.
const MAX_TOLD: usize = 3;

/// One query's answer against its reference.
#[derive(Debug, Clone, serde::Serialize)]
pub struct AnswerCheck {
    /// The query's number.
    pub query: u32,
    /// The rows of the server's answer.
    pub rows: usize,
    /// What differs from the reference (empty: a match), at most a few.
    pub differences: Vec<String>,
}

/// A reference answer: its column names and rows.
struct Reference {
    columns: Vec<String>,
    rows: Vec<Vec<String>>,
}

fn fields(line: &str) -> Vec<String> {
    let line = line.trim_end();
    let line = line.strip_suffix('|').unwrap_or(line);
    line.split('|').map(|f| f.trim().to_string()).collect()
}

fn parse_reference(text: &str) -> Reference {
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let columns = lines
        .next()
        .map(|h| fields(h).into_iter().map(|c| c.to_lowercase()).collect())
        .unwrap_or_default();
    Reference {
        columns,
        rows: lines.map(fields).collect(),
    }
}

/// Whether `ours` matches `theirs` in a column named `column`.
fn value_matches(column: &str, ours: &str, theirs: &str) -> bool {
    if ours == theirs {
        return true;
    }
    match (ours.parse::<f64>(), theirs.parse::<f64>()) {
        (Ok(a), Ok(b)) => {
            let d = (a - b).abs();
            d <= 0.01 + 1e-9 || (column.contains("avg") && d <= 0.01 * b.abs())
        }
        _ => false,
    }
}

/// What differs between a server's answer (`rows`) and the reference's
/// text.
fn differences(rows: &[Vec<Option<String>>], reference: &str) -> Vec<String> {
    let r = parse_reference(reference);
    let mut out = Vec::new();
    if rows.len() != r.rows.len() {
        out.push(format!(
            "{} rows, the reference {}",
            rows.len(),
            r.rows.len()
        ));
    }
    for (i, (ours, theirs)) in rows.iter().zip(&r.rows).enumerate() {
        if ours.len() != theirs.len() {
            out.push(format!(
                "row {}: {} columns, the reference {}",
                i + 1,
                ours.len(),
                theirs.len()
            ));
            continue;
        }
        for (c, (a, b)) in ours.iter().zip(theirs).enumerate() {
            let a = a.as_deref().unwrap_or("NULL").trim();
            let column = r.columns.get(c).map_or("", String::as_str);
            if !value_matches(column, a, b) {
                out.push(format!("row {} {column}: {a}, the reference {b}", i + 1));
            }
        }
    }
    out.truncate(MAX_TOLD);
    out
}

/// Runs `queries` at the validation parameters for scale `sf` and
/// compares each answer with `references` (the reference's text by
/// query number; a query without one is an error).
pub async fn check_answers(
    conn: &mut Conn,
    sf: f64,
    queries: &[u32],
    references: &BTreeMap<u32, String>,
) -> Result<Vec<AnswerCheck>> {
    let mut out = Vec::new();
    for &q in queries {
        let reference = references
            .get(&q)
            .with_context(|| format!("no reference answer for Q{q}"))?;
        let mut answer = Vec::new();
        for (i, s) in statements(q, &validation(q, sf), 0).iter().enumerate() {
            let r = conn.query(s).await.with_context(|| format!("Q{q}"))?;
            if i == answer_statement(q) {
                answer = r.rows;
            }
        }
        out.push(AnswerCheck {
            query: q,
            rows: answer.len(),
            differences: differences(&answer, reference),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(v: &[&str]) -> Vec<Option<String>> {
        v.iter().map(|s| Some(s.to_string())).collect()
    }

    #[test]
    fn answers_match_by_the_spec_rules() {
        let reference = "l_returnflag | sum_qty | avg_qty\nA | 100.00 | 25.50\nN|7.5|3\n";
        assert!(differences(
            &[row(&["A", "100.004", "25.6"]), row(&["N", "7.50", "3.02"])],
            reference
        )
        .is_empty());
        let d = differences(&[row(&["A", "100.02", "25.5"])], reference);
        assert_eq!(d.len(), 2, "{d:?}");
        assert!(d[0].contains("1 rows, the reference 2"), "{d:?}");
        assert!(d[1].contains("row 1 sum_qty: 100.02"), "{d:?}");
        let d = differences(&[row(&["B", "100", "26"])], "f|s|avg\nA|100|25\n");
        assert_eq!(d.len(), 2, "{d:?}");
        assert!(differences(&[vec![None]], "x\nNULL\n").is_empty());
    }
}
