//! Connection options: where the server is and who we are.

use std::path::PathBuf;

/// Where to connect.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Endpoint {
    Tcp { host: String, port: u16 },
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

/// Everything needed to open a session. `password` is never printed: the
/// `Debug` impl masks it.
#[derive(Clone)]
pub struct ConnOpts {
    pub endpoint: Endpoint,
    pub user: String,
    pub password: String,
    pub db: Option<String>,
    /// PEM of the server's RSA public key for caching_sha2/sha256 full auth
    /// over plain TCP; requested from the server when absent.
    pub server_public_key: Option<Vec<u8>>,
    /// Announce CLIENT_LOCAL_FILES, for `Conn::load_data`. Safe: the client
    /// only ever sends the rows it generates, never a file the server names.
    pub local_infile: bool,
    pub ssl_mode: super::tls::SslMode,
    /// PEM CA certificate(s) for VERIFY_CA / VERIFY_IDENTITY.
    pub ssl_ca: Option<Vec<u8>>,
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
            .finish()
    }
}
