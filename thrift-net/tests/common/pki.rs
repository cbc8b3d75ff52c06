//! Certificates for TLS tests, made by rcgen for each test: a CA, a server certificate for
//! localhost and 127.0.0.1 and a client certificate, as PEM files in a directory of the test's
//! own.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rcgen::{BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, KeyPair};
use thrift_net::tls;

/// A directory of PEM files for one test, removed when dropped.
pub struct Pki {
    dir: PathBuf,
}

/// A CA and what it signs.
pub struct Ca {
    pub cert: rcgen::Certificate,
    key: KeyPair,
}

impl Ca {
    pub fn new(name: &str) -> Ca {
        let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.distinguished_name.push(DnType::CommonName, name);
        let key = KeyPair::generate().unwrap();
        Ca { cert: params.self_signed(&key).unwrap(), key }
    }

    /// A certificate for `names` with its key, as PEM.
    pub fn issue(&self, names: &[&str], purpose: ExtendedKeyUsagePurpose) -> (String, String) {
        let mut params = CertificateParams::new(names.iter().map(|n| n.to_string()).collect::<Vec<_>>()).unwrap();
        params.extended_key_usages = vec![purpose];
        let key = KeyPair::generate().unwrap();
        let cert = params.signed_by(&key, &self.cert, &self.key).unwrap();
        (cert.pem(), key.serialize_pem())
    }
}

impl Pki {
    pub fn new(test: &str) -> Pki {
        let dir = std::env::temp_dir().join(format!("thrift-net-tls-{}-{test}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Pki { dir }
    }

    pub fn write(&self, name: &str, contents: &str) -> PathBuf {
        let path = self.dir.join(name);
        std::fs::write(&path, contents).unwrap();
        path
    }

    /// A CA (`ca.pem`), a server certificate for localhost and 127.0.0.1 it signed
    /// (`server.crt`, `server.key`) and a client certificate (`client.crt`, `client.key`).
    pub fn standard(test: &str) -> Pki {
        let pki = Pki::new(test);
        let ca = Ca::new("thrift-net test CA");
        pki.write("ca.pem", &ca.cert.pem());
        let (cert, key) = ca.issue(&["localhost", "127.0.0.1"], ExtendedKeyUsagePurpose::ServerAuth);
        pki.write("server.crt", &cert);
        pki.write("server.key", &key);
        let (cert, key) = ca.issue(&["client"], ExtendedKeyUsagePurpose::ClientAuth);
        pki.write("client.crt", &cert);
        pki.write("client.key", &key);
        pki
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    pub fn server_config(&self, client_ca: Option<&Path>) -> Arc<tls::rustls::ServerConfig> {
        tls::server_config(self.path("server.crt"), self.path("server.key"), client_ca).unwrap()
    }

    pub fn client_config(&self) -> Arc<tls::rustls::ClientConfig> {
        tls::client_config(self.path("ca.pem"), None).unwrap()
    }
}

impl Drop for Pki {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
