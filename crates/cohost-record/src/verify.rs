//! Checking a record: every line is an entry written exactly as the writer
//! writes it, in sequence, chained to the one before, hashed and signed by
//! the host key the first entry names (and by its author, where an author
//! signed: the participant's own frame must verify and say what the entry
//! says). The first failure is returned, naming its entry.

use std::collections::HashMap;

use ed25519_dalek::{Signature, VerifyingKey};

use crate::author::{self, AuthorError, AuthorSig};
use crate::entry::{
    canonical_bytes, sha256, unb64, unb64_vec, unhex32, Draft, Entry, AUTHOR_CONTEXT, VERSION,
    VERSION_SIGNED,
};
use crate::error::RecordError;
use crate::kind;

/// What a verification accepts beyond a whole, closed record.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The host key the record must be signed with (raw 32 bytes).
    pub expect_key: Option<[u8; 32]>,
    /// Accept a record without its end entry, or with a torn last line
    /// (a running or crashed session): what is there is checked.
    pub partial: bool,
}

/// A record that verified.
#[derive(Debug, Clone)]
pub struct Verified {
    /// Its entries, in order.
    pub entries: Vec<Entry>,
    /// The host key that signed them.
    pub host_key: [u8; 32],
    /// Whether it ends with an end entry.
    pub complete: bool,
    /// The torn last entry's number, when `partial` let one through.
    pub torn: Option<u64>,
    /// Every entry its author signed too, each checked: the author's
    /// signature verifies and its frame says what the entry says.
    pub signed: Vec<AuthorSigned>,
}

/// An entry whose author's own signature verified.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthorSigned {
    /// The entry (its `seq`).
    pub entry: u64,
    /// Its kind.
    pub kind: String,
    /// Who the host says the author is.
    pub author: Option<String>,
    /// The key that signed.
    pub key: [u8; 32],
    /// The room the signed frame was sealed for (empty for a version-1
    /// author signature, which names none).
    pub room: String,
}

/// Check the bytes of a record file.
pub fn verify(bytes: &[u8], opts: &Options) -> Result<Verified, RecordError> {
    if bytes.is_empty() {
        return Err(RecordError::Empty);
    }
    let mut lines: Vec<&[u8]> = bytes.split(|b| *b == b'\n').collect();
    // `split` leaves an empty piece after the final newline; any other
    // last piece is an entry whose newline was never written.
    let tail = lines.pop().unwrap_or_default();
    let torn = (!tail.is_empty()).then_some(lines.len() as u64 + 1);
    let mut chain = Chain::default();
    for (i, line) in lines.iter().enumerate() {
        chain.push(i as u64 + 1, line)?;
    }
    if let Some(entry) = torn {
        if !opts.partial {
            return Err(RecordError::Torn {
                entry,
                verified: chain.entries.len() as u64,
            });
        }
    }
    let Some(host_key) = chain.key else {
        return Err(RecordError::Empty);
    };
    if let Some(expected) = opts.expect_key.filter(|k| *k != host_key) {
        return Err(RecordError::UnexpectedKey {
            found: crate::fingerprint(&host_key),
            expected: crate::fingerprint(&expected),
        });
    }
    let complete = chain.entries.last().is_some_and(|e| e.kind == kind::END);
    if !complete && !opts.partial {
        return Err(RecordError::Open {
            last: chain.entries.len() as u64,
        });
    }
    Ok(Verified {
        entries: chain.entries,
        host_key,
        complete,
        torn,
        signed: chain.signed,
    })
}

#[derive(Default)]
struct Chain {
    entries: Vec<Entry>,
    key: Option<[u8; 32]>,
    prev: [u8; 32],
    signed: Vec<AuthorSigned>,
    /// (author key, frame sequence number) of every signed frame so far,
    /// and the entry holding it.
    frames: HashMap<([u8; 32], u64), u64>,
}

fn malformed(entry: u64, why: impl Into<String>) -> RecordError {
    RecordError::Malformed {
        entry,
        // Parser messages quote field names from the file: shown inert.
        why: crate::inert(&why.into()),
    }
}

impl Chain {
    fn push(&mut self, n: u64, line: &[u8]) -> Result<(), RecordError> {
        let text = std::str::from_utf8(line).map_err(|_| malformed(n, "not UTF-8 text"))?;
        let e: Entry = serde_json::from_str(text).map_err(|err| malformed(n, err.to_string()))?;
        if e.to_line() != text {
            return Err(RecordError::NotCanonical { entry: n });
        }
        if e.v != VERSION && e.v != VERSION_SIGNED {
            return Err(RecordError::Version {
                entry: n,
                version: e.v,
            });
        }
        if e.seq != n {
            return Err(RecordError::Sequence {
                entry: n,
                found: e.seq,
            });
        }
        let prev = unhex32(&e.prev).ok_or_else(|| malformed(n, "`prev` is not 64 hex digits"))?;
        if prev != self.prev {
            return Err(RecordError::Chain { entry: n });
        }
        let draft = draft_of(n, &e)?;
        let hash = sha256(&canonical_bytes(e.seq, e.ts, &prev, &draft));
        if unhex32(&e.hash) != Some(hash) {
            return Err(RecordError::Hash { entry: n });
        }
        let body = e.body_json();
        if !body.is_object() {
            return Err(malformed(n, "the body is not a JSON object"));
        }
        self.check_key(n, &e, &body)?;
        let key = self.key.and_then(|k| VerifyingKey::from_bytes(&k).ok());
        let sig = unb64::<64>(&e.sig).map(|s| Signature::from_bytes(&s));
        match (key, sig) {
            (Some(k), Some(s)) if k.verify_strict(&hash, &s).is_ok() => {}
            _ => return Err(RecordError::Signature { entry: n }),
        }
        self.check_author(n, &e, draft)?;
        if self.entries.last().is_some_and(|p| p.kind == kind::END) && e.kind != kind::SESSION {
            return Err(malformed(
                n,
                "after an end entry only a session entry (a resumption) may follow",
            ));
        }
        self.prev = hash;
        self.entries.push(e);
        Ok(())
    }

