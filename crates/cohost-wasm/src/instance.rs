//! [`TurnInstance`]: one instance of an adapter component serving one
//! turn. Every call runs under the time limit (an epoch deadline), the
//! instance under the memory limit (a resource limiter), and each call's
//! events are counted and sized before cohost keeps them. The first
//! failure poisons the instance: the turn is over.

use cohost_core::{AgentEvent, ApprovalMode};
use wasmtime::component::{Instance, TypedFunc};
use wasmtime::{ResourceLimiter, Store, Trap};

use crate::limiter::State;

use crate::component::AdapterComponent;
use crate::convert;
use crate::error::{Limit, WasmError};
use crate::runtime::Runtime;
use crate::world as w;

/// What a turn asks of the adapter (the world's `options`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StartOptions {
    /// The prompt.
    pub prompt: String,
    /// The chosen model.
    pub model: Option<String>,
    /// The native session id (to resume, or fresh when `fresh_session`).
    pub session_id: Option<String>,
    /// `session_id` is a new one cohost named.
    pub fresh_session: bool,
    /// Turns before this one in the session.
    pub turn_index: u32,
    /// The approval policy.
    pub approval: ApprovalMode,
    /// The user's extra arguments.
    pub extra_args: Vec<String>,
}

/// The command line the adapter chose.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TurnCommand {
    /// Arguments after the program.
    pub args: Vec<String>,
    /// Variables for the agent.
    pub env: Vec<(String, String)>,
    /// Lines for its stdin.
    pub stdin: Vec<String>,
}

/// How the agent ended (the world's `exit`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Exit {
    /// Exit code.
    pub code: Option<i32>,
    /// Killing signal.
    pub signal: Option<i32>,
    /// The end of stderr, sanitized.
    pub stderr: String,
    /// cohost interrupted it.
    pub interrupted: bool,
}

type EventsFunc<P> = TypedFunc<P, (Vec<w::Event>,)>;

/// One instance, one turn.
pub struct TurnInstance {
    component: AdapterComponent,
    store: Store<State>,
    start: TypedFunc<(w::Options,), (Result<w::Command, String>,)>,
    on_line: EventsFunc<(&'static str,)>,
    on_exit: EventsFunc<(w::Exit,)>,
    started: bool,
    ended: bool,
    poisoned: bool,
}

impl std::fmt::Debug for TurnInstance {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TurnInstance")
            .field("plugin", &self.component.plugin())
            .field("started", &self.started)
            .field("ended", &self.ended)
            .field("poisoned", &self.poisoned)
            .finish_non_exhaustive()
    }
}

fn typed<P, R>(
    c: &AdapterComponent,
    store: &mut Store<State>,
    instance: &Instance,
    index: &wasmtime::component::ComponentExportIndex,
    name: &str,
) -> Result<TypedFunc<P, R>, WasmError>
where
    P: wasmtime::component::ComponentNamedList + wasmtime::component::Lower,
    R: wasmtime::component::ComponentNamedList + wasmtime::component::Lift,
{
    instance
        .get_typed_func::<P, R>(&mut *store, index)
        .map_err(|e| WasmError::NotAnAdapter {
            plugin: c.plugin().to_string(),
            reason: format!("`{name}` has the wrong type: {e:#}"),
        })
}

impl AdapterComponent {
    /// A fresh instance for one turn.
    pub fn instantiate(&self) -> Result<TurnInstance, WasmError> {
        TurnInstance::new(self)
    }
}

impl TurnInstance {
    fn new(c: &AdapterComponent) -> Result<TurnInstance, WasmError> {
        let limits = c.limits();
        let mut store = Store::new(c.pre.engine(), State::new(limits.memory_bytes));
        store.limiter(|s| s as &mut dyn ResourceLimiter);
        // What the host may copy out of one call's results: the events'
        // own size for the event limit plus the text limit, so a list of
        // ten million events is refused before the host allocates it.
        store.set_hostcall_fuel(hostcall_fuel(&limits));
        store.epoch_deadline_trap();
        store.set_epoch_deadline(deadline_ticks(limits.call_time));
        let instance = match c.pre.instantiate(&mut store) {
            Ok(i) => i,
            Err(e) if e.is::<wasmtime::PoolConcurrencyLimitError>() => {
                return Err(WasmError::Busy {
                    plugin: c.plugin().to_string(),
                    max: c.pool.unwrap_or_default(),
                })
            }
            Err(e) => return Err(failure(c, &store, "instantiate", &e)),
        };
        let e = &c.exports;
        Ok(TurnInstance {
            start: typed(c, &mut store, &instance, &e.start, "start")?,
            on_line: typed(c, &mut store, &instance, &e.on_line, "on-line")?,
            on_exit: typed(c, &mut store, &instance, &e.on_exit, "on-exit")?,
            component: c.clone(),
            store,
            started: false,
            ended: false,
            poisoned: false,
        })
    }

