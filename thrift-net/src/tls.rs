//! TLS on [rustls](https://docs.rs/rustls) (with the `ring` provider): building server and
//! client configurations from PEM files, for [`Server::bind_tls`](crate::Server::bind_tls)
//! and [`Client::connect_tls`](crate::Client::connect_tls).
//!
//! Any [`rustls::ServerConfig`] or [`rustls::ClientConfig`] works (built by hand for
//! certificates from a secret store, custom verifiers, session resumption...); the helpers
//! here cover the common case from files, with errors that name the file and what is wrong
//! with it:
//!
//! - [`server_config`]: a certificate chain and its private key, and optionally a CA whose
//!   client certificates are then required (mutual TLS).
//! - [`client_config`]: the CA (or self-signed certificates) to trust, and optionally the
//!   client's own certificate and key.
//!
//! ```no_run
//! # #[thrift_net::service] trait Noop { async fn noop(&self); }
//! # struct N; impl Noop for N { async fn noop(&self) {} }
//! use std::path::Path;
//! use thrift_net::{tls, Client, ClientConfig, Server};
//!
//! # fn main() {
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let server_tls = tls::server_config("server.crt", "server.key", None)?;
//! let handle = Server::new().bind_tls("127.0.0.1:9090", server_tls, noop::Server::new(N)).await?;
//!
//! let client_tls = tls::client_config("ca.pem", None)?;
//! let client = Client::connect_tls(handle.local_addr(), "localhost", client_tls, ClientConfig::default()).await?;
//! noop::Client::new(client).noop().await?;
//! # Ok(()) }
//! # }
//! ```

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::WebPkiServerVerifier;
use rustls::crypto::CryptoProvider;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName, UnixTime};
use rustls::server::WebPkiClientVerifier;
use rustls::{DigitallySignedStruct, RootCertStore, SignatureScheme};

/// The rustls this crate is built on, for building configurations by hand.
pub use tokio_rustls::rustls;
/// Accepts TLS connections with a [`rustls::ServerConfig`]; what
/// [`Server::serve_tls`](crate::Server::serve_tls) takes (an `Arc<ServerConfig>` converts).
pub use tokio_rustls::TlsAcceptor;
/// Opens TLS connections with a [`rustls::ClientConfig`]; what
/// [`Client::connect_tls`](crate::Client::connect_tls) takes (an `Arc<ClientConfig>`
/// converts).
pub use tokio_rustls::TlsConnector;

/// Building a TLS configuration failed: which file (if a file is to blame) and why.
///
/// Displayed as `TLS setup: certs/server.key: no private key in it (...)`.
#[derive(Debug)]
pub struct TlsConfigError {
    path: Option<PathBuf>,
    problem: String,
}

impl TlsConfigError {
    fn at(path: &Path, problem: impl Into<String>) -> Self {
        TlsConfigError { path: Some(path.to_path_buf()), problem: problem.into() }
    }

    /// The file the error is about, when it is about one.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }
}

impl fmt::Display for TlsConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.path {
            Some(path) => write!(f, "TLS setup: {}: {}", path.display(), self.problem),
            None => write!(f, "TLS setup: {}", self.problem),
        }
    }
}

impl std::error::Error for TlsConfigError {}

/// The crypto provider every configuration here uses: rustls's `ring` one (`aws-lc-rs`
/// needs cmake and a C toolchain to build).
pub fn provider() -> Arc<CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

/// Explains a PEM read failure for `what` in `path`.
fn pem_problem(path: &Path, what: &str, e: rustls::pki_types::pem::Error) -> TlsConfigError {
    use rustls::pki_types::pem::Error;
    match e {
        Error::Io(e) => TlsConfigError::at(path, format!("cannot read it: {e}")),
        Error::NoItemsFound => TlsConfigError::at(path, format!("no {what} in it")),
        other => TlsConfigError::at(path, format!("not a valid PEM file ({other})")),
    }
}

