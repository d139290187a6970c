//! Tables for people (aligned text), documents (markdown), scripts (CSV)
//! and pages (HTML, written with maud).

/// How a table (or a document) is written out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Aligned columns for a terminal.
    Text,
    /// A markdown pipe table.
    Markdown,
    /// CSV with a header line (see `csv_text`).
    Csv,
    /// JSON, for the commands that write a document; a plain table prints as text.
    Json,
    /// An HTML table for the UI and reports; in ratio columns (headers
    /// with " / ") a cell marked significant (" *": its interval over
    /// repeats excludes 1.0 ± 5%) is coloured by direction, others grey.
    Html,
}

/// A table of already formatted cells; numeric-looking columns align right.
pub struct Table {
    /// Column titles, one per column.
    pub headers: Vec<String>,
    /// Rows of formatted cells, in display order.
    pub rows: Vec<Vec<String>>,
    /// Ratio columns in the slowdown form (reference / variant): above 1
    /// is worse, so a significant cell above 1 is coloured red.
    pub slowdown: bool,
}

fn numeric(s: &str) -> bool {
    !s.is_empty() && s.parse::<f64>().is_ok()
}

/// Records as CSV: a field is quoted (its quotes doubled) only where it
/// holds a comma, a quote or a line break; each record ends in `\n`;
/// records may differ in length.
pub(crate) fn csv_text<R, F>(records: impl IntoIterator<Item = R>) -> String
where
    R: IntoIterator<Item = F>,
    F: AsRef<[u8]>,
{
    let mut w = csv::WriterBuilder::new()
        .flexible(true)
        .from_writer(Vec::new());
    for r in records {
        // Into a Vec a write cannot fail; should it, the text ends there.
        if w.write_record(r).is_err() {
            break;
        }
    }
    let bytes = w.into_inner().unwrap_or_default();
    String::from_utf8_lossy(&bytes).into_owned()
}

impl Table {
    /// An empty table with these column titles.
    pub fn new(headers: &[&str]) -> Table {
        Table {
            headers: headers.iter().map(|h| h.to_string()).collect(),
            rows: Vec::new(),
            slowdown: false,
        }
    }

    /// Appends a row of formatted cells.
    pub fn push(&mut self, row: Vec<String>) {
        self.rows.push(row);
    }

    /// An HTML table (maud escapes every cell): numeric columns (`right`)
    /// right-aligned, the others `l`; ratio cells classed by significance.
    fn html(&self, right: &[bool]) -> maud::Markup {
        let cell_class = |c: usize, v: &str| -> Option<&'static str> {
            let ratio = self.headers.get(c).is_some_and(|h| h.contains(" / "));
            let lead = v.split_whitespace().next().unwrap_or("").parse::<f64>();
            let significant = v.ends_with(" *");
            let worse = |x: f64| (x < 1.0) != self.slowdown;
            match lead {
                Ok(x) if ratio && significant && worse(x) => Some("lo"),
                Ok(_) if ratio && significant => Some("hi"),
                Ok(_) if ratio => Some("ns"),
                _ if !right.get(c).copied().unwrap_or(true) => Some("l"),
                _ => None,
            }
        };
        maud::html! {
            table {
                tr {
                    @for (c, h) in self.headers.iter().enumerate() {
                        th class=[(!right[c]).then_some("l")] { (h) }
                    }
                }
                @for r in &self.rows {
                    tr {
                        @for (c, v) in r.iter().enumerate() {
                            td class=[cell_class(c, v)] { (v) }
                        }
                    }
                }
            }
        }
    }

    /// Text, markdown, CSV or HTML (JSON is the caller's, from its own
    /// data).
    pub fn render(&self, f: Format) -> String {
        let n = self.headers.len();
        let right: Vec<bool> = (0..n)
            .map(|c| {
                self.rows.iter().all(|r| {
                    r.get(c)
                        .map(|v| v.is_empty() || numeric(v) || v == "-")
                        .unwrap_or(true)
                })
            })
            .collect();
        match f {
            Format::Html => self.html(&right).into_string(),
            Format::Csv => csv_text(std::iter::once(&self.headers).chain(&self.rows)),
            Format::Markdown => {
                let mut o = format!("| {} |\n|", self.headers.join(" | "));
                for &r in &right {
                    o.push_str(if r { "---:|" } else { "---|" });
                }
                o.push('\n');
                for r in &self.rows {
                    o.push_str(&format!("| {} |\n", r.join(" | ")));
                }
                o
            }
            Format::Text | Format::Json => {
                let widths: Vec<usize> = (0..n)
                    .map(|c| {
                        self.rows
                            .iter()
                            .filter_map(|r| r.get(c))
                            .map(|v| v.chars().count())
                            .chain([self.headers[c].len()])
                            .max()
                            .unwrap_or(0)
                    })
                    .collect();
                let line = |cells: &[String]| {
                    let mut s = String::new();
                    for (c, v) in cells.iter().enumerate() {
                        let w = widths.get(c).copied().unwrap_or(0);
                        if c > 0 {
                            s.push_str("  ");
                        }
                        if right.get(c).copied().unwrap_or(false) {
                            s.push_str(&format!("{v:>w$}"));
                        } else {
                            s.push_str(&format!("{v:<w$}"));
                        }
                    }
                    s.trim_end().to_string() + "\n"
                };
                let mut o = line(&self.headers);
                for r in &self.rows {
                    o.push_str(&line(r));
                }
                o
            }
        }
    }
}