    /// Types were checked by `new`; this is what a load calls to say so.
    pub(crate) fn check_types(self) -> Result<(), WasmError> {
        Ok(())
    }

    /// Whether an `ended` event was returned.
    pub fn ended(&self) -> bool {
        self.ended
    }

    fn plugin(&self) -> String {
        self.component.plugin().to_string()
    }

    fn enter(&mut self) -> Result<(), WasmError> {
        if self.poisoned {
            return Err(WasmError::Poisoned {
                plugin: self.plugin(),
            });
        }
        self.store
            .set_epoch_deadline(deadline_ticks(self.component.limits().call_time));
        Ok(())
    }

    fn fail(&mut self, call: &'static str, e: &wasmtime::Error) -> WasmError {
        self.poisoned = true;
        failure(&self.component, &self.store, call, e)
    }

    /// The command line of the turn.
    pub fn start(&mut self, o: StartOptions) -> Result<TurnCommand, WasmError> {
        self.enter()?;
        let opts = w::Options {
            prompt: o.prompt,
            model: o.model,
            session_id: o.session_id,
            fresh_session: o.fresh_session,
            turn_index: o.turn_index,
            approval: match o.approval {
                ApprovalMode::Ask => w::ApprovalMode::Ask,
                ApprovalMode::AutoApprove => w::ApprovalMode::AutoApprove,
                ApprovalMode::DenyAll => w::ApprovalMode::DenyAll,
            },
            extra_args: o.extra_args,
        };
        let (result,) = match self.start.call(&mut self.store, (opts,)) {
            Ok(r) => r,
            Err(e) => return Err(self.fail("start", &e)),
        };
        let cmd = result.map_err(|reason| {
            self.poisoned = true;
            WasmError::Refused {
                plugin: self.plugin(),
                reason,
            }
        })?;
        let bytes: usize = cmd
            .args
            .iter()
            .chain(&cmd.stdin)
            .map(String::len)
            .sum::<usize>()
            + cmd
                .env
                .iter()
                .map(|(k, v)| k.len() + v.len())
                .sum::<usize>();
        let max = self.component.limits().output_bytes_per_call;
        if bytes > max {
            self.poisoned = true;
            return Err(WasmError::LimitExceeded {
                plugin: self.plugin(),
                call: "start",
                limit: Limit::OutputPerCall,
                detail: format!("{bytes} bytes, limit {max}"),
            });
        }
        Ok(TurnCommand {
            args: cmd.args,
            env: cmd.env,
            stdin: cmd.stdin,
        })
    }

    /// One stdout line to events.
    pub fn on_line(&mut self, line: &str) -> Result<Vec<AgentEvent>, WasmError> {
        self.enter()?;
        let list = match self.on_line.call(&mut self.store, (line,)) {
            Ok((l,)) => l,
            Err(e) => return Err(self.fail("on-line", &e)),
        };
        self.collect("on-line", list)
    }

    /// The agent exited before `ended`: the adapter's closing events.
    pub fn on_exit(&mut self, exit: Exit) -> Result<Vec<AgentEvent>, WasmError> {
        self.enter()?;
        let exit = w::Exit {
            code: exit.code,
            signal: exit.signal,
            stderr: exit.stderr,
            interrupted: exit.interrupted,
        };
        let list = match self.on_exit.call(&mut self.store, (exit,)) {
            Ok((l,)) => l,
            Err(e) => return Err(self.fail("on-exit", &e)),
        };
        self.collect("on-exit", list)
    }

