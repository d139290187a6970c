//! Resolving "which server" from the command line: explicit host/socket/DSN
//! options, or a sandbox (started if needed).

use super::args::ConnArgs;
use crate::lab::{running_sandbox, sandbox_existing, sandbox_target, Target};
use crate::protocol::{ConnOpts, Endpoint};
use anyhow::{Context, Result};
use std::time::Duration;

fn password(a: &ConnArgs, dsn_pw: Option<String>) -> Result<String> {
    match a.password.as_deref() {
        Some("\u{1}prompt") => rpassword::prompt_password("Enter password: ")
            .context("cannot read the password from the terminal"),
        Some(p) => Ok(p.to_string()),
        None => Ok(dsn_pw
            .or_else(|| std::env::var("MYSQL_PWD").ok())
            .unwrap_or_default()),
    }
}

/// What a sandbox target does when its database is missing.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum MissingDb {
    /// Create it (prepare, run, sweep: the commands that make tables).
    Create,
    /// Create only the command's default database; one named with
    /// `--db` must exist (cleanup, check: a typo is refused with
    /// "unknown database", not left behind as a new empty database).
    CreateDefaultOnly,
}

/// Resolves the connection options; starts the sandbox if that is the
/// target, and makes the database there when it is missing.
pub fn resolve(a: &ConnArgs, default_db: &str) -> Result<Target> {
    resolve_for(a, default_db, MissingDb::Create)
}

/// [`resolve`], with `missing` saying whether a sandbox's database is
/// made when it does not exist.
pub fn resolve_for(a: &ConnArgs, default_db: &str, missing: MissingDb) -> Result<Target> {
    // (a dry run opens no socket: it starts no sandbox either)
    let explicit =
        a.host.is_some() || a.port.is_some() || a.socket.is_some() || a.dsn.is_some() || a.dry_run;
    let key = match &a.server_public_key {
        Some(p) => Some(
            std::fs::read(p)
                .with_context(|| format!("cannot read --server-public-key {}", p.display()))?,
        ),
        None => None,
    };
    if !explicit {
        let name = a.server.as_deref().unwrap_or(crate::lab::DEFAULT_SANDBOX);
        let sb = running_sandbox(
            name,
            a.create,
            || errln!("Starting sandbox '{name}' (first start initialises its datadir)..."),
            &mut super::progress_lines::server_printer(),
        )?;
        let mut t = match (a.db.as_deref(), missing) {
            (Some(db), MissingDb::CreateDefaultOnly) => sandbox_existing(&sb, db),
            (db, _) => sandbox_target(&sb, db.unwrap_or(default_db))?,
        };
        if let Some(u) = &a.user {
            t.opts.user = u.clone();
            t.opts.password = password(a, None)?;
        }
        t.opts.server_public_key = key;
        apply_tls(&mut t.opts, a)?;
        return Ok(t);
    }
    let tcp = Endpoint::Tcp {
        host: "127.0.0.1".into(),
        port: 3306,
    };
    let mut opts = ConnOpts::new(tcp, "sbtest", Some(default_db));
    opts.server_public_key = key;
    let mut dsn_pw = None;
    if let Some(d) = &a.dsn {
        dsn_pw = opts.apply_dsn(d).map_err(anyhow::Error::msg)?;
    }
    if let Some(s) = &a.socket {
        opts.endpoint = Endpoint::Unix(s.clone());
    } else if a.host.is_some() || a.port.is_some() {
        let (h, p) = match &opts.endpoint {
            Endpoint::Tcp { host, port } => (host.clone(), *port),
            Endpoint::Unix(_) => ("127.0.0.1".into(), 3306),
        };
        opts.endpoint = Endpoint::Tcp {
            host: a.host.clone().unwrap_or(h),
            port: a.port.unwrap_or(p),
        };
    }
    if let Some(u) = &a.user {
        opts.user = u.clone();
    }
    if let Some(d) = &a.db {
        opts.db = Some(d.clone());
    }
    opts.password = password(a, dsn_pw)?;
    opts.dry_run = a.dry_run;
    apply_tls(&mut opts, a)?;
    Ok(Target {
        opts,
        sandbox: None,
    })
}

fn apply_timeouts(opts: &mut ConnOpts, a: &ConnArgs) {
    if let Some(s) = a.connect_timeout {
        opts.connect_timeout = Duration::from_secs_f64(s);
    }
    if let Some(s) = a.read_timeout {
        opts.read_timeout = Duration::from_secs_f64(s);
    }
    if let Some(v) = a.load_via {
        opts.load_via = v.into();
    }
}

fn apply_tls(opts: &mut ConnOpts, a: &ConnArgs) -> Result<()> {
    apply_timeouts(opts, a);
    if let Some(m) = a.ssl_mode {
        opts.ssl_mode = m.into();
    }
    if let Some(p) = &a.ssl_ca {
        opts.ssl_ca = Some(
            std::fs::read(p).with_context(|| format!("cannot read --ssl-ca {}", p.display()))?,
        );
    }
    Ok(())
}
