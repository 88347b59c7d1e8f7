#!/usr/bin/env bash
# Install a pinned LiteLLM proxy (PyPI `litellm[proxy]`) into a venv under the
# agents cache, for the `litellm` provider's gateway-in-the-loop test.
#
#   tests/agents/install-litellm.sh            # install (idempotent; ~1 s when present)
#   tests/agents/install-litellm.sh --print-bin # path of the `litellm` launcher
#
# Layout: ${COHOST_AGENTS_DIR:-$HOME/.cache/cohost-agents}/venv/litellm-<ver>/
# and a link bin/litellm. Network: PyPI only, through pip.
# Env: COHOST_AGENTS_DIR, COHOST_PYTHON (python 3.10-3.12, default python3),
# COHOST_LITELLM_VERSION (try another version without editing this file).
set -euo pipefail
# shellcheck source=tests/agents/pip-venv.sh
. "$(dirname "${BASH_SOURCE[0]}")/pip-venv.sh"

# Newer pins fail to resolve from the registry this project can reach: 1.109+
# require a `litellm-proxy` package it does not serve, 1.108.11+ pin `.post`
# releases of litellm-proxy-extras / litellm-enterprise it lacks.
# Pinned here rather than in versions.env: that file belongs to install.sh's
# agent list, and LiteLLM is a gateway, not an agent CLI.
LITELLM_VERSION="${COHOST_LITELLM_VERSION:-1.106.12}"
DIR="${COHOST_AGENTS_DIR:-$HOME/.cache/cohost-agents}"
PYTHON="${COHOST_PYTHON:-python3}"
VENV="$DIR/venv/litellm-$LITELLM_VERSION"
STAMP="$VENV/.cohost-installed"
BIN="$VENV/bin/litellm"

die() {
  echo "install-litellm: litellm $LITELLM_VERSION: $*" >&2
  exit 1
}

if [[ "${1:-}" == "--print-bin" ]]; then
  printf '%s\n' "$BIN"
  exit 0
fi

# A healthy install: stamp names the pinned version and the package imports.
healthy() {
  [[ -f "$STAMP" && "$(cat "$STAMP")" == "litellm[proxy]==$LITELLM_VERSION" ]] || return 1
  "$VENV/bin/python" -c 'import importlib.metadata as m, sys; sys.exit(0 if m.version("litellm") == sys.argv[1] else 1)' \
    "$LITELLM_VERSION" 2>/dev/null || return 1
  [[ -x "$BIN" ]]
}

if ! healthy; then
  "$PYTHON" -c 'import sys, venv; sys.exit(0 if (3, 10) <= sys.version_info[:2] < (3, 14) else 1)' 2>/dev/null ||
    die "needs python 3.10-3.13 with venv; set COHOST_PYTHON (have: $("$PYTHON" --version 2>&1 || echo none))"
  pip_venv_install litellm "$VENV" "litellm[proxy]==$LITELLM_VERSION"
  [[ -x "$BIN" ]] || die "installed, but $BIN is missing"
  printf '%s\n' "litellm[proxy]==$LITELLM_VERSION" >"$STAMP"
  healthy || die "installed, but the package does not import"
fi
ln -sfn "$BIN" "$DIR/bin/litellm"
echo "litellm $LITELLM_VERSION ($BIN)"
