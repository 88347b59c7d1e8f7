#!/usr/bin/env python3
"""An independent verifier of a cohost record file (format v1), written from
docs/book/src/record-and-export.md alone: proof that the format is specified
precisely enough. Needs the `cryptography` package. Exit 0 when the record
verifies (a record without its end entry is reported, exit 1).

usage: scripts/verify-record.py RECORD.jsonl
"""
import base64, hashlib, json, struct, sys

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

FIELDS = ["v", "seq", "ts", "prev", "kind", "author", "author_key", "author_sig", "body", "hash", "sig"]
OPTIONAL = {"author", "author_key", "author_sig"}


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
    prev, key, last_kind = "0" * 64, None, None
    for n, raw in enumerate(data[:-1].split(b"\n"), 1):
        line = raw.decode("utf-8")
        e = json.loads(line)
        if list(e) != [f for f in FIELDS if f in e] or any(f not in e for f in FIELDS if f not in OPTIONAL):
            fail(n, "fields")
        if json.dumps(e, separators=(",", ":"), ensure_ascii=False) != line:
            fail(n, "not canonical")
        if e["v"] != 1 or e["seq"] != n or e["prev"] != prev:
            fail(n, "version, sequence or chain")
        ak = b64d(e["author_key"], 32) if "author_key" in e else None
        asig = b64d(e["author_sig"], 64) if "author_sig" in e else None
        author = e["author"].encode() if "author" in e else None
        canon = (b"cohost-record-v1\x00" + struct.pack(">QQ", e["seq"], e["ts"]) + bytes.fromhex(e["prev"])
                 + s(e["kind"].encode()) + o(author) + o(ak) + o(asig) + s(e["body"].encode()))
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
                Ed25519PublicKey.from_public_bytes(ak).verify(asig, b"cohost-record-v1 author\x00" + e["body"].encode())
        except InvalidSignature:
            fail(n, "signature")
        if last_kind == "end" and e["kind"] != "session":
            fail(n, "entry after end")
        prev, last_kind = e["hash"], e["kind"]
    key_text = base64.urlsafe_b64encode(key).rstrip(b"=").decode()
    print(f"verified {n} entries, host key {key_text}" + ("" if last_kind == "end" else " (no end entry)"))
    sys.exit(0 if last_kind == "end" else 1)


if __name__ == "__main__":
    main(sys.argv[1])
