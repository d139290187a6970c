//! The server a use case runs against: its connection options and, for a
//! sandbox, its name; checking it once with one-line explanations of the
//! usual failures.

use super::runtime::block_on;
use crate::protocol::{Conn, ConnOpts};
use crate::server::Sandbox;
use anyhow::{bail, Context, Result};

/// The resolved target and how to describe it in messages.
pub struct Target {
    /// How to connect to it.
    pub opts: ConnOpts,
    /// The sandbox name when the target is one.
    pub sandbox: Option<String>,
}

impl Target {
    /// The target as messages name it: the sandbox and its endpoint, or the endpoint.
    pub fn describe(&self) -> String {
        match &self.sandbox {
            Some(n) => format!("sandbox '{n}' ({})", self.opts.endpoint),
            None => self.opts.endpoint.to_string(),
        }
    }
}

/// A running sandbox as the target, its database `db` created if missing
/// (a sandbox is ours: the workload's database is made on first use).
pub fn sandbox_target(sb: &Sandbox, db: &str) -> Result<Target> {
    let admin = sandbox_opts(sb, None);
    let quoted = db.replace('`', "``");
    block_on(async {
        let mut c = Conn::connect(&admin).await?;
        c.exec(&format!("CREATE DATABASE IF NOT EXISTS `{quoted}`"))
            .await?;
        c.quit().await;
        Ok::<_, crate::protocol::ProtoError>(())
    })?
    .with_context(|| {
        format!(
            "cannot create database '{db}' in sandbox '{}'",
            sb.spec.name
        )
    })?;
    Ok(sandbox_existing(sb, db))
}

/// The sandbox's database `db` as it is: not created when missing, so a
/// command that only reads or drops (cleanup, check) is refused with
/// "unknown database" instead of leaving a new empty database behind.
pub fn sandbox_existing(sb: &Sandbox, db: &str) -> Target {
    Target {
        opts: sandbox_opts(sb, Some(db)),
        sandbox: Some(sb.spec.name.clone()),
    }
}

/// Connection options for a sandbox: root over its socket.
pub(crate) fn sandbox_opts(sb: &Sandbox, db: Option<&str>) -> ConnOpts {
    ConnOpts::new(crate::protocol::Endpoint::Unix(sb.socket()), "root", db)
}

/// Connects once to check the target, turning the usual failures into a
/// one-line explanation of what to do.
pub async fn check(t: &Target) -> Result<Conn> {
    match Conn::connect(&t.opts).await {
        Ok(c) => Ok(c),
        Err(e) => bail!("{}", explain(&e, t)),
    }
}

/// Why a connection to `t` does not open; None when it does (and is
/// closed again).
pub fn connect_error(t: &Target) -> Option<crate::protocol::ProtoError> {
    let opened = block_on(async {
        match Conn::connect(&t.opts).await {
            Ok(c) => {
                c.quit().await;
                None
            }
            Err(e) => Some(e),
        }
    });
    match opened {
        Ok(e) => e,
        Err(e) => Some(crate::protocol::ProtoError::Io(std::io::Error::other(
            e.to_string(),
        ))),
    }
}

pub fn explain(e: &crate::protocol::ProtoError, t: &Target) -> String {
    use crate::protocol::ProtoError;
    let who = &t.opts.user;
    match e {
        ProtoError::Server(se) if se.code == 1045 => format!(
            "access denied for user '{who}' on {}: check --user/--password (or MYSQL_PWD)",
            t.describe()
        ),
        ProtoError::Server(se) if se.code == 1049 => format!(
            "unknown database '{}' on {}: create it (CREATE DATABASE {0}) or pass --db",
            t.opts.db.as_deref().unwrap_or(""),
            t.describe()
        ),
        ProtoError::Server(se) if se.code == 1040 => format!(
            "{} refuses more connections: {se}; raise max_connections on the server, or use fewer --threads",
            t.describe()
        ),
        ProtoError::Io(io) if io.kind() == std::io::ErrorKind::UnexpectedEof => format!(
            "{} closed the connection before logging in: {io}; is it a MySQL/MariaDB server, and is this host allowed to connect?",
            t.describe()
        ),
        ProtoError::Io(io) => format!(
            "cannot connect to {}: {io}; is the server running? (check --host/--port/--socket, or `qpslab server status`)",
            t.describe()
        ),
        e if e.is_timeout() => format!(
            "cannot connect to {}: {e}; the server (or its accept queue) is stalled or overloaded; raise --connect-timeout if it is just slow",
            t.describe()
        ),
        ProtoError::Protocol(m) => format!(
            "{} did not speak the MySQL protocol: {m}; check --host/--port/--socket",
            t.describe()
        ),
        other => format!("cannot connect to {}: {other}", t.describe()),
    }
}
