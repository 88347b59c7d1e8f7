// End-to-end payload format v2 (docs/sharing-e2e.md), with WebCrypto only.
// Every frame is AES-256-GCM bound to the clear envelope (associated data)
// and signed inside by its sender's Ed25519 key with a per-sender sequence
// number; what a frame may say is decided by the key that signed it (the
// host's, or one the host bound to a role in its `key.roster`), never by the
// relay's role stamp. Frames for the host alone are sealed to its X25519 key.
// The keys come from the URL fragment, which the browser never sends.

const subtle = globalThis.crypto.subtle;
const enc = new TextEncoder();
const SIG_CONTEXT = enc.encode('cohost-e2e-v2\0');
const WRAP_INFO = enc.encode('cohost-e2e-v2 key-wrap');
const TO_HOST_INFO = enc.encode('cohost-e2e-v2 to-host');
const TICKET_CONTEXT = enc.encode('cohost-e2e-v2 ticket\0');
const BIND_CONTEXT = enc.encode('cohost-e2e-v2 bind\0');
export const PAYLOAD_VERSION = 2;
/** Payload modes: under the room key of an epoch, or sealed to the host. */
export const MODE_ROOM = 0;
export const MODE_TO_HOST = 1;
/** How many sequence numbers below the highest a receiver remembers per sender. */
export const REPLAY_WINDOW = 4096;

export const V1_INVITE =
  'this invite comes from a cohost that speaks sharing format v1; ask the host to upgrade cohost and send a new invite';
const DAMAGED = "this link's keys are damaged: copy the whole link the host gave you, including everything after #";

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

function u64(n) {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, BigInt(n));
  return b;
}

const hexOf = (b) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');

/**
 * The invite fragment `JWT.KEY.HOSTSIG.HOSTX.TICKET`: seven dot-separated
 * base64url segments (KEY, HOSTSIG and HOSTX 32 bytes, TICKET 16, else the
 * link is damaged). Five segments are a format-v1 invite, refused; anything
 * else is a bare token, which carries no room key.
 * @returns {{jwt:string, key:Uint8Array|null, hostSig?:Uint8Array, hostX?:Uint8Array, ticket?:Uint8Array}}
 */
