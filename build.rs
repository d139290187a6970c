//! Records the git commit the binary was built from (shown in results and `--version`).
fn main() {
    let hash = std::process::Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=QPSLAB_GIT_HASH={hash}");
    // HEAD names the branch; the branch's ref (or packed-refs) moves with each commit.
    for p in [".git/HEAD", ".git/refs/heads", ".git/packed-refs"] {
        println!("cargo:rerun-if-changed={p}");
    }
}
