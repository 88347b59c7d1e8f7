//! The budget on running sessions of the mock agent: the turn that spends
//! it ends with `budget` after a `budget` event, the next prompt is refused
//! with `BUDGET_EXCEEDED`, raising it lets work go on, and a room's
//! members spend from one purse, attributed per person and per agent.

use std::sync::Arc;
use std::time::Duration;

use cohost_agents::mock::MockFactory;
use cohost_core::budget::{BudgetLevel, BudgetLimits, NoPrices};
use cohost_core::{EndReason, ErrorCode, Event, EventBody, PromptInput};

use super::*;
use crate::running::tests::fast;
use crate::{LogLimits, RunningSession, SessionInfo, Subscription};

async fn budgeted(seat: BudgetSeat) -> RunningSession {
    let factory = Arc::new(MockFactory::new(fast()));
    let descriptor = cohost_core::AdapterFactory::descriptor(factory.as_ref());
    let mut s = cohost_core::HostSession::new(
        factory,
        cohost_core::AdapterConfig::default(),
        Arc::new(cohost_core::Policy::AllowAll),
        cohost_core::SessionOptions::default(),
    );
    s.start().await.unwrap();
    let info = SessionInfo {
        record_id: None,
        descriptor,
        cwd: std::env::temp_dir(),
        model: None,
    };
    RunningSession::spawn_budgeted(s, info, None, LogLimits::default(), Some(seat))
}

async fn turn(sub: &mut Subscription) -> Vec<Event> {
    let mut out = Vec::new();
    loop {
        let ev = tokio::time::timeout(Duration::from_secs(10), sub.recv())
            .await
            .expect("a turn within 10 s")
            .expect("not cut off")
            .expect("the session is on");
        let end = matches!(ev.body, EventBody::StreamEnd { .. });
        out.push(ev);
        if end {
            return out;
        }
    }
}

fn tokens(n: u64) -> BudgetLimits {
    BudgetLimits {
        usd: None,
        tokens: Some(n),
    }
}

#[tokio::test]
async fn spent_budget_stops_the_turn_refuses_the_next_and_raising_it_resumes() {
    let budget = SharedBudget::new(tokens(5), Arc::new(NoPrices));
    let s = budgeted(budget.seat("mock")).await;
    let mut sub = s.subscribe_new();
    let outcome = s.prompt(PromptInput::text("hello there")).unwrap();
    let events = turn(&mut sub).await;
    let outcome = outcome.outcome().await.unwrap();
    assert_eq!(outcome.reason, EndReason::Budget);
    let kinds: Vec<&EventBody> = events.iter().map(|e| &e.body).collect();
    assert!(
        kinds
            .iter()
            .any(|b| matches!(b, EventBody::Budget(n) if n.level == BudgetLevel::Exceeded)),
        "a budget event: {events:?}"
    );
    assert!(
        matches!(
            kinds.last(),
            Some(EventBody::StreamEnd {
                reason: EndReason::Budget,
                ..
            })
        ),
        "{events:?}"
    );
    // Ids stay one sequence: `<prompt>.<n>`, each one more than the last.
    let seqs: Vec<u64> = events
        .iter()
        .map(|e| e.id.rsplit_once('.').unwrap().1.parse().unwrap())
        .collect();
    assert!(seqs.windows(2).all(|w| w[1] == w[0] + 1), "{seqs:?}");

    let refused = s.prompt(PromptInput::text("more")).unwrap_err();
    assert!(
        matches!(refused, crate::SessionError::BudgetSpent(_)),
        "{refused}"
    );
    let refused = cohost_core::CohostError::from(refused);
    assert_eq!(refused.code, ErrorCode::BudgetExceeded);
    assert!(refused.suggested_fix.unwrap().contains("raise"));

    let raised = budget.raise(tokens(1_000_000)).unwrap();
    assert_eq!(raised.level, BudgetLevel::Raised);
    let again = s.prompt(PromptInput::text("more")).unwrap();
    turn(&mut sub).await;
    assert_eq!(again.outcome().await.unwrap().reason, EndReason::Completed);
    s.terminate().await.unwrap();
}

#[tokio::test]
async fn warning_at_80_percent_once() {
    let budget = SharedBudget::new(tokens(1_000_000), Arc::new(NoPrices));
    let s = budgeted(budget.seat("mock")).await;
    let mut sub = s.subscribe_new();
    s.prompt(PromptInput::text("hello")).unwrap();
    turn(&mut sub).await;
    let spent = budget.spend().total.tokens;
    assert!(spent > 0);
    // Now the limit is a hair above 80% of what one more turn makes.
    budget.raise(tokens(spent * 2 + spent / 4)).unwrap();
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let told = seen.clone();
    budget.on_notice(move |n| told.lock().unwrap().push(n.level));
    s.prompt(PromptInput::text("hello")).unwrap();
    let events = turn(&mut sub).await;
    assert!(
        events
            .iter()
            .any(|e| matches!(&e.body, EventBody::Budget(n) if n.level == BudgetLevel::Warning)),
        "{events:?}"
    );
    assert!(matches!(
        events.last().unwrap().body,
        EventBody::StreamEnd {
            reason: EndReason::Completed,
            ..
        }
    ));
    assert_eq!(*seen.lock().unwrap(), vec![BudgetLevel::Warning]);
    s.terminate().await.unwrap();
}

#[tokio::test]
async fn a_room_spends_from_one_purse_attributed_per_person_and_agent() {
    let budget = SharedBudget::new(BudgetLimits::default(), Arc::new(NoPrices));
    let a = budgeted(budget.seat("claude")).await;
    let b = budgeted(budget.seat("codex")).await;
    let (mut sa, mut sb) = (a.subscribe_new(), b.subscribe_new());
    a.prompt_by(PromptInput::text("from ana"), "ana").unwrap();
    turn(&mut sa).await;
    b.prompt(PromptInput::text("from the host")).unwrap();
    turn(&mut sb).await;
    b.prompt_by(PromptInput::text("ana again"), "ana").unwrap();
    turn(&mut sb).await;
    let spend = budget.spend();
    let people = spend.per_person();
    let agents = spend.per_agent();
    assert!(
        people["ana"].tokens > 0 && people[HOST].tokens > 0,
        "{people:?}"
    );
    assert_eq!(
        people["ana"].tokens + people[HOST].tokens,
        spend.total.tokens
    );
    assert!(agents["claude"].tokens > 0 && agents["codex"].tokens > 0);
    // The mock names its model; no price table has it.
    assert!(spend.unpriced.contains("mock-1"), "{spend:?}");
    let text = budget.describe();
    assert!(
        text.contains("ana:") && text.contains("agent codex"),
        "{text}"
    );
    a.terminate().await.unwrap();
    b.terminate().await.unwrap();
}
