//! TLS termination in the relay (`--tls-cert`, `--tls-key`): handshakes run
//! on their own tasks, each within the handshake deadline, so a slow or
//! silent client never holds up the accept loop; admission caps and
//! eviction apply to the TCP connection underneath as without TLS.

use std::net::SocketAddr;
use std::time::Duration;

use axum::serve::Listener;
use tokio::sync::mpsc;
use tokio_rustls::server::TlsStream;
use tokio_rustls::TlsAcceptor;

use super::admission::{AdmissionListener, Admitted, Tracked};

/// Handshaken connections waiting for the server to take them.
const READY: usize = 1024;

/// The admission listener with TLS on top.
pub(crate) struct TlsListener {
    ready: mpsc::Receiver<(TlsStream<Tracked>, SocketAddr)>,
    addr: std::io::Result<SocketAddr>,
}

impl TlsListener {
    pub(crate) fn new(
        mut inner: AdmissionListener,
        acceptor: TlsAcceptor,
        deadline: Duration,
    ) -> Self {
        let addr = inner.local_addr();
        let (tx, ready) = mpsc::channel(READY);
        tokio::spawn(async move {
            loop {
                let (io, peer) = inner.accept().await;
                if tx.is_closed() {
                    break;
                }
                let (acceptor, tx) = (acceptor.clone(), tx.clone());
                tokio::spawn(async move {
                    match tokio::time::timeout(deadline, acceptor.accept(io)).await {
                        Ok(Ok(tls)) => {
                            let _ = tx.send((tls, peer)).await;
                        }
                        Ok(Err(e)) => tracing::debug!(%peer, error = %e, "TLS handshake failed"),
                        Err(_) => tracing::debug!(%peer, "TLS handshake timed out"),
                    }
                });
            }
        });
        TlsListener { ready, addr }
    }
}

impl Listener for TlsListener {
    type Io = TlsStream<Tracked>;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        match self.ready.recv().await {
            Some(c) => c,
            // The accept loop is gone: nothing more will come.
            None => std::future::pending().await,
        }
    }

    fn local_addr(&self) -> std::io::Result<SocketAddr> {
        match &self.addr {
            Ok(a) => Ok(*a),
            Err(e) => Err(std::io::Error::new(e.kind(), e.to_string())),
        }
    }
}

impl axum::extract::connect_info::Connected<axum::serve::IncomingStream<'_, TlsListener>>
    for Admitted
{
    fn connect_info(stream: axum::serve::IncomingStream<'_, TlsListener>) -> Self {
        Admitted {
            ticket: stream.io().get_ref().0.ticket().clone(),
        }
    }
}
