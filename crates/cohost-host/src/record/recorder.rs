//! What a session's record holds, entry by entry: the session, each prompt
//! (with whose it was), the answer text of each stream (its chunks joined,
//! so the record is not one entry per token), every other event as it
//! was published, and what the front end saw of the people in it
//! (suggestions and their authors, decisions and their deciders, who came
//! and went). Every string passes the sanitizer the recorder was given
//! (its host's) before it is written.

use std::collections::HashMap;
use std::sync::Arc;

use cohost_core::{DecisionOrigin, Event, EventBody, PromptInput, Sanitizer};
use cohost_record::{kind, AuthorSig, Draft};
use serde_json::{json, Value};

use super::file::RecordFile;

/// An image's bytes are kept in the record (for the HTML export) up to
/// this much base64; a larger one is kept as its hash and size.
const IMAGE_INLINE: usize = 4 << 20;

/// Something a front end saw of the people in a session, for its record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Note {
    /// A participant suggested a prompt.
    Suggestion {
        /// The suggestion's id (the correlation id of the turn it becomes).
        id: String,
        /// Who suggested it, as the host saw them.
        author: String,
        /// The prompt.
        text: String,
        /// The room member it is for.
        to: Option<String>,
        /// The frame the participant signed (sharing format v2), kept in
        /// the entry so anyone can check the participant said this; the
        /// entry is the host's word alone without it.
        signed: Option<AuthorSig>,
    },
    /// A suggestion was accepted or rejected.
    SuggestionDecided {
        /// The suggestion.
        id: String,
        /// Accepted or not.
        accepted: bool,
        /// Who decided (`host`, `policy`).
        decider: String,
    },
    /// A tool approval was answered by someone of the room.
    ApprovalDecided {
        /// The call (`None`: the only one waiting).
        tool_id: Option<String>,
        /// Allowed or denied.
        allow: bool,
        /// Who decided.
        decider: String,
    },
    /// A participant's vote on a tool approval, counted by the host.
    ApprovalVote {
        /// The call.
        tool_id: String,
        /// Allowed or denied.
        allow: bool,
        /// Who voted, as the host bound their key.
        voter: String,
        /// The vote frame the participant signed.
        signed: Option<AuthorSig>,
    },
    /// Someone joined or left the room.
    Presence {
        /// `joined` or `left`.
        change: String,
        /// Their name.
        name: String,
        /// Their role.
        role: String,
        /// Their connection id at the relay.
        conn_id: u64,
    },
}

fn clean(sanitizer: &Sanitizer, text: &str) -> String {
    sanitizer.sanitize(text).into_owned()
}

fn draft(sanitizer: &Sanitizer, kind: &str, author: Option<String>, body: Value) -> Draft {
    Draft {
        kind: kind.to_owned(),
        author: author.map(|a| clean(sanitizer, &a)),
        body: body.to_string(),
        ..Draft::default()
    }
}

/// `d` with its author's signed frame when the frame stands behind it (the
/// check `cohost record verify` makes) and holds nothing the sanitizer
/// would take out, since the frame is kept byte for byte and a record holds
/// no secret cohost knows. Otherwise `d` alone, the host's word, and why.
fn with_author(
    sanitizer: &Sanitizer,
    d: Draft,
    a: Option<AuthorSig>,
) -> (Draft, Option<&'static str>) {
    let Some(a) = a else {
        return (d, None);
    };
    // The sanitizer changed what was said (or the host did): not what the
    // participant signed.
    let Ok(frame) = cohost_record::author::check(&d.kind, &d.body, &a) else {
        return (
            d,
            Some("what the entry says is not what the participant signed"),
        );
    };
    let clean_frame = serde_json::from_slice::<Value>(&frame.body).is_ok_and(|said| {
        let mut cleaned = said.clone();
        sanitizer.sanitize_json(&mut cleaned);
        cleaned == said
    }) && clean(sanitizer, &frame.room) == frame.room
        && clean(sanitizer, &frame.stream) == frame.stream;
    if !clean_frame {
        return (d, Some("the signed frame holds text the sanitizer redacts"));
    }
    (d.signed_by(&a), None)
}

/// Text of one stream, waiting for its end.
struct Pending {
    kind: &'static str,
    prompt_id: String,
    stream_id: String,
    agent: Option<String>,
    text: String,
}

