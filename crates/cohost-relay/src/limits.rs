//! Per-connection limits: frame size per role and token-bucket rate per frame type.

use std::time::Instant;

use cohost_protocol::{FrameType, Role};

use crate::config::{Limits, Rate};

/// A token bucket. Time is a parameter.
#[derive(Debug, Clone)]
pub struct TokenBucket {
    tokens: f64,
    rate: Rate,
    last: Instant,
}

impl TokenBucket {
    /// A full bucket.
    pub fn new(rate: Rate, now: Instant) -> TokenBucket {
        TokenBucket {
            tokens: rate.burst,
            rate,
            last: now,
        }
    }

    /// Takes one token if available.
    pub fn try_take(&mut self, now: Instant) -> bool {
        let dt = now.saturating_duration_since(self.last).as_secs_f64();
        self.last = now;
        self.tokens = (self.tokens + dt * self.rate.per_sec).min(self.rate.burst);
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

/// The size limit for frames sent by `role`.
pub fn max_frame(limits: &Limits, role: Role) -> usize {
    match role {
        Role::Host => limits.max_frame_host,
        Role::CoDriver => limits.max_frame_co_driver,
        Role::Viewer => limits.max_frame_viewer,
    }
}

/// The rate for a frame type.
pub fn rate_for(limits: &Limits, ty: FrameType) -> Rate {
    if ty.is_replayable() {
        limits.rate_stream
    } else {
        match ty {
            FrameType::SuggestPrompt => limits.rate_suggest,
            FrameType::RoomResume => limits.rate_resume,
            FrameType::ChatMessage => limits.rate_chat,
            _ => limits.rate_other,
        }
    }
}

/// Token buckets of one connection, one per frame type it has used (allocated lazily).
#[derive(Debug, Default)]
pub struct RateLimiter {
    buckets: Vec<(FrameType, TokenBucket)>,
}

impl RateLimiter {
    /// Whether a frame of type `ty` may pass now.
    pub fn allow(&mut self, limits: &Limits, ty: FrameType, now: Instant) -> bool {
        if let Some((_, b)) = self.buckets.iter_mut().find(|(t, _)| *t == ty) {
            return b.try_take(now);
        }
        let mut b = TokenBucket::new(rate_for(limits, ty), now);
        let ok = b.try_take(now);
        self.buckets.push((ty, b));
        ok
    }
}

/// What to do about a refused frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// Tell the sender why (`room.error`).
    Reply,
    /// Say nothing: replies are rate limited.
    Silent,
    /// Close the connection (4429): it keeps sending refused frames.
    Close,
}

/// Limits replies to refused frames and closes a connection that keeps
/// sending them, so a flooder cannot draw unbounded error traffic.
#[derive(Debug)]
pub struct RefusalGuard {
    replies: TokenBucket,
    strikes: u32,
    max_strikes: u32,
}

impl RefusalGuard {
    /// A guard with the connection's limits.
    pub fn new(limits: &Limits, now: Instant) -> RefusalGuard {
        RefusalGuard {
            replies: TokenBucket::new(limits.rate_refusal_replies, now),
            strikes: 0,
            max_strikes: limits.max_refusal_strikes,
        }
    }

    /// Records one refused frame.
    pub fn refused(&mut self, now: Instant) -> Refusal {
        if self.replies.try_take(now) {
            return Refusal::Reply;
        }
        self.strikes = self.strikes.saturating_add(1);
        if self.strikes >= self.max_strikes {
            Refusal::Close
        } else {
            Refusal::Silent
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn bucket_refills() {
        let t = Instant::now();
        let mut b = TokenBucket::new(
            Rate {
                per_sec: 1.0,
                burst: 2.0,
            },
            t,
        );
        assert!(b.try_take(t) && b.try_take(t));
        assert!(!b.try_take(t));
        assert!(b.try_take(t + Duration::from_secs(1)));
    }

    #[test]
    fn a_flooder_of_refused_frames_is_closed_after_its_strikes() {
        let t = Instant::now();
        let l = Limits {
            rate_refusal_replies: Rate {
                per_sec: 1.0,
                burst: 2.0,
            },
            max_refusal_strikes: 3,
            ..Limits::default()
        };
        let mut g = RefusalGuard::new(&l, t);
        let got: Vec<Refusal> = (0..5).map(|_| g.refused(t)).collect();
        use Refusal::*;
        assert_eq!(got, [Reply, Reply, Silent, Silent, Close]);
    }
}
