//! Connection options: where the server is and who we are.

use std::path::PathBuf;
use std::time::Duration;

/// Connect, handshake and authentication together must finish within this.
pub(crate) const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// A response (or the next part of one) must arrive within this.
pub(crate) const DEFAULT_READ_TIMEOUT: Duration = Duration::from_secs(60);

/// Where to connect.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Endpoint {
    /// A TCP host (name or address) and port.
    Tcp {
        /// Host name or address.
        host: String,
        /// TCP port.
        port: u16,
    },
    /// A unix socket's path.
    Unix(PathBuf),
}

impl std::fmt::Display for Endpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Endpoint::Tcp { host, port } => write!(f, "{host}:{port}"),
            Endpoint::Unix(p) => write!(f, "{}", p.display()),
        }
    }
}

/// How bulk loads send their rows to the server (`workload::bulk_load`
/// reads it; the protocol itself only offers LOAD DATA LOCAL).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LoadVia {
    /// A named pipe the server reads itself when it runs on this host and
    /// may (LOAD DATA INFILE, `secure_file_priv`), else LOAD DATA LOCAL.
    #[default]
    Auto,
    /// The named pipe only: a load that cannot use it fails, saying why.
    Pipe,
    /// LOAD DATA LOCAL, rows sent over the connection.
    Local,
}

/// Everything needed to open a session. `password` is never printed: the
/// `Debug` impl masks it.
#[derive(Clone)]
pub struct ConnOpts {
    /// Where the server listens.
    pub endpoint: Endpoint,
    /// The account's user name.
    pub user: String,
    /// Its password (empty for none).
    pub password: String,
    /// The default database (USE) once connected.
    pub db: Option<String>,
    /// PEM of the server's RSA public key for caching_sha2/sha256 full auth
    /// over plain TCP; requested from the server when absent.
    pub server_public_key: Option<Vec<u8>>,
    /// Announce CLIENT_LOCAL_FILES, for `Conn::load_data`. Safe: the client
    /// only ever sends the rows it generates, never a file the server names.
    pub local_infile: bool,
    /// How bulk loads send rows (see [`LoadVia`]).
    pub load_via: LoadVia,
    /// Whether and how TLS is used.
    pub ssl_mode: super::tls::SslMode,
    /// PEM CA certificate(s) for VERIFY_CA / VERIFY_IDENTITY.
    pub ssl_ca: Option<Vec<u8>>,
    /// Bound on opening the socket, the handshake and authentication
    /// together (retries of a full accept backlog included).
    pub connect_timeout: Duration,
    /// Bound on waiting for each response of the text protocol, prepares
    /// and LOAD DATA. The execute hot path does not arm a timer per query:
    /// exec's watchdog cuts a stalled connection instead (see `Breaker`).
    pub read_timeout: Duration,
    /// Also retry "connection refused" until `connect_timeout` (load
    /// connections riding through a server restart); otherwise a refused
    /// connection is reported at once (the server is down).
    pub retry_refused: bool,
    /// No server: `Conn::connect` gives a connection that fails every
    /// request with "connection creation failed" (sysbench mode runs a
    /// script that never connects, as sysbench does, without a server).
    pub detached: bool,
    /// Dry run (sysbench's `--mysql-dry-run`): `Conn::connect` opens no
    /// socket and gives a connection that answers every request itself,
    /// as if it ran and returned nothing — a run then measures the
    /// client's own cost.
    pub dry_run: bool,
}

impl ConnOpts {
    /// Whether a connection reaches a server (neither detached nor a dry
    /// run): a use case asks the server about itself only then.
    pub fn reaches_server(&self) -> bool {
        !self.detached && !self.dry_run
    }

    /// Options with every default and an endpoint that is never connected
    /// to: for checking the rest of a configuration before a server exists.
    pub fn placeholder() -> ConnOpts {
        ConnOpts::new(
            Endpoint::Unix(PathBuf::from("/nonexistent/qpslab-placeholder.sock")),
            "",
            None,
        )
    }

    /// Options for `user` (no password) at `endpoint`, database `db`, with
    /// every other option at its default.
    pub fn new(endpoint: Endpoint, user: &str, db: Option<&str>) -> ConnOpts {
        ConnOpts {
            endpoint,
            user: user.to_string(),
            password: String::new(),
            db: db.map(str::to_string),
            server_public_key: None,
            local_infile: false,
            load_via: LoadVia::Auto,
            ssl_mode: super::tls::SslMode::Disabled,
            ssl_ca: None,
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
            read_timeout: DEFAULT_READ_TIMEOUT,
            retry_refused: false,
            detached: false,
            dry_run: false,
        }
    }
}

impl std::fmt::Debug for ConnOpts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ConnOpts")
            .field("endpoint", &self.endpoint)
            .field("user", &self.user)
            .field(
                "password",
                &if self.password.is_empty() { "" } else { "***" },
            )
            .field("db", &self.db)
            .field("connect_timeout", &self.connect_timeout)
            .field("read_timeout", &self.read_timeout)
            .field("dry_run", &self.dry_run)
            .finish()
    }
}

impl ConnOpts {
    /// Applies a DSN (`mysql://user[:password]@host[:port]/db?socket=…`,
    /// scheme mysql or mariadb): user, endpoint and database; returns the
    /// password it holds, if any (the caller decides whether it wins over
    /// other sources). Err is a one-line message with the password masked.
    pub fn apply_dsn(&mut self, dsn: &str) -> Result<Option<String>, String> {
        let u = url::Url::parse(dsn).map_err(|_| {
            format!(
                "bad --dsn: expected mysql://user[:password]@host[:port]/db, got '{}'",
                masked(dsn)
            )
        })?;
        if u.scheme() != "mysql" && u.scheme() != "mariadb" {
            return Err(format!(
                "bad --dsn scheme '{}': use mysql://user@host:port/db",
                u.scheme()
            ));
        }
        if !u.username().is_empty() {
            self.user = percent(u.username());
        }
        self.endpoint = Endpoint::Tcp {
            host: u.host_str().unwrap_or("127.0.0.1").to_string(),
            port: u.port().unwrap_or(3306),
        };
        if let Some((_, s)) = u.query_pairs().find(|(k, _)| k == "socket") {
            self.endpoint = Endpoint::Unix(s.into_owned().into());
        }
        let db = u.path().trim_start_matches('/');
        if !db.is_empty() {
            self.db = Some(db.to_string());
        }
        Ok(u.password().map(percent))
    }
}

fn percent(s: &str) -> String {
    url::form_urlencoded::parse(format!("x={s}").as_bytes())
        .next()
        .map(|(_, v)| v.into_owned())
        .unwrap_or_else(|| s.to_string())
}

/// The DSN with its password (if any) replaced by `***`.
fn masked(d: &str) -> String {
    match crate::secret::dsn_password_span(d) {
        Some((a, b)) => format!("{}***{}", &d[..a], &d[b..]),
        None => d.to_string(),
    }
}