    /// An author's own signature, where the entry has one: version 1 over
    /// the body; version 2 over the frame the author sent, which must say
    /// what the entry says and be in the record once.
    fn check_author(&mut self, n: u64, e: &Entry, d: Draft) -> Result<(), RecordError> {
        let (Some(key), Some(sig)) = (d.author_public_key, d.author_sig) else {
            return Ok(());
        };
        let room = match d.author_signed {
            None => {
                let mut signed = AUTHOR_CONTEXT.to_vec();
                signed.extend_from_slice(e.body.as_bytes());
                let ok = VerifyingKey::from_bytes(&key).is_ok_and(|k| {
                    k.verify_strict(&signed, &Signature::from_bytes(&sig))
                        .is_ok()
                });
                if !ok {
                    return Err(RecordError::AuthorSignature { entry: n });
                }
                String::new()
            }
            Some(signed) => {
                let a = AuthorSig { key, signed, sig };
                let frame = author::check(&e.kind, &e.body, &a).map_err(|err| match err {
                    AuthorError::Signature => RecordError::AuthorSignature { entry: n },
                    AuthorError::Frame(why) => RecordError::AuthorFrame { entry: n, why },
                    AuthorError::Differs(field) => RecordError::AuthorDiffers { entry: n, field },
                })?;
                if let Some(first) = self.frames.insert((key, frame.seq), n) {
                    return Err(RecordError::AuthorReplay { entry: n, first });
                }
                frame.room
            }
        };
        self.signed.push(AuthorSigned {
            entry: n,
            kind: e.kind.clone(),
            author: e.author.clone(),
            key,
            // Remote text: shown inert wherever it is shown.
            room: crate::inert(&room),
        });
        Ok(())
    }

    /// The first entry names the host key; a later session entry (a
    /// resumption) must name the same one.
    fn check_key(
        &mut self,
        n: u64,
        e: &Entry,
        body: &serde_json::Value,
    ) -> Result<(), RecordError> {
        let named = || {
            body.get("host_public_key")
                .and_then(serde_json::Value::as_str)
                .and_then(unb64::<32>)
        };
        match (self.key, e.kind == kind::SESSION) {
            (None, true) => match named() {
                Some(k) => self.key = Some(k),
                None => {
                    return Err(RecordError::HostKey {
                        entry: n,
                        why: "its `host_public_key` is missing or not 32 bytes of base64url".into(),
                    })
                }
            },
            (None, false) => {
                return Err(RecordError::HostKey {
                    entry: n,
                    why: format!(
                        "the first entry is a `{}`, not a `session`",
                        crate::inert(&e.kind)
                    ),
                })
            }
            (Some(k), true) if named() != Some(k) => {
                return Err(RecordError::HostKey {
                    entry: n,
                    why: "a resumption names another host key".into(),
                })
            }
            _ => {}
        }
        Ok(())
    }
}

fn draft_of(n: u64, e: &Entry) -> Result<Draft, RecordError> {
    let author_public_key = match &e.author_public_key {
        Some(k) => Some(
            unb64::<32>(k).ok_or_else(|| malformed(n, "`author_public_key` is not 32 bytes"))?,
        ),
        None => None,
    };
    let author_sig = match &e.author_sig {
        Some(s) => {
            Some(unb64::<64>(s).ok_or_else(|| malformed(n, "`author_sig` is not 64 bytes"))?)
        }
        None => None,
    };
    if author_sig.is_some() != author_public_key.is_some() {
        return Err(malformed(
            n,
            "`author_sig` and `author_public_key` come together",
        ));
    }
    let author_signed = match &e.author_signed {
        Some(s) => {
            Some(unb64_vec(s).ok_or_else(|| malformed(n, "`author_signed` is not base64url"))?)
        }
        None => None,
    };
    // Version 2 is exactly an entry carrying its author's frame, with the
    // key and signature that go with it; version 1 never carries one.
    match (
        e.v == VERSION_SIGNED,
        author_signed.is_some(),
        author_public_key.is_some(),
    ) {
        (true, true, true) | (false, false, _) => {}
        (true, _, _) => {
            return Err(malformed(
                n,
                "a version-2 entry carries `author_public_key`, `author_sig` and `author_signed` together",
            ))
        }
        (false, true, _) => {
            return Err(malformed(n, "a version-1 entry carries no `author_signed`"))
        }
    }
    Ok(Draft {
        kind: e.kind.clone(),
        author: e.author.clone(),
        author_public_key,
        author_sig,
        author_signed,
        body: e.body.clone(),
    })
}
