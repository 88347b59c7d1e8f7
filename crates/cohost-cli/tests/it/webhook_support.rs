//! A webhook receiver for the notification tests: a real HTTP/1.1 server
//! on 127.0.0.1 (port 0) that keeps every POST it gets (its headers, in
//! lower case, and its body) and answers 200.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};

/// One POST as received.
#[derive(Debug, Clone)]
pub(crate) struct Post {
    /// The request path.
    pub(crate) path: String,
    /// Headers by lower-case name.
    pub(crate) headers: BTreeMap<String, String>,
    /// The body, as text.
    pub(crate) body: String,
}

impl Post {
    /// A header's value ("" when absent).
    pub(crate) fn header(&self, name: &str) -> &str {
        self.headers.get(name).map(String::as_str).unwrap_or("")
    }
}

/// The receiver: its URL and what it got.
pub(crate) struct Receiver {
    pub(crate) url: String,
    got: Arc<Mutex<Vec<Post>>>,
}

impl Receiver {
    /// Listen on 127.0.0.1:0 at `/PATH`.
    pub(crate) async fn start(path: &str) -> Receiver {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/{path}", listener.local_addr().unwrap());
        let got = Arc::new(Mutex::new(Vec::new()));
        let keep = got.clone();
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let keep = keep.clone();
                tokio::spawn(async move {
                    let (r, mut w) = stream.into_split();
                    let mut r = BufReader::new(r);
                    // Keep-alive: one request after another on a connection.
                    loop {
                        let mut first = String::new();
                        if r.read_line(&mut first).await.unwrap_or(0) == 0 {
                            return;
                        }
                        let path = first.split_whitespace().nth(1).unwrap_or("").to_owned();
                        let mut headers = BTreeMap::new();
                        loop {
                            let mut line = String::new();
                            if r.read_line(&mut line).await.unwrap_or(0) == 0 {
                                return;
                            }
                            let line = line.trim_end();
                            if line.is_empty() {
                                break;
                            }
                            if let Some((k, v)) = line.split_once(':') {
                                headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_owned());
                            }
                        }
                        let len: usize = headers
                            .get("content-length")
                            .and_then(|l| l.parse().ok())
                            .unwrap_or(0);
                        let mut body = vec![0; len];
                        if r.read_exact(&mut body).await.is_err() {
                            return;
                        }
                        keep.lock().unwrap().push(Post {
                            path,
                            headers,
                            body: String::from_utf8_lossy(&body).into_owned(),
                        });
                        let ok = b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok";
                        if w.write_all(ok).await.is_err() {
                            return;
                        }
                    }
                });
            }
        });
        Receiver { url, got }
    }

    /// Every POST so far.
    pub(crate) fn posts(&self) -> Vec<Post> {
        self.got.lock().unwrap().clone()
    }

    /// Wait (bounded) until a POST tagged `tag` came; every POST so far.
    pub(crate) async fn until_tag(&self, tag: &str, within: Duration) -> Vec<Post> {
        let deadline = Instant::now() + within;
        loop {
            let posts = self.posts();
            if posts.iter().any(|p| p.header("tags") == tag) || Instant::now() > deadline {
                return posts;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}
