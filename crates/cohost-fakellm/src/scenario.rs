//! Scenarios: what the fake model does for one request, and how a prompt
//! marker names one.
//!
//! Marker syntax (searched in the text of the last user message that has text):
//! `[[scenario:NAME]]` or `[[NAME]]` anywhere, or a text block / part whose
//! whole trimmed text is a scenario name (so a prompt of just `reasoning` works).
//! Names and their aliases are listed in the `FromStr` impl of [`Scenario`].

use std::fmt;
use std::str::FromStr;

/// What the fake model does for one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scenario {
    /// Plain text reply in several deltas (the default).
    Text,
    /// Reasoning/thinking deltas, then text.
    Reasoning,
    /// One call of a shell-like tool from the request's own tool list.
    Tool,
    /// One call of a file-writing tool from the request's own tool list.
    Write,
    /// Many text deltas with a delay between them (interrupt tests).
    Slow,
    /// Headers and the first event, then nothing until the client goes away.
    Stall,
    /// 401 in the vendor's error shape.
    Unauthorized,
    /// 403 in the vendor's error shape.
    Forbidden,
    /// 429 with a `Retry-After` header.
    RateLimited,
    /// 400 context length exceeded.
    ContextLength,
    /// 500 internal error.
    ServerError,
    /// A stream (or body) that breaks off mid-way with invalid JSON.
    Malformed,
    /// 404 model not found.
    UnknownModel,
}

/// Every scenario, in documentation order.
pub const ALL_SCENARIOS: [Scenario; 13] = [
    Scenario::Text,
    Scenario::Reasoning,
    Scenario::Tool,
    Scenario::Write,
    Scenario::Slow,
    Scenario::Stall,
    Scenario::Unauthorized,
    Scenario::Forbidden,
    Scenario::RateLimited,
    Scenario::ContextLength,
    Scenario::ServerError,
    Scenario::Malformed,
    Scenario::UnknownModel,
];

impl Scenario {
    /// Canonical name, as used in markers, scripts and the request log.
    pub fn as_str(self) -> &'static str {
        match self {
            Scenario::Text => "text",
            Scenario::Reasoning => "reasoning",
            Scenario::Tool => "tool",
            Scenario::Write => "write",
            Scenario::Slow => "slow",
            Scenario::Stall => "stall",
            Scenario::Unauthorized => "401",
            Scenario::Forbidden => "403",
            Scenario::RateLimited => "429",
            Scenario::ContextLength => "context",
            Scenario::ServerError => "500",
            Scenario::Malformed => "malformed",
            Scenario::UnknownModel => "unknown_model",
        }
    }
}

impl fmt::Display for Scenario {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The name did not match any scenario.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownScenario(pub String);

impl fmt::Display for UnknownScenario {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown scenario `{}`; expected one of {}",
            self.0,
            scenario_names()
        )
    }
}

impl std::error::Error for UnknownScenario {}

/// Comma-separated canonical names, for error messages.
pub fn scenario_names() -> String {
    ALL_SCENARIOS
        .iter()
        .map(|s| s.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

impl FromStr for Scenario {
    type Err = UnknownScenario;

    /// Canonical names plus a few words people naturally type.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let lower = s.trim().to_ascii_lowercase().replace('-', "_");
        let scenario = match lower.as_str() {
            "text" | "plain" | "hello" => Scenario::Text,
            "reasoning" | "thinking" | "think" => Scenario::Reasoning,
            "tool" | "tools" | "shell" | "exec" | "bash" => Scenario::Tool,
            "write" | "write_file" | "file" => Scenario::Write,
            "slow" => Scenario::Slow,
            "stall" | "hang" => Scenario::Stall,
            "401" | "auth" | "unauthorized" => Scenario::Unauthorized,
            "403" | "forbidden" | "permission" => Scenario::Forbidden,
            "429" | "rate_limit" | "ratelimit" | "rate_limited" => Scenario::RateLimited,
            "context" | "context_length" | "too_long" | "400" => Scenario::ContextLength,
            "500" | "server_error" | "internal" => Scenario::ServerError,
            "malformed" | "broken" | "garbage" => Scenario::Malformed,
            "unknown_model" | "404" | "model_not_found" | "no_model" => Scenario::UnknownModel,
            _ => return Err(UnknownScenario(s.trim().to_string())),
        };
        Ok(scenario)
    }
}

/// Finds a scenario marker in the text blocks of one user message.
pub fn marker_in(blocks: &[String]) -> Option<Scenario> {
    for block in blocks {
        let mut rest = block.as_str();
        while let Some(start) = rest.find("[[") {
            let after = &rest[start + 2..];
            let Some(end) = after.find("]]") else { break };
            let inner = after[..end].trim();
            let name = inner.strip_prefix("scenario:").unwrap_or(inner);
            if let Ok(s) = name.parse() {
                return Some(s);
            }
            rest = &after[end + 2..];
        }
    }
    // A block that is nothing but a scenario word: handy for a typed prompt.
    blocks.iter().find_map(|b| b.trim().parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_and_words() {
        let b = |s: &str| vec![s.to_string()];
        assert_eq!(
            marker_in(&b("do it [[scenario:tool]] now")),
            Some(Scenario::Tool)
        );
        assert_eq!(marker_in(&b("x [[429]]")), Some(Scenario::RateLimited));
        assert_eq!(marker_in(&b("  Reasoning ")), Some(Scenario::Reasoning));
        assert_eq!(marker_in(&b("[[nope]] [[slow]]")), Some(Scenario::Slow));
        assert_eq!(marker_in(&b("tell me about tools")), None);
        assert_eq!(marker_in(&b("[[unterminated")), None);
    }

    #[test]
    fn names_round_trip() {
        for s in ALL_SCENARIOS {
            assert_eq!(s.as_str().parse::<Scenario>(), Ok(s));
        }
    }
}