export function parseFragment(hash) {
  let frag;
  try {
    frag = decodeURIComponent((hash || '').replace(/^#/, '')).trim();
  } catch {
    throw new Error(DAMAGED);
  }
  if (!frag) throw new Error('this link has no room token: copy the whole link the host gave you, including everything after #');
  const seg = frag.split('.');
  if (seg.length === 5) throw new Error(V1_INVITE);
  if (seg.length !== 7) return { jwt: frag, key: null };
  const sized = (s, n) => {
    let b;
    try {
      b = b64urlDecode(s);
    } catch {
      throw new Error(DAMAGED);
    }
    if (b.length !== n) throw new Error(DAMAGED);
    return b;
  };
  return {
    jwt: seg.slice(0, 3).join('.'),
    key: sized(seg[3], 32),
    hostSig: sized(seg[4], 32),
    hostX: sized(seg[5], 32),
    ticket: sized(seg[6], 16),
  };
}

/**
 * The associated data of a frame: envelope version | type | sender role |
 * chunk (u64 BE) | room length | room | stream length | stream.
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

/** HKDF-SHA256(ikm = X25519(secret, public), salt = room bytes, info), 32 bytes, as an AES-GCM key. */
async function agreedKey(secret, publicRaw, room, info) {
  const pub = await subtle.importKey('raw', publicRaw, { name: 'X25519' }, false, []);
  const shared = await subtle.deriveBits({ name: 'X25519', public: pub }, secret, 256);
  const ikm = await subtle.importKey('raw', shared, 'HKDF', false, ['deriveBits']);
  const k = await subtle.deriveBits({ name: 'HKDF', hash: 'SHA-256', salt: enc.encode(room), info }, ikm, 256);
  return aesKey(new Uint8Array(k));
}

/** A key's fingerprint to read aloud: SHA-256's first 8 bytes, hex, groups of four. */
export async function keyFingerprint(publicRaw) {
  const h = hexOf(new Uint8Array(await subtle.digest('SHA-256', publicRaw)).subarray(0, 8));
  return h.match(/.{4}/g).join('-');
}

/** Frame type codes (wire.js's `T`), as this module needs them. */
const F = Object.freeze({
  SuggestPrompt: 1,
  PromptSuggested: 2,
  ChatMessage: 10,
  KeyAnnounce: 14,
  KeyRotate: 15,
  InterruptRequest: 16,
  ApprovalVote: 17,
  KeyRoster: 19,
  KeyDoor: 29,
});

/**
 * Frame types only the host may send (crates/cohost-protocol/src/matrix.rs):
 * decisions, the agent's stream, approvals, approval grants, key rotation,
 * the roster and the answer at the door (key.door). They open only with the
 * host's signature, whatever role the relay stamped on them.
 */
export const HOST_ONLY = new Set([3, 4, 5, 6, 7, 8, 9, 15, 18, 19, 29]);
/**
 * Frames of a member's turn: besides the host, the owner of a member on
 * another machine sends them for that member (docs/sharing-e2e.md,
 * "Members on other machines"): the body's `agent` must be one the roster
 * lists under the signer's key.
 */
const MEMBER_TURN = new Set([4, 5, 6, 7, 8, 9]);
/** Stream frames: placed by chunk index, and resent by the relay on resume. */
const STREAM = new Set([4, 5, 6, 7]);
/** Frames the relay delivers to hosts only: a participant seals them to the host (mode 1). */
export const TO_HOST = new Set([F.SuggestPrompt, F.KeyAnnounce, F.InterruptRequest, F.ApprovalVote]);

/**
 * `cohost_protocol::may_send` for application frames: may a key bound to
 * `role` ('HOST', 'CO_DRIVER', 'VIEWER') send a frame of type `type`?
 */
export function maySend(type, role) {
  switch (type) {
    case 1: // ai.request.suggest_prompt
    case 16: // ai.request.interrupt
      return role === 'CO_DRIVER';
    case 17: // ai.tool.approval_vote
    case 14: // key.announce
      return role === 'CO_DRIVER' || role === 'VIEWER';
    case 10: // chat.message
      return role === 'HOST' || role === 'CO_DRIVER' || role === 'VIEWER';
    default:
      return HOST_ONLY.has(type) && role === 'HOST';
  }
}

/** A roster role as the host wrote it (`co_driver` or `CO_DRIVER`), upper case; '' if unknown. */
function roleOf(r) {
  const up = typeof r === 'string' ? r.toUpperCase().replace(/-/g, '_') : '';
  return up === 'CO_DRIVER' || up === 'VIEWER' || up === 'HOST' ? up : '';
}

// PKCS#8 prefixes of a raw 32-byte Ed25519 / X25519 secret (RFC 8410).
const PKCS8_ED25519 = Uint8Array.from([0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20]);
const PKCS8_X25519 = Uint8Array.from([0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x6e, 0x04, 0x22, 0x04, 0x20]);

/** A key pair from a fixed 32-byte secret (test vectors): {privateKey, publicRaw}. */
async function pairFromSecret(alg, secret, usages) {
  const prefix = alg === 'Ed25519' ? PKCS8_ED25519 : PKCS8_X25519;
  const extractable = await subtle.importKey('pkcs8', concat(prefix, secret), { name: alg }, true, usages);
  const jwk = await subtle.exportKey('jwk', extractable);
  const privateKey = await subtle.importKey('pkcs8', concat(prefix, secret), { name: alg }, false, usages);
  return { privateKey, publicRaw: b64urlDecode(jwk.x) };
}

/**
 * A participant's identity for this tab: an Ed25519 signing key, an X25519
 * key (rotated room keys are wrapped to it) and the sequence number of its
 * next frame, starting at the Unix time in microseconds it was made.
 */
export class Identity {
  static async create() {
    const sign = await subtle.generateKey({ name: 'Ed25519' }, false, ['sign', 'verify']);
    const dh = await subtle.generateKey({ name: 'X25519' }, false, ['deriveBits']);
    return Identity.of(
      { privateKey: sign.privateKey, publicRaw: new Uint8Array(await subtle.exportKey('raw', sign.publicKey)) },
      { privateKey: dh.privateKey, publicRaw: new Uint8Array(await subtle.exportKey('raw', dh.publicKey)) },
      BigInt(Date.now()) * 1000n,
    );
  }

  /** An identity from fixed secrets (the test vectors). */
  static async fromSecrets(ed25519Seed, x25519Secret, seq) {
    return Identity.of(
      await pairFromSecret('Ed25519', ed25519Seed, ['sign']),
      await pairFromSecret('X25519', x25519Secret, ['deriveBits']),
      BigInt(seq),
    );
  }

  static of(sign, dh, seq) {
    const id = new Identity();
    id.sign = sign;
    id.dh = dh;
    id.seq = seq;
    return id;
  }

  /** The number of the next frame (then +1). */
  next() {
    const s = this.seq;
    this.seq += 1n;
    return s;
  }
}

/**
 * Per sender key: the highest sequence number taken and which of the
 * REPLAY_WINDOW below it were taken. `take` says whether `seq` is new.
 */
class Window {
  constructor() {
    this.high = -1n;
    this.below = new Set(); // distances (1..REPLAY_WINDOW) below `high` taken
  }

  take(seq) {
    if (seq > this.high) {
      const shift = this.high < 0n ? null : seq - this.high;
      const below = new Set();
      if (shift !== null && shift <= BigInt(REPLAY_WINDOW)) {
        below.add(Number(shift));
        for (const d of this.below) if (BigInt(d) + shift <= BigInt(REPLAY_WINDOW)) below.add(d + Number(shift));
      }
      this.below = below;
      this.high = seq;
      return true;
    }
    const d = this.high - seq;
    if (d === 0n || d > BigInt(REPLAY_WINDOW) || this.below.has(Number(d))) return false;
    this.below.add(Number(d));
    return true;
  }
}

/**
 * One room as a participant sees it: the room keys by epoch, the host's
 * keys, this tab's identity, the host's latest roster and a replay window
 * per sender key.
 */
export class RoomCrypto {
  /**
   * @param {string} room
   * @param {{key:Uint8Array, hostSig:Uint8Array, hostX:Uint8Array, ticket:Uint8Array}} invite
   * @param {Identity} [identity] a fresh one by default
   */
  static async create(room, invite, identity) {
    const c = new RoomCrypto();
    c.room = room;
    c.keys = new Map([[0, await aesKey(invite.key)]]);
    c.current = 0;
    c.hostSigRaw = invite.hostSig;
    c.hostSigHex = hexOf(invite.hostSig);
    c.hostX = invite.hostX;
    c.ticket = invite.ticket;
    c.id = identity || (await Identity.create());
    c.roster = new Map(); // ed25519 hex -> {conn_id, name, role}
    c.windows = new Map(); // ed25519 hex -> Window
    c.verifiers = new Map(); // ed25519 hex -> CryptoKey
    return c;
  }

  /** This tab's Ed25519 public key, hex (to find itself in the roster). */
  get selfHex() {
    return hexOf(this.id.sign.publicRaw);
  }

  /**
   * This tab's key fingerprint as the host sees it when it knocks: the
   * first 8 bytes of SHA-256 of the Ed25519 public key, hex, in groups of
   * four (`cohost_cli::multiplayer::knock::fingerprint`).
   */
  async fingerprint() {
    return keyFingerprint(this.id.sign.publicRaw);
  }

  async verifier(raw, hex) {
    let k = this.verifiers.get(hex);
    if (!k) {
      k = await subtle.importKey('raw', raw, { name: 'Ed25519' }, false, ['verify']);
      if (this.verifiers.size > 1024) this.verifiers.clear();
      this.verifiers.set(hex, k);
    }
    return k;
  }

  /**
   * Opens a received frame: decrypts, verifies the signature with the key
   * inside, checks that key may send this frame and that its sequence
   * number is new. `from` is 'host' or the roster entry of the signer.
   * @param {{type:number, role:number, chunk:number, room:string, stream:string, payload:Uint8Array}} f
   * @returns {Promise<{body:Uint8Array, from:'host'|{conn_id:string, name:string, role:string}, seq:bigint}>}
   */
  async open(f) {
    const p = f.payload;
    if (p.length < 2) throw new OpenError('short', 'payload too short');
    if (p[0] !== PAYLOAD_VERSION) {
      throw new OpenError('version', `the sender speaks sharing format v${p[0]}; everyone in a room needs a cohost with format v2`);
    }
    if (p[1] === MODE_TO_HOST) throw new OpenError('scope', 'a frame sealed to the host reached this page');
    if (p[1] !== MODE_ROOM) throw new OpenError('version', `unknown payload mode ${p[1]}`);
    if (p.length < 18 + 16) throw new OpenError('short', 'payload too short');
    const epoch = new DataView(p.buffer, p.byteOffset, p.byteLength).getUint32(2);
    const key = this.keys.get(epoch);
    if (!key) throw new OpenError('epoch', `no key for epoch ${epoch} yet`);
    // The relay hands a co-driver's suggestion to hosts as prompt_suggested;
    // it was sealed as suggest_prompt.
    const type = f.type === F.PromptSuggested ? F.SuggestPrompt : f.type;
    const ad = associatedData(type, f.role, f.chunk, f.room, f.stream);
    let inner;
    try {
      inner = new Uint8Array(await subtle.decrypt({ name: 'AES-GCM', iv: p.subarray(6, 18), additionalData: ad }, key, p.subarray(18)));
    } catch {
      throw new OpenError('key', 'the payload does not open with this key');
    }
    if (inner.length < 104) throw new OpenError('short', 'truncated signature');
    const pub = inner.subarray(0, 32);
    const seqBytes = inner.subarray(32, 40);
    const body = inner.subarray(104);
    const pubHex = hexOf(pub);
    const signed = concat(SIG_CONTEXT, ad, [MODE_ROOM], u32(epoch), seqBytes, body);
    let ok = false;
    try {
      ok = await subtle.verify({ name: 'Ed25519' }, await this.verifier(pub, pubHex), inner.subarray(40, 104), signed);
    } catch {
      ok = false;
    }
    if (!ok) throw new OpenError('signature', 'the signature does not verify');
    let from;
    if (pubHex === this.hostSigHex) {
      from = 'host';
    } else {
      const member = this.roster.get(pubHex);
      const owner = MEMBER_TURN.has(type) && member && member.agents.length > 0;
      if (HOST_ONLY.has(type) && !owner) {
        throw new OpenError('forged', 'only the host may send it, and it is not signed by the host');
      }
      if (owner) {
        let agent;
        try {
          agent = JSON.parse(new TextDecoder().decode(body)).agent;
        } catch {
          agent = undefined;
        }
        if (typeof agent !== 'string' || !member.agents.includes(agent)) {
          throw new OpenError('forged', 'a participant sent a turn of a member that does not run on their machine');
        }
      }
      if (!member) throw new OpenError('unknown', 'signed by a key the host has not bound to anyone (an unknown sender)');
      if (!owner && !maySend(type, member.role)) {
        throw new OpenError('forged', `${member.role.replace('_', '-').toLowerCase()}s may not send it`);
      }
      from = member;
    }
    const seq = new DataView(seqBytes.buffer, seqBytes.byteOffset, 8).getBigUint64(0);
    if (!STREAM.has(type)) {
      let w = this.windows.get(pubHex);
      if (!w) {
        w = new Window();
        this.windows.set(pubHex, w);
      }
      if (!w.take(seq)) throw new OpenError('replay', 'this message was already received once');
    }
    return { body, from, seq };
  }

  /**
   * The payload of a frame this page sends, signed by this tab's identity:
   * sealed to the host (mode 1) for the frames the relay delivers to hosts
   * only, else under the room key of the newest epoch this page holds.
   * `opts` fixes the nonce, the ephemeral secret and the sequence number
   * (test vectors).
   */
  async seal(type, ownRole, chunk, stream, body, opts = {}) {
    const mode = TO_HOST.has(type) ? MODE_TO_HOST : MODE_ROOM;
    const epoch = mode === MODE_TO_HOST ? 0 : (opts.epoch ?? (type === F.KeyRotate ? 0 : this.current));
    const iv = opts.nonce || globalThis.crypto.getRandomValues(new Uint8Array(12));
    const seq = opts.seq !== undefined ? BigInt(opts.seq) : this.id.next();
    const ad = associatedData(type, ownRole, chunk, this.room, stream);
    const signed = concat(SIG_CONTEXT, ad, [mode], u32(epoch), u64(seq), body);
    const sig = new Uint8Array(await subtle.sign({ name: 'Ed25519' }, this.id.sign.privateKey, signed));
    const inner = concat(this.id.sign.publicRaw, u64(seq), sig, body);
    if (mode === MODE_ROOM) {
      const key = this.keys.get(epoch);
      if (!key) throw new Error(`no room key of epoch ${epoch}`);
      const ct = new Uint8Array(await subtle.encrypt({ name: 'AES-GCM', iv, additionalData: ad }, key, inner));
      return concat([PAYLOAD_VERSION, MODE_ROOM], u32(epoch), iv, ct);
    }
    let eph;
    if (opts.ephemeralSecret) {
      eph = await pairFromSecret('X25519', opts.ephemeralSecret, ['deriveBits']);
    } else {
      const g = await subtle.generateKey({ name: 'X25519' }, false, ['deriveBits']);
      eph = { privateKey: g.privateKey, publicRaw: new Uint8Array(await subtle.exportKey('raw', g.publicKey)) };
    }
    const k = await agreedKey(eph.privateKey, this.hostX, this.room, concat(TO_HOST_INFO, eph.publicRaw));
    const ct = new Uint8Array(await subtle.encrypt({ name: 'AES-GCM', iv, additionalData: ad }, k, inner));
    return concat([PAYLOAD_VERSION, MODE_TO_HOST], eph.publicRaw, iv, ct);
  }

  /**
   * The `key.announce` body for connection `connId` (from `room.welcome`):
   * this tab's keys, the name, which invite (ticket id) and the proof that
   * this page holds it, bound to the connection.
   */
  async announce(name, connId) {
    const ed = this.id.sign.publicRaw;
    const x = this.id.dh.publicRaw;
    const ticketId = new Uint8Array(await subtle.digest('SHA-256', concat(TICKET_CONTEXT, this.ticket))).subarray(0, 8);
    const mac = await subtle.importKey('raw', this.ticket, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    const proof = new Uint8Array(await subtle.sign('HMAC', mac, concat(BIND_CONTEXT, enc.encode(this.room), u64(connId), ed, x)));
    const body = { ed25519: b64urlEncode(ed), x25519: b64urlEncode(x), ticket: b64urlEncode(ticketId), proof: b64urlEncode(proof) };
    if (name) body.name = name;
    return body;
  }

  /**
   * Takes the host's newest `key.roster`: from now on only these keys (and
   * the host's) may send, each what its role may.
   * @returns {{conn_id:string, name:string, role:string}|null} this tab's own entry
   */
  setRoster(body) {
    const roster = new Map();
    for (const m of (body && body.members) || []) {
      let raw;
      try {
        raw = b64urlDecode(m.ed25519);
      } catch {
        continue;
      }
      const role = roleOf(m.role);
      if (raw.length !== 32 || !role) continue;
      const agents = Array.isArray(m.agents) ? m.agents.filter((a) => typeof a === 'string') : [];
      roster.set(hexOf(raw), { conn_id: String(m.conn_id), name: typeof m.name === 'string' ? m.name : '', role, agents });
    }
    this.roster = roster;
    return roster.get(this.selfHex) || null;
  }

  /**
   * Takes the room keys a `key.rotate` body wraps for connection `me`.
   * @returns {number} how many keys were added
   */
  async rotate(body, me) {
    let added = 0;
    for (const k of (body && body.keys) || []) {
      if (String(k.to) !== String(me) || !Number.isInteger(k.epoch) || k.epoch < 0 || k.epoch > 0xffffffff) continue;
      const wrap = await agreedKey(this.id.dh.privateKey, b64urlDecode(k.eph), this.room, concat(WRAP_INFO, u32(k.epoch)));
      const raw = await subtle.decrypt({ name: 'AES-GCM', iv: b64urlDecode(k.nonce), additionalData: u32(k.epoch) }, wrap, b64urlDecode(k.ct));
      this.keys.set(k.epoch, await aesKey(new Uint8Array(raw)));
      if (k.epoch > this.current) this.current = k.epoch;
      added++;
    }
    return added;
  }
}
