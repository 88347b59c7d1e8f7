//! The hook of the `claude_parse` bench: the driver's real stdout path
//! without a real CLI.

use cohost_core::{CohostError, ToolDecision};
use futures::StreamExt;
use std::convert::Infallible;

use super::engine::ClaudeCore;
use super::normalize::{Normalizer, NormalizerConfig, Output};
use super::spec::CLAUDE;
use crate::process::{Frame, Supervised};
use crate::session::{NoEffects, Session, SessionCore};

/// For the `claude_parse` bench only: the driver's real stdout path (the
/// session actor and its turn routing) over `child`, with a turn open; the
/// user line is not written (the bench's `cat` would echo it back). Returns
/// the turn's event stream.
#[doc(hidden)]
pub async fn bench_pump(child: &mut Supervised) -> Option<cohost_core::AgentEventStream> {
    struct Bench(ClaudeCore);
    impl SessionCore for Bench {
        type Ready = Option<String>;
        type Effect = Infallible;
        type Turn = String;
        fn start(&mut self, _: &mut Vec<Output>) {}
        fn on_frame(&mut self, frame: Frame, out: &mut Vec<Output>) {
            self.0.on_frame(frame, out);
        }
        fn begin_turn(&mut self, text: String, _: &mut Vec<Output>) -> Result<(), CohostError> {
            self.0.normalizer.begin_turn(&text);
            Ok(())
        }
        fn decide(&mut self, d: &ToolDecision, out: &mut Vec<Output>) -> Result<(), CohostError> {
            self.0.decide(d, out)
        }
        fn interrupt(&mut self, out: &mut Vec<Output>) {
            self.0.interrupt(out);
        }
    }
    let frames = child.take_stdout()?;
    let normalizer = Normalizer::new(NormalizerConfig {
        dialect: CLAUDE,
        deny_all: false,
        no_approvals: false,
    });
    let core = Bench(ClaudeCore {
        normalizer,
        id: "bench",
    });
    let (session, _ready) = Session::spawn("bench", core, frames, child.stdin(), NoEffects);
    let events = session.begin_turn("bench".into()).await.ok()?;
    // The actor lives as long as its handle: keep it with the stream.
    Some(
        events
            .map(move |e| {
                let _keep = &session;
                e
            })
            .boxed(),
    )
}
