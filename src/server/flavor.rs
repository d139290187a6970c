//! Finding a server's binaries and its flavour (MariaDB or MySQL) from a
//! base directory, or from the distribution when no base directory is given.

use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use std::process::Command;

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Flavor {
    MariaDb,
    MySql,
}

/// The programs of one server installation.
#[derive(Debug, Clone)]
pub struct Install {
    pub basedir: Option<PathBuf>,
    pub mysqld: PathBuf,
    /// mariadb-install-db / mysql_install_db; None for MySQL ≥ 5.7 (mysqld --initialize-insecure).
    pub install_db: Option<PathBuf>,
    pub flavor: Flavor,
    pub version: String,
}

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
        let flavor = if version.contains("MariaDB") {
            Flavor::MariaDb
        } else {
            Flavor::MySql
        };
        // MySQL 5.7+ initialises with mysqld itself; its mysql_install_db is deprecated.
        let install_db = if flavor == Flavor::MySql {
            None
        } else {
            install_db
        };
        Ok(Install {
            basedir: basedir.map(Path::to_path_buf),
            mysqld,
            install_db,
            flavor,
            version,
        })
    }
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
