//! A CLI's `--help` as a set of flags, and what changed against the pinned
//! version's help and against the flags cohost's flag table uses. Pure.

use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// The flag a help word starts with: `-p`, `--output-format` (from
/// `--output-format=<f>` or `--model,`), or `None` for `re-run`, `--`, `-1`.
fn flag_in(word: &str) -> Option<String> {
    let word = word.trim_start_matches(['"', '\'', '`']);
    let body = word.strip_prefix("--").or_else(|| word.strip_prefix('-'))?;
    if !body.starts_with(|c: char| c.is_ascii_alphabetic()) {
        return None;
    }
    let len = body
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
        .unwrap_or(body.len());
    let dashes = word.len() - body.len();
    Some(word[..dashes + len].trim_end_matches('-').to_string())
}

/// Every flag a help text mentions (`-p`, `--output-format`; `--no-x` too).
/// A flag starts a word: after a blank, `,`, `[`, `(`, `|` or a line start.
pub fn help_flags(help: &str) -> BTreeSet<String> {
    help.split(|c: char| c.is_whitespace() || matches!(c, ',' | '[' | '(' | '|'))
        .filter_map(flag_in)
        .collect()
}

/// What the table needs from a CLI's help: flags (`--resume`) and the
/// subcommands a template starts with (`exec`, `run`). Values after a flag
/// (`json`, `{id}`, `yolo`) are not checked.
pub fn table_needs<'a, I>(templates: I) -> BTreeSet<String>
where
    I: IntoIterator<Item = &'a [&'a str]>,
{
    let mut out = BTreeSet::new();
    for template in templates {
        let mut seen_flag = false;
        for token in template {
            if token.starts_with('-') {
                seen_flag = true;
                out.insert((*token).to_string());
            } else if !seen_flag && !token.contains('{') {
                out.insert((*token).to_string());
            }
        }
    }
    out
}

/// How a release's flags differ.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlagDiff {
    /// In the new help, not in the pinned one.
    pub added: Vec<String>,
    /// In the pinned help, not in the new one.
    pub removed: Vec<String>,
    /// Flags or subcommands the flag table uses that the new help lacks:
    /// a driver built from the table would pass something the CLI rejects.
    pub table_missing: Vec<String>,
}

impl FlagDiff {
    /// Whether the new release lacks something cohost passes.
    pub fn breaks(&self) -> bool {
        !self.table_missing.is_empty()
    }
}

/// Compares the pinned and new help texts, and the table's needs against the new one.
pub fn compare_flags(pinned_help: &str, new_help: &str, needs: &BTreeSet<String>) -> FlagDiff {
    let old = help_flags(pinned_help);
    let new = help_flags(new_help);
    let words: BTreeSet<&str> = new_help
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
        .collect();
    let table_missing = needs
        .iter()
        .filter(|n| {
            if n.starts_with('-') {
                !new.contains(*n)
            } else {
                !words.contains(n.as_str())
            }
        })
        .cloned()
        .collect();
    FlagDiff {
        added: new.difference(&old).cloned().collect(),
        removed: old.difference(&new).cloned().collect(),
        table_missing,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HELP: &str = "Usage: tool [options] [command]\n\
        Options:\n  -p, --print          print and exit\n\
        \x20 --output-format <f>  text|json|stream-json\n\
        \x20 --no-color           plain\n  re-run is not a flag; neither is stream-json\n\
        Commands:\n  exec [args]   run headless\n";

    #[test]
    fn flags_are_words_that_start_with_a_dash() {
        let f: Vec<String> = help_flags(HELP).into_iter().collect();
        assert_eq!(f, ["--no-color", "--output-format", "--print", "-p"]);
    }

    #[test]
    fn table_needs_skip_values_but_keep_subcommands() {
        let t: [&[&str]; 3] = [
            &["exec"],
            &["--resume", "{id}"],
            &["--output-format", "json"],
        ];
        let n: Vec<String> = table_needs(t).into_iter().collect();
        assert_eq!(n, ["--output-format", "--resume", "exec"]);
    }

    #[test]
    fn a_flag_the_table_uses_and_the_release_dropped_breaks() {
        let needs: BTreeSet<String> = ["--print", "--output-format", "exec"]
            .map(String::from)
            .into();
        let same = compare_flags(HELP, HELP, &needs);
        assert_eq!(same, FlagDiff::default());
        assert!(!same.breaks());
        let newer = HELP.replace("--output-format", "--format") + "  --fast  new\n";
        let d = compare_flags(HELP, &newer, &needs);
        assert_eq!(d.added, ["--fast", "--format"]);
        assert_eq!(d.removed, ["--output-format"]);
        assert_eq!(d.table_missing, ["--output-format"]);
        assert!(d.breaks());
        let no_exec = HELP.replace("exec [args]", "run [args]");
        assert_eq!(
            compare_flags(HELP, &no_exec, &needs).table_missing,
            ["exec"]
        );
    }
}
