use super::*;

struct Table;

impl Prices for Table {
    fn price(&self, model: &str) -> Option<ModelPrice> {
        (model == "priced").then_some(ModelPrice {
            input_cost_per_token: 0.001,
            output_cost_per_token: 0.002,
            cache_read_input_token_cost: Some(0.0001),
            cache_creation_input_token_cost: None,
        })
    }
}

fn of<'a>(prompt_id: &'a str, model: Option<&'a str>, person: &'a str) -> UsageOf<'a> {
    UsageOf {
        session: "s1",
        agent: "claude",
        prompt_id,
        model,
        person,
    }
}

fn usage(input: u64, output: u64) -> Usage {
    Usage {
        input_tokens: input,
        output_tokens: output,
        ..Usage::default()
    }
}

#[test]
fn price_covers_every_token_kind() {
    let p = Table.price("priced").unwrap();
    let u = Usage {
        input_tokens: 10,
        output_tokens: 5,
        reasoning_tokens: 3,
        cache_read_tokens: 100,
        cache_write_tokens: 10,
    };
    // 10*0.001 + 5*0.002 + 100*0.0001 + 10*0.001 (write at the input price)
    assert!((p.cost(&u) - 0.04).abs() < 1e-12, "{}", p.cost(&u));
    assert_eq!(counted_tokens(&u), 125);
}

#[test]
fn cumulative_reports_of_a_turn_count_once() {
    let mut b = Budget::new(BudgetLimits {
        usd: None,
        tokens: Some(1000),
    });
    assert_eq!(
        b.record(of("p1", None, "host"), &usage(100, 0), &NoPrices),
        None
    );
    assert_eq!(
        b.record(of("p1", None, "host"), &usage(100, 50), &NoPrices),
        None
    );
    assert_eq!(b.spend().total.tokens, 150);
    // A new turn starts from nothing.
    b.record(of("p2", None, "host"), &usage(10, 0), &NoPrices);
    assert_eq!(b.spend().total.tokens, 160);
    assert!(b.spend().unpriced.contains("unknown model"));
}

#[test]
fn warns_at_80_then_stops_at_100_then_raise_lets_work_go_on() {
    let mut b = Budget::new(BudgetLimits {
        usd: Some(1.0),
        tokens: None,
    });
    // 700 input tokens at $0.001: $0.70, under 80%.
    assert_eq!(
        b.record(of("p1", Some("priced"), "host"), &usage(700, 0), &Table),
        None
    );
    let warn = b
        .record(of("p1", Some("priced"), "host"), &usage(850, 0), &Table)
        .unwrap();
    assert_eq!(warn.level, BudgetLevel::Warning);
    assert!(!b.exceeded());
    // Warned once only.
    assert_eq!(
        b.record(of("p1", Some("priced"), "host"), &usage(860, 0), &Table),
        None
    );
    let over = b
        .record(of("p1", Some("priced"), "host"), &usage(1000, 10), &Table)
        .unwrap();
    assert_eq!(over.level, BudgetLevel::Exceeded);
    assert!(b.exceeded());
    let refusal = b.refusal();
    assert_eq!(refusal.code, ErrorCode::BudgetExceeded);
    assert!(refusal.suggested_fix.unwrap().contains("/budget"));
    let raised = b.raise(BudgetLimits {
        usd: Some(5.0),
        tokens: None,
    });
    assert_eq!(raised.level, BudgetLevel::Raised);
    assert!(!b.exceeded());
    // Raising to less than what is spent leaves it exceeded.
    assert_eq!(
        b.raise(BudgetLimits {
            usd: Some(0.5),
            tokens: None
        })
        .level,
        BudgetLevel::Exceeded
    );
    assert!(b.exceeded());
}

#[test]
fn spend_is_attributed_per_person_and_per_agent() {
    let mut b = Budget::new(BudgetLimits::default());
    b.record(of("p1", Some("priced"), "host"), &usage(100, 0), &Table);
    b.record(of("p2", Some("priced"), "ana"), &usage(300, 0), &Table);
    b.record(
        UsageOf {
            session: "s2",
            agent: "codex",
            prompt_id: "p1",
            model: Some("other"),
            person: "ana",
        },
        &usage(40, 2),
        &Table,
    );
    let people = b.spend().per_person();
    assert_eq!(people["host"].tokens, 100);
    assert_eq!(people["ana"].tokens, 342);
    assert!((people["ana"].usd - 0.3).abs() < 1e-12);
    let agents = b.spend().per_agent();
    assert_eq!(agents["claude"].tokens, 400);
    assert_eq!(agents["codex"].tokens, 42);
    let text = b.spend().describe(&b.limits());
    assert!(text.contains("ana: $0.3000, 342 tokens"), "{text}");
    assert!(text.contains("agent codex"), "{text}");
    assert!(text.contains("no price for other"), "{text}");
    assert!(text.contains("(no budget)"), "{text}");
}

#[test]
fn no_limit_never_notifies_and_bad_limits_are_refused() {
    let mut b = Budget::new(BudgetLimits::default());
    assert_eq!(
        b.record(
            of("p1", Some("priced"), "host"),
            &usage(1_000_000, 0),
            &Table
        ),
        None
    );
    assert!(!b.exceeded());
    let bad = BudgetLimits {
        usd: Some(-1.0),
        tokens: None,
    };
    assert_eq!(bad.validate().unwrap_err().code, ErrorCode::ConfigInvalid);
    assert!(Budget::new(BudgetLimits {
        usd: Some(0.0),
        tokens: None
    })
    .exceeded());
}

#[test]
fn notice_wire_shape() {
    let b = Budget::new(BudgetLimits {
        usd: Some(2.0),
        tokens: None,
    });
    let v = serde_json::to_value(b.notice(BudgetLevel::Warning)).unwrap();
    assert_eq!(
        v,
        serde_json::json!({"level":"warning","spent_usd":0.0,"spent_tokens":0,"usd":2.0})
    );
}