    /// Bound and check one call's events.
    fn collect(
        &mut self,
        call: &'static str,
        list: Vec<w::Event>,
    ) -> Result<Vec<AgentEvent>, WasmError> {
        let limits = self.component.limits();
        if list.len() > limits.events_per_call {
            let detail = format!("{} events, limit {}", list.len(), limits.events_per_call);
            return Err(self.exceeded(call, detail));
        }
        let bytes: usize = list.iter().map(convert::text_bytes).sum();
        if bytes > limits.output_bytes_per_call {
            let detail = format!(
                "{bytes} bytes of text, limit {}",
                limits.output_bytes_per_call
            );
            return Err(self.exceeded(call, detail));
        }
        let classify = self.component.options.classify;
        let mut out = Vec::with_capacity(list.len() + 1);
        for ev in list {
            if self.ended {
                return Err(self.malformed(call, "an event after `ended`".into()));
            }
            match &ev {
                w::Event::Started(_) if self.started => {
                    return Err(self.malformed(call, "`started` twice".into()));
                }
                w::Event::Started(_) => self.started = true,
                _ if !self.started => {
                    // Tolerant: a turn opens at its first event.
                    self.started = true;
                    out.push(AgentEvent::Started {
                        session_id: None,
                        model: None,
                    });
                }
                _ => {}
            }
            if matches!(ev, w::Event::Ended(_)) {
                self.ended = true;
            }
            let notice = match &ev {
                w::Event::ApprovalRequested(c) => {
                    Some(convert::approval_notice(self.component.plugin(), c))
                }
                _ => None,
            };
            match convert::event(ev, classify) {
                Ok(e) => out.push(e),
                Err(reason) => return Err(self.malformed(call, reason)),
            }
            out.extend(notice);
        }
        Ok(out)
    }

    /// A call's output broke the output limit; the instance is done.
    fn exceeded(&mut self, call: &'static str, detail: String) -> WasmError {
        self.poisoned = true;
        WasmError::LimitExceeded {
            plugin: self.plugin(),
            call,
            limit: Limit::OutputPerCall,
            detail,
        }
    }

    /// A call returned an event that breaks the world's rules; the
    /// instance is done.
    fn malformed(&mut self, call: &'static str, reason: String) -> WasmError {
        self.poisoned = true;
        WasmError::Malformed {
            plugin: self.plugin(),
            call,
            reason,
        }
    }
}

/// The host-side bytes one call's results may take: `events_per_call`
/// events plus `output_bytes_per_call` bytes of text, plus room for the
/// strings' own headers.
fn hostcall_fuel(l: &crate::Limits) -> usize {
    let per_event = std::mem::size_of::<w::Event>() + 2 * std::mem::size_of::<String>();
    l.events_per_call
        .saturating_mul(per_event)
        .saturating_add(l.output_bytes_per_call)
}

/// Epoch ticks for a call of at most `limit`, and at least `limit`: the
/// next tick may come at once, so one more than the limit's count.
fn deadline_ticks(limit: std::time::Duration) -> u64 {
    let tick = Runtime::TICK.as_millis().max(1);
    u64::try_from(limit.as_millis().div_ceil(tick))
        .unwrap_or(u64::MAX)
        .saturating_add(1)
}

/// What a failed call means: the memory limit (the limiter refused), the
/// time limit (the epoch deadline), a trap, or a record the canonical ABI
/// could not read.
fn failure(
    c: &AdapterComponent,
    store: &Store<State>,
    call: &'static str,
    e: &wasmtime::Error,
) -> WasmError {
    let plugin = c.plugin().to_string();
    let limits = c.limits();
    if let Some(asked) = store.data().refused() {
        return WasmError::LimitExceeded {
            plugin,
            call,
            limit: Limit::Memory,
            detail: format!(
                "asked for {} MiB, limit {} MiB",
                asked >> 20,
                limits.memory_bytes >> 20
            ),
        };
    }
    // wasmtime's own words for a result larger than the hostcall fuel
    // (its error type is private).
    if format!("{e:#}").contains("fuel allocated for hostcalls has been exhausted") {
        return WasmError::LimitExceeded {
            plugin,
            call,
            limit: Limit::OutputPerCall,
            detail: format!(
                "the results would take more than {} KiB to copy out; limits {} events, {} KiB of text",
                hostcall_fuel(&limits) >> 10,
                limits.events_per_call,
                limits.output_bytes_per_call >> 10
            ),
        };
    }
    match e.downcast_ref::<Trap>() {
        Some(Trap::Interrupt) => WasmError::LimitExceeded {
            plugin,
            call,
            limit: Limit::CallTime,
            detail: format!("still running after {} ms", limits.call_time.as_millis()),
        },
        Some(trap) => WasmError::Trap {
            plugin,
            call,
            reason: trap.to_string(),
        },
        None => WasmError::Malformed {
            plugin,
            call,
            reason: format!("{e:#}"),
        },
    }
}
