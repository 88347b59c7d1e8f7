//! One module per subcommand.

pub mod acp;
pub mod agents;
pub mod chat;
pub mod chat_args;
pub mod chat_room;
pub mod compare;
pub mod config;
pub mod diff;
pub mod doctor;
pub mod fake_llm;
pub mod hooks;
pub mod hosting;
pub mod join;
pub mod login;
pub mod mcp;
pub mod relay;
pub mod room_tui;
pub mod run;
pub mod screen;
pub mod serve;
pub mod sessions;
pub mod share;
pub mod test_provider;
pub mod turn_changes;
pub mod undo;
pub mod worktree;
