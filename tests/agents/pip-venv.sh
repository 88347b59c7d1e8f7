# Sourced by the install-*.sh scripts of Python tools: one fresh venv under
# the agents cache with one pinned requirement, the pip log kept in
# $DIR/logs. The caller defines DIR, PYTHON and die, and checks the Python
# version first (the tools need different ones).
#   pip_venv_install NAME VENV REQUIREMENT
pip_venv_install() {
  local name="$1" venv="$2" req="$3" log="$DIR/logs/$1.log"
  echo "install-$name: installing $req into $venv" >&2
  rm -rf "$venv"
  mkdir -p "$DIR/venv" "$DIR/bin" "$DIR/logs"
  "$PYTHON" -m venv "$venv" || die "could not create the venv at $venv"
  if ! "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input \
    "$req" >"$log" 2>&1; then
    tail -n 20 "$log" >&2 || true
    die "pip install failed (full log: $log)"
  fi
}
