#!/usr/bin/env bash
# Runs every cargo-fuzz target in fuzz/ for SECONDS each (default 60), after
# seeding its corpus from the golden transcripts. Prints executions,
# coverage and exec/s per target; exits 1 if any target crashed, hung or
# blew its memory limit (the input is saved under fuzz/artifacts/TARGET/).
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]
#
# Environment:
#   FUZZ_SANITIZER   none (default: safe Rust, ~2x faster builds and runs) or address
#   FUZZ_NICE        nice level for the fuzzing processes (default 19)
#   FUZZ_RUNS        stop each target after this many executions (default:
#                    no limit; SECONDS still bounds the run), e.g. 10000000
#   FUZZ_LOG_DIR     where the libFuzzer logs go (default fuzz/logs)
#   FUZZ_FEATURES    the fuzz crate's features (default: wasm); without
#                    `wasm` the crate builds no wasmtime and the wasm_adapter
#                    target is left out (CI's smoke run does this)
#   FUZZ_TRACE_COMPARES
#                    1 (default) or 0: build without compare tracing
#                    (cargo fuzz --no-trace-compares), for long campaigns:
#                    about 3.7x the exec/s at the same coverage on one
#                    one-shot parser (docs/fuzzing-results.md); its own
#                    target directory
# Needs the nightly toolchain; installs cargo-fuzz from crates.io if missing.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
secs=${1:-60}
[ $# -gt 0 ] && shift
sanitizer=${FUZZ_SANITIZER:-none}
nice_level=${FUZZ_NICE:-19}
runs=${FUZZ_RUNS:-}
log_dir=${FUZZ_LOG_DIR:-logs}
build_flags=(-s "$sanitizer")
features=${FUZZ_FEATURES-wasm}
[ -n "$features" ] && build_flags+=(--features "$features")
target_dir=target
if [ "${FUZZ_TRACE_COMPARES:-1}" = 0 ]; then
  build_flags+=(--no-trace-compares --target-dir target/no-trace-compares)
  target_dir=target/no-trace-compares
fi

log() { printf '==> %s\n' "$*" >&2; }

if ! cargo +nightly --version >/dev/null 2>&1; then
  echo "fuzz.sh: the nightly toolchain is missing; install it with: rustup toolchain install nightly" >&2
  exit 2
fi
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
  log "installing cargo-fuzz (crates.io)"
  cargo install --locked cargo-fuzz
fi

fixtures=crates/cohost-agents/tests/fixtures
# Which golden transcripts seed which target (paths under $fixtures).
seeds_for() {
  case "$1" in
    claude_stream) echo claude ;;
    qwen_stream) echo qwen ;;
    codex_app_server) echo codex ;;
    codex_exec) echo codex ;;
    acp) echo acp ;;
    agy_stream) echo agy ;;
    *) ;;
  esac
}

# The longest input libFuzzer may make for target $1. Line parsers: 16 KiB.
# The golden transcripts' lines are at most 2.6 KiB except one Claude line
# of 17.6 KiB, and every normalizer's state lives across lines, not in a
# line's length (lines over 4 KiB also reach the oversized-line path), so
# longer inputs mostly repeat work already covered at a fraction of the
# exec/s. The sanitizer: texts over 8 KiB only test "no panic" (its holds
# are bounded there). Config files are under 2 KiB in practice.
max_len_for() {
  case "$1" in
    stream_sanitizer) echo 9000 ;;
    sse_decoder | ndjson_decoder | relay_envelope | invite | relay_token | plugin_manifest | record) echo 65536 ;;
    # Whole components (the Goose example is about 100 KiB) after the mode byte.
    wasm_adapter) echo 131072 ;;
    *) echo 16384 ;;
  esac
}