/// The mapping from a session's happenings to entries, over its file.
pub(crate) struct Entries {
    file: Option<RecordFile>,
    /// What every string passes before it is written.
    sanitizer: Arc<Sanitizer>,
    /// Prompts queued, by correlation id: written just before their turn's
    /// first event, so a prompt never lands among the last turn's events.
    prompts: HashMap<String, Draft>,
    /// Suggestion authors, by suggestion id (= correlation id).
    suggested_by: HashMap<String, String>,
    text: Option<Pending>,
    usage: Option<Event>,
}

impl Entries {
    pub(crate) fn new(file: RecordFile, sanitizer: Arc<Sanitizer>) -> Entries {
        Entries {
            file: Some(file),
            sanitizer,
            prompts: HashMap::new(),
            suggested_by: HashMap::new(),
            text: None,
            usage: None,
        }
    }

    /// Write `d`; on a failure the record stops (a half-written line must
    /// not be followed by more) and the session goes on.
    pub(crate) fn write(&mut self, d: Draft) {
        if let Some(f) = self.file.as_mut() {
            if let Err(e) = f.append(d) {
                let e = cohost_core::CohostError::from(e);
                tracing::warn!(error = %e, "the session's record stops here");
                self.file = None;
            }
        }
    }

    pub(crate) fn public_key(&self) -> Option<[u8; 32]> {
        self.file.as_ref().map(RecordFile::public_key)
    }

    pub(crate) fn prompt(&mut self, input: &PromptInput) {
        let id = input.correlation_id.clone().unwrap_or_default();
        let files: Vec<String> = input
            .context_files
            .iter()
            .map(|f| clean(&self.sanitizer, &f.path.display().to_string()))
            .collect();
        let images: Vec<Value> = input
            .images
            .iter()
            .map(|i| {
                let mut v = json!({
                    "media_type": clean(&self.sanitizer, &i.media_type),
                    "sha256": cohost_record::hex(&cohost_record::sha256(i.data.as_bytes())),
                    "bytes": i.data.len() / 4 * 3,
                });
                if i.data.len() <= IMAGE_INLINE {
                    v["data"] = Value::String(i.data.clone());
                }
                v
            })
            .collect();
        let body = json!({
            "correlation_id": clean(&self.sanitizer, &id),
            "text": clean(&self.sanitizer, &input.text),
            "files": files,
            "images": images,
        });
        let author = self
            .suggested_by
            .get(&id)
            .cloned()
            .unwrap_or_else(|| "host".into());
        self.prompts
            .insert(id, draft(&self.sanitizer, kind::PROMPT, Some(author), body));
    }

    fn flush_text(&mut self) {
        if let Some(p) = self.text.take() {
            let mut body = json!({
                "prompt_id": p.prompt_id,
                "stream_id": p.stream_id,
                "text": clean(&self.sanitizer, &p.text),
            });
            if let Some(a) = p.agent {
                body["agent"] = Value::String(clean(&self.sanitizer, &a));
            }
            self.write(draft(&self.sanitizer, p.kind, None, body));
        }
    }

    fn flush_usage(&mut self) {
        if let Some(u) = self.usage.take() {
            self.write_event(&u);
        }
    }

    fn write_event(&mut self, ev: &Event) {
        let mut body = serde_json::to_value(ev).unwrap_or(Value::Null);
        self.sanitizer.sanitize_json(&mut body);
        let author = match &ev.body {
            // People who shared the decision (granted participants, a
            // quorum) are its authors; otherwise its origin is.
            EventBody::ToolApprovalDecided { deciders, .. } if !deciders.is_empty() => {
                Some(clean(&self.sanitizer, &deciders.join(", ")))
            }
            EventBody::ToolApprovalDecided { origin, .. } => Some(
                match origin {
                    DecisionOrigin::User => "host",
                    DecisionOrigin::Policy => "policy",
                    DecisionOrigin::Remote => "remote",
                    DecisionOrigin::Deadline => "deadline",
                    DecisionOrigin::Cancelled => "cancelled",
                    DecisionOrigin::Crash => "crash",
                    _ => "unknown",
                }
                .to_owned(),
            ),
            // Text steered into the turn is its sender's.
            EventBody::Steered(n) => {
                Some(clean(&self.sanitizer, n.by.as_deref().unwrap_or("host")))
            }
            _ => None,
        };
        self.write(draft(&self.sanitizer, kind::EVENT, author, body));
    }

