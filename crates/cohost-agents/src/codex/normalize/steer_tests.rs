//! `turn/steer`: the request as codex 0.171.0's app-server schema has it
//! (`threadId`, `expectedTurnId`, `input`), and its two answers as that
//! codex gave them against cohost-fakellm: `{"turnId"}` when it took the
//! input into the running turn, `-32600 "no active turn to steer"` when the
//! turn had ended.

use super::*;

fn turn_running() -> AppServerCore {
    let mut core = AppServerCore::new(CoreConfig::default());
    core.start();
    core.on_line(r#"{"id":1,"result":{}}"#);
    core.on_line(r#"{"id":2,"result":{"thread":{"id":"th"},"model":"m"}}"#);
    core.start_turn("first", &[]).unwrap();
    core.on_line(r#"{"id":3,"result":{"turn":{"id":"T1","items":[],"status":"inProgress"}}}"#);
    core
}

fn written(actions: &[Action]) -> Value {
    match actions {
        [Action::Write(line)] => serde_json::from_str(line).unwrap(),
        other => panic!("one write: {other:?}"),
    }
}

#[test]
fn a_steer_names_the_running_turn_and_its_answer_is_the_tickets() {
    let mut core = turn_running();
    let (out, ticket) = core.steer("also check b.rs").unwrap();
    let req = written(&out);
    assert_eq!(req["method"], "turn/steer");
    assert_eq!(req["id"], ticket);
    assert_eq!(req["params"]["threadId"], "th");
    assert_eq!(req["params"]["expectedTurnId"], "T1");
    assert_eq!(
        req["params"]["input"],
        json!([{"type": "text", "text": "also check b.rs"}])
    );
    let answer = core.on_line(&format!(r#"{{"id":{ticket},"result":{{"turnId":"T1"}}}}"#));
    assert_eq!(answer, vec![Action::Steered(ticket, Ok(()))]);
    assert!(core.in_turn(), "the turn goes on");
}

#[test]
fn a_refused_steer_says_why_so_the_text_is_queued() {
    let mut core = turn_running();
    let (_, ticket) = core.steer("late").unwrap();
    let answer = core.on_line(&format!(
        r#"{{"error":{{"code":-32600,"message":"no active turn to steer"}},"id":{ticket}}}"#
    ));
    match answer.as_slice() {
        [Action::Steered(t, Err(e))] => {
            assert_eq!(*t, ticket);
            assert!(e.message.contains("no active turn to steer"), "{e}");
            assert!(e.suggested_fix.as_deref().unwrap().contains("queued"));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn no_steer_is_sent_without_a_running_turn_with_an_id() {
    let mut core = AppServerCore::new(CoreConfig::default());
    assert!(core.steer("x").is_err(), "no thread");
    core.start();
    core.on_line(r#"{"id":1,"result":{}}"#);
    core.on_line(r#"{"id":2,"result":{"thread":{"id":"th"},"model":"m"}}"#);
    assert!(core.steer("x").is_err(), "no turn");
    core.start_turn("first", &[]).unwrap();
    let e = core.steer("x").unwrap_err();
    assert!(e.message.contains("not started"), "{e}");
    core.on_line(r#"{"id":3,"result":{"turn":{"id":"T1","items":[],"status":"inProgress"}}}"#);
    assert!(core.steer("x").is_ok());
}