/// A sweep's table: each concurrency's medians over its repeats.
pub(crate) fn sweep_table(rows: &[crate::analyze::StepMedians]) -> Table {
    let tpcc = rows.iter().any(|r| r.nopm.is_some());
    let mut headers = vec![
        "threads",
        "qps",
        "qps min-max",
        "tps",
        "p95 ms",
        "p99 ms",
        "load us/q",
        "server us/q",
        "runs",
        "bottleneck",
    ];
    if tpcc {
        headers.insert(1, "nopm");
    }
    let mut t = Table::new(&headers);
    for r in rows {
        let mut row = vec![
            r.threads.to_string(),
            format!("{:.2}", r.qps),
            r.qps_spread.range_text(0),
            format!("{:.2}", r.tps),
            format!("{:.2}", r.p95_ms),
            format!("{:.2}", r.p99_ms),
            format!("{:.2}", r.load_us_per_query),
            super::num(r.server_us_per_query, 2),
            r.runs.to_string(),
            r.bottleneck.clone(),
        ];
        if tpcc {
            row.insert(1, super::num(r.nopm, 1));
        }
        t.push(row);
    }
    t
}

/// One step of a quickstart.
pub struct StepRow {
    /// The workload's name.
    pub workload: String,
    /// Client threads (users) of the step.
    pub threads: u32,
    /// server µs/query and the bottleneck come from the monitor (NaN /
    /// empty without it).
    pub figures: crate::analyze::StepFigures,
    /// How the run ended: the status word, with its reason when there is one.
    pub status: String,
}

/// The quickstart's summary table, one line per step, as aligned text.
pub fn render(rows: &[StepRow]) -> String {
    let mut t = Table::new(&[
        "workload",
        "threads",
        "tps",
        "qps",
        "p95 ms",
        "p99 ms",
        "load us/q",
        "server us/q",
        "bottleneck",
        "status",
    ]);
    for r in rows {
        let f = &r.figures;
        t.push(vec![
            r.workload.clone(),
            r.threads.to_string(),
            format!("{:.2}", f.tps),
            format!("{:.2}", f.qps),
            format!("{:.2}", f.p95),
            format!("{:.2}", f.p99),
            format!("{:.2}", f.load_us),
            super::num(Some(f.server_us), 2),
            f.hint.clone(),
            r.status.clone(),
        ]);
    }
    t.render(Format::Text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_quotes_only_where_a_field_needs_it() {
        let rows = [vec!["plain", "say \"hi\"", "two\nlines", ""], vec!["short"]];
        assert_eq!(
            csv_text(rows),
            "plain,\"say \"\"hi\"\"\",\"two\nlines\",\nshort\n"
        );
    }

    #[test]
    fn formats() {
        let mut t = Table::new(&["name", "qps"]);
        t.push(vec!["a,b".into(), "12.5".into()]);
        t.push(vec!["c".into(), "3".into()]);
        assert_eq!(t.render(Format::Csv), "name,qps\n\"a,b\",12.5\nc,3\n");
        assert_eq!(
            t.render(Format::Markdown),
            "| name | qps |\n|---|---:|\n| a,b | 12.5 |\n| c | 3 |\n"
        );
        assert_eq!(
            t.render(Format::Text),
            "name   qps\na,b   12.5\nc        3\n"
        );
    }
}
