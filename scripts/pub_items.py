#!/usr/bin/env python3
"""Count a crate's own publicly reachable API items from rustdoc JSON.

Input: JSON produced by
  cargo +nightly rustdoc -p CRATE --lib -- -Z unstable-options \
      --output-format json --document-hidden-items
(format_version 57; --document-hidden-items so #[doc(hidden)] items are present
and can be counted separately; private items are NOT documented).

Walk from the crate root module:
  * a module's `items` are walked; a `use` (re-export) is followed to its target
    (a glob `use` walks the target module's items / the enum's variants);
  * only items with crate_id 0 are counted (re-exports of other crates' items
    are tallied as `foreign_reexports`, never as items); every item counts once
    (by id) however many paths reach it;
  * structs/unions -> their public fields; enums -> variants (+ variant fields);
    traits -> their declared items (`trait_items`);
  * structs/enums/unions -> items of their INHERENT impls (impl.trait is null,
    not synthetic/blanket) -> `inherent_fns`, `inherent_consts`, `inherent_types`.
An item is "hidden" when it carries #[doc(hidden)] or is reachable only through
a #[doc(hidden)] item (module, re-export, type). Hidden items are excluded from
every count and reported as hidden_items / hidden_impl_items.

items           = modules (excluding the crate root, excluding stripped private
                  modules) + structs + unions + enums + traits + trait aliases
                  + functions + type aliases + constants + statics + macros
                  (macro_rules and proc macros)
items_incl_meth = items + inherent_fns + inherent_consts + inherent_types

Usage: pub_items.py FILE.json [FILE.json ...]   -> one JSON line per file
       pub_items.py --row CRATE FILE.json         -> one markdown table row
"""
import json
import re
import sys
from collections import Counter

HIDDEN_RE = re.compile(r"#\[doc\((?:[^\]]*[,(\s])?hidden\b")

TOP_KINDS = {
    "module": "modules",
    "struct": "structs",
    "union": "unions",
    "enum": "enums",
    "trait": "traits",
    "trait_alias": "trait_aliases",
    "function": "functions",
    "type_alias": "type_aliases",
    "constant": "constants",
    "static": "statics",
    "macro": "macros",
    "proc_macro": "macros",
}


def kind_of(item):
    return next(iter(item["inner"]))


def is_hidden(item):
    for a in item.get("attrs", []):
        s = a if isinstance(a, str) else json.dumps(a)
        if isinstance(a, dict) and "other" in a:
            s = a["other"]
        if HIDDEN_RE.search(s):
            return True
    return False


