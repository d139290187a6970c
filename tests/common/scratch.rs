//! A directory of a test's own under the system's temporary directory,
//! removed when dropped (a failing test's too), and qpslab run inside one
//! with its state directory there. Tests that need no sandbox server take
//! this file alone (`#[path = "common/scratch.rs"] mod scratch;`).
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// `<tmp>/qpslab-<kind>-<name>-<pid>`, created empty.
pub struct Scratch(pub PathBuf);

impl Scratch {
    pub fn new(kind: &str, name: &str) -> Scratch {
        let p = std::env::temp_dir().join(format!("qpslab-{kind}-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).expect("scratch dir");
        Scratch(p)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// qpslab in `dir`, with its state directory there and no store from the
/// environment.
pub fn qpslab_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_qpslab"))
        .args(args)
        .current_dir(dir)
        .env("QPSLAB_HOME", dir.join("home"))
        .env_remove("QPSLAB_STORE")
        .output()
        .expect("run qpslab")
}

/// A command's stdout, then its stderr.
pub fn all(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}
