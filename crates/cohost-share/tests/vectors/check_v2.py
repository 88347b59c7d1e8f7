#!/usr/bin/env python3
"""An independent implementation of cohost's sharing format v2
(docs/sharing-e2e.md), written from the document, not from the Rust code:
it rebuilds every value in the vector file from the secrets in it and says
which one disagrees. Run by cohost-share's test `python_implementation_agrees`.

Usage: check_v2.py e2e-v2.json
"""

import base64
import hashlib
import hmac
import json
import struct
import sys

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)
from cryptography.hazmat.primitives.asymmetric.x25519 import (
    X25519PrivateKey,
    X25519PublicKey,
)
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

RAW = serialization.Encoding.Raw
PUB = serialization.PublicFormat.Raw


def b64(b: bytes) -> str:
    return base64.urlsafe_b64encode(b).rstrip(b"=").decode()


def unb64(s: str) -> bytes:
    return base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))


def ed_public(seed: bytes) -> bytes:
    return Ed25519PrivateKey.from_private_bytes(seed).public_key().public_bytes(RAW, PUB)


def x_public(secret: bytes) -> bytes:
    return X25519PrivateKey.from_private_bytes(secret).public_key().public_bytes(RAW, PUB)


def hkdf(ikm: bytes, salt: bytes, info: bytes) -> bytes:
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=salt, info=info).derive(ikm)


def ad(inputs: dict) -> bytes:
    room = inputs["room"].encode()
    stream = (inputs["stream"] or "").encode()
    return (
        bytes([inputs["envelope_version"], inputs["frame_type_code"], inputs["sender_role_code"]])
        + struct.pack(">Q", inputs["chunk"])
        + bytes([len(room)])
        + room
        + bytes([len(stream)])
        + stream
    )


class Mismatch(Exception):
    pass


def same(what: str, got, want):
    if got != want:
        raise Mismatch(f"{what}: computed {got!r}, the file says {want!r}")