def walk(doc, honour_hidden):
    """Return {id: role} of reachable crate-local items, and foreign re-exports."""
    ix = doc["index"]
    reached = {}  # id -> role ('top', 'field', 'variant', 'trait_item', 'inherent')
    foreign = set()
    seen_modules_glob = set()

    def get(i):
        return ix.get(str(i))

    def visit_fields(shape, braced):
        """The fields of a struct's or a variant's shape; `braced` names its
        `{ ... }` form ("plain" for a struct, "struct" for a variant). A unit
        shape is a string; a tuple's private fields are None."""
        if not isinstance(shape, dict):
            return
        ids = shape[braced]["fields"] if braced in shape else shape.get("tuple", [])
        for f in ids:
            if f is not None:
                visit(f, "field")

    def visit(i, role="top"):
        it = get(i)
        if it is None:
            # not documented locally: a foreign item (or a primitive)
            p = doc["paths"].get(str(i))
            if p is not None and p["crate_id"] != 0:
                foreign.add(i)
            return
        if it["crate_id"] != 0:
            foreign.add(i)
            return
        if honour_hidden and is_hidden(it):
            return
        k = kind_of(it)
        if k == "use":
            u = it["inner"]["use"]
            if u["id"] is None:
                foreign.add(("use", it["id"]))
                return
            tgt = get(u["id"])
            if u["is_glob"]:
                if tgt is None or tgt["crate_id"] != 0:
                    foreign.add(("glob", u["id"]))
                    return
                if honour_hidden and is_hidden(tgt):
                    return
                tk = kind_of(tgt)
                if tk == "module":
                    key = (tgt["id"], "glob")
                    if key in seen_modules_glob:
                        return
                    seen_modules_glob.add(key)
                    for c in tgt["inner"]["module"]["items"]:
                        visit(c)
                elif tk == "enum":
                    for v in tgt["inner"]["enum"]["variants"]:
                        visit(v, "variant")
                return
            visit(u["id"], role)
            return
        if it["id"] in reached:
            return
        reached[it["id"]] = role
        if k == "module":
            for c in it["inner"]["module"]["items"]:
                visit(c)
        elif k in ("struct", "union", "enum"):
            inner = it["inner"][k]
            if k == "struct":
                visit_fields(inner["kind"], "plain")
            elif k == "union":
                for f in inner["fields"]:
                    visit(f, "field")
            else:
                for v in inner["variants"]:
                    visit(v, "variant")
            for imp_id in inner["impls"]:
                imp = get(imp_id)
                if imp is None:
                    continue
                ii = imp["inner"]["impl"]
                if ii["trait"] is not None or ii["is_synthetic"] or ii["blanket_impl"] is not None:
                    continue
                if honour_hidden and is_hidden(imp):
                    continue
                for m in ii["items"]:
                    mi = get(m)
                    if mi is None or mi["crate_id"] != 0:
                        continue
                    if mi["visibility"] != "public":
                        continue
                    visit(m, "inherent")
        elif k == "variant":
            visit_fields(it["inner"]["variant"]["kind"], "struct")
        elif k == "trait":
            for t in it["inner"]["trait"]["items"]:
                visit(t, "trait_item")

    visit(doc["root"])
    reached.pop(doc["root"], None)  # the crate root module is not counted
    return reached, foreign


def tally(doc, reached):
    ix = doc["index"]
    c = Counter()
    for i, role in reached.items():
        it = ix[str(i)]
        k = kind_of(it)
        if role == "top":
            if k == "module" and it["inner"]["module"]["is_stripped"]:
                continue
            c[TOP_KINDS.get(k, "other_" + k)] += 1
        elif role == "inherent":
            c[{"function": "inherent_fns", "assoc_const": "inherent_consts",
               "assoc_type": "inherent_types"}.get(k, "inherent_other")] += 1
        elif role == "variant":
            c["variants"] += 1
        elif role == "field":
            c["fields"] += 1
        elif role == "trait_item":
            c["trait_items"] += 1
    c["items"] = sum(c[v] for v in set(TOP_KINDS.values()))
    c["items_incl_methods"] = c["items"] + c["inherent_fns"] + c["inherent_consts"] + c["inherent_types"]
    return c


def count(path):
    doc = json.load(open(path))
    vis, foreign = walk(doc, honour_hidden=True)
    allr, _ = walk(doc, honour_hidden=False)
    cv = tally(doc, vis)
    ca = tally(doc, allr)
    top = set(TOP_KINDS.values())
    out = dict(sorted(cv.items()))
    out["hidden_items"] = ca["items"] - cv["items"]
    out["hidden_impl_items"] = (ca["items_incl_methods"] - ca["items"]) - (cv["items_incl_methods"] - cv["items"])
    out["hidden_other"] = sum(ca[k] - cv[k] for k in ("variants", "fields", "trait_items"))
    out["foreign_reexports"] = len(foreign)
    out["format_version"] = doc["format_version"]
    return out


if __name__ == "__main__":
    if sys.argv[1:2] == ["--row"]:
        crate, path = sys.argv[2], sys.argv[3]
        r = count(path)
        print(f"| {crate} | {r['items']} | {r['items_incl_methods']} | {r['hidden_items']} |")
    else:
        for p in sys.argv[1:]:
            print(json.dumps({"file": p, **count(p)}))
