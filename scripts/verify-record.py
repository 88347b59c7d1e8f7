#!/usr/bin/env python3
"""An independent verifier of a cohost record file (entry versions 1 and 2),
written from docs/book/src/record-and-export.md alone: proof that the format
is specified precisely enough. Needs the `cryptography` package. Exit 0 when
the record verifies (a record without its end entry is reported, exit 1).
A version-2 entry carries a participant's signed sharing frame: its
signature, its type and the fields the entry shows are checked.

usage: scripts/verify-record.py RECORD.jsonl
"""
import base64, hashlib, json, struct, sys

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

FIELDS = ["v", "seq", "ts", "prev", "kind", "author", "author_public_key", "author_sig", "author_signed", "body", "hash", "sig"]
OPTIONAL = {"author", "author_public_key", "author_sig", "author_signed"}
FRAME_TYPE = {"suggestion": 1, "approval_vote": 17}


def b64v(s):
    raw = base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))
    if base64.urlsafe_b64encode(raw).rstrip(b"=").decode() != s:
        raise ValueError("bad base64url")
    return raw


def frame(signed):
    """(type, seq, body) of a signed sharing frame, or None."""
    ctx = b"cohost-e2e-v2\x00"
    if not signed.startswith(ctx):
        return None
    b = signed[len(ctx):]
    if len(b) < 12 or b[0] != 1:
        return None
    ftype, i = b[1], 11
    for _ in range(2):  # room, stream
        if len(b) < i + 1:
            return None
        i += 1 + b[i]
    if len(b) < i + 13:
        return None
    seq = struct.unpack(">Q", b[i + 5:i + 13])[0]
    return ftype, seq, b[i + 13:]


def author_ok(kind, entry_body, signed):
    """Why the frame does not stand behind the entry, or None."""
    f = frame(signed)
    if kind not in FRAME_TYPE or f is None or f[0] != FRAME_TYPE[kind]:
        return "frame"
    said = json.loads(f[2])
    present = lambda k: said.get(k) is not None
    if kind == "suggestion":
        for k in ("suggestion_id", "text"):
            if not present(k) or entry_body.get(k) != said[k]:
                return k
        if said.get("to") != entry_body.get("to"):
            return "to"
    else:
        if not present("allow") or entry_body.get("allow") != said["allow"]:
            return "allow"
        if present("tool_id") and entry_body.get("tool_id") != said["tool_id"]:
            return "tool_id"
    return None


def b64d(s, n):
    raw = base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))
    if len(raw) != n or base64.urlsafe_b64encode(raw).rstrip(b"=").decode() != s:
        raise ValueError("bad base64url")
    return raw


def s(b):
    return struct.pack(">I", len(b)) + b


def o(b):
    return b"\x00" if b is None else b"\x01" + s(b)


def fail(n, why):
    print(f"entry {n}: {why}")
    sys.exit(1)


def main(path):
    data = open(path, "rb").read()
    if not data.endswith(b"\n"):
        fail(data.count(b"\n") + 1, "incomplete (no newline)")
    prev, key, last_kind, frames = "0" * 64, None, None, set()
    for n, raw in enumerate(data[:-1].split(b"\n"), 1):
        line = raw.decode("utf-8")
        e = json.loads(line)
        if list(e) != [f for f in FIELDS if f in e] or any(f not in e for f in FIELDS if f not in OPTIONAL):
            fail(n, "fields")
        if json.dumps(e, separators=(",", ":"), ensure_ascii=False) != line:
            fail(n, "not canonical")
        v2 = e["v"] == 2
        if e["v"] not in (1, 2) or e["seq"] != n or e["prev"] != prev:
            fail(n, "version, sequence or chain")
        ak = b64d(e["author_public_key"], 32) if "author_public_key" in e else None
        asig = b64d(e["author_sig"], 64) if "author_sig" in e else None
        asigned = b64v(e["author_signed"]) if "author_signed" in e else None
        if (ak is None) != (asig is None) or (v2 and (ak is None or asigned is None)) or (not v2 and asigned is not None):
            fail(n, "author fields")
        author = e["author"].encode() if "author" in e else None
        canon = ((b"cohost-record-v2\x00" if v2 else b"cohost-record-v1\x00") + struct.pack(">QQ", e["seq"], e["ts"])
                 + bytes.fromhex(e["prev"]) + s(e["kind"].encode()) + o(author) + o(ak) + o(asig)
                 + (o(asigned) if v2 else b"") + s(e["body"].encode()))
        digest = hashlib.sha256(canon).digest()
        if digest.hex() != e["hash"]:
            fail(n, "hash")
        body = json.loads(e["body"])
        if not isinstance(body, dict):
            fail(n, "body")
        if e["kind"] == "session":
            named = b64d(body["host_public_key"], 32)
            if key is not None and named != key:
                fail(n, "another host key")
            key = named
        if key is None:
            fail(n, "no session entry first")
        try:
            Ed25519PublicKey.from_public_bytes(key).verify(b64d(e["sig"], 64), digest)
            if ak is not None:
                signed = asigned if v2 else b"cohost-record-v1 author\x00" + e["body"].encode()
                Ed25519PublicKey.from_public_bytes(ak).verify(asig, signed)
        except InvalidSignature:
            fail(n, "signature")
        if v2:
            why = author_ok(e["kind"], body, asigned)
            if why is not None:
                fail(n, f"author's frame differs: {why}")
            seq = frame(asigned)[1]
            if (ak, seq) in frames:
                fail(n, "author's frame repeated")
            frames.add((ak, seq))
        if last_kind == "end" and e["kind"] != "session":
            fail(n, "entry after end")
        prev, last_kind = e["hash"], e["kind"]
    key_text = base64.urlsafe_b64encode(key).rstrip(b"=").decode()
    print(f"verified {n} entries, {len(frames)} signed by participants, host key {key_text}"
          + ("" if last_kind == "end" else " (no end entry)"))
    sys.exit(0 if last_kind == "end" else 1)


if __name__ == "__main__":
    main(sys.argv[1])
