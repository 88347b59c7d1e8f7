#!/usr/bin/env bash
# Drift check of the pinned agent CLIs against their newest releases (README: "Bumping a pin"); arguments go to drift (--pinned, --only NAME, --json, --timeout-secs N, --at NAME=VERSION, --save DIR).
cd "$(dirname "$0")/.." && exec nice -n 10 cargo run -q -p cohost-testbench --bin drift -- "$@"
