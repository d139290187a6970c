//! TLS for client sessions (rustls with the ring provider).
//!
//! Modes follow the MySQL client's `--ssl-mode`: DISABLED, PREFERRED (TLS if
//! the server offers it), REQUIRED (TLS, certificate not checked, like
//! `mysql --ssl-mode=REQUIRED`), VERIFY_CA (chain checked against --ssl-ca,
//! host name not), VERIFY_IDENTITY (chain and host name checked).

use super::error::ProtoError;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::WebPkiServerVerifier;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme};
use std::sync::Arc;

/// TLS use, as the mysql client's --ssl-mode (ordered from least to most
/// strict).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum SslMode {
    /// Plain TCP only.
    Disabled,
    /// TLS when the server offers it, else plain.
    Preferred,
    /// TLS or fail; the certificate is not checked.
    Required,
    /// TLS with a certificate signed by the given CA.
    VerifyCa,
    /// As VerifyCa, and the certificate names the host.
    VerifyIdentity,
}

fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

/// Accepts any certificate: encryption without authentication (REQUIRED).
#[derive(Debug)]
struct AcceptAny(Arc<rustls::crypto::CryptoProvider>);

impl ServerCertVerifier for AcceptAny {
    fn verify_server_cert(
        &self,
        _: &CertificateDer<'_>,
        _: &[CertificateDer<'_>],
        _: &ServerName<'_>,
        _: &[u8],
        _: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }
    fn verify_tls12_signature(
        &self,
        m: &[u8],
        c: &CertificateDer<'_>,
        d: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(m, c, d, &self.0.signature_verification_algorithms)
    }
    fn verify_tls13_signature(
        &self,
        m: &[u8],
        c: &CertificateDer<'_>,
        d: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(m, c, d, &self.0.signature_verification_algorithms)
    }
    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

/// Checks the chain against the CA but not the host name (VERIFY_CA).
#[derive(Debug)]
struct ChainOnly(Arc<WebPkiServerVerifier>);

impl ServerCertVerifier for ChainOnly {
    fn verify_server_cert(
        &self,
        end: &CertificateDer<'_>,
        mid: &[CertificateDer<'_>],
        name: &ServerName<'_>,
        ocsp: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        match self.0.verify_server_cert(end, mid, name, ocsp, now) {
            Err(rustls::Error::InvalidCertificate(rustls::CertificateError::NotValidForName))
            | Err(rustls::Error::InvalidCertificate(
                rustls::CertificateError::NotValidForNameContext { .. },
            )) => Ok(ServerCertVerified::assertion()),
            other => other,
        }
    }
    fn verify_tls12_signature(
        &self,
        m: &[u8],
        c: &CertificateDer<'_>,
        d: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls12_signature(m, c, d)
    }
    fn verify_tls13_signature(
        &self,
        m: &[u8],
        c: &CertificateDer<'_>,
        d: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls13_signature(m, c, d)
    }
    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.supported_verify_schemes()
    }
}

/// The rustls configuration for a mode; `ca_pem` is needed for the VERIFY modes.
pub(crate) fn client_config(
    mode: SslMode,
    ca_pem: Option<&[u8]>,
) -> Result<Arc<ClientConfig>, ProtoError> {
    let tls_err = |e: rustls::Error| ProtoError::Tls(e.to_string());
    let builder = ClientConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .map_err(tls_err)?;
    let config = if mode >= SslMode::VerifyCa {
        let pem = ca_pem.ok_or_else(|| {
            ProtoError::Tls("--ssl-mode VERIFY_CA/VERIFY_IDENTITY needs --ssl-ca FILE".into())
        })?;
        let mut roots = RootCertStore::empty();
        for cert in CertificateDer::pem_slice_iter(pem) {
            let cert = cert.map_err(|e| ProtoError::Tls(format!("--ssl-ca: {e}")))?;
            roots.add(cert).map_err(tls_err)?;
        }
        let webpki = WebPkiServerVerifier::builder_with_provider(Arc::new(roots), provider())
            .build()
            .map_err(|e| ProtoError::Tls(e.to_string()))?;
        let verifier: Arc<dyn ServerCertVerifier> = if mode == SslMode::VerifyCa {
            Arc::new(ChainOnly(webpki))
        } else {
            webpki
        };
        builder
            .dangerous()
            .with_custom_certificate_verifier(verifier)
            .with_no_client_auth()
    } else {
        builder
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(AcceptAny(provider())))
            .with_no_client_auth()
    };
    Ok(Arc::new(config))
}

/// The name the certificate is checked against.
pub(crate) fn server_name(host: &str) -> Result<ServerName<'static>, ProtoError> {
    ServerName::try_from(host.to_string())
        .map_err(|e| ProtoError::Tls(format!("'{host}' is not a valid TLS server name: {e}")))
}
