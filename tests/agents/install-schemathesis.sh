#!/usr/bin/env bash
# Install the pinned schemathesis (PyPI) into its own venv in the agents cache
# and link it as $DIR/bin/schemathesis: cohost-cli's serve_schemathesis test
# fuzzes `cohost serve` against its own OpenAPI document with it.
#   tests/agents/install-schemathesis.sh             install when missing
#   tests/agents/install-schemathesis.sh --print-bin print the linked binary
# Env: COHOST_AGENTS_DIR (default ~/.cache/cohost-agents), COHOST_PYTHON (3.9+).
set -euo pipefail
# shellcheck source=tests/agents/pip-venv.sh
. "$(dirname "${BASH_SOURCE[0]}")/pip-venv.sh"
SCHEMATHESIS_VERSION=4.32.5
DIR="${COHOST_AGENTS_DIR:-$HOME/.cache/cohost-agents}"
PYTHON="${COHOST_PYTHON:-python3}"
VENV="$DIR/venv/schemathesis-$SCHEMATHESIS_VERSION"
BIN="$DIR/bin/schemathesis"
die() { echo "install-schemathesis: ERROR: $*" >&2; exit 1; }

if [[ "${1:-}" == --print-bin ]]; then
  printf '%s\n' "$BIN"
  exit 0
fi
healthy() { [[ -x "$VENV/bin/schemathesis" ]] && "$VENV/bin/schemathesis" --version 2>/dev/null | grep -q "$SCHEMATHESIS_VERSION"; }
if ! healthy; then
  "$PYTHON" -c 'import sys, venv; sys.exit(0 if sys.version_info[:2] >= (3, 9) else 1)' 2>/dev/null ||
    die "needs python >= 3.9 with venv; set COHOST_PYTHON (have: $("$PYTHON" --version 2>&1 || echo none))"
  pip_venv_install schemathesis "$VENV" "schemathesis==$SCHEMATHESIS_VERSION"
  healthy || die "installed, but $VENV/bin/schemathesis does not run"
fi
mkdir -p "$DIR/bin"
ln -sfn "$VENV/bin/schemathesis" "$BIN"
echo "schemathesis $SCHEMATHESIS_VERSION ($BIN)"
