#!/usr/bin/env bash
# The whole test suite, as the README says: installs what the tests need
# (pinned agent CLIs, a real Redis, the LiteLLM proxy) when it can, then runs
# every test of the workspace. In CI (CI=true) a missing piece is an error;
# locally the tests that need it skip with a loud notice.
set -euo pipefail
cd "$(dirname "$0")/.."

# Each step says how long the script has run, so a slow CI run shows where
# its time went.
log() { printf '\n==> [%ds] %s\n' "$SECONDS" "$*" >&2; }

# COHOST_SKIP_SYSTEM_INSTALL=1 leaves alone what lives outside
# COHOST_AGENTS_DIR (apt packages, the pip SDKs, playwright-core): the tests
# of this script set it, since two of them running at once would otherwise
# race for apt's lock and write to the machine's Python and $HOME.
system_install() { [ "${COHOST_SKIP_SYSTEM_INSTALL:-0}" != 1 ]; }

if system_install && [ "$(id -u)" = 0 ] && ! command -v redis-server >/dev/null 2>&1; then
  log "installing redis-server (apt)"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null
fi

# nginx (Debian package) for the relay's load-balancer tests (issue 17):
# crates/cohost-cli/tests/it/relay_ha.rs runs deploy/nginx/nginx.conf for real.
if system_install && [ "$(id -u)" = 0 ] && ! command -v nginx >/dev/null 2>&1; then
  log "installing nginx (apt)"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx >/dev/null
fi

# dbus-daemon (Debian package `dbus-daemon`) for the desktop notification
# tests (issue 34): crates/cohost-notify/tests/ starts a private session bus
# of its own, never the user's.
if system_install && [ "$(id -u)" = 0 ] && ! command -v dbus-daemon >/dev/null 2>&1; then
  log "installing dbus-daemon (apt)"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq dbus-daemon >/dev/null
fi

# An install step that fails is fatal in CI; locally the suite goes on and
# the tests that need the missing piece skip with their own loud notice.
installer() { # installer WHAT CMD...
  local what="$1"
  shift
  if "$@"; then
    return 0
  elif [ "${CI:-}" = true ]; then
    echo "test.sh: installing $what failed (see above); CI needs every piece" >&2
    exit 1
  else
    log "WARNING: installing $what failed (see above); the tests that need it will SKIP"
  fi
}
# The WebAssembly adapter tests (issue 35) build the example components of
# examples/wasm-adapter-goose for wasm32-wasip2 (crates/cohost-wasm/tests,
# cohost_testbench::wasm_examples): the target must be installed.
if system_install; then
  if command -v rustup >/dev/null 2>&1; then
    log "adding the wasm32-wasip2 target (rustup)"
    installer "the wasm32-wasip2 target" rustup target add wasm32-wasip2
  elif [ "${CI:-}" = true ]; then
    echo "test.sh: rustup is missing, so the wasm32-wasip2 target cannot be added" >&2
    exit 1
  else
    log "WARNING: no rustup; the WebAssembly adapter tests will SKIP without wasm32-wasip2"
  fi
fi
if [ -f tests/agents/install.sh ] && [ "${COHOST_SKIP_AGENT_INSTALL:-0}" != 1 ]; then
  log "installing the pinned agent CLIs (tests/agents/install.sh)"
  # COHOST_AGENT_INSTALL_ARGS: e.g. `--only codex,claude` (word-split on purpose).
  # shellcheck disable=SC2086
  installer "the pinned agent CLIs" bash tests/agents/install.sh ${COHOST_AGENT_INSTALL_ARGS:-}
fi
if [ -f tests/agents/install-litellm.sh ] && [ "${COHOST_SKIP_AGENT_INSTALL:-0}" != 1 ]; then
  log "installing the pinned LiteLLM proxy"
  installer "the LiteLLM proxy" bash tests/agents/install-litellm.sh
fi
# schemathesis (PyPI, pinned in the script) for the OpenAPI fuzz run of
# `cohost serve` (cohost-cli/tests/it/serve_schemathesis.rs, issue 18).
if [ -f tests/agents/install-schemathesis.sh ] && [ "${COHOST_SKIP_AGENT_INSTALL:-0}" != 1 ]; then
  log "installing the pinned schemathesis"
  installer "schemathesis" bash tests/agents/install-schemathesis.sh
