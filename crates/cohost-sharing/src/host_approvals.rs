//! Who besides the host may decide the room's tool approvals, and how many
//! approvals a kind of call needs: the host's grants (`/grant NAME approve
//! [KINDS]`), the room's quorum (`--quorum execute=2`) and the ballot of
//! every call waiting for a decision.
//!
//! The gate only counts: the bridge answers the session with what it
//! returns. A deny from anyone allowed to decide ends the ballot at once (one
//! "no" is enough to stop a call); an allow counts once per person, the host
//! being one of them, until the call's quorum is met.

use std::collections::{BTreeMap, HashMap};

use cohost_core::ToolKind;
use cohost_protocol::Participant;
use cohost_share::{ApprovalGrant, ApprovalGrants, QuorumRule};

use super::participant::describe;

/// Who cast a vote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Voter {
    /// The host, from its own terminal.
    Host,
    /// A participant, by the relay's connection id and its roster entry.
    Participant(Participant),
}

impl Voter {
    /// The name the decision is recorded under.
    fn name(&self) -> String {
        match self {
            Voter::Host => "host".into(),
            Voter::Participant(p) => describe(p),
        }
    }

    /// Who counts once in a quorum.
    fn key(&self) -> Option<u64> {
        match self {
            Voter::Host => None,
            Voter::Participant(p) => Some(p.conn_id),
        }
    }
}

/// What a vote did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VoteOutcome {
    /// The ballot is over: answer the session.
    Decided {
        /// The call.
        tool_id: String,
        /// The room member whose call it is (`None`: the only agent).
        member: Option<String>,
        /// Allowed or denied.
        allow: bool,
        /// Who decided, in the order they voted.
        deciders: Vec<String>,
    },
    /// Counted; more approvals are needed.
    Counted {
        /// The call.
        tool_id: String,
        /// Distinct approvals so far.
        have: u32,
        /// Approvals needed.
        need: u32,
    },
    /// Not counted, and why (to tell the host).
    Refused(String),
}

/// One call waiting for a decision.
#[derive(Debug, Clone)]
struct Ballot {
    kind: ToolKind,
    member: Option<String>,
    /// (voter key, name) of every approval so far.
    approvals: Vec<(Option<u64>, String)>,
}

/// The room's approval rules and open ballots.
#[derive(Debug, Default)]
pub struct ApprovalGate {
    grants: BTreeMap<u64, ApprovalGrant>,
    quorum: Vec<QuorumRule>,
    ballots: HashMap<String, Ballot>,
}

impl ApprovalGate {
    /// A gate with these quorum rules and no grants.
    pub fn new(quorum: Vec<QuorumRule>) -> Self {
        ApprovalGate {
            quorum,
            ..ApprovalGate::default()
        }
    }

    /// Replace the quorum rules.
    pub fn set_quorum(&mut self, rules: Vec<QuorumRule>) {
        self.quorum = rules;
    }

    /// Whether the room has anything to hear: a grant or a quorum rule.
    pub fn has_rules(&self) -> bool {
        !self.grants.is_empty() || !self.quorum.is_empty()
    }

    /// When calls of `kind` need more approvals than there are people who
    /// may give them (the host and the participants granted that kind):
    /// (needed, possible).
    pub fn short_of(&self, kind: ToolKind) -> Option<(u32, u32)> {
        let need = self.needed(kind);
        let granted = self.grants.values().filter(|g| g.covers(kind)).count();
        let can = u32::try_from(granted).unwrap_or(u32::MAX).saturating_add(1);
        (can < need).then_some((need, can))
    }

    /// Approvals a call of `kind` needs (at least one).
    pub fn needed(&self, kind: ToolKind) -> u32 {
        self.quorum
            .iter()
            .find(|r| r.kind == kind)
            .map_or(1, |r| r.approvals.max(1))
    }

    /// Let `who` decide calls of `kinds` (empty: every kind). A second grant
    /// to the same participant replaces the first.
    pub fn grant(&mut self, who: &Participant, kinds: Vec<ToolKind>) {
        self.grants.insert(
            who.conn_id,
            ApprovalGrant {
                conn_id: who.conn_id,
                name: who.name.clone(),
                kinds,
            },
        );
    }

    /// Take `conn_id`'s grant away (it left, was removed, or the host said
    /// so); its approvals already counted on open ballots are withdrawn.
    pub fn revoke(&mut self, conn_id: u64) -> Option<ApprovalGrant> {
        for b in self.ballots.values_mut() {
            b.approvals.retain(|(k, _)| *k != Some(conn_id));
        }
        self.grants.remove(&conn_id)
    }

    /// What the room is told: every grant and the quorum.
    pub fn snapshot(&self) -> ApprovalGrants {
        ApprovalGrants {
            grants: self.grants.values().cloned().collect(),
            quorum: self.quorum.clone(),
        }
    }

    /// A call now waits for a decision.
    pub fn requested(&mut self, tool_id: &str, kind: ToolKind, member: Option<String>) {
        self.ballots.insert(
            tool_id.to_owned(),
            Ballot {
                kind,
                member,
                approvals: Vec::new(),
            },
        );
    }

