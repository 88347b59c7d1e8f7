#!/usr/bin/env bash
# The web page's vendored browser libraries (crates/cohost-relay/web/vendor),
# pinned in vendor.lock: exact npm version, the tarball's registry integrity,
# and the sha256 of every file taken from it.
#
#   scripts/vendor-web.sh            check: the vendored files match the lock, and
#                                    the lock matches fresh tarballs from npm
#   scripts/vendor-web.sh --offline  check the vendored files against the lock only
#   scripts/vendor-web.sh --update   refetch and rewrite the vendored files and the
#                                    lock's file hashes (after editing versions and
#                                    integrities in vendor.lock)
set -euo pipefail
cd "$(dirname "$0")/.."
dir=crates/cohost-relay/web/vendor
lock=$dir/vendor.lock
mode=${1:-check}
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fetch() { # package version integrity -> extracted dir on stdout
  local key=${1//\//_}@$2
  if [ ! -d "$tmp/$key" ]; then
    mkdir -p "$tmp/$key"
    local json
    json=$(cd "$tmp/$key" && npm pack --silent --json "$1@$2")
    local got
    got=$(printf '%s' "$json" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s)[0].integrity))')
    if [ "$got" != "$3" ]; then
      echo "vendor-web: $1@$2 tarball integrity is $got, the lock says $3" >&2
      return 1
    fi
    tar xzf "$tmp/$key"/*.tgz -C "$tmp/$key"
  fi
  echo "$tmp/$key/package"
}

out=$(mktemp)
while read -r pkg ver integrity src dst sum; do
  case "$pkg" in ''|\#*) printf '%s\n' "$pkg${ver:+ $ver}${integrity:+ $integrity}${src:+ $src}${dst:+ $dst}${sum:+ $sum}" >>"$out"; continue ;; esac
  if [ "$mode" != --offline ]; then
    pkgdir=$(fetch "$pkg" "$ver" "$integrity") || { fail=1; continue; }
    fresh=$(sha256sum "$pkgdir/$src" | cut -d' ' -f1)
    if [ "$mode" = --update ]; then
      mkdir -p "$(dirname "$dir/$dst")"
      cp "$pkgdir/$src" "$dir/$dst"
      sum=$fresh
    elif [ "$fresh" != "$sum" ]; then
      echo "vendor-web: $pkg@$ver $src has sha256 $fresh, the lock says $sum" >&2
      fail=1
    fi
  fi
  have=$(sha256sum "$dir/$dst" 2>/dev/null | cut -d' ' -f1 || true)
  if [ "$have" != "$sum" ]; then
    echo "vendor-web: $dir/$dst does not match the lock ($pkg@$ver $src); run scripts/vendor-web.sh --update" >&2
    fail=1
  fi
  printf '%s %s %s %s %s %s\n' "$pkg" "$ver" "$integrity" "$src" "$dst" "$sum" >>"$out"
done <"$lock"
if [ "$mode" = --update ] && [ "$fail" = 0 ]; then
  mv "$out" "$lock"
else
  rm -f "$out"
fi
if [ "$fail" != 0 ]; then
  exit 1
fi
echo "vendor-web: $(grep -vc '^#' "$lock") vendored files match $lock"
