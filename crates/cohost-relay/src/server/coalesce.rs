//! A write-coalescing transport under the WebSocket codec.
//!
//! Fan-out cost is dominated by write syscalls (on loopback a `send` also runs
//! the receiver's TCP stack). tungstenite writes each frame to its transport as
//! soon as it is encoded, so a batch of N queued frames costs N syscalls.
//! [`Coalesce`] accepts those writes into one buffer and hands it to the socket
//! on flush (the relay flushes once per batch) or when it reaches `max_batch`
//! bytes, so a batch costs one syscall. A fixed large codec buffer would do the
//! same but keep its capacity on every socket forever; this one gives its
//! memory back as soon as it is drained, so idle sockets stay small.

use std::io;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// Capacity kept across batches; anything above is freed once drained.
const KEEP: usize = 512;

/// See the module docs.
pub(crate) struct Coalesce<S> {
    inner: S,
    buf: Vec<u8>,
    /// Bytes of `buf` already written to `inner`.
    written: usize,
    max_batch: usize,
}

impl<S> Coalesce<S> {
    pub(crate) fn new(inner: S, max_batch: usize) -> Coalesce<S> {
        Coalesce {
            inner,
            buf: Vec::new(),
            written: 0,
            max_batch: max_batch.max(1),
        }
    }
}

impl<S: AsyncWrite + Unpin> Coalesce<S> {
    /// Writes out everything buffered; on success the buffer is empty.
    fn poll_drain(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while self.written < self.buf.len() {
            let n = ready!(Pin::new(&mut self.inner).poll_write(cx, &self.buf[self.written..]))?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            self.written += n;
        }
        self.written = 0;
        if self.buf.capacity() > KEEP {
            self.buf = Vec::new();
        } else {
            self.buf.clear();
        }
        Poll::Ready(Ok(()))
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Coalesce<S> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        if !this.buf.is_empty() && this.buf.len() + data.len() > this.max_batch {
            ready!(this.poll_drain(cx))?;
        }
        if this.buf.is_empty() && data.len() >= this.max_batch {
            // Too big to be worth copying: straight through.
            return Pin::new(&mut this.inner).poll_write(cx, data);
        }
        this.buf.extend_from_slice(data);
        Poll::Ready(Ok(data.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        ready!(this.poll_drain(cx))?;
        Pin::new(&mut this.inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        ready!(this.poll_drain(cx))?;
        Pin::new(&mut this.inner).poll_shutdown(cx)
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for Coalesce<S> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_read(cx, buf)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};
    use tokio::io::AsyncWriteExt;

    /// Records each write call it receives; accepts at most `chunk` bytes per call
    /// and returns Pending every other call when `flaky`.
    struct Recorder {
        writes: Arc<Mutex<Vec<Vec<u8>>>>,
        chunk: usize,
        flaky: bool,
        toggle: bool,
    }

    impl AsyncWrite for Recorder {
        fn poll_write(
            self: Pin<&mut Self>,
            cx: &mut Context<'_>,
            data: &[u8],
        ) -> Poll<io::Result<usize>> {
            let this = self.get_mut();
            if this.flaky {
                this.toggle = !this.toggle;
                if this.toggle {
                    cx.waker().wake_by_ref();
                    return Poll::Pending;
                }
            }
            let n = data.len().min(this.chunk);
            this.writes.lock().unwrap().push(data[..n].to_vec());
            Poll::Ready(Ok(n))
        }
        fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
            Poll::Ready(Ok(()))
        }
        fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
            Poll::Ready(Ok(()))
        }
    }

    fn recorder(chunk: usize, flaky: bool) -> (Recorder, Arc<Mutex<Vec<Vec<u8>>>>) {
        let w = Arc::new(Mutex::new(Vec::new()));
        (
            Recorder {
                writes: w.clone(),
                chunk,
                flaky,
                toggle: false,
            },
            w,
        )
    }

    #[tokio::test]
    async fn a_batch_becomes_one_write_on_flush() {
        let (r, writes) = recorder(usize::MAX, false);
        let mut c = Coalesce::new(r, 64 * 1024);
        for i in 0..10u8 {
            c.write_all(&[i; 100]).await.unwrap();
        }
        assert!(
            writes.lock().unwrap().is_empty(),
            "nothing written before flush"
        );
        c.flush().await.unwrap();
        let w = writes.lock().unwrap();
        assert_eq!(w.len(), 1);
        assert_eq!(w[0].len(), 1000);
        assert_eq!(&w[0][900..], &[9u8; 100][..]);
    }

    #[tokio::test]
    async fn the_cap_forces_a_write_and_order_is_kept() {
        let (r, writes) = recorder(usize::MAX, false);
        let mut c = Coalesce::new(r, 250);
        for i in 0..5u8 {
            c.write_all(&[i; 100]).await.unwrap();
        }
        c.flush().await.unwrap();
        let w = writes.lock().unwrap();
        assert!(
            w.iter().all(|x| x.len() <= 250),
            "{:?}",
            w.iter().map(Vec::len).collect::<Vec<_>>()
        );
        let all: Vec<u8> = w.concat();
        let want: Vec<u8> = (0..5u8).flat_map(|i| [i; 100]).collect();
        assert_eq!(all, want);
    }

    #[tokio::test]
    async fn partial_and_pending_writes_lose_nothing() {
        let (r, writes) = recorder(7, true);
        let mut c = Coalesce::new(r, 64);
        let want: Vec<u8> = (0..=255u8).cycle().take(3000).collect();
        for part in want.chunks(33) {
            c.write_all(part).await.unwrap();
        }
        c.flush().await.unwrap();
        assert_eq!(writes.lock().unwrap().concat(), want);
    }

    #[tokio::test]
    async fn memory_is_given_back_after_a_large_batch() {
        let (r, _writes) = recorder(usize::MAX, false);
        let mut c = Coalesce::new(r, 1 << 20);
        for _ in 0..100 {
            c.write_all(&[1u8; 1000]).await.unwrap();
        }
        assert!(c.buf.capacity() >= 100_000);
        c.flush().await.unwrap();
        assert_eq!(c.buf.capacity(), 0);
    }

    #[tokio::test]
    async fn big_writes_bypass_the_buffer() {
        let (r, writes) = recorder(usize::MAX, false);
        let mut c = Coalesce::new(r, 100);
        c.write_all(&[5u8; 1000]).await.unwrap();
        assert_eq!(
            writes.lock().unwrap().len(),
            1,
            "written through without flush"
        );
        assert_eq!(c.buf.capacity(), 0);
    }
}
