# . scratch.sh NAME : fresh scratch HOME + XDG dirs under $SCRATCH_ROOT (default /tmp/newclis/scratch),
# cwd-to-be $S/ws; FAKE = the fake server's base URL (from $FAKE, else parsed from `cohost fake-llm` stdout in $FAKE_STDOUT).
S=${SCRATCH_ROOT:-/tmp/newclis/scratch}/$1; rm -rf "$S"; mkdir -p "$S/home" "$S/ws" "$S/home/.config" "$S/home/.local/share" "$S/home/.cache" "$S/home/.local/state"
export HOME=$S/home XDG_CONFIG_HOME=$S/home/.config XDG_DATA_HOME=$S/home/.local/share XDG_CACHE_HOME=$S/home/.cache XDG_STATE_HOME=$S/home/.local/state
export FAKE=${FAKE:-$(sed -n 's/^fake-llm listening on //p' "${FAKE_STDOUT:-/tmp/newclis/fake/stdout}")}
