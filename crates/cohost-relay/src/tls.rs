//! TLS for both ends: the client's trust (the system's roots plus an
//! optional private CA, for `wss://`) and the relay's certificate (for
//! `--tls-cert` / `--tls-key`). rustls with the ring provider.

use std::path::Path;
use std::sync::Arc;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};

use crate::error::ClientError;

fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

/// The certificates of a PEM file.
fn certs(path: &Path) -> Result<Vec<CertificateDer<'static>>, String> {
    let certs = CertificateDer::pem_file_iter(path)
        .and_then(|it| it.collect::<Result<Vec<_>, _>>())
        .map_err(|e| format!("cannot read certificates from {}: {e}", path.display()))?;
    if certs.is_empty() {
        return Err(format!("{} holds no PEM certificate", path.display()));
    }
    Ok(certs)
}

/// What a client trusts: the system's roots, plus the CA certificates in
/// `ca_file` (a private CA, or a test's).
pub fn client_config(ca_file: Option<&Path>) -> Result<Arc<rustls::ClientConfig>, ClientError> {
    let mut roots = rustls::RootCertStore::empty();
    for c in rustls_native_certs::load_native_certs().certs {
        // A system certificate rustls cannot use is skipped, not fatal.
        let _ = roots.add(c);
    }
    if let Some(path) = ca_file {
        for c in certs(path).map_err(ClientError::Tls)? {
            roots
                .add(c)
                .map_err(|e| ClientError::Tls(format!("{}: {e}", path.display())))?;
        }
    }
    if roots.is_empty() {
        return Err(ClientError::Tls(
            "no trusted CA certificates: install the system's CA bundle or pass --ca-file".into(),
        ));
    }
    let config = rustls::ClientConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .map_err(|e| ClientError::Tls(e.to_string()))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(Arc::new(config))
}

/// The relay's TLS acceptor from a PEM certificate chain and private key.
pub fn acceptor(cert: &Path, key: &Path) -> Result<tokio_rustls::TlsAcceptor, String> {
    let chain = certs(cert)?;
    let key = PrivateKeyDer::from_pem_file(key)
        .map_err(|e| format!("cannot read a private key from {}: {e}", key.display()))?;
    let mut config = rustls::ServerConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .map_err(|e| e.to_string())?
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .map_err(|e| format!("the TLS certificate and key do not fit together: {e}"))?;
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(tokio_rustls::TlsAcceptor::from(Arc::new(config)))
}
