#!/usr/bin/env bash
# Install the pinned real agent CLIs (tests/agents/versions.env) into a cache
# directory outside the source tree, idempotently.
#
#   tests/agents/install.sh                 install everything that is missing
#   tests/agents/install.sh --only codex,claude
#   tests/agents/install.sh --print-dir     print the cache dir and exit
#   tests/agents/install.sh --print-bin-dir print the bin dir (put it on PATH)
#   tests/agents/install.sh --list          print the agent names and pins
#   tests/agents/install.sh --list-specs    print NAME KIND PACKAGE KEY PIN per agent (for tools)
#   tests/agents/install.sh --force         reinstall even if the stamp is valid
#   tests/agents/install.sh --prune         delete cached versions that are no longer pinned
#   tests/agents/install.sh --serial        install one at a time (default: in parallel)
#
# Layout (DIR = ${COHOST_AGENTS_DIR:-$HOME/.cache/cohost-agents}):
#   $DIR/npm/<name>@<ver>/        one npm prefix per package+version
#   $DIR/venv/<name>-<ver>/       python venvs (aider-chat, mistral-vibe)
#   $DIR/bin/<cmd>                symlinks (or tiny exec wrappers) to the real binaries
#   $DIR/cache/copilot-<ver>/     copilot's unpacked JS bundle (COPILOT_PKG_CACHE_HOME)
#   $DIR/installed.env            NAME_VERSION=... of what the last run verified
#   $DIR/logs/<name>.log          install / health-check output
#
# Python: aider runs on $COHOST_PYTHON (default python3, 3.10-3.12); vibe
# needs 3.12 or newer, found as $COHOST_PYTHON312, $COHOST_PYTHON, python3.12,
# python3.13 or a 3.12/3.13 installed by pyenv. An agent without its Python
# is reported FAILED (exit 1) and the others still install.
#
# Network: only the npm and PyPI registries (through npm and pip). Install
# scripts are never run by npm (--ignore-scripts); the few postinstall steps
# that matter are run by hand below after reading what they do (none of them
# downloads anything).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
VERSIONS_FILE="${COHOST_AGENTS_VERSIONS_FILE:-$HERE/versions.env}"
DIR="${COHOST_AGENTS_DIR:-${HOME}/.cache/cohost-agents}"
PYTHON="${COHOST_PYTHON:-python3}"

# name | kind | package | versions.env key | commands put in $DIR/bin
AGENTS=(
  "claude|npm|@anthropic-ai/claude-code|CLAUDE_CODE_VERSION|claude"
  "codex|npm|@openai/codex|CODEX_VERSION|codex"
  "gemini|npm|@google/gemini-cli|GEMINI_CLI_VERSION|gemini"
  "qwen|npm|@qwen-code/qwen-code|QWEN_CODE_VERSION|qwen"
  "opencode|npm|opencode-ai|OPENCODE_VERSION|opencode"
  "kilo|npm|@kilocode/cli|KILO_CLI_VERSION|kilo"
  "copilot|npm|@github/copilot|COPILOT_VERSION|copilot"
  "claude-code-acp|npm|@zed-industries/claude-code-acp|CLAUDE_CODE_ACP_VERSION|claude-code-acp"
  "codex-acp|npm|@zed-industries/codex-acp|CODEX_ACP_VERSION|codex-acp"
  "cline|npm|cline|CLINE_VERSION|cline"
  "vibe|pypi|mistral-vibe|MISTRAL_VIBE_VERSION|vibe-acp"
  "continue|npm|@continuedev/cli|CONTINUE_CLI_VERSION|cn"
  "aider|pypi|aider-chat|AIDER_VERSION|aider"
)

