//! sysbench Lua scripts without a server: a script is found by path or by
//! name in sysbench's directories, loaded, and its declared options are
//! listed by `--help` and checked on the command line; sysbench's
//! command-line shape is understood. (Runs: script_runs.rs.)

mod common;
use common::{bin, text};
use std::process::Command;

fn qpslab(args: &[&str]) -> std::process::Output {
    Command::new(bin())
        .args(args)
        .env(
            "QPSLAB_HOME",
            std::env::temp_dir().join("qpslab-scripts-test"),
        )
        .output()
        .expect("run qpslab")
}

fn script() -> String {
    format!("{}/tests/scripts/opts.lua", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn a_scripts_options_are_listed_and_checked() {
    let out = qpslab(&["run", &script(), "--help"]);
    assert!(out.status.success(), "{}", text(&out));
    let help = text(&out);
    for line in [
        "--batch=N",
        "statements per transaction [4]",
        "--ratio=N",
        "[0.75]",
        "--hot[=on|off]",
        "--label-text=STRING",
        "[alpha]",
        // declared by the module it requires from its own directory
        "--shared-rows=N",
        // and the script's own help()
        "opts.lua: a script to test options (its own help)",
    ] {
        assert!(help.contains(line), "missing {line:?} in:\n{help}");
    }
    let out = qpslab(&["run", &script(), "--ratio", "lots"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--ratio 'lots' is not a number") && err.lines().count() == 1,
        "{err}"
    );
}

#[test]
fn sysbench_scripts_are_found_by_name() {
    let bundled = std::path::Path::new("/usr/share/sysbench/oltp_read_write.lua");
    assert!(
        bundled.is_file(),
        "{} is missing: install Debian's sysbench (apt-get install sysbench)",
        bundled.display()
    );
    let out = qpslab(&["run", "oltp_read_write.lua", "--help"]);
    assert!(out.status.success(), "{}", text(&out));
    let help = text(&out);
    assert!(
        help.contains("/usr/share/sysbench/oltp_read_write.lua options:")
            && help.contains("--table-size=N")
            && help.contains("--secondary[=on|off]"),
        "{help}"
    );
    let out = qpslab(&["run", "no_such_script.lua"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out).contains("no script 'no_such_script.lua'"),
        "{}",
        text(&out)
    );
}
