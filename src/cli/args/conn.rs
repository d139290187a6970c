//! Which server: connection options (sysbench's names and DSNs) and the
//! sandbox commands.

use super::choices::{LoadViaArg, SslModeArg};
use super::shared::{parse_bool, timeout_secs};
use clap::{Args, Subcommand};
use std::path::PathBuf;

#[derive(Subcommand, Debug)]
pub(crate) enum ServerCmd {
    /// Initialise (first time) and start a sandbox.
    Start(SandboxArgs),
    /// Stop a sandbox.
    Stop(NameArg),
    /// Show a sandbox's state.
    Status(NameArg),
    /// List all sandboxes.
    List,
    /// Stop a sandbox and delete its datadir.
    Destroy(NameArg),
    /// Show the my.cnf presets (`profiles` is its older name).
    #[command(alias = "profiles")]
    Presets,
    /// Fetch a server build by name (mysql-5.5.9, mariadb-11.4.5,
    /// percona-8.0.39-30) into the cache and print its basedir.
    Get(GetArgs),
    /// List the fetched builds and those Maven Central holds.
    Builds,
}

#[derive(Args, Debug)]
pub(crate) struct GetArgs {
    /// FLAVOR-VERSION: mysql-5.5.9, mariadb-11.4.5, mariadb-10.11.5, mysql-8.0.40, percona-8.0.39-30.
    pub name: String,
    /// A tarball or jar already downloaded (.tar.gz, .tar.xz, .jar, .zip)
    /// [default: none: downloaded].
    #[arg(long)]
    pub from: Option<PathBuf>,
    /// Download from here instead of the flavour's official location (a
    /// mirror) [default: the official location].
    #[arg(long)]
    pub url: Option<String>,
    /// The archive's checksum: sha256:HEX, sha1:HEX or md5:HEX (from the
    /// download page) [default: the one qpslab knows for the build, if any].
    #[arg(long)]
    pub checksum: Option<String>,
    /// Fetch and unpack again even when the build is in the cache.
    #[arg(long)]
    pub force: bool,
}

#[derive(Args, Debug)]
pub(crate) struct NameArg {
    /// Sandbox name.
    #[arg(long, default_value = "default")]
    pub name: String,
}

#[derive(Args, Debug)]
pub(crate) struct SandboxArgs {
    /// Sandbox name (its datadir, socket and port are its own).
    #[arg(long, default_value = "default")]
    pub name: String,
    /// Top of a server tree (tarball layout: bin/mariadbd or bin/mysqld)
    /// [default: the system's mariadbd, e.g. Debian's /usr/sbin].
    #[arg(long, conflicts_with = "version")]
    pub basedir: Option<PathBuf>,
    /// A server build by name (mysql-5.5.9, mariadb-11.4.5): fetched by
    /// `server get` (or now, when that needs no more input) and used as
    /// basedir [default: none].
    #[arg(long)]
    pub version: Option<String>,
    /// my.cnf preset: default or bench (`qpslab server presets`); `--profile`
    /// is its older name [default: default, or the preset the sandbox was
    /// created with].
    #[arg(long, alias = "profile", value_name = "PRESET")]
    pub preset: Option<String>,
    /// Server variable override, e.g. --set innodb_buffer_pool_size=2G
    /// (repeatable) [default: none: the preset's].
    #[arg(long = "set", value_name = "VAR=VALUE")]
    pub sets: Vec<String>,
    /// Pin the server to these CPUs, e.g. 0-7 or 0,2,4 [default: all CPUs].
    #[arg(long)]
    pub cpus: Option<String>,
    /// Seconds to wait for the server to accept connections.
    #[arg(long, default_value_t = 120, value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub timeout: u64,
}