log() { printf '[cohost-agents] %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

usage() { sed -n '2,14p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }

# --- versions.env: plain KEY=VALUE, '#' comments; parsed, not sourced -------
declare -A PIN=()
load_versions() {
  local line key val
  [[ -f "$VERSIONS_FILE" ]] || die "missing $VERSIONS_FILE"
  while IFS= read -r line || [[ -n "$line" ]]; do
    line="${line%%#*}"
    line="${line//[[:space:]]/}"
    [[ -z "$line" ]] && continue
    key="${line%%=*}"
    val="${line#*=}"
    [[ "$key" =~ ^[A-Z0-9_]+$ && "$val" =~ ^[0-9A-Za-z.+-]+$ ]] ||
      die "bad line in versions.env: $line"
    PIN[$key]="$val"
  done <"$VERSIONS_FILE"
}

field() { # field SPEC N
  local IFS='|'
  # shellcheck disable=SC2206
  local parts=($1)
  printf '%s' "${parts[$2]}"
}

version_of() { # version_of SPEC
  local key
  key="$(field "$1" 3)"
  [[ -n "${PIN[$key]:-}" ]] || die "versions.env has no $key"
  printf '%s' "${PIN[$key]}"
}

prefix_of() { # prefix_of SPEC
  local name kind ver
  name="$(field "$1" 0)"
  kind="$(field "$1" 1)"
  ver="$(version_of "$1")"
  if [[ "$kind" == npm ]]; then
    printf '%s/npm/%s@%s' "$DIR" "$name" "$ver"
  else
    printf '%s/venv/%s-%s' "$DIR" "$name" "$ver"
  fi
}

# Platform names used by the native optional dependencies.
uname_s="$(uname -s)"
uname_m="$(uname -m)"
case "$uname_s" in
  Linux) NODE_OS=linux ;;
  Darwin) NODE_OS=darwin ;;
  *) NODE_OS=unknown ;;
esac
case "$uname_m" in
  x86_64 | amd64) NODE_ARCH=x64 RUST_ARCH=x86_64 ;;
  aarch64 | arm64) NODE_ARCH=arm64 RUST_ARCH=aarch64 ;;
  *) NODE_ARCH=unknown RUST_ARCH=unknown ;;
esac
if [[ "$NODE_OS" == linux ]]; then
  CODEX_TRIPLE="${RUST_ARCH}-unknown-linux-musl"
else
  CODEX_TRIPLE="${RUST_ARCH}-apple-darwin"
fi

# --- per-agent knowledge ----------------------------------------------------

