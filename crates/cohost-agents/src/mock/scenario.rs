//! The mock's scenarios: their names, and how a turn picks one (a
//! `[mock:NAME]` marker in the prompt, else the model name, else `echo`).

use cohost_core::error::ErrorCode;

/// The mock's scenarios.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scenario {
    /// Reasoning then text.
    Echo,
    /// Text only.
    Text,
    /// A tool call that needs approval.
    Tool,
    /// Slow streaming.
    Slow,
    /// Dies mid-turn.
    Crash,
    /// Ignores gentle interrupts.
    Hang,
    /// Says nothing until interrupted (a model that never answers).
    Silent,
    /// Emits unparseable output between good output.
    Garbage,
    /// Fails with an error code.
    Error(ErrorCode),
    /// Answers with the prompt text after the marker.
    Say,
    /// Answers with this many numbered deltas, without pauses.
    Chunks(u32),
}

/// Most deltas `chunks:N` sends.
const MAX_CHUNKS: u32 = 1_000_000;

impl Scenario {
    /// Parse a scenario name (`tool`, `error:RATE_LIMITED`...).
    pub fn parse(name: &str) -> Option<Scenario> {
        let name = name.trim();
        Some(match name {
            "echo" | "mock" | "mock-1" => Scenario::Echo,
            "text" => Scenario::Text,
            "tool" => Scenario::Tool,
            "slow" => Scenario::Slow,
            "crash" => Scenario::Crash,
            "hang" => Scenario::Hang,
            "silent" => Scenario::Silent,
            "garbage" => Scenario::Garbage,
            "say" => Scenario::Say,
            _ => {
                if let Some(n) = name.strip_prefix("chunks:") {
                    let n: u32 = n.parse().ok()?;
                    return Some(Scenario::Chunks(n.min(MAX_CHUNKS)));
                }
                let code = name.strip_prefix("error:")?;
                let code: ErrorCode = serde_json::from_value(code.into()).ok()?;
                Scenario::Error(code)
            }
        })
    }

    /// The scenario of a turn: the prompt's marker, else the model's name,
    /// else `echo`.
    pub(super) fn select(prompt: &str, model: Option<&str>) -> Scenario {
        if let Some(start) = prompt.find("[mock:") {
            let rest = &prompt[start + 6..];
            if let Some(end) = rest.find(']') {
                if let Some(s) = Scenario::parse(&rest[..end]) {
                    return s;
                }
            }
        }
        model.and_then(Scenario::parse).unwrap_or(Scenario::Echo)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scenario_selection() {
        assert_eq!(Scenario::select("hi", None), Scenario::Echo);
        assert_eq!(
            Scenario::select("do it [mock:tool] now", None),
            Scenario::Tool
        );
        assert_eq!(Scenario::select("hi", Some("slow")), Scenario::Slow);
        assert_eq!(
            Scenario::select("[mock:bogus]", Some("crash")),
            Scenario::Crash
        );
        assert_eq!(
            Scenario::select("[mock:error:RATE_LIMITED]", None),
            Scenario::Error(ErrorCode::RateLimited)
        );
        assert_eq!(
            Scenario::parse("error:NOPE"),
            Some(Scenario::Error(ErrorCode::Unknown))
        );
        assert_eq!(Scenario::select("[mock:unterminated", None), Scenario::Echo);
        assert_eq!(Scenario::select("[mock:say] hi", None), Scenario::Say);
        assert_eq!(
            Scenario::select("[mock:chunks:10000]", None),
            Scenario::Chunks(10_000)
        );
        assert_eq!(Scenario::select("[mock:chunks:x]", None), Scenario::Echo);
    }
}