/// The certificates of a PEM file (`-----BEGIN CERTIFICATE-----` blocks), in order: for a
/// certificate chain, the end entity's first. Other blocks (a private key beside them, as
/// in Apache's `server.pem`) are skipped.
///
/// # Errors
/// When the file cannot be read, is not PEM, or holds no certificate.
///
/// ```
/// let e = thrift_net::tls::load_certs("/nonexistent/server.crt").unwrap_err();
/// assert!(e.to_string().starts_with("TLS setup: /nonexistent/server.crt: cannot read it"), "{e}");
/// ```
pub fn load_certs(path: impl AsRef<Path>) -> Result<Vec<CertificateDer<'static>>, TlsConfigError> {
    let path = path.as_ref();
    let what = "certificate (-----BEGIN CERTIFICATE----- block)";
    let certs = CertificateDer::pem_file_iter(path)
        .map_err(|e| pem_problem(path, what, e))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| pem_problem(path, what, e))?;
    if certs.is_empty() {
        return Err(TlsConfigError::at(path, format!("no {what} in it")));
    }
    Ok(certs)
}

/// The first private key of a PEM file: PKCS#8 (`PRIVATE KEY`), PKCS#1 (`RSA PRIVATE KEY`)
/// or SEC1 (`EC PRIVATE KEY`). Other blocks (certificates beside it) are skipped.
///
/// # Errors
/// When the file cannot be read, is not PEM, or holds no private key.
pub fn load_private_key(path: impl AsRef<Path>) -> Result<PrivateKeyDer<'static>, TlsConfigError> {
    let path = path.as_ref();
    PrivateKeyDer::from_pem_file(path).map_err(|e| {
        pem_problem(
            path,
            "private key (PRIVATE KEY, RSA PRIVATE KEY or EC PRIVATE KEY block; encrypted keys are not read)",
            e,
        )
    })
}

/// The certificates of a PEM file as trust anchors.
fn load_roots(path: &Path) -> Result<(RootCertStore, Vec<CertificateDer<'static>>), TlsConfigError> {
    let certs = load_certs(path)?;
    let mut roots = RootCertStore::empty();
    for (i, cert) in certs.iter().enumerate() {
        roots
            .add(cert.clone())
            .map_err(|e| TlsConfigError::at(path, format!("certificate {} cannot be a trust anchor: {e}", i + 1)))?;
    }
    Ok((roots, certs))
}

/// A server configuration from PEM files: the certificate chain (`cert_chain`, end entity
/// first) and its private key (`key`; the same file may hold both), TLS 1.2 and 1.3.
/// With `client_ca`, every client must present a certificate that CA issued (mutual TLS);
/// without, clients are not asked for one.
///
/// # Errors
/// When a file cannot be read or holds nothing usable, or the key does not fit the
/// certificate; the error names the file.
///
/// ```no_run
/// use std::path::Path;
/// let tls = thrift_net::tls::server_config("server.crt", "server.key", Some(Path::new("clients-ca.pem")))?;
/// # Ok::<(), thrift_net::tls::TlsConfigError>(())
/// ```
pub fn server_config(
    cert_chain: impl AsRef<Path>,
    key: impl AsRef<Path>,
    client_ca: Option<&Path>,
) -> Result<Arc<rustls::ServerConfig>, TlsConfigError> {
    let (cert_path, key_path) = (cert_chain.as_ref(), key.as_ref());
    let certs = load_certs(cert_path)?;
    let private_key = load_private_key(key_path)?;
    let builder = rustls::ServerConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .map_err(|e| TlsConfigError { path: None, problem: format!("protocol versions: {e}") })?;
    let builder = match client_ca {
        Some(ca) => {
            let (roots, _) = load_roots(ca)?;
            let verifier = WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider())
                .build()
                .map_err(|e| TlsConfigError::at(ca, format!("cannot verify clients with it: {e}")))?;
            builder.with_client_cert_verifier(verifier)
        }
        None => builder.with_no_client_auth(),
    };
    let config = builder.with_single_cert(certs, private_key).map_err(|e| {
        TlsConfigError::at(key_path, format!("does not go with the certificate in {}: {e}", cert_path.display()))
    })?;
    Ok(Arc::new(config))
}