    /// A call was decided (by this gate, the deadline, or an interrupt).
    pub fn closed(&mut self, tool_id: &str) {
        self.ballots.remove(tool_id);
    }

    /// The room member whose call `tool_id` is, while it waits (`None`:
    /// the only agent, or no such call).
    pub fn member_of(&self, tool_id: &str) -> Option<String> {
        self.ballots.get(tool_id).and_then(|b| b.member.clone())
    }

    /// Whether `tool_id` waits for a decision here.
    pub fn is_open(&self, tool_id: &str) -> bool {
        self.ballots.contains_key(tool_id)
    }

    /// Count `voter`'s allow or deny of `tool_id` (`None`: the only call
    /// waiting).
    pub fn vote(&mut self, tool_id: Option<&str>, voter: &Voter, allow: bool) -> VoteOutcome {
        let tool_id = match tool_id {
            Some(t) if self.ballots.contains_key(t) => t.to_owned(),
            Some(t) => {
                return VoteOutcome::Refused(format!(
                    "no approval is pending for {}",
                    cohost_core::sanitize::inert_line(t)
                ))
            }
            None => {
                let mut open = self.ballots.keys();
                match (open.next(), open.next()) {
                    (Some(only), None) => only.clone(),
                    (None, _) => return VoteOutcome::Refused("no approval is pending".into()),
                    (Some(_), Some(_)) => {
                        return VoteOutcome::Refused(format!(
                            "{} approvals are pending; name one by its tool id",
                            self.ballots.len()
                        ))
                    }
                }
            }
        };
        let need = self
            .ballots
            .get(&tool_id)
            .map_or(1, |b| self.needed(b.kind));
        let Some(ballot) = self.ballots.get_mut(&tool_id) else {
            return VoteOutcome::Refused("no approval is pending".into());
        };
        if let Voter::Participant(p) = voter {
            match self.grants.get(&p.conn_id) {
                None => {
                    return VoteOutcome::Refused(format!(
                        "{} may not approve: the host has not granted it (/grant NAME approve)",
                        describe(p)
                    ))
                }
                Some(g) if !g.covers(ballot.kind) => {
                    return VoteOutcome::Refused(format!(
                        "{} may not approve {} calls: its grant covers {}",
                        describe(p),
                        ballot.kind.name(),
                        kinds_text(&g.kinds)
                    ))
                }
                Some(_) => {}
            }
        }
        let name = voter.name();
        if !allow {
            let ballot = self.ballots.remove(&tool_id);
            return VoteOutcome::Decided {
                tool_id,
                member: ballot.and_then(|b| b.member),
                allow: false,
                deciders: vec![name],
            };
        }
        let key = voter.key();
        if !ballot.approvals.iter().any(|(k, _)| *k == key) {
            ballot.approvals.push((key, name));
        }
        let have = u32::try_from(ballot.approvals.len()).unwrap_or(u32::MAX);
        if have < need {
            return VoteOutcome::Counted {
                tool_id,
                have,
                need,
            };
        }
        let ballot = self.ballots.remove(&tool_id);
        let (member, deciders) = ballot
            .map(|b| (b.member, b.approvals.into_iter().map(|(_, n)| n).collect()))
            .unwrap_or_default();
        VoteOutcome::Decided {
            tool_id,
            member,
            allow: true,
            deciders,
        }
    }
}

/// `execute, edit` or `every kind`.
pub fn kinds_text(kinds: &[ToolKind]) -> String {
    if kinds.is_empty() {
        "every kind".into()
    } else {
        kinds
            .iter()
            .map(|k| k.name())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// Kinds as a person types them: `execute,edit` or `execute edit`; empty:
/// every kind.
pub fn parse_kinds(text: &str) -> Result<Vec<ToolKind>, String> {
    let mut kinds = Vec::new();
    for word in text.split([',', ' ']).filter(|w| !w.is_empty()) {
        let kind = ToolKind::parse(word).ok_or_else(|| {
            format!(
                "{} is not a tool kind; kinds: {}",
                cohost_core::sanitize::inert_line(word),
                kinds_text(&ToolKind::ALL)
            )
        })?;
        if !kinds.contains(&kind) {
            kinds.push(kind);
        }
    }
    Ok(kinds)
}

/// One `--quorum` value: `execute=2`, or several separated by commas.
pub fn parse_quorum(text: &str) -> Result<Vec<QuorumRule>, String> {
    let mut rules: Vec<QuorumRule> = Vec::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (kind, n) = part
            .split_once('=')
            .ok_or_else(|| format!("{part}: expected KIND=N, e.g. execute=2"))?;
        let kind = parse_kinds(kind)?;
        let [kind] = kind.as_slice() else {
            return Err(format!("{part}: name one tool kind before `=`"));
        };
        let approvals: u32 = n
            .trim()
            .parse()
            .ok()
            .filter(|n| (1..=16).contains(n))
            .ok_or_else(|| format!("{part}: the number of approvals must be 1 to 16"))?;
        rules.retain(|r| r.kind != *kind);
        rules.push(QuorumRule {
            kind: *kind,
            approvals,
        });
    }
    Ok(rules)
}

#[cfg(test)]
#[path = "host_approvals_tests.rs"]
mod tests;
