//! The SQL sources, read over the one monitoring connection. Every value is
//! kept raw (cumulative counters stay cumulative); text values are dropped.

use super::{innodb_status, Caps, SourceId};
use crate::protocol::{Conn, ProtoError};

type Values = Vec<(String, f64)>;

fn num(s: &Option<String>) -> Option<f64> {
    s.as_deref()?
        .trim()
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
}

/// Rows of (name, value) into values, numeric ones only.
async fn pairs(c: &mut Conn, sql: &str) -> Result<Values, ProtoError> {
    let r = c.query(sql).await?;
    Ok(r.rows
        .into_iter()
        .filter_map(|row| {
            let v = num(row.get(1)?)?;
            Some((row.into_iter().next()??, v))
        })
        .collect())
}

/// Rows of (name, value columns…) into `name.column` values.
async fn wide(c: &mut Conn, sql: &str, cols: &[&str]) -> Result<Values, ProtoError> {
    let r = c.query(sql).await?;
    let mut out = Vec::with_capacity(r.rows.len() * cols.len());
    for row in r.rows {
        let Some(Some(name)) = row.first().cloned() else {
            continue;
        };
        for (col, v) in cols.iter().zip(row.iter().skip(1)) {
            if let Some(v) = num(v) {
                out.push((format!("{name}.{col}"), v));
            }
        }
    }
    Ok(out)
}

pub async fn poll(source: SourceId, c: &mut Conn, caps: &Caps) -> Result<Values, ProtoError> {
    match source {
        SourceId::Status => pairs(c, "SHOW GLOBAL STATUS").await,
        SourceId::InnodbMetrics => {
            let filter = caps.innodb_metrics_filter.unwrap_or("1 = 0");
            pairs(c, &format!("SELECT NAME, COUNT FROM information_schema.INNODB_METRICS WHERE {filter}")).await
        }
        SourceId::PsWaits => {
            wide(
                c,
                "SELECT EVENT_NAME, COUNT_STAR, SUM_TIMER_WAIT FROM performance_schema.events_waits_summary_global_by_event_name WHERE COUNT_STAR > 0",
                &["count", "wait_ps"],
            )
            .await
        }
        SourceId::PsFiles if caps.ps_files_timed => {
            wide(
                c,
                "SELECT EVENT_NAME, COUNT_READ, SUM_NUMBER_OF_BYTES_READ, COUNT_WRITE, SUM_NUMBER_OF_BYTES_WRITE, COUNT_MISC, SUM_TIMER_WAIT \
                 FROM performance_schema.file_summary_by_event_name WHERE COUNT_STAR > 0",
                &["reads", "read_bytes", "writes", "write_bytes", "misc", "wait_ps"],
            )
            .await
        }
        // 5.5: no COUNT_STAR, COUNT_MISC or timers.
        SourceId::PsFiles => {
            wide(
                c,
                "SELECT EVENT_NAME, COUNT_READ, SUM_NUMBER_OF_BYTES_READ, COUNT_WRITE, SUM_NUMBER_OF_BYTES_WRITE \
                 FROM performance_schema.file_summary_by_event_name WHERE COUNT_READ + COUNT_WRITE > 0",
                &["reads", "read_bytes", "writes", "write_bytes"],
            )
            .await
        }
        SourceId::InnodbMutex => {
            let r = c.query("SHOW ENGINE INNODB MUTEX").await?;
            Ok(mutex_waits(r.rows))
        }
        SourceId::InnodbStatus => {
            let r = c.query("SHOW ENGINE INNODB STATUS").await?;
            let text = r.rows.into_iter().next().and_then(|row| row.into_iter().nth(2).flatten()).unwrap_or_default();
            Ok(innodb_status::parse(&text))
        }
        SourceId::Threads => {
            let sql = if caps.ps_on && caps.ps_threads_command {
                "SELECT IFNULL(PROCESSLIST_COMMAND, ''), IFNULL(PROCESSLIST_STATE, ''), COUNT(*) FROM performance_schema.threads \
                 WHERE TYPE = 'FOREGROUND' AND IFNULL(PROCESSLIST_ID, 0) <> CONNECTION_ID() GROUP BY 1, 2"
            } else {
                "SELECT IFNULL(COMMAND, ''), IFNULL(STATE, ''), COUNT(*) FROM information_schema.PROCESSLIST \
                 WHERE ID <> CONNECTION_ID() GROUP BY 1, 2"
            };
            let r = c.query(sql).await?;
            Ok(thread_counts(r.rows))
        }
        _ => Ok(Vec::new()),
    }
}

