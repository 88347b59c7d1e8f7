//! `/queue`: the session's prompts waiting for their turn, and how a
//! person reorders or cancels them. Parsing and wording only; the shell
//! runs the command on the session.

use cohost_core::steer::QueueItem;

/// What `/queue` asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueueCommand {
    /// Show the queue.
    List,
    /// Cancel item N.
    Drop(u64),
    /// Move item N one place earlier.
    Up(u64),
    /// Move item N one place later.
    Down(u64),
    /// Move item N to the front: it runs next.
    First(u64),
}

/// How `/queue` is used, for a word it does not know.
pub const USAGE: &str = "/queue · /queue drop N · /queue up N · /queue down N · /queue first N";

impl QueueCommand {
    /// `""`, `drop N`, `up N`, `down N`, `first N` (a `#` before N is fine).
    pub fn parse(arg: &str) -> Result<QueueCommand, String> {
        let mut words = arg.split_whitespace();
        let (Some(verb), n, None) = (words.next(), words.next(), words.next()) else {
            return if arg.trim().is_empty() {
                Ok(QueueCommand::List)
            } else {
                Err(format!("usage: {USAGE}"))
            };
        };
        let number = || {
            n.and_then(|n| n.trim_start_matches('#').parse::<u64>().ok())
                .ok_or_else(|| format!("/queue {verb} needs an item's number (see /queue)"))
        };
        Ok(match verb {
            "drop" | "cancel" | "rm" => QueueCommand::Drop(number()?),
            "up" => QueueCommand::Up(number()?),
            "down" => QueueCommand::Down(number()?),
            "first" | "top" | "next" => QueueCommand::First(number()?),
            "list" if n.is_none() => QueueCommand::List,
            _ => return Err(format!("usage: {USAGE}")),
        })
    }

    /// Where item at `pos` (0: next) goes, in a queue of `len`; `None` for
    /// the commands that move nothing.
    pub fn target(self, pos: usize, len: usize) -> Option<usize> {
        match self {
            QueueCommand::Up(_) => Some(pos.saturating_sub(1)),
            QueueCommand::Down(_) => Some((pos + 1).min(len.saturating_sub(1))),
            QueueCommand::First(_) => Some(0),
            QueueCommand::List | QueueCommand::Drop(_) => None,
        }
    }
}

/// The queue as a person reads it, next first.
pub fn describe(items: &[QueueItem]) -> String {
    if items.is_empty() {
        return "the queue is empty: text sent while a turn runs steers it where the agent \
                takes input mid-turn, else waits here"
            .into();
    }
    let mut s = format!("queued, next first ({USAGE}):");
    for i in items {
        let by =
            i.by.as_deref()
                .map(|b| format!(" ({b})"))
                .unwrap_or_default();
        s.push_str(&format!("\n  #{}{by} {}", i.id, i.text));
    }
    s
}

/// One line for under the transcript: the waiting items, shortest form.
pub fn line(items: &[QueueItem]) -> Option<String> {
    if items.is_empty() {
        return None;
    }
    let shown: Vec<String> = items
        .iter()
        .map(|i| {
            let text: String = i.text.chars().take(40).collect();
            format!("#{} {text}", i.id)
        })
        .collect();
    Some(format!("queued: {} (/queue)", shown.join(" · ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_words_of_queue_parse_and_bad_ones_say_how() {
        assert_eq!(QueueCommand::parse(""), Ok(QueueCommand::List));
        assert_eq!(QueueCommand::parse("list"), Ok(QueueCommand::List));
        assert_eq!(QueueCommand::parse("drop 3"), Ok(QueueCommand::Drop(3)));
        assert_eq!(QueueCommand::parse("up #4"), Ok(QueueCommand::Up(4)));
        assert_eq!(QueueCommand::parse(" down 2 "), Ok(QueueCommand::Down(2)));
        assert_eq!(QueueCommand::parse("first 7"), Ok(QueueCommand::First(7)));
        assert!(QueueCommand::parse("drop").unwrap_err().contains("number"));
        assert!(QueueCommand::parse("drop x").is_err());
        assert!(QueueCommand::parse("shuffle 2")
            .unwrap_err()
            .contains("usage"));
        assert!(QueueCommand::parse("drop 1 2").is_err());
    }

    #[test]
    fn moves_stay_inside_the_queue() {
        assert_eq!(QueueCommand::Up(1).target(0, 3), Some(0));
        assert_eq!(QueueCommand::Up(1).target(2, 3), Some(1));
        assert_eq!(QueueCommand::Down(1).target(2, 3), Some(2));
        assert_eq!(QueueCommand::Down(1).target(0, 3), Some(1));
        assert_eq!(QueueCommand::First(1).target(2, 3), Some(0));
        assert_eq!(QueueCommand::Drop(1).target(2, 3), None);
    }

    #[test]
    fn the_queue_reads_next_first() {
        let item = |id, text: &str, by: Option<&str>| QueueItem {
            id,
            correlation_id: format!("c{id}"),
            text: text.into(),
            by: by.map(String::from),
        };
        let items = [item(3, "fix b", None), item(5, "run tests", Some("ana"))];
        let d = describe(&items);
        assert!(d.ends_with("\n  #3 fix b\n  #5 (ana) run tests"), "{d}");
        assert_eq!(
            line(&items).unwrap(),
            "queued: #3 fix b · #5 run tests (/queue)"
        );
        assert!(line(&[]).is_none());
        assert!(describe(&[]).starts_with("the queue is empty"));
    }
}
