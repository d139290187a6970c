//! The UI's HTTP/1 server loop: hyper's connection builder with a timer,
//! so a client gets `HEADER_READ_TIMEOUT` to send a request's headers
//! (slowloris clients that trickle them are cut), and at most
//! `MAX_CONNECTIONS` connections are served at once (more wait in the
//! listen backlog). With a TLS acceptor (the agent's --tls-cert), each
//! connection's handshake must end within the same time.

use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

/// How long a client may take to send a request's headers (the first
/// request's, and each later one's on a kept-alive connection).
pub(crate) const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);

/// Connections served at once.
pub(crate) const MAX_CONNECTIONS: usize = 64;

/// Serves `router` on `listener` until `stop` resolves.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    stop: impl std::future::Future<Output = ()>,
) -> std::io::Result<()> {
    serve_with(listener, router, stop, None).await
}

/// As `serve`, over TLS when `tls` is given.
pub async fn serve_with(
    listener: TcpListener,
    router: Router,
    stop: impl std::future::Future<Output = ()>,
    tls: Option<tokio_rustls::TlsAcceptor>,
) -> std::io::Result<()> {
    let slots = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    tokio::pin!(stop);
    loop {
        let Ok(slot) = Arc::clone(&slots).acquire_owned().await else {
            return Ok(()); // never closed
        };
        let (stream, _) = tokio::select! {
            () = &mut stop => return Ok(()),
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                // A connection that failed before it was accepted
                // (reset, out of descriptors): go on with the next.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(10)).await;
                    continue;
                }
            },
        };
        let service = TowerToHyperService::new(router.clone());
        let tls = tls.clone();
        tokio::spawn(async move {
            let builder = {
                let mut b = hyper::server::conn::http1::Builder::new();
                b.timer(TokioTimer::new())
                    .header_read_timeout(HEADER_READ_TIMEOUT);
                b
            };
            // A client that goes away or is cut is not the server's error.
            match tls {
                None => {
                    let _ = builder
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                }
                Some(acceptor) => {
                    let shake = tokio::time::timeout(HEADER_READ_TIMEOUT, acceptor.accept(stream));
                    if let Ok(Ok(stream)) = shake.await {
                        let _ = builder
                            .serve_connection(TokioIo::new(stream), service)
                            .await;
                    }
                }
            }
            drop(slot);
        });
    }
}

/// A TLS acceptor serving the PEM certificate chain `cert` with the PEM
/// private key `key`; refused in one line when either does not read.
pub fn tls_acceptor(
    cert: &std::path::Path,
    key: &std::path::Path,
) -> Result<tokio_rustls::TlsAcceptor, String> {
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer};
    let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(cert)
        .map_err(|e| format!("--tls-cert: cannot read {}: {e}", cert.display()))?
        .filter_map(|c| c.ok())
        .collect();
    if chain.is_empty() {
        return Err(format!(
            "--tls-cert: {} holds no PEM certificate",
            cert.display()
        ));
    }
    let pkey = PrivateKeyDer::from_pem_file(key).map_err(|e| {
        format!(
            "--tls-key: {} holds no PEM private key ({e})",
            key.display()
        )
    })?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("TLS: {e}"))?
        .with_no_client_auth()
        .with_single_cert(chain, pkey)
        .map_err(|e| {
            format!(
                "--tls-cert/--tls-key: {} and {} do not make a usable pair: {e}",
                cert.display(),
                key.display()
            )
        })?;
    Ok(tokio_rustls::TlsAcceptor::from(Arc::new(config)))
}
