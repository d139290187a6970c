//! Unpacking a build's archive (tarballs, zips and jars) and arranging
//! what it holds as a server tree: a tree with bin/mysqld or bin/mariadbd,
//! a jar carrying a Linux tarball, or the MXJ jar's layout.

use super::flavor::TEMPLATE_DIR;
use anyhow::{bail, Context, Result};
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

/// Unpacks a tarball (.tar.gz/.tgz/.tar.xz/.tar) or a zip/jar into `to`.
pub(super) fn unpack(archive: &Path, to: &Path) -> Result<()> {
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
pub(super) fn arrange(x: &Path, tree: &Path) -> Result<PathBuf> {
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
