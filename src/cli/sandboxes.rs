//! `server …`: sandboxes started, stopped, listed and destroyed; server
//! builds fetched and listed.

use super::args::{SandboxArgs, ServerCmd};
use crate::server::{render_presets_help, Sandbox};
use anyhow::{bail, Context, Result};
use std::time::Duration;

/// A sandbox that exists, or an error saying how to list them.
fn existing(name: &str) -> Result<Sandbox> {
    Sandbox::open(name)?
        .with_context(|| format!("no sandbox named '{name}' (see `qpslab server list`)"))
}

pub(super) fn server(cmd: ServerCmd) -> Result<()> {
    match cmd {
        ServerCmd::Start(a) => server_start(&a),
        ServerCmd::Stop(n) => {
            let sb = existing(&n.name)?;
            if sb.stop(Duration::from_secs(120))? {
                outln!("sandbox '{}' stopped", n.name);
            } else {
                outln!("sandbox '{}' was not running", n.name);
            }
            Ok(())
        }
        ServerCmd::Status(n) => {
            let sb = existing(&n.name)?;
            outln!("{}\n{}", sb.describe(), sb.paths());
            Ok(())
        }
        ServerCmd::List => {
            let all = Sandbox::list()?;
            if all.is_empty() {
                outln!(
                    "no sandboxes (state directory {})",
                    crate::server::state_dir().display()
                );
            }
            for sb in all {
                outln!("{}", sb.describe());
            }
            Ok(())
        }
        ServerCmd::Destroy(n) => {
            let sb = existing(&n.name)?;
            sb.destroy()?;
            outln!("sandbox '{}' destroyed", n.name);
            Ok(())
        }
        ServerCmd::Presets => {
            out!("{}", render_presets_help());
            Ok(())
        }
        ServerCmd::Get(g) => {
            let b = crate::server::BuildName::parse(&g.name)?;
            let tree = crate::server::get(
                &b,
                &crate::server::GetOptions {
                    from: g.from.clone(),
                    url: g.url.clone(),
                    checksum: g.checksum.clone(),
                    force: g.force,
                },
                &mut super::progress_lines::server_printer(),
            )?;
            errln!(
                "{} is ready: qpslab server start --name NAME --version {}",
                b.name(),
                b.name()
            );
            outln!("{}", tree.display());
            Ok(())
        }
        ServerCmd::Builds => {
            let cached = crate::server::list_cached();
            outln!(
                "fetched (in {}):",
                crate::server::state_dir().join("servers").display()
            );
            if cached.is_empty() {
                outln!("  none");
            }
            for (name, dir, source) in &cached {
                outln!("  {name:<22} {}  ({source})", dir.display());
            }
            outln!("on Maven Central (qpslab server get NAME):");
            for n in crate::server::maven_names() {
                outln!("  {n}");
            }
            outln!("other versions: qpslab server get FLAVOR-VERSION [--checksum ALGO:HEX | --from FILE] from the official tarballs");
            Ok(())
        }
    }
}

/// A `--set VAR=VALUE` (VALUE may be empty; VAR may not).
fn parse_set(s: &str) -> Result<(String, String)> {
    let Some((k, v)) = s.split_once('=').filter(|(k, _)| !k.trim().is_empty()) else {
        bail!("--set '{s}' is not VAR=VALUE; e.g. --set innodb_buffer_pool_size=2G");
    };
    Ok((k.trim().to_string(), v.trim().to_string()))
}

fn server_start(a: &SandboxArgs) -> Result<()> {
    let mut change = crate::lab::SandboxChange {
        preset: a.preset.clone(),
        cpus: a.cpus.clone(),
        ..Default::default()
    };
    if let Some(b) = &a.basedir {
        change.basedir = Some(
            std::fs::canonicalize(b)
                .with_context(|| format!("--basedir {} does not exist", b.display()))?,
        );
    }
    if let Some(v) = &a.version {
        change.basedir = Some(crate::server::build_tree(
            v,
            &mut super::progress_lines::server_printer(),
        )?);
    }
    for s in &a.sets {
        change.sets.push(parse_set(s)?);
    }
    let sb = crate::lab::start_sandbox(
        &a.name,
        &change,
        Duration::from_secs(a.timeout),
        &mut super::progress_lines::server_printer(),
    )?;
    outln!("{}", sb.describe());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::parse_set;

    #[test]
    fn a_set_needs_a_name_and_may_have_an_empty_value() {
        assert_eq!(
            parse_set(" max_connections = 500").unwrap(),
            ("max_connections".into(), "500".into())
        );
        assert_eq!(
            parse_set("secure_file_priv=").unwrap(),
            ("secure_file_priv".into(), String::new())
        );
        for bad in ["=5", " =5", "max_connections"] {
            let e = parse_set(bad).unwrap_err().to_string();
            assert!(e.contains("is not VAR=VALUE"), "{bad}: {e}");
        }
    }
}