# Postinstall steps npm would have run (we always pass --ignore-scripts).
postinstall() { # postinstall NAME PREFIX
  local nm="$2/node_modules"
  case "$1" in
    claude)
      # Copies the native binary from the platform package over bin/claude.exe.
      (cd "$nm/@anthropic-ai/claude-code" && node install.cjs)
      ;;
    opencode)
      # Hard-links the platform binary to bin/opencode.exe.
      (cd "$nm/opencode-ai" && node postinstall.mjs)
      ;;
    qwen)
      # The tarball ships its vendored ripgrep without the exec bit; qwen then
      # logs "Ripgrep not available ... EACCES" and falls back to a JS grep.
      local rg
      for rg in "$nm"/@qwen-code/qwen-code/vendor/ripgrep/*/rg; do
        [[ -f "$rg" ]] && chmod +x "$rg"
      done
      ;;
    gemini)
      # keytar's install step copies its prebuilt addon into build/Release (no
      # download). Non-fatal: with GEMINI_API_KEY gemini never needs a keychain.
      if [[ -f "$nm/@github/keytar/script/install.js" ]]; then
        (cd "$nm/@github/keytar" && node script/install.js) || log "gemini: keytar prebuild copy failed (ignored)"
      fi
      ;;
  esac
}

# Where $DIR/bin/<cmd> should point. The npm wrappers of codex, codex-acp and
# copilot are node scripts that spawn the native binary as a child (node < 22
# has no execve), which leaves orphans when only the wrapper is signalled, so
# we point at the native binary itself whenever it is where we expect.
link_target() { # link_target NAME PREFIX CMD
  local nm="$2/node_modules" native=""
  case "$1" in
    claude) native="$nm/@anthropic-ai/claude-code/bin/claude.exe" ;;
    opencode) native="$nm/opencode-ai/bin/opencode.exe" ;;
    # Their postinstalls only copy (or link) this binary next to the node launcher.
    cline) native="$nm/@cline/cli-${NODE_OS}-${NODE_ARCH}/bin/cline" ;;
    kilo) native="$nm/@kilocode/cli-${NODE_OS}-${NODE_ARCH}/bin/kilo" ;;
    copilot) native="$nm/@github/copilot-${NODE_OS}-${NODE_ARCH}/copilot" ;;
    codex-acp) native="$nm/@zed-industries/codex-acp-${NODE_OS}-${NODE_ARCH}/bin/codex-acp" ;;
    aider | vibe)
      printf '%s/bin/%s' "$2" "$3"
      return
      ;;
  esac
  if [[ -n "$native" && -x "$native" ]]; then
    printf '%s' "$native"
  else
    printf '%s/.bin/%s' "$nm" "$3"
  fi
}

# Commands linked besides the one in AGENTS, from the same prefix: Vibe's
# interactive CLI next to its ACP server (cohost drives `vibe-acp`).
extra_commands() { # extra_commands NAME
  case "$1" in
    vibe) printf 'vibe\n' ;;
  esac
}

# Some commands get a tiny exec wrapper instead of a symlink:
#  - codex: the env vars its node wrapper (bin/codex.js) would set.
#  - copilot: the native binary unpacks ~235 MB into $XDG_CACHE_HOME/copilot/pkg
#    on its first run in every new HOME (~1-5 s); tests use scratch HOMEs, so
#    default COPILOT_PKG_CACHE_HOME to a shared, pre-populated dir in the cache.
copilot_pkg_cache() { printf '%s/cache/copilot-%s' "$DIR" "$1"; }

write_wrappers() { # write_wrappers NAME PREFIX VERSION
  local nm="$2/node_modules" native="" body=""
  case "$1" in
    codex)
      native="$nm/@openai/codex-${NODE_OS}-${NODE_ARCH}/vendor/${CODEX_TRIPLE}/bin/codex"
      body="CODEX_MANAGED_PACKAGE_ROOT='$nm/@openai/codex'
CODEX_MANAGED_BY_NPM=1
export CODEX_MANAGED_PACKAGE_ROOT CODEX_MANAGED_BY_NPM"
      ;;
    copilot)
      native="$(link_target copilot "$2" copilot)"
      body=": \"\${COPILOT_PKG_CACHE_HOME:=$(copilot_pkg_cache "$3")}\"
export COPILOT_PKG_CACHE_HOME"
      ;;
    *) return 1 ;;
  esac
  [[ -x "$native" ]] || return 1
  rm -f "$DIR/bin/$1"
  printf '#!/bin/sh\n# Generated by tests/agents/install.sh (%s@%s)\n%s\nexec '"'"'%s'"'"' "$@"\n' \
    "$1" "$3" "$body" "$native" >"$DIR/bin/$1"
  chmod +x "$DIR/bin/$1"
}

# Prints the version line(s) of the installed command; fails if it does not run.
# Runs with a throwaway HOME so nothing is written to the real one.
health() { # health NAME CMD_PATH
  local name="$1" cmd="$2" scratch out rc=0
  scratch="$(mktemp -d "${TMPDIR:-/tmp}/cohost-agents-health.XXXXXX")"
  local -a envs=(
    "HOME=$scratch" "XDG_CONFIG_HOME=$scratch/.config" "XDG_DATA_HOME=$scratch/.local/share"
    "XDG_CACHE_HOME=$scratch/.cache" "XDG_STATE_HOME=$scratch/.local/state"
    "CODEX_HOME=$scratch/.codex" "DISABLE_AUTOUPDATER=1" "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1"
    "OPENCODE_DISABLE_AUTOUPDATE=1" "OPENCODE_DISABLE_MODELS_FETCH=1"
    "AIDER_CHECK_UPDATE=false" "AIDER_ANALYTICS=false" "NO_COLOR=1"
    "COPILOT_AUTO_UPDATE=false" "VIBE_ENABLE_UPDATE_CHECKS=false" "VIBE_ENABLE_AUTO_UPDATE=false"
    "VIBE_ENABLE_TELEMETRY=false" "COPILOT_PKG_CACHE_HOME=$(copilot_pkg_cache "${PIN[COPILOT_VERSION]}")"
  )
  case "$name" in
    claude-code-acp)
      out="$(printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}' |
        env "${envs[@]}" timeout 60 "$cmd" 2>&1)" || rc=$?
      if [[ $rc -eq 0 && "$out" == *'"agentInfo"'* ]]; then
        out="$(sed -n 's/.*"agentInfo":{[^}]*"version":"\([^"]*\)".*/claude-code-acp \1 (ACP initialize ok)/p' <<<"$out")"
      elif [[ $rc -eq 0 ]]; then
        rc=1
      fi
      ;;
    codex-acp)
      # No --version flag; --help proves the binary runs.
      out="$(env "${envs[@]}" timeout 60 "$cmd" --help </dev/null 2>&1)" || rc=$?
      [[ $rc -eq 0 ]] && out="codex-acp (--help ok)"
      ;;
    *)
      out="$(env "${envs[@]}" timeout 120 "$cmd" --version </dev/null 2>&1)" || rc=$?
      # codex warns on stderr when CODEX_HOME is under /tmp; keep the version line.
      out="$(grep -v -e '^WARNING' -e '^Run .copilot update' -e '^Package extraction' -e '^$' <<<"$out" || true)"
      ;;
  esac
  rm -rf "$scratch"
  printf '%s\n' "$out"
  return "$rc"
}

