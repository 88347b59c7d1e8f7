//! What a participant does with each stream frame after the relay client
//! put it in order: take it, skip a stale copy, or, when it does not open
//! or verify, decide whether to ask the relay again from the last chunk
//! that did, wait for a key, or give the chunk up and say so.
//!
//! Kept apart from the connection so the property test of format v2 (any
//! relay behaviour leaves an honest participant a prefix of what the host
//! sent, with every gap said; `tests/it/relay_props.rs` in cohost-cli) runs
//! the same decisions as `cohost join`.

use std::collections::{HashMap, HashSet};

use crate::CodecError;

/// How often one chunk that does not open is asked for again before it is
/// given up (and said to be).
pub const MAX_RETRIES: u32 = 3;

/// Why a stream frame was not taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    /// Opened but not the host's to send, or from a removed or unknown
    /// key: a forgery, not a loss. The real chunk may still come.
    Forged,
    /// Sealed under an epoch whose key this participant does not hold yet.
    NoKey,
    /// It did not open (damaged on the way, or cut).
    Damaged,
}

impl Failure {
    /// How the codec's refusal counts.
    pub fn of(e: &CodecError) -> Failure {
        match e {
            CodecError::NotFromHost(_)
            | CodecError::UnknownSender(_)
            | CodecError::Removed(_)
            | CodecError::NotAllowed { .. }
            | CodecError::NotOwner { .. }
            | CodecError::NotForUs(_)
            | CodecError::OldVersion(_) => Failure::Forged,
            CodecError::UnknownEpoch(_) => Failure::NoKey,
            _ => Failure::Damaged,
        }
    }
}

/// What to do after a stream frame failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum After {
    /// Say it, and ask the relay for the stream again after `last_good`
    /// (`None`: from its start): the place the failed frame took is free
    /// again for the real one.
    Ask {
        /// The last chunk of the stream that opened.
        last_good: Option<u64>,
    },
    /// Say it: the stream waits for the host's next key, then is asked again.
    AwaitKey,
    /// Nothing to say: the stream already waits for a key.
    Quiet,
    /// Asked often enough: say that this chunk is given up; the stream goes
    /// on past it.
    GiveUp,
}

/// What a chunk the relay client calls late is to this end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LateChunk {
    /// Late indeed: past chunks this end went on from; show it as late.
    Late,
    /// The very chunk this end asked for again: take it in order.
    InOrder,
    /// Past the chunk asked for again: it comes again, in order, with the
    /// replay; drop this copy.
    Again,
}

/// The streams of one participant.
#[derive(Debug, Default)]
pub struct StreamIntake {
    last_good: HashMap<String, u64>,
    retries: HashMap<(String, u64), u32>,
    /// Streams that failed for a key not held yet: asked again once learned.
    awaiting_key: HashSet<String>,
    /// Streams asked again from their last good chunk: chunks past the
    /// next one were on their way before the ask (the relay client hands
    /// frames on through a queue) and come again with the replay.
    resyncing: HashSet<String>,
}

impl StreamIntake {
    /// Nothing taken yet.
    pub fn new() -> StreamIntake {
        StreamIntake::default()
    }

    /// The last chunk of `stream` that opened.
    pub fn last_good(&self, stream: &str) -> Option<u64> {
        self.last_good.get(stream).copied()
    }

    /// Whether chunk `chunk` of `stream` is not worth opening: taken
    /// already, or past the chunk that an ask for the stream will bring.
    pub fn stale(&self, stream: &str, chunk: u64) -> bool {
        let next = self
            .last_good
            .get(stream)
            .map_or(0, |l| l.saturating_add(1));
        chunk < next || (chunk > next && self.resyncing.contains(stream))
    }

    /// What to do with chunk `chunk` of `stream` that the relay client
    /// hands on as late (it said it missing earlier). The client classed it
    /// before it took this end's later ask for the stream again, if there
    /// was one: a chunk at or past the one that ask brings is no longer
    /// late here.
    pub fn late(&self, stream: &str, chunk: u64) -> LateChunk {
        let next = self
            .last_good
            .get(stream)
            .map_or(0, |l| l.saturating_add(1));
        if !self.resyncing.contains(stream) || chunk < next {
            LateChunk::Late
        } else if chunk == next {
            LateChunk::InOrder
        } else {
            LateChunk::Again
        }
    }

    /// Chunk `chunk` of `stream` opened and verified.
    pub fn opened(&mut self, stream: &str, chunk: u64) {
        self.last_good.insert(stream.to_string(), chunk);
        self.resyncing.remove(stream);
    }

    /// The relay client said chunks `from..=to` of `stream` are missing and
    /// went on past them: so does this end (else it would wait for a chunk
    /// nobody will send). Returns whether that holds here: the client hands
    /// events on through a queue, so it may have said so before it took
    /// this end's later ask for the stream again; such a notice starts past
    /// the chunk this end waits for, is out of date, and is not said.
    pub fn missing(&mut self, stream: &str, from: u64, to: u64) -> bool {
        let next = self
            .last_good
            .get(stream)
            .map_or(0, |l| l.saturating_add(1));
        let asked = self.resyncing.contains(stream) || self.awaiting_key.contains(stream);
        if asked && from != next {
            return false;
        }
        let last = self.last_good.entry(stream.to_string()).or_insert(to);
        *last = (*last).max(to);
        self.resyncing.remove(stream);
        true
    }

