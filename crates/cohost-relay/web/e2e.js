// End-to-end payload format v1 (docs/sharing-e2e.md), with WebCrypto only:
// AES-256-GCM payloads bound to the clear envelope (associated data), the
// host's Ed25519 signature inside, X25519 + HKDF-SHA256 key wrapping for
// rotated room keys. The key comes from the URL fragment, which the browser
// never sends to the relay.

const subtle = globalThis.crypto.subtle;
const enc = new TextEncoder();
const SIG_CONTEXT = enc.encode('cohost-e2e-v1\0');
const WRAP_INFO = enc.encode('cohost-e2e-v1 key-wrap');
export const PAYLOAD_VERSION = 1;

/** Why a payload was refused; `kind` names the check that failed. */
export class OpenError extends Error {
  constructor(kind, message) {
    super(message);
    this.kind = kind;
  }
}

export function b64urlDecode(s) {
  if (typeof s !== 'string' || !/^[A-Za-z0-9_-]*$/.test(s)) throw new Error('not base64url');
  const b64 = s.replace(/-/g, '+').replace(/_/g, '/') + '==='.slice((s.length + 3) % 4);
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

export function b64urlEncode(bytes) {
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function concat(...parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

function u32(n) {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setUint32(0, n);
  return b;
}

/**
 * The invite fragment: exactly five dot-separated base64url segments are
 * `JWT.KEY.HOSTPUB` (KEY and HOSTPUB 32 bytes each, else the link is
 * damaged); anything else is a bare token, which carries no room key.
 * @returns {{jwt:string, key:Uint8Array|null, hostPub:Uint8Array|null}}
 */
export function parseFragment(hash) {
  const frag = decodeURIComponent((hash || '').replace(/^#/, '')).trim();
  if (!frag) throw new Error('this link has no room token: copy the whole link the host gave you, including everything after #');
  const seg = frag.split('.');
  if (seg.length !== 5) return { jwt: frag, key: null, hostPub: null };
  let key;
  let hostPub;
  try {
    key = b64urlDecode(seg[3]);
    hostPub = b64urlDecode(seg[4]);
  } catch {
    key = null;
  }
  if (!key || key.length !== 32 || hostPub.length !== 32) {
    throw new Error("this link's room key is damaged: copy the whole link the host gave you, including everything after #");
  }
  return { jwt: seg.slice(0, 3).join('.'), key, hostPub };
}

/**
 * The associated data of a frame: version | type | sender role | chunk (u64 BE)
 * | room length | room | stream length | stream.
 */
export function associatedData(type, role, chunk, room, stream) {
  const r = enc.encode(room);
  const s = enc.encode(stream || '');
  const head = new Uint8Array(11);
  const v = new DataView(head.buffer);
  head[0] = 1;
  head[1] = type;
  head[2] = role;
  v.setBigUint64(3, BigInt(chunk));
  return concat(head, [r.length], r, [s.length], s);
}

async function aesKey(raw) {
  return subtle.importKey('raw', raw, { name: 'AES-GCM' }, false, ['encrypt', 'decrypt']);
}

/**
 * Frame types only the host may send (crates/cohost-protocol/src/matrix.rs):
 * decisions, the agent's stream, approvals, approval grants and key rotation. They open only
 * with the host's signature, whatever role the relay stamped on them.
 */
const HOST_ONLY = new Set([3, 4, 5, 6, 7, 8, 9, 15, 18]);
/** Stream frames: placed by chunk index, and resent by the relay on resume. */
const STREAM = new Set([4, 5, 6, 7]);
/** How many payloads outside streams are remembered against replays. */
const SEEN_MAX = 65536;

/** One room's keys (by epoch), the host's verifying key and this page's X25519 pair. */
export class RoomCrypto {
  static async create(room, key0, hostPub) {
    const c = new RoomCrypto();
    c.room = room;
    c.keys = new Map([[0, await aesKey(key0)]]);
    c.current = 0;
    c.hostKey = await subtle.importKey('raw', hostPub, { name: 'Ed25519' }, false, ['verify']);
    c.pair = await subtle.generateKey({ name: 'X25519' }, true, ['deriveBits']);
    c.publicRaw = new Uint8Array(await subtle.exportKey('raw', c.pair.publicKey));
    c.seen = new Set();
    return c;
  }

  /**
   * The message bytes of a received frame, or an OpenError.
   * @param {{type:number, role:number, chunk:number, room:string, stream:string, payload:Uint8Array}} f
   */
  async open(f) {
    const p = f.payload;
    if (p.length < 17 + 16) throw new OpenError('short', 'payload too short');
    if (p[0] !== PAYLOAD_VERSION) throw new OpenError('version', `unknown payload version ${p[0]}`);
    const epoch = new DataView(p.buffer, p.byteOffset, p.byteLength).getUint32(1);
    const key = this.keys.get(epoch);
    if (!key) throw new OpenError('epoch', `no key for epoch ${epoch}`);
    const ad = associatedData(f.type, f.role, f.chunk, f.room, f.stream);
    let inner;
    try {
      inner = new Uint8Array(
        await subtle.decrypt({ name: 'AES-GCM', iv: p.subarray(5, 17), additionalData: ad }, key, p.subarray(17)),
      );
    } catch {
      throw new OpenError('key', 'the payload does not open with this key');
    }
    if (inner.length < 1) throw new OpenError('short', 'empty inner payload');
    if (inner[0] & ~1) throw new OpenError('version', `unknown inner flags ${inner[0]}`);
    const signed = (inner[0] & 1) === 1;
    if (signed && inner.length < 65) throw new OpenError('short', 'truncated signature');
    const body = signed ? inner.subarray(65) : inner.subarray(1);
    if (!signed && HOST_ONLY.has(f.type)) throw new OpenError('forged', 'a message only the host may send arrived without the host signature');
    if (f.role === 1 && !signed) throw new OpenError('signature', 'a host frame without the host signature');
    if (signed) {
      const msg = concat(SIG_CONTEXT, ad, u32(epoch), body);
      const ok = await subtle.verify({ name: 'Ed25519' }, this.hostKey, inner.subarray(1, 65), msg);
      if (!ok) throw new OpenError('signature', 'the host signature does not verify');
    }
    if (!STREAM.has(f.type)) {
      // The same epoch, nonce and AES-GCM tag again is the same payload sent
      // twice (the tag authenticates the header and ciphertext).
      const hexOf = (b) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
      const id = `${epoch}:${hexOf(p.subarray(5, 17))}:${hexOf(p.subarray(p.length - 16))}`;
      if (this.seen.has(id)) throw new OpenError('replay', 'this message was already received once');
      this.seen.add(id);
      if (this.seen.size > SEEN_MAX) this.seen.delete(this.seen.values().next().value);
    }
    return body;
  }

  /**
   * The payload of a frame this page sends: unsigned, sealed under the newest
   * epoch it holds (`epoch` overrides: key messages travel under epoch 0).
   */
  async seal(type, ownRole, chunk, stream, body, epoch = this.current, nonce = null) {
    const iv = nonce || globalThis.crypto.getRandomValues(new Uint8Array(12));
    const ad = associatedData(type, ownRole, chunk, this.room, stream);
    const inner = concat([0], body);
    const ct = new Uint8Array(await subtle.encrypt({ name: 'AES-GCM', iv, additionalData: ad }, this.keys.get(epoch), inner));
    return concat([PAYLOAD_VERSION], u32(epoch), iv, ct);
  }

  /** The `key.announce` body. */
  announce(name) {
    return { x25519: b64urlEncode(this.publicRaw), name };
  }

  /**
   * Takes the room keys a `key.rotate` body wraps for connection `me`.
   * @returns {number} how many keys were added
   */
  async rotate(body, me) {
    let added = 0;
    for (const k of (body && body.keys) || []) {
      if (String(k.to) !== String(me) || !Number.isInteger(k.epoch) || k.epoch < 0) continue;
      const eph = await subtle.importKey('raw', b64urlDecode(k.eph), { name: 'X25519' }, false, []);
      const shared = await subtle.deriveBits({ name: 'X25519', public: eph }, this.pair.privateKey, 256);
      const ikm = await subtle.importKey('raw', shared, 'HKDF', false, ['deriveBits']);
      const wrap = await subtle.deriveBits(
        { name: 'HKDF', hash: 'SHA-256', salt: enc.encode(this.room), info: concat(WRAP_INFO, u32(k.epoch)) },
        ikm,
        256,
      );
      const raw = await subtle.decrypt(
        { name: 'AES-GCM', iv: b64urlDecode(k.nonce), additionalData: u32(k.epoch) },
        await aesKey(new Uint8Array(wrap)),
        b64urlDecode(k.ct),
      );
      this.keys.set(k.epoch, await aesKey(new Uint8Array(raw)));
      if (k.epoch > this.current) this.current = k.epoch;
      added++;
    }
    return added;
  }
}
