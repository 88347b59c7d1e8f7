. "$(dirname "${BASH_SOURCE[0]}")/scratch.sh" "$1"
mkdir -p $HOME/.vibe
cat > $HOME/.vibe/config.toml <<T
active_model = "fake"
enable_telemetry = false
enable_update_checks = false
enable_notifications = false

[[providers]]
name = "fake"
api_base = "$FAKE/v1"
api_key_env_var = "FAKE_API_KEY"
api_style = "openai"

[[models]]
name = "fake-model"
provider = "fake"
alias = "fake"
T
export FAKE_API_KEY=dummy-key NO_COLOR=1
VB=${VIBE_VENV_BIN:-/tmp/newclis/vibe/venv/bin}
cd $S/ws
