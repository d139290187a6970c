//! Finding a server's binaries, its flavour and version, and how its
//! datadir is initialised, from a base directory (a tarball's tree or a
//! build fetched by `server get`) or from the distribution.

use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Which server family a build or a running server is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Flavor {
    /// MariaDB Server.
    MariaDb,
    /// Oracle MySQL.
    MySql,
    /// Percona Server for MySQL: MySQL's datadir tools and protocol.
    Percona,
}

impl Flavor {
    /// The name used in build names (`mysql-5.5.9`).
    pub fn key(self) -> &'static str {
        match self {
            Flavor::MariaDb => "mariadb",
            Flavor::MySql => "mysql",
            Flavor::Percona => "percona",
        }
    }
    /// The name shown to users.
    pub fn display(self) -> &'static str {
        match self {
            Flavor::MariaDb => "MariaDB",
            Flavor::MySql => "MySQL",
            Flavor::Percona => "Percona Server",
        }
    }
    /// A flavour from its key, any case ("mariadb", "mysql", "percona",
    /// "percona-server", "ps").
    pub fn parse(s: &str) -> Option<Flavor> {
        match s.to_ascii_lowercase().as_str() {
            "mariadb" => Some(Flavor::MariaDb),
            "mysql" => Some(Flavor::MySql),
            "percona" | "percona-server" | "ps" => Some(Flavor::Percona),
            _ => None,
        }
    }
    /// MySQL and Percona Server share their datadir tools.
    pub(crate) fn is_mysql_like(self) -> bool {
        self != Flavor::MariaDb
    }
}

/// A server's flavour and release, read from `mysqld --version` or from
/// the server's `version` and `version_comment` variables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Release {
    /// The family.
    pub flavor: Flavor,
    /// Major version (10 in 10.11.6).
    pub major: u32,
    /// Minor version.
    pub minor: u32,
    /// Patch level.
    pub patch: u32,
}

impl Release {
    /// Parses "5.5.9", "10.11.6-MariaDB-0+deb12u1", "8.0.39-30",
    /// "mysqld  Ver 5.5.9 for Linux …" or "mariadbd  Ver 15.1 Distrib
    /// 10.11.6-MariaDB …" (the last number triple before "-MariaDB" wins
    /// for MariaDB's old "Ver 15.1 Distrib" form). `comment` is
    /// version_comment when known (Percona Server says so there).
    pub fn parse(version: &str, comment: &str) -> Option<Release> {
        let text = format!("{version} {comment}");
        let flavor = if text.contains("MariaDB") {
            Flavor::MariaDb
        } else if text.contains("Percona") {
            Flavor::Percona
        } else {
            Flavor::MySql
        };
        let after = match version.find("Distrib ") {
            Some(i) => &version[i + 8..],
            None => match version.find("Ver ") {
                Some(i) => &version[i + 4..],
                None => version,
            },
        };
        let word = after.split_whitespace().next()?;
        let mut nums = word
            .split(|c: char| !c.is_ascii_digit())
            .take(3)
            .map(|n| n.parse::<u32>().ok());
        let (major, minor) = (nums.next()??, nums.next()??);
        let patch = nums.next().flatten().unwrap_or(0);
        Some(Release {
            flavor,
            major,
            minor,
            patch,
        })
    }

    /// `mysql-5.5.9`, `mariadb-10.11.6`: the name `server get` takes.
    pub fn name(&self) -> String {
        format!(
            "{}-{}.{}.{}",
            self.flavor.key(),
            self.major,
            self.minor,
            self.patch
        )
    }

    /// `MySQL 5.5.9`.
    pub fn display(&self) -> String {
        format!(
            "{} {}.{}.{}",
            self.flavor.display(),
            self.major,
            self.minor,
            self.patch
        )
    }

    /// Whether this release is major.minor or later (any patch).
    pub fn at_least(&self, major: u32, minor: u32) -> bool {
        (self.major, self.minor) >= (major, minor)
    }
}