npm_install() { # npm_install PREFIX PACKAGE@VERSION
  npm install --prefix "$1" --ignore-scripts --no-audit --no-fund --no-save \
    --no-package-lock --loglevel=error "$2"
}

# A PyPI agent's Python (3.10-3.12 for aider, 3.12+ for vibe): prints the
# first interpreter that runs, has venv and is in range; fails when none is.
# pyenv's shim for a version that is not active exits non-zero, so it is
# passed over and pyenv's own copy is tried.
python_for() { # python_for NAME
  local c lo hi candidates=()
  case "$1" in
    vibe)
      lo="3, 12" hi="4, 0"
      local pyenv_root="${PYENV_ROOT:-$HOME/.pyenv}"
      candidates=("${COHOST_PYTHON312:-}" "$PYTHON" python3.12 python3.13
        "$pyenv_root"/versions/3.12*/bin/python3 "$pyenv_root"/versions/3.13*/bin/python3)
      ;;
    *) lo="3, 10" hi="3, 13" candidates=("$PYTHON") ;;
  esac
  for c in "${candidates[@]}"; do
    [[ -n "$c" ]] || continue
    if "$c" -c "import sys, venv; sys.exit(0 if ($lo) <= sys.version_info[:2] < ($hi) else 1)" 2>/dev/null; then
      command -v "$c"
      return 0
    fi
  done
  return 1
}

python_need() { # python_need NAME: what to tell when python_for finds nothing
  case "$1" in
    vibe) printf 'needs python >= 3.12 with venv (set COHOST_PYTHON312, or pyenv install 3.12)' ;;
    *) printf 'needs python 3.10-3.12 with venv (set COHOST_PYTHON; have: %s)' "$("$PYTHON" --version 2>&1 || echo none)" ;;
  esac
}

# Pins in one release's own requirements that the index does not carry,
# each as "PINNED INSTEAD". mistral-vibe 3.0.3 pins certifi==2026.10.19,
# which PyPI does not have (it has 2026.10.18 and 2026.10.19.post1), so
# pip cannot install it as published. Per release, so the drift check's
# other versions (install-version.sh) install as published.
pypi_overrides() { # pypi_overrides NAME VERSION
  case "$1@$2" in
    vibe@3.0.3) printf 'certifi==2026.10.19 certifi==2026.10.19.post1\n' ;;
  esac
}