# Seeds are small and regenerated on every run; the corpus directories are
# not committed (fuzz/.gitignore).
seed() {
  local t=$1 dir=fuzz/corpus/$1 f n=0
  mkdir -p "$dir"
  for sub in $(seeds_for "$t"); do
    while IFS= read -r -d '' f; do
      # Transcripts (.jsonl); the .events snapshots are outputs, not inputs.
      cp "$f" "$dir/seed-$(echo "$f" | tr '/' '_')"
      n=$((n + 1))
    done < <(find "$fixtures/$sub" -type f -name '*.jsonl' -size -256k -print0)
  done
  case "$t" in
    oneshot)
      # Every fixture folder of a one-shot CLI (the stream-json, app-server,
      # ACP, agy and plugin folders have targets of their own), its transcripts
      # behind a first line naming the CLI, as the target reads them.
      local d id
      for d in "$fixtures"/*/; do
        id=$(basename "$d")
        case "$id" in acp | agy | claude | qwen | codex | plugin) continue ;; esac
        while IFS= read -r -d '' f; do
          { printf '%s\n' "$id"; cat "$f"; } >"$dir/seed-$(echo "$f" | tr '/' '_')"
          n=$((n + 1))
        done < <(find "$d" -type f -name '*.jsonl' -size -256k -print0)
      done ;;
    sse_decoder)
      printf 'event: message_start\ndata: {"type":"message_start"}\n\n: keep-alive\r\ndata: {"a":\ndata: 1}\n\nevent: done\ndata: [DONE]\n\n' >"$dir/seed-sse"
      printf '\x05\x01\x10\xffretry: 10\r\nid: 7\r\nevent: x\r\ndata: y\r\n\r\n' >"$dir/seed-sse-split"
      n=$((n + 2)) ;;
    ndjson_decoder)
      printf '{"message":{"content":"hi"},"done":false}\n{"done":true,"eval_count":3}\r\n' >"$dir/seed-ndjson"
      printf '\x02\x03\xff{"a":1}\n\n{"b":\n' >"$dir/seed-ndjson-split"
      n=$((n + 2)) ;;
    relay_envelope)
      # version 1, stream.chunk (5), role 0, flags 0, sender 0, chunk 3,
      # room "r1", stream "s1", payload "hello".
      local z8='\x00\x00\x00\x00\x00\x00\x00\x00'
      printf "\x01\x05\x00\x00${z8}\x00\x00\x00\x00\x00\x00\x00\x03\x02\x02r1s1hello" >"$dir/seed-chunk"
      printf "\x01\x14\x00\x00${z8}${z8}\x02\x00r1{\"last\":{\"s1\":4}}" >"$dir/seed-resume"
      n=$((n + 2)) ;;
    invite)
      printf 'cohost://127.0.0.1:8787/room-1#eyJhbGciOiJIUzI1NiJ9.eyJyb29tIjoicm9vbS0xIn0.c2ln' >"$dir/seed-invite"
      printf 'cohosts://relay.example:443/r#t' >"$dir/seed-secure"
      n=$((n + 2)) ;;
    record)
      # The format's test vector: a whole record, and one cut mid-entry.
      cp crates/cohost-record/tests/vectors/record-v1.jsonl "$dir/seed-record"
      head -c 700 crates/cohost-record/tests/vectors/record-v1.jsonl >"$dir/seed-torn"
      n=$((n + 2)) ;;
    relay_token)
      printf 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJyb29tIjoicm9vbS0xIiwicm9sZSI6InZpZXdlciIsImV4cCI6OTk5OTk5OTk5OSwiYXVkIjoiY29ob3N0LXJlbGF5In0.AAAA' >"$dir/seed-jwt"
      printf 'eyJhbGciOiJub25lIn0.eyJyb29tIjoicm9vbS0xIn0.' >"$dir/seed-none"
      n=$((n + 2)) ;;
    config_loader)
      cat >"$dir/seed-config" <<'EOF'
active_provider = "claude"
active_model = "fake-model"
[providers.claude]
binary = "/usr/local/bin/claude"
model = "sonnet"
env = { ANTHROPIC_BASE_URL = "http://127.0.0.1:8080" }
[providers.my-gateway]
kind = "api_gateway"
base_url = "http://127.0.0.1:4000/v1"
api_key_env = "GATEWAY_KEY"
models = ["a", "b"]
[slots.summary]
mode = "api"
provider = "ollama"
EOF
      n=$((n + 1)) ;;
    stream_sanitizer)
      cp README.md "$dir/seed-readme"
      printf '\x03\x07\x01\xffexport ANTHROPIC_API_KEY=sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWx and Authorization: Bearer eyJhbGciOi.eyJzdWIi.sig "password": "hunter2" SMTP_PASS is hunter2-but-longer-xyz\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk=\n-----END OPENSSH PRIVATE KEY-----\nhttps://user:p%%40ss@db.example/x' >"$dir/seed-secrets"
      n=$((n + 2)) ;;
    wasm_adapter)
      # Odd first byte: stdout lines for the Goose example; even: a component.
      while IFS= read -r -d '' f; do
        { printf '\x01'; tail -n +2 "$f"; } >"$dir/seed-lines-$(basename "$f")"
        n=$((n + 1))
      done < <(find "$fixtures/goose" -type f -name '*.jsonl' -print0)
      local w
      for w in goose hostile; do
        { printf '\x00'; cat "target/wasm-examples/wasm32-wasip2/release/wasm_adapter_$w.wasm"; } >"$dir/seed-component-$w"
        n=$((n + 1))
      done ;;
    plugin_jsonl | plugin_manifest)
      local lines
      lines=$(sh "$fixtures/plugin/fake_jsonl_agent.sh" "hello there")
      printf '%s\n{"kind":"error","message":"boom"}\n' "$lines" >"$dir/seed-agent"
      if [ "$t" = plugin_manifest ]; then
        { printf 'id = "j"\nbinary = ["j"]\nprotocol = "jsonl"\nargs = ["{prompt}"]\n[jsonl]\ntype = "kind"\ntext = { when = "delta", path = "data.text" }\nend = { when = "done", input_tokens = "usage.in" }\n\xff'; printf '%s\n' "$lines"; } >"$dir/seed-manifest"
        printf 'id = "a"\nbinary = "a"\nprotocol = "acp"\n' >"$dir/seed-acp"
        rm -f "$dir/seed-agent"
        n=$((n + 1))
      fi
      n=$((n + 1)) ;;
  esac
  log "$t: $n seed(s)"
}

cd fuzz
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <(cargo +nightly fuzz list)
fi
cd "$root"
if ! [[ ",$features," == *,wasm,* ]]; then
  mapfile -t targets < <(printf '%s\n' "${targets[@]}" | grep -vx wasm_adapter || true)
  log "wasm_adapter: left out (FUZZ_FEATURES has no wasm)"
fi
# wasm_adapter feeds lines to the Goose example component: build it (and
# the hostile one, a seed) for wasm32-wasip2 with the stable toolchain, as
# the test suite does (cohost_testbench::wasm_examples).
if printf '%s\n' "${targets[@]}" | grep -qx wasm_adapter; then
  log "building the example adapter components (wasm32-wasip2)"
  if ! CARGO_TARGET_DIR="$root/target/wasm-examples" cargo +stable build --release --locked \
    --target wasm32-wasip2 --manifest-path examples/wasm-adapter-goose/Cargo.toml >&2; then
    echo "fuzz.sh: the example components do not build (rustup target add wasm32-wasip2?)" >&2
    exit 2
  fi
fi
for t in "${targets[@]}"; do seed "$t"; done

cd fuzz
log "building ${#targets[@]} targets (${build_flags[*]})"
start=$(date +%s)
mkdir -p "$log_dir"
if ! nice -n "$nice_level" cargo +nightly fuzz build "${build_flags[@]}" >"$log_dir/build.log" 2>&1; then
  tail -40 "$log_dir/build.log" >&2
  echo "fuzz.sh: the fuzz crate does not build (log: $log_dir/build.log)" >&2
  exit 2
fi
log "built in $(($(date +%s) - start)) s"
bin_dir=$target_dir/$(rustc +nightly -vV | sed -n 's/^host: //p')/release
failed=()
printf '%-18s %12s %8s %8s %10s %s\n' TARGET EXECS COV FT EXEC/S RESULT
for t in "${targets[@]}"; do
  log_file=$log_dir/$t.log
  status=ok
  max_len=$(max_len_for "$t")
  limits=(-max_total_time="$secs")
  [ -n "$runs" ] && limits+=(-runs="$runs")
  mkdir -p "artifacts/$t"
  # Inputs that once failed this target (each fixed since) must pass again.
  mapfile -t known < <(find regressions -maxdepth 1 -type f -name "$t-*" | sort)
  if [ ${#known[@]} -gt 0 ] && ! "$bin_dir/$t" "${known[@]}" >"$log_dir/$t.regressions.log" 2>&1; then
    status="REGRESSED (log: $log_dir/$t.regressions.log)"
    failed+=("$t")
  fi
  # -timeout: a hang is an input taking over 10 s; -rss_limit_mb and
  # -malloc_limit_mb: an allocation blow-up is a crash. The binaries were
  # built above, so they run directly (no cargo per target).
  if ! nice -n "$nice_level" "$bin_dir/$t" -artifact_prefix="artifacts/$t/" \
    "${limits[@]}" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1024 \
    -max_len="$max_len" -print_final_stats=1 "corpus/$t" >"$log_file" 2>&1; then
    if [ "$status" = ok ]; then
      status=FAILED
      failed+=("$t")
    else
      status="FAILED, $status"
    fi
  fi
  # The last status line: `#N DONE cov: C ft: F corp: ... exec/s: E ...`.
  line=$(grep -E '^#[0-9]+' "$log_file" | tail -1 || true)
  execs=$(sed -nE 's/^stat::number_of_executed_units: ([0-9]+)/\1/p' "$log_file" | tail -1)
  [ -n "$execs" ] || execs=$(sed -nE 's/^#([0-9]+).*/\1/p' <<<"$line")
  cov=$(sed -nE 's/.* cov: ([0-9]+).*/\1/p' <<<"$line")
  ft=$(sed -nE 's/.* ft: ([0-9]+).*/\1/p' <<<"$line")
  eps=$(sed -nE 's/.* exec\/s: ([0-9]+).*/\1/p' <<<"$line")
  printf '%-18s %12s %8s %8s %10s %s\n' "$t" "${execs:-?}" "${cov:-?}" "${ft:-?}" "${eps:-?}" "$status"
done

if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz.sh: failures in: ${failed[*]} (logs in $log_dir, inputs in fuzz/artifacts/)" >&2
  exit 1
fi
