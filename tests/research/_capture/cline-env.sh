# . cline-env.sh NAME : fresh scratch home configured for cline against the fake server
. "$(dirname "${BASH_SOURCE[0]}")/scratch.sh" "$1"
mkdir -p $HOME/.cline/data/settings
cat > $HOME/.cline/data/settings/providers.json <<J
{"version":1,"lastUsedProvider":"openai-compatible","modes":{},"providers":{"openai-compatible":{"settings":{"provider":"openai-compatible","apiKey":"dummy-key","model":"fake-model","baseUrl":"$FAKE/v1"},"updatedAt":"2026-01-01T00:00:00.000Z","tokenSource":"manual"}}}
J
cat > $HOME/.cline/data/settings/models.json <<J
{"version":1,"providers":{"openai-compatible":{"provider":{"name":"OpenAI Compatible","baseUrl":"$FAKE/v1","defaultModelId":"fake-model"},"models":{"fake-model":{"id":"fake-model","name":"fake-model","contextWindow":128000,"maxInputTokens":128000,"capabilities":["streaming","tools"]}}}}}
J
cat > $HOME/.cline/data/settings/global-settings.json <<J
{"telemetryOptOut":true,"autoUpdateEnabled":false}
J
export CLINE_NO_AUTO_UPDATE=1 CLINE_SESSION_BACKEND_MODE=local NO_COLOR=1
CL=${CLINE_BIN:-/tmp/newclis/cline/pkg/node_modules/@cline/cli-linux-x64/bin/cline}
cd $S/ws
