//! One module per subcommand.

pub mod agents;
pub mod fake_llm;
pub mod run;
