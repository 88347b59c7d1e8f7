//! Why a client did not trust a relay's certificate, told apart so each
//! cause gets its own message and fix instead of "cannot reach the relay".

/// A certificate verification failure, by cause.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum CertProblem {
    /// Signed by a CA this client does not trust (a private CA without
    /// `--ca-file`, or the wrong file).
    UnknownIssuer,
    /// Valid, but not for the host name or address dialled.
    NameMismatch,
    /// Past its validity period.
    Expired,
    /// Not valid yet (its start is in the future, or this clock is behind).
    NotYetValid,
    /// A CA certificate served as the relay's own (what `openssl req -x509`
    /// makes by default: `CA:TRUE`).
    CaUsedAsEndEntity,
    /// Any other verification failure.
    Other,
}

impl CertProblem {
    /// What happened, in a few words.
    pub fn describe(self) -> &'static str {
        match self {
            CertProblem::UnknownIssuer => "it is signed by a CA this machine does not trust",
            CertProblem::NameMismatch => "it is not valid for the relay's host name or address",
            CertProblem::Expired => "it has expired",
            CertProblem::NotYetValid => "it is not valid yet",
            CertProblem::CaUsedAsEndEntity => {
                "it is a CA certificate (CA:TRUE) served as the relay's own"
            }
            CertProblem::Other => "it failed verification",
        }
    }

    /// What to do about it.
    pub fn fix(self) -> &'static str {
        match self {
            CertProblem::UnknownIssuer => {
                "pass --ca-file with the PEM of the CA that signed the relay's certificate"
            }
            CertProblem::NameMismatch => {
                "dial the relay by a name or IP address in its certificate's subjectAltName, or reissue the certificate for this one"
            }
            CertProblem::Expired => "renew the relay's certificate (or check this machine's clock)",
            CertProblem::NotYetValid => "check this machine's clock, or wait until the certificate's start date",
            CertProblem::CaUsedAsEndEntity => {
                "serve a leaf certificate signed by the CA (basicConstraints CA:FALSE, with the relay's name in subjectAltName) and pass the CA with --ca-file"
            }
            CertProblem::Other => "check the relay's certificate chain (openssl s_client -connect HOST:PORT)",
        }
    }

    fn of_debug(text: &str) -> Option<CertProblem> {
        if !text.contains("InvalidCertificate") {
            return None;
        }
        let named = |n: &str| text.contains(n);
        Some(if named("UnknownIssuer") {
            CertProblem::UnknownIssuer
        } else if named("NotValidForName") {
            CertProblem::NameMismatch
        } else if named("NotValidYet") {
            CertProblem::NotYetValid
        } else if named("Expired") {
            CertProblem::Expired
        } else if named("CaUsedAsEndEntity") {
            CertProblem::CaUsedAsEndEntity
        } else {
            CertProblem::Other
        })
    }

    fn of_rustls(e: &rustls::Error) -> Option<CertProblem> {
        use rustls::CertificateError as C;
        let rustls::Error::InvalidCertificate(c) = e else {
            return None;
        };
        Some(match c {
            C::UnknownIssuer => CertProblem::UnknownIssuer,
            C::NotValidForName | C::NotValidForNameContext { .. } => CertProblem::NameMismatch,
            C::Expired | C::ExpiredContext { .. } => CertProblem::Expired,
            C::NotValidYet | C::NotValidYetContext { .. } => CertProblem::NotYetValid,
            // webpki's own error reaches rustls as `Other`: only its name tells.
            other if format!("{other:?}").contains("CaUsedAsEndEntity") => {
                CertProblem::CaUsedAsEndEntity
            }
            _ => CertProblem::Other,
        })
    }
}

impl std::fmt::Display for CertProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.describe())
    }
}

/// The certificate problem behind `err`, if a TLS verification failure is
/// somewhere in its chain of sources (reqwest and tungstenite wrap rustls's
/// error in their own, and in `std::io::Error`).
pub fn cert_problem(err: &(dyn std::error::Error + 'static)) -> Option<CertProblem> {
    let mut cur: Option<&(dyn std::error::Error + 'static)> = Some(err);
    while let Some(e) = cur {
        if let Some(r) = e.downcast_ref::<rustls::Error>() {
            return CertProblem::of_rustls(r);
        }
        if let Some(io) = e.downcast_ref::<std::io::Error>() {
            if let Some(r) = io.get_ref().and_then(|i| i.downcast_ref::<rustls::Error>()) {
                return CertProblem::of_rustls(r);
            }
        }
        if let Some(tokio_tungstenite::tungstenite::Error::Tls(
            tokio_tungstenite::tungstenite::error::TlsError::Rustls(r),
        )) = e.downcast_ref::<tokio_tungstenite::tungstenite::Error>()
        {
            return CertProblem::of_rustls(r);
        }
        cur = e.source();
    }
    // Some wrappers hide their inner error from `source()` (an `io::Error`
    // gives its inner error's source, not the inner error): the chain's
    // debug text still names rustls's variant.
    CertProblem::of_debug(&format!("{err:?}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_cause_is_told_apart_through_wrappers() {
        use rustls::CertificateError as C;
        for (c, want) in [
            (C::UnknownIssuer, CertProblem::UnknownIssuer),
            (C::NotValidForName, CertProblem::NameMismatch),
            (C::Expired, CertProblem::Expired),
            (C::NotValidYet, CertProblem::NotYetValid),
            (C::BadSignature, CertProblem::Other),
        ] {
            let io = std::io::Error::other(rustls::Error::InvalidCertificate(c));
            assert_eq!(cert_problem(&io), Some(want));
        }
        assert_eq!(cert_problem(&std::io::Error::other("refused")), None);
    }
}
