//! Rooms of several agents: the rules every front end shares (member
//! names, the size bound, addressing a member), with no session, process
//! or socket in sight. The running room is `cohost_session::Room`.

use crate::error::{CohostError, ErrorCode};

/// How many members a room holds unless told otherwise: each is an agent
/// process (and a worktree), and on a laptop eight already compete for
/// the same cores.
pub const DEFAULT_MAX_MEMBERS: usize = 8;

/// The member names for agents of these provider ids, in order: the id
/// itself for the first of its kind, then `id#2`, `id#3` (`claude`,
/// `codex`, `claude#2`). Refuses an empty room and one past `max`.
pub fn member_names<S: AsRef<str>>(
    providers: &[S],
    max: usize,
) -> Result<Vec<String>, CohostError> {
    if providers.is_empty() {
        return Err(
            CohostError::new(ErrorCode::ConfigInvalid, "a room needs at least one agent")
                .with_fix("name one with --agent, e.g. --agent claude --agent codex"),
        );
    }
    if providers.len() > max {
        return Err(CohostError::new(
            ErrorCode::ConfigInvalid,
            format!(
                "a room holds at most {max} agents; {} were asked for",
                providers.len()
            ),
        )
        .with_fix(format!("name at most {max} agents with --agent")));
    }
    let mut names: Vec<String> = Vec::with_capacity(providers.len());
    for id in providers {
        let id = id.as_ref();
        let same = names
            .iter()
            .filter(|n| n.as_str() == id || n.split_once('#').is_some_and(|(base, _)| base == id))
            .count();
        names.push(if same == 0 {
            id.to_owned()
        } else {
            format!("{id}#{}", same + 1)
        });
    }
    Ok(names)
}

/// `@name rest` addressed to one member: the name and the text after it.
/// `None` for text that does not start with `@` and a name (an e-mail
/// address in a sentence is not an address).
pub fn addressed(text: &str) -> Option<(&str, &str)> {
    let rest = text.trim_start().strip_prefix('@')?;
    let end = rest
        .find(|c: char| c.is_whitespace() || matches!(c, ',' | ':'))
        .unwrap_or(rest.len());
    let (name, tail) = rest.split_at(end);
    if name.is_empty() {
        return None;
    }
    let tail = tail.trim_start_matches([',', ':']).trim_start();
    Some((name, tail))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_the_ids_numbered_from_the_second_of_a_kind() {
        let names = member_names(&["claude", "codex", "claude", "claude"], 8).unwrap();
        assert_eq!(names, ["claude", "codex", "claude#2", "claude#3"]);
        assert_eq!(member_names(&["mock"], 8).unwrap(), ["mock"]);
    }

    #[test]
    fn empty_and_oversized_rooms_are_refused_with_a_fix() {
        let none: [&str; 0] = [];
        let e = member_names(&none, 8).unwrap_err();
        assert_eq!(e.code, ErrorCode::ConfigInvalid);
        assert!(e.suggested_fix.is_some());
        let nine = ["mock"; 9];
        let e = member_names(&nine, DEFAULT_MAX_MEMBERS).unwrap_err();
        assert!(e.message.contains("at most 8"), "{}", e.message);
        assert!(member_names(&["mock"; 8], DEFAULT_MAX_MEMBERS).is_ok());
    }

    #[test]
    fn an_address_is_an_at_sign_and_a_name_at_the_start() {
        assert_eq!(addressed("@codex fix it"), Some(("codex", "fix it")));
        assert_eq!(addressed("  @claude#2: look"), Some(("claude#2", "look")));
        assert_eq!(addressed("@gemini"), Some(("gemini", "")));
        assert_eq!(addressed("mail me@example.com"), None);
        assert_eq!(addressed("@ nobody"), None);
        assert_eq!(addressed(""), None);
    }
}
