//! Records the git commit the binary was built from (shown in results and `--version`).
fn main() {
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    let hash = git(&["rev-parse", "--short=12", "HEAD"]).unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=QPSLAB_GIT_HASH={hash}");
    // Rebuilt when this checkout's HEAD moves: HEAD itself and the one
    // branch it names (not the whole refs folder: a commit on another
    // branch or worktree must not rebuild this one).
    let Some(dir) = git(&["rev-parse", "--git-dir"]) else {
        return;
    };
    let common = git(&["rev-parse", "--git-common-dir"]).unwrap_or_else(|| dir.clone());
    println!("cargo:rerun-if-changed={dir}/HEAD");
    // Only when it exists: cargo reruns a build script whose watched file
    // is missing on every build (and so rebuilt the crate every time).
    // Packing refs later moves the branch's own file, which is watched.
    let packed = format!("{common}/packed-refs");
    if std::path::Path::new(&packed).exists() {
        println!("cargo:rerun-if-changed={packed}");
    }
    if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"]) {
        println!("cargo:rerun-if-changed={common}/{branch}");
    }
}
