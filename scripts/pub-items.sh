#!/usr/bin/env bash
# The public API of every workspace crate, counted from rustdoc JSON
# (nightly): items a user of the crate can name (modules, types, traits,
# functions, constants, statics, macros) and, beside them, the same plus the
# public methods of its own types. #[doc(hidden)] items are left out. The
# counting rules are in scripts/pub_items.py.
#
#   scripts/pub-items.sh            # this checkout
#   scripts/pub-items.sh REV        # another commit, in a scratch worktree
#
# Prints a markdown table. Uses its own target dir (under $TMPDIR), so a
# build of the checkout is not disturbed; each crate is documented, not built.
set -euo pipefail
root=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
rev=${1:-}
scratch=$(mktemp -d "${TMPDIR:-/tmp}/cohost-pub-items.XXXXXX")
tree=$root
cleanup() {
  if [ -n "$rev" ]; then git -C "$root" worktree remove --force "$scratch/tree" >/dev/null 2>&1 || true; fi
  rm -rf "$scratch"
}
trap cleanup EXIT
if [ -n "$rev" ]; then
  git -C "$root" worktree add --detach "$scratch/tree" "$rev" >/dev/null
  tree=$scratch/tree
fi
export CARGO_TARGET_DIR=$scratch/target
echo "| crate | items | items incl. methods | hidden |"
echo "|---|---:|---:|---:|"
for dir in "$tree"/crates/*/; do
  crate=$(basename "$dir")
  [ -f "$dir/src/lib.rs" ] || continue
  if ! (cd "$tree" && cargo +nightly rustdoc --locked -q -p "$crate" --lib -- \
      -Z unstable-options --output-format json --document-hidden-items) 2>"$scratch/$crate.log"; then
    echo "| $crate | (rustdoc failed: $(tail -1 "$scratch/$crate.log")) | | |"
    continue
  fi
  json=$CARGO_TARGET_DIR/doc/${crate//-/_}.json
  python3 "$root/scripts/pub_items.py" --row "$crate" "$json"
done