/// SHOW ENGINE INNODB MUTEX rows (Type, Name, Status) into
/// `NAME.KEY` values, summed over rows of one name: the name is the
/// latch's (`&log_sys->mutex`, `LOG_SYS`) or, on 5.5, its creation site
/// with the build's directories cut (`log0log.c:832`); the status is
/// `os_waits=N` (debug builds add spin counts, kept too). `total.os_waits`
/// sums them all.
pub(crate) fn mutex_waits(rows: Vec<Vec<Option<String>>>) -> Values {
    let mut by: std::collections::BTreeMap<String, f64> = Default::default();
    for row in rows {
        let name = row.get(1).cloned().flatten().unwrap_or_default();
        let name = name.rsplit('/').next().unwrap_or(&name).trim().to_string();
        let status = row.get(2).cloned().flatten().unwrap_or_default();
        for (k, v) in status
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter_map(|kv| kv.split_once('='))
        {
            let Ok(v) = v.trim().parse::<f64>() else {
                continue;
            };
            *by.entry(format!("{name}.{}", k.trim())).or_default() += v;
            if k.trim() == "os_waits" {
                *by.entry("total.os_waits".into()).or_default() += v;
            }
        }
    }
    by.entry("total.os_waits".into()).or_default();
    by.into_iter().collect()
}

/// (command, state, count) rows into totals by command and by state.
fn thread_counts(rows: Vec<Vec<Option<String>>>) -> Values {
    let mut by: std::collections::BTreeMap<String, f64> = Default::default();
    let mut total = 0.0;
    for row in rows {
        let n = num(row.get(2).unwrap_or(&None)).unwrap_or(0.0);
        let cmd = row.first().cloned().flatten().unwrap_or_default();
        let state = row.get(1).cloned().flatten().unwrap_or_default();
        *by.entry(format!(
            "command.{}",
            if cmd.is_empty() { "-" } else { &cmd }
        ))
        .or_default() += n;
        if !state.is_empty() {
            *by.entry(format!("state.{state}")).or_default() += n;
        }
        total += n;
    }
    by.insert("total".into(), total);
    by.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::mutex_waits;

    #[test]
    fn innodb_mutex_rows() {
        let row = |n: &str, st: &str| {
            vec![
                Some("InnoDB".to_string()),
                Some(n.to_string()),
                Some(st.to_string()),
            ]
        };
        let v = mutex_waits(vec![
            row(
                "/home/x/mysql-5.5.9/storage/innobase/log/log0log.c:832",
                "os_waits=2",
            ),
            row(
                "/home/x/mysql-5.5.9/storage/innobase/log/log0log.c:832",
                "os_waits=3",
            ),
            row("&dict_sys->mutex", "count=10, spin_waits=4, os_waits=1"),
        ]);
        let get = |k: &str| v.iter().find(|(n, _)| n == k).map(|(_, x)| *x);
        assert_eq!(get("log0log.c:832.os_waits"), Some(5.0));
        assert_eq!(get("&dict_sys->mutex.spin_waits"), Some(4.0));
        assert_eq!(get("total.os_waits"), Some(6.0));
        assert_eq!(
            mutex_waits(vec![]),
            vec![("total.os_waits".to_string(), 0.0)]
        );
    }
}