/// A server as results name it: `MySQL 5.5.9`, `MariaDB 10.11.6`,
/// `Percona Server 8.0.39` (from the stored flavour and version; the raw
/// version when it cannot be read, "" when unknown).
pub fn server_label(flavor: Option<&str>, version: Option<&str>) -> String {
    let v = version.unwrap_or_default();
    match Release::parse(v, flavor.unwrap_or_default()) {
        Some(r) if !v.is_empty() => r.display(),
        _ => v.to_string(),
    }
}

/// How a new datadir is made for an installation.
#[derive(Debug, Clone, PartialEq)]
pub enum Init {
    /// mariadb-install-db (MariaDB's options).
    MariaDbInstallDb(PathBuf),
    /// MySQL 5.5–5.6's mysql_install_db script (run with --basedir).
    MySqlInstallDb(PathBuf),
    /// MySQL 5.7+: `mysqld --initialize-insecure`.
    Initialize,
    /// A system schema shipped ready (MXJ builds): copied into the datadir.
    Template(PathBuf),
}

/// The programs of one server installation.
#[derive(Debug, Clone)]
pub struct Install {
    pub basedir: Option<PathBuf>,
    pub mysqld: PathBuf,
    pub init: Init,
    pub flavor: Flavor,
    /// `mysqld --version`'s line.
    pub version: String,
    pub release: Option<Release>,
}

/// The folder of a build's ready system schema (`server get` writes it for
/// builds that ship one instead of an install script).
pub(crate) const TEMPLATE_DIR: &str = "data-template";

fn first_existing(cands: &[PathBuf]) -> Option<PathBuf> {
    cands.iter().find(|p| p.is_file()).cloned()
}

impl Install {
    pub fn find(basedir: Option<&Path>) -> Result<Install> {
        let (mysqld, install_db) = match basedir {
            Some(b) => {
                if !b.is_dir() {
                    bail!("--basedir {} is not a directory; give the top of a server tree (the folder holding bin/)", b.display());
                }
                let mysqld = first_existing(&[
                    b.join("bin/mariadbd"),
                    b.join("bin/mysqld"),
                    b.join("sbin/mariadbd"),
                    b.join("sbin/mysqld"),
                    b.join("libexec/mysqld"),
                ])
                .with_context(|| {
                    format!(
                        "no bin/mariadbd or bin/mysqld under --basedir {}",
                        b.display()
                    )
                })?;
                let install = first_existing(&[
                    b.join("scripts/mariadb-install-db"),
                    b.join("bin/mariadb-install-db"),
                    b.join("scripts/mysql_install_db"),
                    b.join("bin/mysql_install_db"),
                ]);
                (mysqld, install)
            }
            None => {
                let mysqld = first_existing(&[
                    "/usr/sbin/mariadbd".into(),
                    "/usr/sbin/mysqld".into(),
                    "/usr/libexec/mysqld".into(),
                ])
                .context("no MariaDB or MySQL server found; install one (apt-get install mariadb-server) or pass --basedir DIR")?;
                let install = first_existing(&[
                    "/usr/bin/mariadb-install-db".into(),
                    "/usr/bin/mysql_install_db".into(),
                ]);
                (mysqld, install)
            }
        };
        ensure_executable(&mysqld)?;
        if let Some(i) = &install_db {
            ensure_executable(i)?;
            // The install script runs these from the tree's bin/.
            for helper in ["bin/my_print_defaults", "bin/resolveip"] {
                if let Some(p) = basedir.map(|b| b.join(helper)).filter(|p| p.is_file()) {
                    ensure_executable(&p)?;
                }
            }
        }
        let out = Command::new(&mysqld)
            .arg("--version")
            .output()
            .with_context(|| format!("cannot run {}", mysqld.display()))?;
        let version = String::from_utf8_lossy(&out.stdout).trim().to_string();
        if !out.status.success() {
            bail!(
                "{} --version failed: {}",
                mysqld.display(),
                String::from_utf8_lossy(&out.stderr)
                    .lines()
                    .next()
                    .unwrap_or("")
            );
        }
        let release = Release::parse(&version, "");
        let flavor = release.map_or(Flavor::MySql, |r| r.flavor);
        let template = basedir
            .map(|b| b.join(TEMPLATE_DIR))
            .filter(|t| t.join("mysql").is_dir());
        let init = choose_init(flavor, release, install_db, template).with_context(|| {
            format!("{} ({version}) has no datadir initialisation: mysql_install_db is missing from its tree", mysqld.display())
        })?;
        Ok(Install {
            basedir: basedir.map(Path::to_path_buf),
            mysqld,
            init,
            flavor,
            version,
            release,
        })
    }
}