/// A client configuration from PEM files: the certificates to trust (`ca`: CAs, or
/// self-signed server certificates), and optionally the client's own certificate chain and
/// private key, for servers that require them. TLS 1.2 and 1.3.
///
/// A server's certificate is accepted when it chains to a certificate of `ca` and carries
/// the server name connected to; or when it is itself one of `ca`'s certificates and carries
/// that name: a self-signed certificate marked as a CA (as Apache's test keys are, their
/// `CA.pem` being the server's own certificate) is trusted as listed, which webpki alone
/// refuses for an end entity.
///
/// # Errors
/// When a file cannot be read or holds nothing usable, or the client's key does not fit its
/// certificate; the error names the file.
///
/// ```no_run
/// use std::path::Path;
/// let tls = thrift_net::tls::client_config("ca.pem", Some((Path::new("client.crt"), Path::new("client.key"))))?;
/// # Ok::<(), thrift_net::tls::TlsConfigError>(())
/// ```
pub fn client_config(
    ca: impl AsRef<Path>,
    identity: Option<(&Path, &Path)>,
) -> Result<Arc<rustls::ClientConfig>, TlsConfigError> {
    let ca = ca.as_ref();
    let (roots, listed) = load_roots(ca)?;
    let webpki = WebPkiServerVerifier::builder_with_provider(Arc::new(roots), provider())
        .build()
        .map_err(|e| TlsConfigError::at(ca, format!("cannot verify servers with it: {e}")))?;
    let verifier = Arc::new(ListedOrChained { webpki, listed });
    let builder = rustls::ClientConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .map_err(|e| TlsConfigError { path: None, problem: format!("protocol versions: {e}") })?
        .dangerous()
        .with_custom_certificate_verifier(verifier);
    let config = match identity {
        Some((cert_path, key_path)) => {
            let certs = load_certs(cert_path)?;
            let key = load_private_key(key_path)?;
            builder.with_client_auth_cert(certs, key).map_err(|e| {
                TlsConfigError::at(
                    key_path,
                    format!("does not go with the certificate in {}: {e}", cert_path.display()),
                )
            })?
        }
        None => builder.with_no_client_auth(),
    };
    Ok(Arc::new(config))
}

/// Accepts a server certificate that chains to a trusted one (webpki), or that is one of
/// the trusted certificates itself; either way it must name the server.
#[derive(Debug)]
struct ListedOrChained {
    webpki: Arc<WebPkiServerVerifier>,
    listed: Vec<CertificateDer<'static>>,
}

impl ServerCertVerifier for ListedOrChained {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        match self.webpki.verify_server_cert(end_entity, intermediates, server_name, ocsp_response, now) {
            Ok(verified) => Ok(verified),
            Err(chain_error) if self.listed.iter().any(|c| c.as_ref() == end_entity.as_ref()) => {
                // Trusted as listed, but still only for the names it carries.
                let parsed = rustls::server::ParsedCertificate::try_from(end_entity).map_err(|_| chain_error)?;
                rustls::client::verify_server_name(&parsed, server_name)?;
                Ok(ServerCertVerified::assertion())
            }
            Err(e) => Err(e),
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.webpki.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.webpki.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.webpki.supported_verify_schemes()
    }
}

/// TLS for connections a [`Pool`](crate::Pool) opens: the client configuration, and the name
/// every endpoint's certificate must carry (the endpoints are addresses, so the name is
/// given here). Set it as [`PoolConfig::tls`](crate::PoolConfig::tls).
///
/// ```no_run
/// use thrift_net::{tls, Pool, PoolConfig};
/// let tls = tls::ClientTls::new(tls::client_config("ca.pem", None)?, "service.internal");
/// let pool = Pool::new(["10.0.0.1:9443".parse()?], PoolConfig::default().with_tls(tls));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct ClientTls {
    /// The rustls configuration every connection uses.
    pub config: Arc<rustls::ClientConfig>,
    /// The DNS name (or IP address) the servers' certificates must be valid for.
    pub server_name: String,
}

impl ClientTls {
    /// TLS with `config`, checking certificates for `server_name`.
    pub fn new(config: Arc<rustls::ClientConfig>, server_name: impl Into<String>) -> Self {
        ClientTls { config, server_name: server_name.into() }
    }
}

impl fmt::Debug for ClientTls {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientTls").field("server_name", &self.server_name).finish_non_exhaustive()
    }
}

/// The same name and the same configuration (the one `Arc`): rustls configurations have no
/// equality of their own.
impl PartialEq for ClientTls {
    fn eq(&self, other: &Self) -> bool {
        self.server_name == other.server_name && Arc::ptr_eq(&self.config, &other.config)
    }
}

impl Eq for ClientTls {}
