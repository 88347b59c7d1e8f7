//! What a shared room adds to the screen: who is in it, the suggestions
//! waiting for the host, and the invites.

/// Someone in the room.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Participant {
    /// The relay's connection id.
    pub id: u64,
    /// Display name.
    pub name: String,
    /// `host`, `co-driver` or `viewer`.
    pub role: String,
    /// Still there (false once they left).
    pub present: bool,
}

/// A co-driver's suggestion waiting for the host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Suggestion {
    /// Its id (`s-…`).
    pub id: String,
    /// Who suggested it.
    pub from: String,
    /// The prompt.
    pub text: String,
}

/// The invites the host hands out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invites {
    /// For co-drivers.
    pub co_driver: String,
    /// For viewers.
    pub viewer: String,
}

/// The room's state on this screen.
#[derive(Debug, Clone, Default)]
pub struct Room {
    /// Everyone seen, in order of arrival.
    pub participants: Vec<Participant>,
    /// Waiting suggestions, oldest first.
    pub suggestions: Vec<Suggestion>,
    /// The invites (host only).
    pub invites: Option<Invites>,
}

impl Room {
    /// Someone joined (again). The host is listed first.
    pub fn joined(&mut self, p: Participant) {
        match self.participants.iter_mut().find(|q| q.id == p.id) {
            Some(q) => *q = p,
            None if p.role == "host" => {
                let at = self
                    .participants
                    .iter()
                    .take_while(|q| q.role == "host")
                    .count();
                self.participants.insert(at, p);
            }
            None => self.participants.push(p),
        }
    }

    /// Someone left; their name, when known.
    pub fn left(&mut self, id: u64) -> Option<String> {
        let p = self.participants.iter_mut().find(|q| q.id == id)?;
        p.present = false;
        Some(p.name.clone())
    }

    /// How many are here now.
    pub fn present(&self) -> usize {
        self.participants.iter().filter(|p| p.present).count()
    }

    /// Take suggestion `id` (empty: the oldest) out of the queue.
    pub fn take_suggestion(&mut self, id: &str) -> Option<Suggestion> {
        let i = if id.is_empty() {
            (!self.suggestions.is_empty()).then_some(0)?
        } else {
            self.suggestions.iter().position(|s| s.id == id)?
        };
        Some(self.suggestions.remove(i))
    }

    /// The invite lines with a hint on copying them.
    pub fn invite_text(&self) -> Option<String> {
        let i = self.invites.as_ref()?;
        Some(format!(
            "give each guest an invite (select with the mouse to copy; /invites shows them again); they run `cohost join` and paste it:\nco-driver: {}\nviewer:    {}",
            i.co_driver, i.viewer
        ))
    }
}
