// The relay's binary envelope (crates/cohost-protocol/src/envelope.rs):
//
//   0 version (1) | 1 type | 2 sender role | 3 flags (0) | 4 sender conn id u64 BE
//   12 chunk index u64 BE | 20 room length R | 21 stream length S
//   22 room | 22+R stream | 22+R+S payload
//
// One binary WebSocket message per frame. Readers never throw on input:
// decode returns null for anything that is not a valid envelope.

export const VERSION = 1;
const HEADER = 22;

/** Frame type codes (crates/cohost-protocol/src/frames.rs). */
export const T = Object.freeze({
  SuggestPrompt: 1,
  PromptSuggested: 2,
  SuggestionDecided: 3,
  ExecutionStarted: 4,
  StreamChunk: 5,
  StreamEnd: 6,
  StreamInterrupted: 7,
  ToolApprovalRequested: 8,
  ToolApprovalDecided: 9,
  ChatMessage: 10,
  PresenceJoin: 11,
  PresenceLeave: 12,
  PresenceList: 13,
  KeyAnnounce: 14,
  KeyRotate: 15,
  InterruptRequest: 16,
  ApprovalVote: 17,
  ApprovalGrants: 18,
  KeyRoster: 19,
  RoomResume: 20,
  RoomResync: 21,
  RoomGap: 22,
  RoomError: 23,
  RoomWelcome: 24,
  RoomClose: 25,
  RoomPing: 26,
  RoomPong: 27,
  RoomKick: 28,
  KeyDoor: 29,
  MemberOffer: 30,
  MemberCommand: 31,
});

/** Role codes; 0 = unstamped. */
export const ROLE = Object.freeze({ HOST: 1, CO_DRIVER: 2, VIEWER: 3 });
export const ROLE_NAME = Object.freeze({ 1: 'HOST', 2: 'CO_DRIVER', 3: 'VIEWER' });

/** Frames with a stream id and a host-assigned chunk index, kept in the relay's ring. */
export function isReplayable(type) {
  return type >= T.ExecutionStarted && type <= T.StreamInterrupted;
}

const ID = /^[A-Za-z0-9_-]{1,64}$/;
export function isValidId(s) {
  return typeof s === 'string' && ID.test(s);
}

const ascii = new TextDecoder('ascii');
const utf8 = new TextEncoder();

/**
 * Decodes one envelope.
 * @param {ArrayBuffer|Uint8Array} buf
 * @returns {{type:number, role:number, sender:string, chunk:number, room:string, stream:string, payload:Uint8Array}|null}
 */
export function decode(buf) {
  const b = buf instanceof Uint8Array ? buf : new Uint8Array(buf);
  if (b.length < HEADER || b[0] !== VERSION || b[3] !== 0 || b[2] > 3) return null;
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const rl = b[20];
  const sl = b[21];
  if (b.length < HEADER + rl + sl) return null;
  const room = ascii.decode(b.subarray(HEADER, HEADER + rl));
  const stream = ascii.decode(b.subarray(HEADER + rl, HEADER + rl + sl));
  if (!isValidId(room) || (sl > 0 && !isValidId(stream))) return null;
  const chunk = v.getBigUint64(12);
  if (chunk > BigInt(Number.MAX_SAFE_INTEGER)) return null;
  return {
    type: b[1],
    role: b[2],
    sender: v.getBigUint64(4).toString(),
    chunk: Number(chunk),
    room,
    stream,
    payload: b.subarray(HEADER + rl + sl),
  };
}

/**
 * Encodes a frame as a client sends it (sender fields unstamped).
 * @returns {Uint8Array}
 */
export function encode(type, room, stream, chunk, payload) {
  const r = utf8.encode(room);
  const s = utf8.encode(stream || '');
  const out = new Uint8Array(HEADER + r.length + s.length + payload.length);
  const v = new DataView(out.buffer);
  out[0] = VERSION;
  out[1] = type;
  v.setBigUint64(12, BigInt(chunk));
  out[20] = r.length;
  out[21] = s.length;
  out.set(r, HEADER);
  out.set(s, HEADER + r.length);
  out.set(payload, HEADER + r.length + s.length);
  return out;
}

/**
 * JSON.parse that keeps u64 connection ids exact: the relay's ids exceed
 * 2^53, so `conn_id` and `to` numbers are read as strings.
 */
export function parseJson(bytes) {
  const text = typeof bytes === 'string' ? bytes : new TextDecoder().decode(bytes);
  return JSON.parse(text.replace(/("(?:conn_id|to)"\s*:\s*)(\d+)/g, '$1"$2"'));
}

/** JSON bytes of a value. */
export function jsonBytes(value) {
  return utf8.encode(JSON.stringify(value));
}

/**
 * `@NAME TEXT` addressed to one member: `{ to, text }`, or null (as
 * cohost_core::room::addressed reads it: the name ends at white space, `,`
 * or `:`, and needs text after it).
 */
export function addressed(body) {
  const m = /^\s*@([^\s,:]+)[,:]?\s*([\s\S]*)$/.exec(body);
  if (!m || !m[2].trim()) return null;
  return { to: m[1], text: m[2] };
}