/// Where the server is. Without any of host/port/socket/dsn, the sandbox
/// named by --server (default "default") is used and started if needed.
#[derive(Args, Debug, Clone, Default)]
#[command(next_help_heading = super::help::CONNECTION)]
pub(crate) struct ConnArgs {
    /// Server host name or IP address, over TCP [default: 127.0.0.1 when
    /// --port is given; else the sandbox, see --server].
    #[arg(long, visible_alias = "mysql-host")]
    pub host: Option<String>,
    /// Server TCP port [default: 3306 with --host; else the sandbox's].
    #[arg(long, visible_alias = "mysql-port")]
    pub port: Option<u16>,
    /// Unix socket file (takes precedence over --host/--port) [default: none].
    #[arg(long, visible_alias = "mysql-socket")]
    pub socket: Option<PathBuf>,
    /// User name [default: sbtest; root on a sandbox].
    #[arg(long, visible_alias = "mysql-user")]
    pub user: Option<String>,
    /// Password; without a value, prompted for. Never recorded [default:
    /// MYSQL_PWD, or the DSN's, or empty].
    #[arg(long, visible_alias = "mysql-password", num_args = 0..=1, default_missing_value = "\u{1}prompt")]
    pub password: Option<String>,
    /// Database (schema) the tables live in; on a sandbox, prepare and run
    /// create it when missing, cleanup and check refuse it [default: sbtest].
    #[arg(long, visible_alias = "mysql-db")]
    pub db: Option<String>,
    /// The whole target as a URL: mysql://user[:password]@host[:port]/db or
    /// mysql://user@localhost/db?socket=/path; the options above override
    /// its parts [default: none].
    #[arg(long)]
    pub dsn: Option<String>,
    /// Sandbox to target (and start if needed) when no --host, --port,
    /// --socket or --dsn is given (`qpslab server list`) [default: default].
    #[arg(long)]
    pub server: Option<String>,
    /// Create the --server sandbox when it does not exist yet (without it,
    /// an unknown name is refused, so a typo does not start a new server;
    /// the default sandbox is created on first use either way).
    #[arg(long)]
    pub create: bool,
    /// TLS: DISABLED, PREFERRED, REQUIRED, VERIFY_CA, VERIFY_IDENTITY
    /// (sysbench's --mysql-ssl on|off is accepted too) [default: DISABLED,
    /// as sysbench].
    #[arg(long, visible_alias = "mysql-ssl", value_enum, ignore_case = true)]
    pub ssl_mode: Option<SslModeArg>,
    /// CA certificate (PEM) for --ssl-mode VERIFY_CA / VERIFY_IDENTITY
    /// [default: none].
    #[arg(long, visible_alias = "mysql-ssl-ca")]
    pub ssl_ca: Option<PathBuf>,
    /// PEM file with the server's RSA public key, for caching_sha2_password
    /// and sha256_password over plain TCP [default: none: asked of the
    /// server when needed].
    #[arg(long, alias = "server-public-key-path")]
    pub server_public_key: Option<PathBuf>,
    /// Seconds to open a connection and log in, retries of a full accept
    /// backlog included [default: 10].
    #[arg(long, visible_alias = "mysql-connect-timeout", value_parser = timeout_secs)]
    pub connect_timeout: Option<f64>,
    /// Seconds to wait for a response before the connection counts as lost
    /// (counted as error 2013, then reconnected) [default: 60].
    #[arg(long, visible_alias = "mysql-read-timeout", value_parser = timeout_secs)]
    pub read_timeout: Option<f64>,
    /// How prepare sends rows: auto (through a named pipe the server reads
    /// with LOAD DATA INFILE when it is on this host and its
    /// secure_file_priv lets it, else LOAD DATA LOCAL over the
    /// connection), pipe (the pipe or fail, saying why), local [default:
    /// auto].
    #[arg(long, value_enum)]
    pub load_via: Option<LoadViaArg>,
    /// Dry run: connect to nothing and answer every statement in the
    /// process as if it ran and returned nothing (sysbench's
    /// --mysql-dry-run), to measure the client's own cost [default: off].
    #[arg(long, visible_alias = "mysql-dry-run", num_args = 0..=1, default_missing_value = "on", value_parser = parse_bool, default_value = "off")]
    pub dry_run: bool,
}