    /// The relay could not replay these streams: each is taken up again
    /// at whatever chunk comes next.
    pub fn resynced<'a>(&mut self, streams: impl IntoIterator<Item = &'a String>) {
        for s in streams {
            self.last_good.remove(s);
            self.resyncing.remove(s);
            self.awaiting_key.remove(s);
        }
    }

    /// Chunk `chunk` of `stream` failed for `why`.
    pub fn failed(&mut self, stream: &str, chunk: u64, why: Failure) -> After {
        let tries = self.retries.entry((stream.to_string(), chunk)).or_insert(0);
        *tries += 1;
        if *tries > MAX_RETRIES {
            // Keep the stream moving past a chunk that never opens (a relay
            // replaying a forgery forever must not loop with this end).
            self.last_good.insert(stream.to_string(), chunk);
            self.resyncing.remove(stream);
            return After::GiveUp;
        }
        if why == Failure::NoKey {
            // Asked again once the host's key arrives; later chunks of the
            // stream fail the same way until then: one notice.
            return if self.awaiting_key.insert(stream.to_string()) {
                After::AwaitKey
            } else {
                After::Quiet
            };
        }
        self.resyncing.insert(stream.to_string());
        After::Ask {
            last_good: self.last_good(stream),
        }
    }

    /// A new key came: the streams that waited for it, each with the last
    /// chunk that opened, to be asked again.
    pub fn key_learned(&mut self) -> Vec<(String, Option<u64>)> {
        let mut out: Vec<_> = self
            .awaiting_key
            .drain()
            .map(|s| {
                let last = self.last_good.get(&s).copied();
                (s, last)
            })
            .collect();
        out.sort();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_late_chunk_past_an_ask_for_the_stream_comes_again_in_order() {
        let mut i = StreamIntake::new();
        i.opened("s", 0);
        assert!(i.missing("s", 1, 2));
        assert_eq!(i.late("s", 1), LateChunk::Late, "said missing, then came");
        // A forged chunk 3 fails: the stream is asked again from 2; the
        // client may still hand on chunks it classed before the ask.
        i.opened("s", 2);
        assert!(matches!(
            i.failed("s", 3, Failure::Forged),
            After::Ask { .. }
        ));
        assert_eq!(i.late("s", 1), LateChunk::Late);
        assert_eq!(i.late("s", 3), LateChunk::InOrder);
        assert_eq!(i.late("s", 4), LateChunk::Again);
    }

    #[test]
    fn a_forgery_frees_its_place_and_a_chunk_that_never_opens_is_given_up() {
        let mut i = StreamIntake::new();
        i.opened("s", 0);
        assert!(i.stale("s", 0));
        assert!(!i.stale("s", 1));
        assert_eq!(
            i.failed("s", 1, Failure::Forged),
            After::Ask { last_good: Some(0) }
        );
        assert!(!i.stale("s", 1), "the real chunk 1 is still taken");
        assert!(i.stale("s", 2), "past it: comes again with the replay");
        for _ in 1..MAX_RETRIES {
            assert!(matches!(
                i.failed("s", 1, Failure::Damaged),
                After::Ask { .. }
            ));
        }
        assert_eq!(i.failed("s", 1, Failure::Damaged), After::GiveUp);
        assert_eq!(i.last_good("s"), Some(1));
        assert!(!i.stale("s", 2), "the stream goes on");
    }

    #[test]
    fn a_gap_the_client_said_is_gone_past_and_a_resync_starts_anywhere() {
        let mut i = StreamIntake::new();
        assert_eq!(
            i.failed("s", 0, Failure::Damaged),
            After::Ask { last_good: None }
        );
        assert!(i.stale("s", 3));
        assert!(
            !i.missing("s", 1, 2),
            "said before the client took the ask: out of date"
        );
        assert!(i.stale("s", 3));
        assert!(i.missing("s", 0, 2));
        assert!(!i.stale("s", 3), "the client went on past 2");
        assert!(i.stale("s", 2));
        i.resynced([&"s".to_string()]);
        assert!(!i.stale("s", 7), "taken up anywhere");
    }

    #[test]
    fn a_missing_key_is_said_once_and_asked_again_when_it_comes() {
        let mut i = StreamIntake::new();
        i.opened("s", 3);
        assert_eq!(i.failed("s", 4, Failure::NoKey), After::AwaitKey);
        assert_eq!(i.failed("s", 5, Failure::NoKey), After::Quiet);
        assert_eq!(i.key_learned(), vec![("s".to_string(), Some(3))]);
        assert!(i.key_learned().is_empty());
    }

    #[test]
    fn refusals_count_as_forgeries_and_the_rest_as_losses() {
        assert_eq!(
            Failure::of(&CodecError::NotFromHost("ai.stream.chunk")),
            Failure::Forged
        );
        assert_eq!(Failure::of(&CodecError::UnknownEpoch(7)), Failure::NoKey);
        assert_eq!(Failure::of(&CodecError::Tampered), Failure::Damaged);
    }
}