    pub(crate) fn event(&mut self, ev: &Event) {
        if let Some(p) = self.prompts.remove(&ev.correlation_id) {
            self.flush_text();
            self.flush_usage();
            self.write(p);
        }
        let chunk = match &ev.body {
            EventBody::StreamChunk {
                stream_id, delta, ..
            } => Some((kind::TEXT, stream_id, delta)),
            EventBody::ReasoningChunk {
                stream_id, delta, ..
            } => Some((kind::REASONING, stream_id, delta)),
            _ => None,
        };
        match chunk {
            Some((k, stream_id, delta)) => {
                let same = self.text.as_ref().is_some_and(|p| {
                    p.kind == k && p.stream_id == *stream_id && p.prompt_id == ev.prompt_id
                });
                if !same {
                    self.flush_text();
                    self.text = Some(Pending {
                        kind: k,
                        prompt_id: ev.prompt_id.clone(),
                        stream_id: stream_id.clone(),
                        agent: ev.agent.clone(),
                        text: String::new(),
                    });
                }
                if let Some(p) = self.text.as_mut() {
                    p.text.push_str(delta);
                }
            }
            // Cumulative: only the last of a run is worth keeping, and it
            // does not cut the answer it arrives in the middle of.
            None if matches!(ev.body, EventBody::Usage(_)) => {
                self.usage = Some(ev.clone());
            }
            None => {
                self.flush_text();
                self.flush_usage();
                self.write_event(ev);
            }
        }
    }

    pub(crate) fn note(&mut self, n: Note) {
        self.flush_text();
        self.flush_usage();
        let (d, unsigned) = match n {
            Note::Suggestion {
                id,
                author,
                text,
                to,
                signed,
            } => {
                self.suggested_by
                    .insert(id.clone(), clean(&self.sanitizer, &author));
                let mut body = json!({"suggestion_id": clean(&self.sanitizer, &id), "text": clean(&self.sanitizer, &text)});
                if let Some(to) = to {
                    body["to"] = Value::String(clean(&self.sanitizer, &to));
                }
                with_author(
                    &self.sanitizer,
                    draft(&self.sanitizer, kind::SUGGESTION, Some(author), body),
                    signed,
                )
            }
            Note::ApprovalVote {
                tool_id,
                allow,
                voter,
                signed,
            } => with_author(
                &self.sanitizer,
                draft(
                    &self.sanitizer,
                    kind::APPROVAL_VOTE,
                    Some(voter),
                    json!({"tool_id": clean(&self.sanitizer, &tool_id), "allow": allow}),
                ),
                signed,
            ),
            Note::SuggestionDecided {
                id,
                accepted,
                decider,
            } => (
                draft(
                    &self.sanitizer,
                    kind::SUGGESTION_DECIDED,
                    Some(decider),
                    json!({"suggestion_id": clean(&self.sanitizer, &id), "accepted": accepted}),
                ),
                None,
            ),
            Note::ApprovalDecided {
                tool_id,
                allow,
                decider,
            } => {
                let mut body = json!({"allow": allow});
                if let Some(t) = tool_id {
                    body["tool_id"] = Value::String(clean(&self.sanitizer, &t));
                }
                (
                    draft(&self.sanitizer, kind::APPROVAL_DECIDED, Some(decider), body),
                    None,
                )
            }
            Note::Presence {
                change,
                name,
                role,
                conn_id,
            } => (
                draft(
                    &self.sanitizer,
                    kind::PRESENCE,
                    None,
                    json!({"change": clean(&self.sanitizer, &change), "name": clean(&self.sanitizer, &name), "role": clean(&self.sanitizer, &role), "conn_id": conn_id}),
                ),
                None,
            ),
        };
        let what = format!("{} of {}", d.kind, d.author.as_deref().unwrap_or_default());
        self.write(d);
        if let Some(why) = unsigned {
            self.remark(&format!(
                "the {what} above is recorded without the participant's signed frame ({why}): it is the host's word"
            ));
        }
    }

    /// The recorder's own remark.
    pub(crate) fn remark(&mut self, text: &str) {
        self.write(draft(
            &self.sanitizer,
            kind::NOTE,
            None,
            json!({"text": clean(&self.sanitizer, text)}),
        ));
    }

    /// The session ended: what is pending, then the end entry.
    pub(crate) fn end(&mut self, reason: &str) {
        self.flush_text();
        self.flush_usage();
        self.write(draft(
            &self.sanitizer,
            kind::END,
            None,
            json!({"reason": clean(&self.sanitizer, reason)}),
        ));
        self.file = None;
    }
}