fi
# Issue 16: the independent clients that drive `cohost mcp` and `cohost acp`
# (crates/cohost-cli/tests/{mcp,acp}_clients.rs), pinned; issue 37: the
# independent Python implementation of the sharing format checks the
# vectors with `cryptography` (crates/cohost-share/tests/vectors/check_v2.py).
if system_install && [ "${COHOST_SKIP_AGENT_INSTALL:-0}" != 1 ]; then
  log "installing the MCP and ACP Python SDKs and cryptography (pip)"
  installer "the MCP and ACP Python SDKs and cryptography" python3 -m pip install -q --disable-pip-version-check 'mcp==2.3.0' 'agent-client-protocol==0.12.1' 'cryptography==48.0.0'
fi

# The participant web page (issue 19): its vendored libraries match the
# lock and npm, and its browser tests get Debian's chromium and a pinned
# playwright-core (crates/cohost-cli/tests/it/web_page.rs).
if system_install && [ "$(id -u)" = 0 ] && [ ! -x /usr/bin/chromium ]; then
  log "installing chromium (apt)"
  apt-get update -qq
  installer "chromium" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium
fi
export COHOST_PLAYWRIGHT_DIR="${COHOST_PLAYWRIGHT_DIR:-$HOME/.cache/cohost-web-test/node_modules/playwright-core}"
if system_install && [ "$(node -p 'require(process.argv[1]+"/package.json").version' "$COHOST_PLAYWRIGHT_DIR" 2>/dev/null)" != 1.65.1 ]; then
  log "installing playwright-core 1.65.1 (npm)"
  installer "playwright-core" npm install --prefix "$(dirname "$(dirname "$COHOST_PLAYWRIGHT_DIR")")" --no-save --no-audit --no-fund playwright-core@1.65.1 >/dev/null
fi

# `scripts/test.sh --install-only`: install what the tests need, run nothing.
if [ "${1:-}" = --install-only ]; then
  log "installed; --install-only runs no test"
  exit 0
fi

# The web page's vendored libraries match their lock (and npm when online).
log "web page: vendored libraries (scripts/vendor-web.sh)"
bash scripts/vendor-web.sh

if ! command -v cargo-nextest >/dev/null 2>&1; then
  # Without self-update (nextest's own advice for CI builds): it needs no
  # HTTP client, about a third less to compile.
  log "installing cargo-nextest"
  cargo install --locked --no-default-features --features default-no-update cargo-nextest
fi

# The book (issue 36): mdBook from crates.io, pinned, without its server and
# search (not needed to build, and half its build time). Its links are
# checked by cohost-testbench's book_links tests below.
MDBOOK_VERSION=0.4.52
if [ "$(mdbook --version 2>/dev/null)" != "mdbook v$MDBOOK_VERSION" ]; then
  log "installing mdBook $MDBOOK_VERSION (cargo install)"
  installer "mdBook" cargo install --locked --quiet --no-default-features mdbook --version "$MDBOOK_VERSION"
fi
if command -v mdbook >/dev/null 2>&1; then
  log "the book: mdbook build docs/book (into target/book)"
  mdbook build docs/book
fi

log "cargo nextest run --workspace"
cargo nextest run --workspace --profile ci "$@"
log "doc tests"
cargo test --workspace --doc --quiet

# Fuzz smoke run (issue 14): every cargo-fuzz target in fuzz/ for a few
# seconds (COHOST_FUZZ_SECONDS, default 3), building the fuzz crate with
# nightly first. The long offline runs are `scripts/fuzz.sh 3600`.
if [ "${COHOST_SKIP_FUZZ:-0}" != 1 ]; then
  if cargo +nightly --version >/dev/null 2>&1; then
    log "fuzz smoke run (scripts/fuzz.sh ${COHOST_FUZZ_SECONDS:-3})"
    # Without the wasm target: a few seconds of it are a few dozen
    # executions, not worth building wasmtime a third time (nightly,
    # instrumented); the suite's hostile-component tests cover the host.
    FUZZ_NICE=0 FUZZ_FEATURES= bash scripts/fuzz.sh "${COHOST_FUZZ_SECONDS:-3}"
  elif [ "${CI:-}" = true ]; then
    echo "test.sh: the fuzz smoke run needs the nightly toolchain: rustup toolchain install nightly" >&2
    exit 1
  else
    log "SKIPPED: fuzz smoke run (no nightly toolchain)"
  fi
fi
# Issue 13's soak, 50 randomized cycles (no orphan, no hang; exits 1 otherwise).
log "soak: 50 cycles of cohost run ended every way (cohost-cli/benches/soak)"
cargo test -p cohost-cli --bench soak --quiet -- --cycles 50 --seconds 110 --serve-sessions 20
