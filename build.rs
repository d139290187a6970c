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
    println!("cargo:rerun-if-changed={common}/packed-refs");
    if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"]) {
        println!("cargo:rerun-if-changed={common}/{branch}");
    }
}
