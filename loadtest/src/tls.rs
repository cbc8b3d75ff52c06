//! `--tls`: a certificate authority and a server certificate for `localhost` made for the
//! run, in memory, so the in-process server and the clients speak TLS with nothing to set
//! up and no key left on disk.

use std::sync::Arc;

use rcgen::{BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, KeyPair};
use thrift_net::tls::rustls::pki_types::{PrivateKeyDer, PrivatePkcs8KeyDer};
use thrift_net::tls::rustls::{self, RootCertStore};
use thrift_net::tls::{self as net_tls, ClientTls};

/// The name the server's certificate carries and the clients check.
pub const SERVER_NAME: &str = "localhost";

/// Both ends of the run's TLS.
#[derive(Clone)]
pub struct RunTls {
    /// What the in-process server presents.
    pub server: Arc<rustls::ServerConfig>,
    /// What every client connection trusts, and the name it checks.
    pub client: ClientTls,
}

impl std::fmt::Debug for RunTls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunTls").field("client", &self.client).finish_non_exhaustive()
    }
}

/// What a step's error becomes: `--tls: STEP: ERROR`.
fn failed<E: std::fmt::Display>(step: &'static str) -> impl FnOnce(E) -> String {
    move |e| format!("--tls: {step}: {e}")
}

impl RunTls {
    /// A fresh CA, a certificate for [`SERVER_NAME`] it signed, and the rustls
    /// configurations over them (rustls's `ring` provider, TLS 1.2 and 1.3).
    ///
    /// # Errors
    /// A sentence naming the step that failed (none should, short of a broken provider).
    pub fn generate() -> Result<RunTls, String> {
        let ca_key = KeyPair::generate().map_err(failed("CA key"))?;
        let mut ca = CertificateParams::new(Vec::<String>::new()).map_err(failed("CA"))?;
        ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        ca.distinguished_name.push(DnType::CommonName, "thrift-loadtest CA");
        let ca = ca.self_signed(&ca_key).map_err(failed("CA certificate"))?;

        let key = KeyPair::generate().map_err(failed("server key"))?;
        let mut leaf = CertificateParams::new(vec![SERVER_NAME.to_string()]).map_err(failed("server"))?;
        leaf.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
        let leaf = leaf.signed_by(&key, &ca, &ca_key).map_err(failed("server certificate"))?;

        let private_key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.serialize_der()));
        let server = rustls::ServerConfig::builder_with_provider(net_tls::provider())
            .with_safe_default_protocol_versions()
            .map_err(failed("server protocol versions"))?
            .with_no_client_auth()
            .with_single_cert(vec![leaf.der().clone()], private_key)
            .map_err(failed("server configuration"))?;

        let mut roots = RootCertStore::empty();
        roots.add(ca.der().clone()).map_err(failed("trusting the CA"))?;
        let client = rustls::ClientConfig::builder_with_provider(net_tls::provider())
            .with_safe_default_protocol_versions()
            .map_err(failed("client protocol versions"))?
            .with_root_certificates(roots)
            .with_no_client_auth();
        Ok(RunTls { server: Arc::new(server), client: ClientTls::new(Arc::new(client), SERVER_NAME) })
    }
}
