//! A room: several running sessions (members) under short unique names,
//! driven together. Each member stays an ordinary [`RunningSession`]
//! (its own agent, turns, approvals and record); the room adds one merged
//! event stream in which every event names its member, and the
//! operations that span members (compare, interrupt all, end all).

use std::pin::Pin;
use std::task::{Context, Poll};

use cohost_core::{Event, PromptInput};
use futures::stream::{SelectAll, Stream, StreamExt};

use crate::error::SessionError;
use crate::log::{Lagged, Subscription};
use crate::running::{RunningSession, Turn};

/// One agent of a room.
#[derive(Clone)]
pub struct Member {
    /// Its name in the room (`claude`, `claude#2`): what `@name` addresses
    /// and what every one of its events carries as `agent`.
    pub name: String,
    /// Its running session.
    pub session: RunningSession,
}

/// Several running sessions driven as one room.
#[derive(Clone, Default)]
pub struct Room {
    members: Vec<Member>,
}

/// A member's subscriber fell behind and was cut off (the others go on).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemberLagged {
    /// Whose events were missed.
    pub member: String,
    /// How many.
    pub lagged: Lagged,
}

impl std::fmt::Display for MemberLagged {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.member, self.lagged)
    }
}

type Tagged = Pin<Box<dyn Stream<Item = Result<Event, MemberLagged>> + Send>>;

/// Every member's events as one stream, each with `agent` set to its
/// member; it ends when every member's session has ended.
pub struct RoomEvents {
    inner: SelectAll<Tagged>,
}

impl Stream for RoomEvents {
    type Item = Result<Event, MemberLagged>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        // An empty `SelectAll` is pending forever; a room with no member
        // left has nothing more to say.
        if self.inner.is_empty() {
            return Poll::Ready(None);
        }
        self.inner.poll_next_unpin(cx)
    }
}

impl RoomEvents {
    /// One member's events from now on, tagged with its name (a front end
    /// whose room gains and loses members follows each on its own).
    pub fn of_member(member: &Member) -> RoomEvents {
        let mut inner = SelectAll::new();
        inner.push(tagged(member.name.clone(), member.session.subscribe_new()));
        RoomEvents { inner }
    }

    /// Also follow `member` from now on (one that joined the room, or one
    /// whose subscriber fell behind and was cut off).
    pub fn follow(&mut self, member: &Member) {
        self.inner
            .push(tagged(member.name.clone(), member.session.subscribe_new()));
    }

    /// The next event of any member; `None` once all have ended.
    pub async fn recv(&mut self) -> Option<Result<Event, MemberLagged>> {
        self.next().await
    }
}

fn tagged(name: String, sub: Subscription) -> Tagged {
    // After a cut-off the member's subscription is over: one error, then
    // nothing more from it (the others go on).
    let mut cut = false;
    Box::pin(
        sub.take_while(move |r| {
            let go = !cut;
            cut |= r.is_err();
            futures::future::ready(go)
        })
        .map(move |r| match r {
            Ok(mut event) => {
                event.agent = Some(name.clone());
                Ok(event)
            }
            Err(lagged) => Err(MemberLagged {
                member: name.clone(),
                lagged,
            }),
        }),
    )
}

impl Room {
    /// A room of these members. Refuses two members of one name.
    pub fn new(members: Vec<Member>) -> Result<Room, SessionError> {
        for (i, m) in members.iter().enumerate() {
            if members[..i].iter().any(|o| o.name == m.name) {
                return Err(SessionError::DuplicateMember {
                    name: m.name.clone(),
                });
            }
        }
        Ok(Room { members })
    }

    /// A room of one member: what a front end that drives rooms uses for
    /// a session of one agent.
    pub fn of_one(name: impl Into<String>, session: RunningSession) -> Room {
        Room {
            members: vec![Member {
                name: name.into(),
                session,
            }],
        }
    }

    /// The members, in the order they joined.
    pub fn members(&self) -> &[Member] {
        &self.members
    }

    /// The member named `name`.
    pub fn member(&self, name: &str) -> Option<&Member> {
        self.members.iter().find(|m| m.name == name)
    }

    /// The member named `name`, or an error listing who is in the room.
    pub fn named(&self, name: &str) -> Result<&Member, SessionError> {
        self.member(name).ok_or_else(|| SessionError::NoSuchMember {
            name: name.to_owned(),
            members: self.members.iter().map(|m| m.name.clone()).collect(),
        })
    }

    /// Every member's events from now on, tagged with the member.
    pub fn subscribe_new(&self) -> RoomEvents {
        self.merged(RunningSession::subscribe_new)
    }

    /// Every member's recent events (its replay), then every new one.
    pub fn subscribe(&self) -> RoomEvents {
        self.merged(RunningSession::subscribe)
    }

    fn merged(&self, sub: fn(&RunningSession) -> Subscription) -> RoomEvents {
        let mut inner = SelectAll::new();
        for m in &self.members {
            inner.push(tagged(m.name.clone(), sub(&m.session)));
        }
        RoomEvents { inner }
    }

    /// The same prompt to every member at once (compare): each gets its own
    /// copy with a correlation id of its own. `last`: each member's agent
    /// stops after this turn (a one-shot front end).
    pub fn prompt_each(
        &self,
        input: &PromptInput,
        last: bool,
    ) -> Vec<(String, Result<Turn, SessionError>)> {
        self.members
            .iter()
            .map(|m| {
                let mut own = input.clone();
                own.correlation_id = input
                    .correlation_id
                    .as_ref()
                    .map(|c| format!("{c}.{}", m.name));
                let turn = if last {
                    m.session.prompt_last(own)
                } else {
                    m.session.prompt(own)
                };
                (m.name.clone(), turn)
            })
            .collect()
    }

    /// Interrupt every member's running turn; true when any was running.
    pub fn interrupt_all(&self) -> bool {
        let mut any = false;
        for m in &self.members {
            any |= m.session.interrupt();
        }
        any
    }

    /// Stop every member at once (see [`RunningSession::terminate`]); the
    /// first error, if any, after all have been asked.
    pub async fn terminate(&self) -> Result<(), SessionError> {
        let ends =
            futures::future::join_all(self.members.iter().map(|m| m.session.terminate())).await;
        ends.into_iter().collect()
    }
}

#[cfg(test)]
#[path = "room_tests.rs"]
mod tests;
