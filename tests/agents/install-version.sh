#!/usr/bin/env bash
# Install ONE agent CLI at ANY version into a scratch directory, with the
# same layout as the pinned cache, never over the pinned install.
#
#   tests/agents/install-version.sh NAME VERSION DIR
#
# DIR gets DIR/bin/<cmd>, DIR/npm/<name>@<ver>/ (or DIR/venv/…), DIR/logs/.
# It reuses install.sh (same postinstall steps, wrappers and health check)
# with COHOST_AGENTS_DIR=DIR and a copy of versions.env whose pin for NAME is
# VERSION. DIR may not be (or lie inside) the pinned cache
# ${COHOST_AGENTS_DIR:-$HOME/.cache/cohost-agents}. Used by the drift check
# (cargo run -p cohost-testbench --bin drift).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
die() { printf '[install-version] ERROR: %s\n' "$*" >&2; exit 1; }

[[ $# -eq 3 ]] || die "usage: $0 NAME VERSION DIR"
name="$1" version="$2" dir="$3"
[[ "$version" =~ ^[0-9A-Za-z.+-]+$ ]] || die "bad version '$version'"
[[ -n "$dir" ]] || die "empty DIR"

pinned="$(realpath -m "${COHOST_AGENTS_DIR:-${HOME}/.cache/cohost-agents}")"
target="$(realpath -m "$dir")"
case "$target/" in
  "$pinned/"*) die "$dir is the pinned cache ($pinned) or inside it; pick a scratch dir" ;;
esac

key="$("$HERE/install.sh" --list-specs | awk -v n="$name" '$1 == n { print $4 }')"
[[ -n "$key" ]] || die "unknown agent '$name' (see tests/agents/install.sh --list)"

mkdir -p "$target"
versions="$target/versions.env"
tmp="$(mktemp "$target/.versions.XXXXXX")"
sed -E "s/^${key}=.*/${key}=${version}/" "$HERE/versions.env" >"$tmp"
mv "$tmp" "$versions"
grep -q "^${key}=${version}\$" "$versions" || die "could not set $key in $versions"

COHOST_AGENTS_DIR="$target" COHOST_AGENTS_VERSIONS_FILE="$versions" \
  exec "$HERE/install.sh" --only "$name" --serial
