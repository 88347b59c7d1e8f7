//! One module per subcommand.

pub mod agents;
pub mod fake_llm;
pub mod join;
pub mod relay;
pub mod run;
pub mod share;
