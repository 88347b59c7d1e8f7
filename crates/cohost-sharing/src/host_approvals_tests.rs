use super::*;
use cohost_protocol::Role;

fn person(conn_id: u64, name: &str, role: Role) -> Participant {
    Participant {
        conn_id,
        role,
        name: name.into(),
    }
}

fn ana() -> Participant {
    person(3, "ana", Role::CoDriver)
}

fn bo() -> Participant {
    person(4, "bo", Role::Viewer)
}

fn decided(o: &VoteOutcome) -> Option<(bool, Vec<String>)> {
    match o {
        VoteOutcome::Decided {
            allow, deciders, ..
        } => Some((*allow, deciders.clone())),
        _ => None,
    }
}

#[test]
fn a_participant_without_a_grant_is_refused_and_the_ballot_stays_open() {
    let mut g = ApprovalGate::default();
    g.requested("t1", ToolKind::Execute, None);
    let o = g.vote(Some("t1"), &Voter::Participant(bo()), true);
    assert!(
        matches!(&o, VoteOutcome::Refused(w) if w.contains("bo (viewer #4)") && w.contains("/grant")),
        "{o:?}"
    );
    assert!(g.is_open("t1"));
    // The host still decides alone.
    let o = g.vote(None, &Voter::Host, true);
    assert_eq!(decided(&o), Some((true, vec!["host".into()])));
    assert!(!g.is_open("t1"));
}

#[test]
fn a_granted_participant_decides_and_its_kinds_bound_it() {
    let mut g = ApprovalGate::default();
    g.grant(&ana(), vec![ToolKind::Edit]);
    g.requested("t1", ToolKind::Execute, Some("claude".into()));
    let o = g.vote(Some("t1"), &Voter::Participant(ana()), true);
    assert!(
        matches!(&o, VoteOutcome::Refused(w) if w.contains("execute") && w.contains("covers edit")),
        "{o:?}"
    );
    g.requested("t2", ToolKind::Edit, Some("codex".into()));
    let o = g.vote(Some("t2"), &Voter::Participant(ana()), true);
    assert_eq!(
        o,
        VoteOutcome::Decided {
            tool_id: "t2".into(),
            member: Some("codex".into()),
            allow: true,
            deciders: vec!["ana (co-driver #3)".into()],
        }
    );
}

#[test]
fn a_quorum_needs_distinct_approvers_and_one_deny_ends_it() {
    let mut g = ApprovalGate::new(parse_quorum("execute=2").unwrap());
    g.grant(&ana(), Vec::new());
    g.grant(&bo(), Vec::new());
    g.requested("t1", ToolKind::Execute, None);
    let once = g.vote(Some("t1"), &Voter::Participant(ana()), true);
    assert_eq!(
        once,
        VoteOutcome::Counted {
            tool_id: "t1".into(),
            have: 1,
            need: 2
        }
    );
    // The same person twice is one approval.
    let again = g.vote(Some("t1"), &Voter::Participant(ana()), true);
    assert_eq!(again, once);
    let o = g.vote(Some("t1"), &Voter::Host, true);
    assert_eq!(
        decided(&o),
        Some((true, vec!["ana (co-driver #3)".into(), "host".into()]))
    );

    // Other kinds keep needing one.
    g.requested("t2", ToolKind::Read, None);
    assert_eq!(
        decided(&g.vote(Some("t2"), &Voter::Participant(bo()), true)),
        Some((true, vec!["bo (viewer #4)".into()]))
    );

    g.requested("t3", ToolKind::Execute, None);
    g.vote(Some("t3"), &Voter::Host, true);
    let o = g.vote(Some("t3"), &Voter::Participant(bo()), false);
    assert_eq!(decided(&o), Some((false, vec!["bo (viewer #4)".into()])));
}

#[test]
fn revoking_withdraws_counted_approvals() {
    let mut g = ApprovalGate::new(parse_quorum("execute=2").unwrap());
    g.grant(&ana(), Vec::new());
    g.requested("t1", ToolKind::Execute, None);
    g.vote(Some("t1"), &Voter::Participant(ana()), true);
    assert!(g.revoke(3).is_some());
    let o = g.vote(Some("t1"), &Voter::Host, true);
    assert!(
        matches!(
            o,
            VoteOutcome::Counted {
                have: 1,
                need: 2,
                ..
            }
        ),
        "{o:?}"
    );
    assert!(matches!(
        g.vote(Some("t1"), &Voter::Participant(ana()), true),
        VoteOutcome::Refused(_)
    ));
}

#[test]
fn unnamed_votes_need_exactly_one_pending_call() {
    let mut g = ApprovalGate::default();
    assert!(
        matches!(g.vote(None, &Voter::Host, true), VoteOutcome::Refused(w) if w.contains("no approval"))
    );
    g.requested("t1", ToolKind::Execute, None);
    g.requested("t2", ToolKind::Execute, None);
    assert!(
        matches!(g.vote(None, &Voter::Host, true), VoteOutcome::Refused(w) if w.contains("2 approvals are pending"))
    );
    assert!(
        matches!(g.vote(Some("t9\u{1b}[2J"), &Voter::Host, true), VoteOutcome::Refused(w) if !w.contains('\u{1b}'))
    );
    g.closed("t1");
    assert!(matches!(
        g.vote(None, &Voter::Host, false),
        VoteOutcome::Decided { allow: false, .. }
    ));
}

#[test]
fn the_snapshot_is_what_the_room_is_told() {
    let mut g = ApprovalGate::new(parse_quorum("execute=2, edit=3").unwrap());
    g.grant(&ana(), vec![ToolKind::Execute]);
    let s = g.snapshot();
    assert_eq!(s.grants.len(), 1);
    assert!(s.grants[0].covers(ToolKind::Execute) && !s.grants[0].covers(ToolKind::Edit));
    assert_eq!(g.needed(ToolKind::Edit), 3);
    assert_eq!(g.needed(ToolKind::Fetch), 1);
    let json = serde_json::to_value(&s).unwrap();
    assert_eq!(
        json["quorum"][0],
        serde_json::json!({"kind":"execute","approvals":2})
    );
    assert_eq!(json["grants"][0]["kinds"], serde_json::json!(["execute"]));
}

#[test]
fn kinds_and_quorum_parse_with_clear_errors() {
    assert_eq!(parse_kinds("").unwrap(), Vec::<ToolKind>::new());
    assert_eq!(
        parse_kinds("Execute, edit edit").unwrap(),
        vec![ToolKind::Execute, ToolKind::Edit]
    );
    let e = parse_kinds("exec").unwrap_err();
    assert!(
        e.contains("exec is not a tool kind") && e.contains("execute"),
        "{e}"
    );
    assert!(parse_quorum("execute").unwrap_err().contains("KIND=N"));
    assert!(parse_quorum("execute=0").unwrap_err().contains("1 to 16"));
    assert!(parse_quorum("execute,edit=2")
        .unwrap_err()
        .contains("KIND=N"));
    assert!(parse_quorum("execute edit=2")
        .unwrap_err()
        .contains("one tool kind"));
    assert_eq!(parse_quorum("execute=2,execute=3").unwrap().len(), 1);
}
