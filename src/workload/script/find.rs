//! Where a script is: the path as given, else by name (with or without
//! `.lua`) in the current directory and sysbench's script directories, the
//! way `sysbench NAME` finds its bundled scripts.

use std::path::{Path, PathBuf};

/// Directories searched for a script given by name, in order.
pub(crate) const SEARCH_PATH: &[&str] = &[".", "/usr/share/sysbench", "/usr/local/share/sysbench"];

/// The script `name` names; Err is one line saying where it looked.
pub fn find_script(name: &str) -> Result<PathBuf, String> {
    let given = Path::new(name);
    if given.is_file() {
        return Ok(given.to_path_buf());
    }
    if !name.contains('/') {
        let file = if name.ends_with(".lua") {
            name.to_string()
        } else {
            format!("{name}.lua")
        };
        for dir in SEARCH_PATH {
            let p = Path::new(dir).join(&file);
            if p.is_file() {
                return Ok(p);
            }
        }
    }
    Err(format!(
        "no script '{name}': not a file, and not in {} (give its path)",
        SEARCH_PATH.join(", ")
    ))
}
