//! TLS for room tests: a CA made in the test, and a TLS-terminating TCP
//! proxy in front of the relay that records every byte the relay receives
//! and can tamper with what the relay sends (a malicious relay or network).

use std::collections::{HashMap, HashSet};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use cohost_protocol::{Frame, FrameType};
use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, IsCa, KeyPair};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// A CA (its PEM in a file, for `--ca-file`) and a server certificate for
/// 127.0.0.1 and localhost signed by it.
pub struct Pki {
    /// Holds the files until the test ends.
    pub _dir: tempfile::TempDir,
    pub ca_file: PathBuf,
    pub cert: PathBuf,
    pub key: PathBuf,
    pub acceptor: tokio_rustls::TlsAcceptor,
}

pub fn pki() -> Pki {
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let ca = CertifiedIssuer::self_signed(ca_params, KeyPair::generate().unwrap()).unwrap();
    let leaf_key = KeyPair::generate().unwrap();
    let leaf = CertificateParams::new(vec!["127.0.0.1".to_string(), "localhost".to_string()])
        .unwrap()
        .signed_by(&leaf_key, &ca)
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let ca_file = dir.path().join("ca.pem");
    std::fs::write(&ca_file, ca.pem()).unwrap();
    let cert = dir.path().join("cert.pem");
    let key = dir.path().join("key.pem");
    std::fs::write(&cert, leaf.pem()).unwrap();
    std::fs::write(&key, leaf_key.serialize_pem()).unwrap();
    let acceptor = cohost_relay::tls::acceptor(&cert, &key).unwrap();
    Pki {
        _dir: dir,
        ca_file,
        cert,
        key,
        acceptor,
    }
}

/// What the proxy does to chunk 3 of each stream after the first one a
/// connection sees, the first time it passes (the replay after a resync
/// is clean).
#[derive(Default)]
pub struct Tamper {
    /// 0: nothing; [`FLIP`], [`REPLAY`] or [`MOVE`].
    pub mode: AtomicU8,
}

/// Flip a byte of the payload.
pub const FLIP: u8 = 1;
/// Put chunk 2's payload at chunk 3 (a replay at another index).
pub const REPLAY: u8 = 2;
/// Put chunk 3's payload of the first stream there (moved from another stream).
pub const MOVE: u8 = 3;

/// The proxy: its address, and every byte clients sent to the relay.
pub struct Proxy {
    pub addr: SocketAddr,
    pub upstream: Arc<OnceLock<SocketAddr>>,
    pub received: Arc<Mutex<Vec<u8>>>,
    pub tamper: Arc<Tamper>,
}

pub async fn proxy(acceptor: tokio_rustls::TlsAcceptor) -> Proxy {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let p = Proxy {
        addr: listener.local_addr().unwrap(),
        upstream: Arc::default(),
        received: Arc::default(),
        tamper: Arc::default(),
    };
    let (upstream, received, tamper) = (p.upstream.clone(), p.received.clone(), p.tamper.clone());
    tokio::spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            let (acceptor, upstream, received, tamper) = (
                acceptor.clone(),
                upstream.clone(),
                received.clone(),
                tamper.clone(),
            );
            tokio::spawn(async move {
                let Ok(tls) = acceptor.accept(tcp).await else {
                    return;
                };
                let Some(addr) = upstream.get().copied() else {
                    return;
                };
                let Ok(relay) = TcpStream::connect(addr).await else {
                    return;
                };
                let (mut cr, mut cw) = tokio::io::split(tls);
                let (mut rr, mut rw) = relay.into_split();
                let up = async {
                    let mut buf = vec![0u8; 16 * 1024];
                    while let Ok(n) = cr.read(&mut buf).await {
                        if n == 0 {
                            break;
                        }
                        received.lock().unwrap().extend_from_slice(&buf[..n]);
                        if rw.write_all(&buf[..n]).await.is_err() {
                            break;
                        }
                    }
                    let _ = rw.shutdown().await;
                };
                let down = async {
                    let mut conn = ConnTamper::default();
                    let mut pending: Vec<u8> = Vec::new();
                    let mut upgraded = false;
                    let mut buf = vec![0u8; 16 * 1024];
                    while let Ok(n) = rr.read(&mut buf).await {
                        if n == 0 {
                            break;
                        }
                        pending.extend_from_slice(&buf[..n]);
                        let mut out = Vec::new();
                        if !upgraded {
                            let Some(end) = pending.windows(4).position(|w| w == b"\r\n\r\n")
                            else {
                                continue;
                            };
                            out.extend(pending.drain(..end + 4));
                            upgraded = true;
                        }
                        while let Some((frame, used)) = ws_frame(&pending) {
                            let frame = conn.apply(&tamper, frame);
                            out.extend(frame);
                            pending.drain(..used);
                        }
                        if cw.write_all(&out).await.is_err() {
                            break;
                        }
                    }
                    let _ = cw.shutdown().await;
                };
                tokio::join!(up, down);
            });
        }
    });
    p
}