def check(v: dict) -> int:
    room = v["room"].encode()
    room_key = bytes.fromhex(v["room_key_hex"])
    host_seed = bytes.fromhex(v["host_seed_hex"])
    host_x_secret = bytes.fromhex(v["host_x25519_secret_hex"])
    ticket = bytes.fromhex(v["ticket_hex"])
    same("host public key", ed_public(host_seed).hex(), v["host_public_hex"])
    same("host X25519 key", x_public(host_x_secret).hex(), v["host_x25519_public_hex"])
    same(
        "ticket id",
        hashlib.sha256(b"cohost-e2e-v2 ticket\0" + ticket).digest()[:8].hex(),
        v["ticket_id_hex"],
    )
    same(
        "invite fragment keys",
        ".".join(b64(k) for k in [room_key, ed_public(host_seed), x_public(host_x_secret), ticket]),
        v["invite_fragment_keys"],
    )
    seeds = {ed_public(host_seed).hex(): host_seed}
    for p in v["participants"]:
        seed = bytes.fromhex(p["seed_hex"])
        same(f"{p['name']}'s Ed25519 key", ed_public(seed).hex(), p["ed25519_hex"])
        same(f"{p['name']}'s X25519 key", x_public(bytes.fromhex(p["x25519_secret_hex"])).hex(), p["x25519_hex"])
        seeds[p["ed25519_hex"]] = seed
    frames = 0
    for f in v["frames"]:
        name = f["name"]
        a = ad(f["ad_inputs"])
        same(f"{name}: AD", a.hex(), f["ad_hex"])
        body = f["body"].encode()
        mode, epoch, seq = f["mode"], f["epoch"], f["seq"]
        seed = seeds[f["sender_ed25519_hex"]]
        signer = Ed25519PrivateKey.from_private_bytes(seed)
        signed = b"cohost-e2e-v2\0" + a + bytes([mode]) + struct.pack(">IQ", epoch, seq) + body
        sig = signer.sign(signed)
        inner = ed_public(seed) + struct.pack(">Q", seq) + sig + body
        nonce = bytes.fromhex(f["nonce_hex"])
        if mode == 0:
            prefix = bytes([2, 0]) + struct.pack(">I", epoch) + nonce
            key = room_key
        else:
            eph = bytes.fromhex(f["eph_secret_hex"])
            eph_pub = x_public(eph)
            shared = X25519PrivateKey.from_private_bytes(eph).exchange(
                X25519PublicKey.from_public_bytes(x_public(host_x_secret))
            )
            key = hkdf(shared, room, b"cohost-e2e-v2 to-host" + eph_pub)
            prefix = bytes([2, 1]) + eph_pub + nonce
            # The host's side of the same key.
            host_side = X25519PrivateKey.from_private_bytes(host_x_secret).exchange(
                X25519PublicKey.from_public_bytes(eph_pub)
            )
            same(f"{name}: to-host key from the host's side", hkdf(host_side, room, b"cohost-e2e-v2 to-host" + eph_pub), key)
        payload = prefix + AESGCM(key).encrypt(nonce, inner, a)
        same(f"{name}: payload", payload.hex(), f["payload_hex"])
        # And open it as a receiver would: the signature verifies with the
        # key inside.
        opened = AESGCM(key).decrypt(nonce, payload[len(prefix):], a)
        Ed25519PublicKey.from_public_bytes(opened[:32]).verify(opened[40:104], signed)
        if f["ad_inputs"]["frame_type"] == "key.announce":
            ann = json.loads(body)
            p = next(p for p in v["participants"] if p["ed25519_hex"] == f["sender_ed25519_hex"])
            proof = hmac.new(
                ticket,
                b"cohost-e2e-v2 bind\0" + room + struct.pack(">Q", p["conn_id"]) + unb64(ann["ed25519"]) + unb64(ann["x25519"]),
                hashlib.sha256,
            ).digest()
            same(f"{name}: proof", b64(proof), ann["proof"])
            same(f"{name}: ticket id", ann["ticket"], b64(bytes.fromhex(v["ticket_id_hex"])))
        if f["ad_inputs"]["frame_type"] == "key.door":
            # The host's answer at the door: under the invite's key (a
            # participant waiting holds nothing newer), from the host alone,
            # addressed to one connection inside the sealed body.
            same(f"{name}: mode and epoch", (mode, epoch), (0, 0))
            same(f"{name}: signer", f["sender_ed25519_hex"], v["host_public_hex"])
            door = json.loads(body)
            same(f"{name}: addressed", isinstance(door["to"], int), True)
            same(f"{name}: answer", door["answer"] in ("waiting", "admitted", "refused", "timed_out"), True)
        frames += 1
    w = v["wrap"]
    eph = bytes.fromhex(w["eph_secret_hex"])
    recipient = bytes.fromhex(w["recipient_secret_hex"])
    same("wrap: recipient public", b64(x_public(recipient)), w["recipient_public"])
    shared = X25519PrivateKey.from_private_bytes(eph).exchange(X25519PublicKey.from_public_bytes(x_public(recipient)))
    k = hkdf(shared, w["room"].encode(), b"cohost-e2e-v2 key-wrap" + struct.pack(">I", w["epoch"]))
    wn = bytes.fromhex(w["nonce_hex"])
    ct = AESGCM(k).encrypt(wn, bytes.fromhex(w["room_key_hex"]), struct.pack(">I", w["epoch"]))
    same(
        "wrap",
        {"epoch": w["epoch"], "to": w["to"], "eph": b64(x_public(eph)), "nonce": b64(wn), "ct": b64(ct)},
        w["expected"],
    )
    return frames


def main() -> int:
    with open(sys.argv[1], encoding="utf-8") as fh:
        v = json.load(fh)
    try:
        n = check(v)
    except Mismatch as e:
        print(f"MISMATCH {e}")
        return 1
    print(f"frames ok: {n}; wrap ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
