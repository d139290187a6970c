//! sysbench's general options that qpslab has no option of its own for.
//!
//! A sysbench command line runs here unchanged: an option that changes
//! nothing here (`--db-driver=mysql`, `--forced-shutdown=…`) is dropped with
//! a note, sysbench 1.0's deprecated names (`--num-threads`, `--max-time`,
//! `--max-requests`, `--tx-rate`) become qpslab's, and an option that would
//! change what the run does or prints, which qpslab cannot do, is refused
//! with the reason (one line). sysbench takes these as `--name=value` (or
//! `--name` alone for on); so does this.

/// What happens to one sysbench option.
enum Rule {
    /// Dropped, with this note, whatever its value.
    Ignore(&'static str),
    /// Dropped silently when off; refused with this reason when on.
    OffOnly(&'static str),
    /// Refused with this reason.
    Refuse(&'static str),
    /// Renamed to qpslab's option (sysbench 1.0's deprecated names).
    Rename(&'static str),
}

fn rule(name: &str) -> Option<Rule> {
    use Rule::*;
    Some(match name {
        "forced-shutdown" => Ignore("qpslab ends a run at --time and cuts queries still running after a 2 s grace"),
        "thread-stack-size" | "thread-init-timeout" => Ignore("qpslab's connections are tasks, not threads with stacks of their own"),
        "debug" | "db-debug" | "mysql-debug" => OffOnly("qpslab has no driver debug log; --format json and `qpslab show RUN` keep everything measured"),
        "validate" => OffOnly("qpslab does not validate results the way sysbench's --validate does; `qpslab check WORKLOAD` checks the data"),
        "mysql-compression" => OffOnly("qpslab does not compress the protocol"),
        "report-checkpoints" => Refuse("use --report-interval; every interval is kept in the store"),
        "luajit-cmd" => Refuse("qpslab's LuaJIT takes no commands"),
        "config-file" => Refuse("put the options on the command line (or in a campaign file)"),
        "mysql-ssl-key" | "mysql-ssl-cert" | "mysql-ssl-cipher" => Refuse("client certificates and cipher lists are not supported; --ssl-mode and --ssl-ca are"),
        "num-threads" => Rename("threads"),
        "max-time" => Rename("time"),
        "max-requests" => Rename("events"),
        "tx-rate" => Rename("rate"),
        _ => return None,
    })
}

fn is_off(v: &str) -> bool {
    matches!(
        v.to_ascii_lowercase().as_str(),
        "off" | "0" | "false" | "no" | "disable" | "disabled"
    )
}

/// Rewrites `argv` (program name first): returns the words qpslab parses and
/// the notes to print, or the one-line reason an option is refused.
pub fn translate(argv: &[String]) -> Result<(Vec<String>, Vec<String>), String> {
    let mut out = Vec::with_capacity(argv.len());
    let mut notes = Vec::new();
    let mut skip = false;
    // DBT3 has its own --test (power or throughput)
    let dbt3 = argv.iter().any(|w| crate::workload::dbt3::is_dbt3(w));
    for (i, w) in argv.iter().enumerate() {
        if std::mem::take(&mut skip) {
            continue;
        }
        let Some(body) = w.strip_prefix("--").filter(|_| i > 0) else {
            out.push(w.clone());
            continue;
        };
        let (name, value) = match body.split_once('=') {
            Some((n, v)) => (n, Some(v)),
            None => (body, None),
        };
        if name == "test" && !dbt3 {
            // sysbench 1.0 still takes `--test=SCRIPT` (deprecated); 0.4's
            // built-in tests are not database workloads or are renamed.
            let script = match value {
                Some(v) => v.to_string(),
                None => {
                    skip = true;
                    argv.get(i + 1).cloned().unwrap_or_default()
                }
            };
            match script.as_str() {
                "oltp" => return Err("--test=oltp is sysbench 0.4's: name a workload instead (oltp_read_write, oltp_read_only, oltp_point_select …: `qpslab help workloads`)".into()),
                "cpu" | "fileio" | "memory" | "threads" | "mutex" | "" => {
                    return Err(format!("--test={script}: sysbench's {} test is not a database workload; qpslab runs database workloads only (`qpslab help workloads`)", if script.is_empty() { "(empty)" } else { &script }))
                }
                _ => {}
            }
            notes.push(format!(
                "--test={script} is sysbench's deprecated form of naming the script: taken as the workload {script}"
            ));
            out.push(script);
            continue;
        }
        if name == "db-driver" {
            match value.map(str::to_ascii_lowercase).as_deref() {
                Some("mysql") => notes.push(
                    "--db-driver=mysql: qpslab speaks the MySQL protocol only (MySQL, MariaDB, Percona): ignored".into(),
                ),
                other => {
                    return Err(format!(
                        "--db-driver={}: qpslab drives MySQL and MariaDB only; use --db-driver=mysql or leave it out",
                        other.unwrap_or("")
                    ))
                }
            }
            continue;
        }
        match rule(name) {
            None => out.push(w.clone()),
            Some(Rule::Ignore(why)) => notes.push(format!("--{name}: {why}: ignored")),
            Some(Rule::OffOnly(why)) => {
                if !value.is_some_and(is_off) {
                    return Err(format!("--{name}: {why}; drop it (or set it off)"));
                }
            }
            Some(Rule::Refuse(why)) => {
                return Err(format!(
                    "--{name} is sysbench's and has no meaning here: {why}"
                ))
            }
            Some(Rule::Rename(to)) => {
                notes.push(format!(
                    "--{name} is sysbench 1.0's old name of --{to}: taken as --{to}"
                ));
                out.push(match value {
                    Some(v) => format!("--{to}={v}"),
                    None => format!("--{to}"),
                });
            }
        }
    }
    Ok((out, notes))
}

#[cfg(test)]
mod tests {
    use super::translate;

    fn w(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn sysbench_general_options() {
        let (argv, notes) = translate(&w(
            "qpslab oltp_read_write --db-driver=mysql --forced-shutdown=1 --validate=off --histogram --num-threads=8 --max-time=60 --tables=2 run",
        ))
        .unwrap();
        assert_eq!(
            argv,
            w("qpslab oltp_read_write --histogram --threads=8 --time=60 --tables=2 run")
        );
        assert_eq!(notes.len(), 4, "{notes:?}");
        assert!(notes[0].contains("db-driver"));
        for bad in [
            "qpslab oltp_read_write --db-driver=pgsql run",
            "qpslab oltp_read_write --validate run",
            "qpslab oltp_read_write --validate=on run",
            "qpslab oltp_read_write --report-checkpoints=10 run",
        ] {
            let e = translate(&w(bad)).unwrap_err();
            assert!(e.starts_with("--") && !e.contains('\n'), "{bad}: {e}");
        }
        // sysbench 1.0's deprecated --test=SCRIPT names the workload
        let (argv, notes) =
            translate(&w("qpslab --test=oltp_read_only.lua --threads=2 run")).unwrap();
        assert_eq!(argv, w("qpslab oltp_read_only.lua --threads=2 run"));
        assert!(notes[0].contains("deprecated"), "{notes:?}");
        assert!(translate(&w("qpslab --test=oltp run"))
            .unwrap_err()
            .contains("sysbench 0.4"));
        assert!(translate(&w("qpslab --test fileio run")).is_err());
        // qpslab's own words are left alone, the program name too
        let same = w("qpslab run oltp_point_select --threads 4 --debug-x=1");
        assert_eq!(translate(&same).unwrap().0, same);
    }
}