/// One whole server-to-client WebSocket frame at the start of `b` (servers
/// do not mask): the frame's bytes and how many were used.
fn ws_frame(b: &[u8]) -> Option<(Vec<u8>, usize)> {
    if b.len() < 2 {
        return None;
    }
    let (len, hdr) = match b[1] & 0x7f {
        126 if b.len() >= 4 => (u16::from_be_bytes([b[2], b[3]]) as usize, 4),
        127 if b.len() >= 10 => (
            u64::from_be_bytes(b[2..10].try_into().unwrap()) as usize,
            10,
        ),
        126 | 127 => return None,
        n => (n as usize, 2),
    };
    (b.len() >= hdr + len).then(|| (b[..hdr + len].to_vec(), hdr + len))
}

fn ws_encode(first: u8, payload: &[u8]) -> Vec<u8> {
    let mut out = vec![first];
    match payload.len() {
        n if n < 126 => out.push(n as u8),
        n if n <= 0xffff => {
            out.push(126);
            out.extend_from_slice(&(n as u16).to_be_bytes());
        }
        n => {
            out.push(127);
            out.extend_from_slice(&(n as u64).to_be_bytes());
        }
    }
    out.extend_from_slice(payload);
    out
}

#[derive(Default)]
struct ConnTamper {
    streams: Vec<String>,
    /// (stream, chunk) -> payload, of what passed.
    payloads: HashMap<(String, u64), Vec<u8>>,
    done: HashSet<String>,
}

impl ConnTamper {
    fn apply(&mut self, tamper: &Tamper, ws: Vec<u8>) -> Vec<u8> {
        let hdr = match ws[1] & 0x7f {
            126 => 4,
            127 => 10,
            _ => 2,
        };
        if ws[0] != 0x82 {
            return ws; // not a whole binary message
        }
        let Ok(f) = Frame::decode(bytes::Bytes::copy_from_slice(&ws[hdr..])) else {
            return ws;
        };
        let Some(stream) = f.stream().map(str::to_string) else {
            return ws;
        };
        if !self.streams.contains(&stream) {
            self.streams.push(stream.clone());
        }
        let mode = tamper.mode.load(Ordering::SeqCst);
        let target = mode != 0
            && f.kind() == FrameType::StreamChunk
            && f.chunk() == 3
            && self.streams.first() != Some(&stream)
            && !self.done.contains(&stream);
        let payload = f.payload().to_vec();
        self.payloads
            .entry((stream.clone(), f.chunk()))
            .or_insert_with(|| payload.clone());
        if !target {
            return ws;
        }
        let bad = match mode {
            FLIP => {
                let mut p = payload;
                let last = p.len() - 1;
                p[last] ^= 0x01;
                p
            }
            REPLAY => match self.payloads.get(&(stream.clone(), 2)) {
                Some(p) => p.clone(),
                None => return ws,
            },
            _ => match self.payloads.get(&(self.streams[0].clone(), 3)) {
                Some(p) => p.clone(),
                None => return ws,
            },
        };
        self.done.insert(stream);
        let forged = f.with_payload(&bad);
        ws_encode(ws[0], forged.bytes())
    }
}
