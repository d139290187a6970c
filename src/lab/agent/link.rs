//! How the controller reaches its agents: the shared bearer token, and
//! HTTPS when a CA file is given (each agent's certificate checked
//! against that CA alone, its host name or IP included), plain HTTP
//! otherwise. Builds the HTTP clients and the URLs; what is asked is
//! controller.rs's, drive.rs's and server_agent.rs's.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;
use ureq::tls::{Certificate, PemItem, RootCerts, TlsConfig};

/// The token, and the CA the agents' certificates must chain to.
#[derive(Clone)]
pub struct Link {
    /// The shared token (bearer token of every request).
    pub token: String,
    /// The CA's certificates: HTTPS to every agent when given.
    ca: Option<Arc<Vec<Certificate<'static>>>>,
}

impl Link {
    /// Plain HTTP with `token`.
    pub fn plain(token: &str) -> Link {
        Link {
            token: token.to_string(),
            ca: None,
        }
    }

    /// HTTPS with `token`, trusting the certificates in the PEM file
    /// `ca` (the agents' own self-signed certificate, or the CA that
    /// signed them); refused in one line when it holds none.
    pub fn with_ca(token: &str, ca: &Path) -> Result<Link, String> {
        let pem = std::fs::read(ca)
            .map_err(|e| format!("--agent-ca: cannot read {}: {e}", ca.display()))?;
        let certs: Vec<Certificate<'static>> = ureq::tls::parse_pem(&pem)
            .filter_map(|item| match item {
                Ok(PemItem::Certificate(c)) => Some(c),
                _ => None,
            })
            .collect();
        if certs.is_empty() {
            return Err(format!(
                "--agent-ca: {} holds no PEM certificate (\"-----BEGIN CERTIFICATE-----\"): give the agents' certificate or their CA's",
                ca.display()
            ));
        }
        Ok(Link {
            token: token.to_string(),
            ca: Some(Arc::new(certs)),
        })
    }

    /// Whether requests go over TLS.
    pub fn tls(&self) -> bool {
        self.ca.is_some()
    }

    /// A client whose every request ends within `timeout`; statuses are
    /// answers, not errors (the agents' refusals are read).
    pub fn client(&self, timeout: Duration) -> ureq::Agent {
        let mut b = ureq::Agent::config_builder()
            .timeout_global(Some(timeout))
            .http_status_as_error(false);
        if let Some(ca) = &self.ca {
            b = b.tls_config(
                TlsConfig::builder()
                    .root_certs(RootCerts::Specific(ca.clone()))
                    .build(),
            );
        }
        b.build().into()
    }

    /// The URL of `path` on the agent at `addr` (host:port).
    pub fn url(&self, addr: &str, path: &str) -> String {
        let scheme = if self.tls() { "https" } else { "http" };
        format!("{scheme}://{addr}{path}")
    }

    /// What to say when an agent cannot be reached: the transport's
    /// error, with the likely cause when TLS is on one side only.
    pub fn unreachable(&self, e: &ureq::Error) -> String {
        let text = e.to_string();
        let hint = match (self.tls(), &text) {
            (false, t)
                if t.contains("invalid HTTP version")
                    || t.contains("Peer disconnected")
                    || t.contains("connection reset") =>
            {
                " (an agent started with --tls-cert answers only TLS: give --agent-ca)"
            }
            (true, t) if t.contains("corrupt message") || t.contains("InvalidContentType") => {
                " (the agent speaks plain HTTP: start it with --tls-cert and --tls-key, or drop --agent-ca)"
            }
            (true, t) if t.contains("CaUsedAsEndEntity") => {
                " (the agent's certificate is a CA's, as `openssl req -x509` makes by default: make it with -addext basicConstraints=critical,CA:FALSE, or sign it with a CA and give that CA)"
            }
            (true, t) if t.contains("certificate") || t.contains("Certificate") => {
                " (its certificate does not chain to --agent-ca, or does not name the address used)"
            }
            _ => "",
        };
        format!("cannot reach it: {text}{hint}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ca_file_without_a_certificate_is_one_line() {
        let dir = std::env::temp_dir().join(format!("qpslab-link-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("empty.pem");
        std::fs::write(&f, "not a certificate\n").unwrap();
        let e = Link::with_ca("t", &f).err().unwrap();
        assert!(e.contains("holds no PEM certificate"), "{e}");
        assert!(!e.contains('\n'));
        let e = Link::with_ca("t", &dir.join("absent.pem")).err().unwrap();
        assert!(e.starts_with("--agent-ca: cannot read"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
        let p = Link::plain("t");
        assert_eq!(p.url("h:1", "/v1/hello"), "http://h:1/v1/hello");
    }
}