pypi_install() { # pypi_install NAME VENV PACKAGE==VERSION
  local overrides
  local -a pip=("$2/bin/python" -m pip install --quiet --disable-pip-version-check --no-input)
  "${PY[$1]}" -m venv "$2"
  overrides="$(pypi_overrides "$1" "${3##*==}")"
  if [[ -z "$overrides" ]]; then
    "${pip[@]}" "$3"
    return
  fi
  # pip has no override option: the package alone, then its requirements
  # (read from its installed metadata) with the overridden pins swapped. An
  # override its requirements do not name fails rather than being ignored.
  "${pip[@]}" --no-deps "$3"
  "$2/bin/python" - "${3%%==*}" "$overrides" >"$2/cohost-requirements.txt" <<'PY'
import importlib.metadata, sys
swap = dict(line.split() for line in sys.argv[2].splitlines() if line.strip())
unused = set(swap)
for req in importlib.metadata.requires(sys.argv[1]) or []:
    if "extra ==" in req:
        continue
    pin = req.split(";")[0].strip()
    if pin in swap:
        req = req.replace(pin, swap[pin], 1)
        unused.discard(pin)
    print(req)
if unused:
    sys.exit("overridden pins are not among the requirements: " + ", ".join(sorted(unused)))
PY
  "${pip[@]}" -r "$2/cohost-requirements.txt"
}

# install_one SPEC: install (if needed) and verify one agent. Writes
# $DIR/logs/<name>.log and $DIR/state/<name>.{ok,fail,version}.
install_one() {
  local spec="$1" name kind pkg ver prefix cmd stamp target out
  name="$(field "$spec" 0)"
  kind="$(field "$spec" 1)"
  pkg="$(field "$spec" 2)"
  cmd="$(field "$spec" 4)"
  ver="$(version_of "$spec")"
  prefix="$(prefix_of "$spec")"
  stamp="$prefix/.cohost-installed"
  rm -f "$DIR/state/$name".*

  if [[ "$FORCE" == 0 && -f "$stamp" && "$(cat "$stamp")" == "$pkg@$ver" ]]; then
    target="$(link_target "$name" "$prefix" "$cmd")"
    if out="$(health "$name" "$target")"; then
      printf '%s\n' "$out" >"$DIR/state/$name.version"
      printf 'cached\n' >"$DIR/state/$name.ok"
      return 0
    fi
    log "$name: cached install at $prefix no longer runs; reinstalling"
  fi

  log "$name: installing $pkg@$ver into $prefix"
  rm -rf "$prefix"
  mkdir -p "$prefix"
  if [[ "$kind" == npm ]]; then
    npm_install "$prefix" "$pkg@$ver" || { echo "npm install failed" >"$DIR/state/$name.fail"; return 1; }
    postinstall "$name" "$prefix" || { echo "postinstall failed" >"$DIR/state/$name.fail"; return 1; }
  else
    pypi_install "$name" "$prefix" "$pkg==$ver" || { echo "pip install failed" >"$DIR/state/$name.fail"; return 1; }
  fi
  target="$(link_target "$name" "$prefix" "$cmd")"
  if ! out="$(health "$name" "$target")"; then
    printf '%s\n' "$out"
    echo "installed but '$cmd' does not run (see log)" >"$DIR/state/$name.fail"
    return 1
  fi
  printf '%s\n' "$pkg@$ver" >"$stamp"
  printf '%s\n' "$out" >"$DIR/state/$name.version"
  printf 'installed\n' >"$DIR/state/$name.ok"
}

link_one() { # link_one SPEC
  local spec="$1" name cmd prefix
  name="$(field "$spec" 0)"
  cmd="$(field "$spec" 4)"
  prefix="$(prefix_of "$spec")"
  write_wrappers "$name" "$prefix" "$(version_of "$spec")" ||
    ln -sfn "$(link_target "$name" "$prefix" "$cmd")" "$DIR/bin/$cmd"
  for cmd in $(extra_commands "$name"); do
    ln -sfn "$(link_target "$name" "$prefix" "$cmd")" "$DIR/bin/$cmd"
  done
}

prune() {
  local keep=() spec d base k
  for spec in "${AGENTS[@]}"; do keep+=("$(basename "$(prefix_of "$spec")")"); done
  keep+=("$(basename "$(copilot_pkg_cache "${PIN[COPILOT_VERSION]}")")")
  for d in "$DIR"/npm/* "$DIR"/venv/* "$DIR"/cache/*; do
    [[ -d "$d" ]] || continue
    base="$(basename "$d")"
    for k in "${keep[@]}"; do [[ "$k" == "$base" ]] && continue 2; done
    log "prune: removing $d"
    rm -rf "$d"
  done
}

main() {
  local only="" print=""
  FORCE=0
  local serial=0 do_prune=0
  while [[ $# -gt 0 ]]; do
    case "$1" in
      --only) [[ $# -ge 2 ]] || die "--only needs NAME[,NAME]"; only="$2"; shift 2 ;;
      --only=*) only="${1#--only=}"; shift ;;
      --print-dir) print=dir; shift ;;
      --print-bin-dir) print=bin; shift ;;
      --list) print=list; shift ;;
      --list-specs) print=specs; shift ;;
      --force) FORCE=1; shift ;;
      --prune) do_prune=1; shift ;;
      --serial) serial=1; shift ;;
      -h | --help) usage; exit 0 ;;
      *) usage >&2; die "unknown argument: $1" ;;
    esac
  done

  load_versions
  case "$print" in
    dir) printf '%s\n' "$DIR"; exit 0 ;;
    bin) printf '%s\n' "$DIR/bin"; exit 0 ;;
    list)
      local s
      for s in "${AGENTS[@]}"; do
        printf '%-16s %-34s %s\n' "$(field "$s" 0)" "$(field "$s" 2)" "$(version_of "$s")"
      done
      exit 0
      ;;
    specs)
      local s
      for s in "${AGENTS[@]}"; do
        printf '%s %s %s %s %s\n' "$(field "$s" 0)" "$(field "$s" 1)" "$(field "$s" 2)" "$(field "$s" 3)" "$(version_of "$s")"
      done
      exit 0
      ;;
  esac

  # Select agents.
  local selected=() spec n found
  if [[ -n "$only" ]]; then
    local IFS=','
    local wanted
    read -r -a wanted <<<"$only"
    unset IFS
    for n in "${wanted[@]}"; do
      found=0
      for spec in "${AGENTS[@]}"; do
        if [[ "$(field "$spec" 0)" == "$n" || "$(field "$spec" 4)" == "$n" ]]; then
          selected+=("$spec"); found=1
        fi
      done
      [[ $found == 1 ]] || die "--only: unknown agent '$n' (see --list)"
    done
  else
    selected=("${AGENTS[@]}")
  fi

  # Tool checks.
  local need_npm=0
  for spec in "${selected[@]}"; do
    [[ "$(field "$spec" 1)" == npm ]] && need_npm=1
  done
  if [[ $need_npm == 1 ]]; then
    command -v node >/dev/null || die "node is not on PATH (need >= 20)"
    command -v npm >/dev/null || die "npm is not on PATH"
    local node_major
    node_major="$(node -p 'process.versions.node.split(".")[0]')"
    [[ "$node_major" -ge 20 ]] || die "node $(node --version) is too old (need >= 20)"
  fi
  mkdir -p "$DIR/bin" "$DIR/npm" "$DIR/venv" "$DIR/logs" "$DIR/state" "$DIR/cache"
  [[ $do_prune == 1 ]] && prune

  # A PyPI agent without a Python it supports is reported FAILED below
  # (exit 1), never the others: the rest still install.
  declare -gA PY=()
  local start=$SECONDS name pids=() i
  for spec in "${selected[@]}"; do
    name="$(field "$spec" 0)"
    if [[ "$(field "$spec" 1)" == pypi ]] && ! PY[$name]="$(python_for "$name")"; then
      rm -f "$DIR/state/$name.ok" "$DIR/logs/$name.log"
      python_need "$name" >"$DIR/state/$name.fail"
      log "$name: $(cat "$DIR/state/$name.fail")"
      continue
    fi
    if [[ $serial == 1 ]]; then
      install_one "$spec" >"$DIR/logs/$name.log" 2>&1 || true
    else
      install_one "$spec" >"$DIR/logs/$name.log" 2>&1 &
      pids+=($!)
    fi
  done
  for i in "${pids[@]}"; do wait "$i" || true; done

  # Report, link, record.
  local failed=() status cmd
  for spec in "${selected[@]}"; do
    name="$(field "$spec" 0)"
    if [[ -f "$DIR/state/$name.ok" ]]; then
      link_one "$spec"
      status="$(cat "$DIR/state/$name.ok")"
      printf '  %-16s %-10s %s\n' "$name" "$status" "$(head -n1 "$DIR/state/$name.version")"
    else
      failed+=("$name")
      # Never leave a command pointing at some other version.
      rm -f "$DIR/bin/$(field "$spec" 4)"
      for cmd in $(extra_commands "$name"); do rm -f "$DIR/bin/$cmd"; done
      status="$(cat "$DIR/state/$name.fail" 2>/dev/null || echo 'install aborted')"
      printf '  %-16s %-10s %s\n' "$name" "FAILED" "$status"
      if [[ -f "$DIR/logs/$name.log" ]]; then
        log "$name: last lines of $DIR/logs/$name.log:"
        tail -n 20 "$DIR/logs/$name.log" | sed 's/^/    /' >&2
      fi
    fi
  done

  # installed.env lists every agent whose stamp is valid for the current pins.
  {
    printf '# written by tests/agents/install.sh; agents installed and verified at the pinned versions\n'
    for spec in "${AGENTS[@]}"; do
      local key stamp
      key="$(field "$spec" 3)"
      stamp="$(prefix_of "$spec")/.cohost-installed"
      if [[ -f "$stamp" && "$(cat "$stamp")" == "$(field "$spec" 2)@$(version_of "$spec")" ]]; then
        printf '%s=%s\n' "$key" "$(version_of "$spec")"
      fi
    done
  } >"$DIR/installed.env"

  log "done in $((SECONDS - start))s; bin dir: $DIR/bin"
  if [[ ${#failed[@]} -gt 0 ]]; then
    die "failed to install: ${failed[*]}"
  fi
}

main "$@"