/// The datadir initialisation per flavour and version: a shipped system
/// schema first; MariaDB's install script; MySQL 5.7+ initialises with
/// mysqld itself (its mysql_install_db is deprecated); MySQL 5.5–5.6 with
/// mysql_install_db.
fn choose_init(
    flavor: Flavor,
    release: Option<Release>,
    install_db: Option<PathBuf>,
    template: Option<PathBuf>,
) -> Option<Init> {
    if let Some(t) = template {
        return Some(Init::Template(t));
    }
    if flavor == Flavor::MariaDb {
        return install_db.map(Init::MariaDbInstallDb);
    }
    let modern = release.is_none_or(|r| r.at_least(5, 7));
    if modern {
        return Some(Init::Initialize);
    }
    install_db.map(Init::MySqlInstallDb)
}

/// Tarballs unpacked from archives that do not keep modes (zip, jar) leave
/// programs without their run bit; give it back rather than fail obscurely.
fn ensure_executable(p: &Path) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let meta = std::fs::metadata(p)?;
    let mode = meta.permissions().mode();
    if mode & 0o111 == 0 {
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode | 0o755))
            .with_context(|| format!("{} is not executable and cannot be made so", p.display()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn releases_from_version_lines() {
        let r = Release::parse(
            "mysqld  Ver 5.5.9 for Linux on x86_64 (Source distribution)",
            "",
        )
        .unwrap();
        assert_eq!(
            (r.flavor, r.name()),
            (Flavor::MySql, "mysql-5.5.9".to_string())
        );
        let r = Release::parse(
            "/usr/sbin/mariadbd  Ver 10.11.6-MariaDB-0+deb12u1 for debian-linux-gnu on x86_64",
            "",
        )
        .unwrap();
        assert_eq!(r.name(), "mariadb-10.11.6");
        let r = Release::parse("mariadbd  Ver 15.1 Distrib 10.5.9-MariaDB, for Linux", "").unwrap();
        assert_eq!(r.name(), "mariadb-10.5.9");
        let r = Release::parse("8.0.39-30", "Percona Server (GPL), Release 30").unwrap();
        assert_eq!(
            (r.name(), r.display()),
            ("percona-8.0.39".into(), "Percona Server 8.0.39".into())
        );
        let r = Release::parse("11.4.5-MariaDB-log", "").unwrap();
        assert_eq!(r.display(), "MariaDB 11.4.5");
        assert!(Release::parse("garbage", "").is_none());
    }

    #[test]
    fn init_by_flavour_and_version() {
        let r = |v: &str| Release::parse(v, "");
        let script = Some(PathBuf::from("/b/scripts/mysql_install_db"));
        assert_eq!(
            choose_init(Flavor::MySql, r("5.5.9"), script.clone(), None),
            Some(Init::MySqlInstallDb("/b/scripts/mysql_install_db".into()))
        );
        assert_eq!(
            choose_init(Flavor::MySql, r("5.7.44"), script.clone(), None),
            Some(Init::Initialize)
        );
        assert_eq!(choose_init(Flavor::MySql, r("5.6.51"), None, None), None);
        assert_eq!(
            choose_init(Flavor::MySql, r("5.5.9"), None, Some("/t".into())),
            Some(Init::Template("/t".into()))
        );
        assert!(matches!(
            choose_init(
                Flavor::MariaDb,
                r("11.4.5-MariaDB"),
                Some("/m".into()),
                None
            ),
            Some(Init::MariaDbInstallDb(_))
        ));
    }
}
