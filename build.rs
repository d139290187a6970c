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
    println!("cargo:rerun-if-changed=.git/HEAD");
}
