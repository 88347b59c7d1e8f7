// Unit tests of the page's modules that need no browser (node --test), run
// by crates/cohost-cli/tests/it/web_page.rs: the e2e codec (format v2)
// against the shared test vectors (crates/cohost-share/tests/vectors/
// e2e-v2.json) and an independent implementation on node:crypto here, the
// loss policy (loss.js), the room's agents and whom a suggestion is for
// (members.js), the envelope, the streaming-markdown completion,
// and a turn's diff: line numbers, hunks, the review comment's text and the
// summaries.

import assert from 'node:assert/strict';
import nodeCrypto from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import test from 'node:test';
import {
  HOST_ONLY,
  Identity,
  OpenError,
  REPLAY_WINDOW,
  RoomCrypto,
  associatedData,
  b64urlDecode,
  b64urlEncode,
  keyFingerprint,
  maySend,
  parseFragment,
} from '../e2e.js';
import { T, addressed, decode, encode, parseJson } from '../wire.js';
import { StreamOrder } from '../loss.js';
import { addressedTo, hostMembers } from '../members.js';
import { completeStreaming, settledEnd } from '../stream-md.js';
import { commentable, countsText, hunkText, lineRef, modeText, parseDiff, pathText, reviewText, stripControls, summaryText, treeLines } from '../diff.js';
import hljs from '../vendor/hljs/core.min.js';
import rust from '../vendor/hljs/rust.min.js';

const text = (b) => new TextDecoder().decode(b);
const bytes = (s) => new TextEncoder().encode(s);

// ---- format v2, written again on node:crypto (not WebCrypto) -------------

const ROOM = 'room-vec';
const ROOM_KEY = Buffer.alloc(32, 0x11);
const PK8_ED = Buffer.from('302e020100300506032b657004220420', 'hex');
const PK8_X = Buffer.from('302e020100300506032b656e04220420', 'hex');
const edSecret = (seed) => nodeCrypto.createPrivateKey({ key: Buffer.concat([PK8_ED, seed]), format: 'der', type: 'pkcs8' });
const xSecret = (seed) => nodeCrypto.createPrivateKey({ key: Buffer.concat([PK8_X, seed]), format: 'der', type: 'pkcs8' });
const rawPublic = (secret) => Buffer.from(nodeCrypto.createPublicKey(secret).export({ format: 'jwk' }).x, 'base64url');
const xPublicKey = (raw) => nodeCrypto.createPublicKey({ key: { kty: 'OKP', crv: 'X25519', x: Buffer.from(raw).toString('base64url') }, format: 'jwk' });
const u32be = (n) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
};
const u64be = (n) => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(BigInt(n));
  return b;
};

/** A signer: an Ed25519 seed's secret and public key. */
function signer(fill) {
  const secret = edSecret(Buffer.alloc(32, fill));
  return { secret, pub: rawPublic(secret), seed: Buffer.alloc(32, fill) };
}
const HOST = signer(0xa1);
const ANA = signer(0xb2); // bound as co-driver
const VIC = signer(0xc3); // bound as viewer
const EVE = signer(0xd4); // bound to nothing
const HOST_X = xSecret(Buffer.alloc(32, 0xe5));
const TICKET = Buffer.alloc(16, 0x5a);
const INVITE = { key: ROOM_KEY, hostSig: HOST.pub, hostX: rawPublic(HOST_X), ticket: TICKET };

function adOf(type, role, chunk, room, stream = '') {
  return Buffer.concat([Buffer.from([1, type, role]), u64be(chunk), Buffer.from([room.length]), Buffer.from(room), Buffer.from([stream.length]), Buffer.from(stream)]);
}

/** A mode-0 payload signed by `who` (what a host or a bound participant sends). */
function sealRoom({ who = HOST, type, role = 1, chunk = 0, stream = '', room = ROOM, body, seq, epoch = 0, key = ROOM_KEY, version = 2, mode = 0 }) {
  const ad = adOf(type, role, chunk, room, stream);
  const b = Buffer.from(body);
  const signed = Buffer.concat([Buffer.from('cohost-e2e-v2\0'), ad, Buffer.from([0]), u32be(epoch), u64be(seq), b]);
  const inner = Buffer.concat([who.pub, u64be(seq), nodeCrypto.sign(null, signed, who.secret), b]);
  const nonce = nodeCrypto.randomBytes(12);
  const c = nodeCrypto.createCipheriv('aes-256-gcm', key, nonce).setAAD(ad);
  const ct = Buffer.concat([c.update(inner), c.final(), c.getAuthTag()]);
  return Buffer.concat([Buffer.from([version, mode]), u32be(epoch), nonce, ct]);
}

/** What the host reads out of a mode-1 payload (sealed to its X25519 key), the signature checked. */
function openAtHost(payload, ad) {
  const p = Buffer.from(payload);
  assert.deepEqual([p[0], p[1]], [2, 1], 'version 2, sealed to the host');
  const eph = p.subarray(2, 34);
  const shared = nodeCrypto.diffieHellman({ privateKey: HOST_X, publicKey: xPublicKey(eph) });
  const k = Buffer.from(nodeCrypto.hkdfSync('sha256', shared, Buffer.from(ROOM), Buffer.concat([Buffer.from('cohost-e2e-v2 to-host'), eph]), 32));
  const d = nodeCrypto.createDecipheriv('aes-256-gcm', k, p.subarray(34, 46)).setAAD(ad);
  d.setAuthTag(p.subarray(p.length - 16));
  const inner = Buffer.concat([d.update(p.subarray(46, p.length - 16)), d.final()]);
  return checkInner(inner, ad, 1, 0);
}

/** A mode-0 payload as any holder of the room key (of `key`) reads it. */
function openRoom(payload, ad, key = ROOM_KEY) {
  const p = Buffer.from(payload);
  assert.deepEqual([p[0], p[1]], [2, 0], 'version 2, under the room key');
  const epoch = p.readUInt32BE(2);
  const d = nodeCrypto.createDecipheriv('aes-256-gcm', key, p.subarray(6, 18)).setAAD(ad);
  d.setAuthTag(p.subarray(p.length - 16));
  const inner = Buffer.concat([d.update(p.subarray(18, p.length - 16)), d.final()]);
  return { epoch, ...checkInner(inner, ad, 0, epoch) };
}

function checkInner(inner, ad, mode, epoch) {
  const pub = inner.subarray(0, 32);
  const seq = inner.subarray(32, 40);
  const body = inner.subarray(104);
  const signed = Buffer.concat([Buffer.from('cohost-e2e-v2\0'), ad, Buffer.from([mode]), u32be(epoch), seq, body]);
  const key = nodeCrypto.createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: pub.toString('base64url') }, format: 'jwk' });
  assert.ok(nodeCrypto.verify(null, signed, key, inner.subarray(40, 104)), 'the signature verifies');
  return { pub, seq: seq.readBigUInt64BE(), body: body.toString() };
}

/** The page: a fixed identity (seeds 0x77 / 0x78, sequence 1000). */
async function page(invite = INVITE) {
  const id = await Identity.fromSecrets(Buffer.alloc(32, 0x77), Buffer.alloc(32, 0x78), 1000);
  return RoomCrypto.create(ROOM, invite, id);
}

const ROSTER = {
  members: [
    { conn_id: 7, name: 'ana', role: 'co_driver', ed25519: ANA.pub.toString('base64url') },
    { conn_id: 8, name: 'vic', role: 'VIEWER', ed25519: VIC.pub.toString('base64url') },
  ],
};

const frame = (o, payload) => ({ type: o.type, role: o.role ?? 1, chunk: o.chunk ?? 0, room: o.room ?? ROOM, stream: o.stream ?? '', payload });
/** Seals with node:crypto and opens with the page. */
async function roundTrip(c, o) {
  return c.open(frame(o, sealRoom(o)));
}
const kind = (k) => (e) => e instanceof OpenError && e.kind === k;

// ---- the shared test vectors (the Rust code writes them, Python checks them) ----

// COHOST_E2E_V2_VECTORS: another copy of the file (a format change in the making).
const VECTOR_FILE = process.env.COHOST_E2E_V2_VECTORS || new URL('../../../cohost-share/tests/vectors/e2e-v2.json', import.meta.url);
const vectors = existsSync(VECTOR_FILE) ? JSON.parse(readFileSync(VECTOR_FILE, 'utf8')) : null;
const hex = (s) => Uint8Array.from(s.match(/../g).map((b) => parseInt(b, 16)));
const toHex = (b) => [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
const vectorTest = (name, fn) => test(name, { skip: vectors ? false : 'crates/cohost-share/tests/vectors/e2e-v2.json is not written yet' }, fn);

/** The page in the vectors' room, as `who` (a participant of the file) or a fresh identity. */
async function vectorPage(who) {
  const inv = parseFragment(`#a.b.c.${vectors.invite_fragment_keys}`);
  const id = who ? await Identity.fromSecrets(hex(who.seed_hex), hex(who.x25519_secret_hex), 0) : undefined;
  return RoomCrypto.create(vectors.room, inv, id);
}

vectorTest('the invite keys and the associated data are the vectors', () => {
  const inv = parseFragment(`#a.b.c.${vectors.invite_fragment_keys}`);
  assert.equal(toHex(inv.key), vectors.room_key_hex);
  assert.equal(toHex(inv.hostSig), vectors.host_public_hex);
  assert.equal(toHex(inv.hostX), vectors.host_x25519_public_hex);
  assert.equal(toHex(inv.ticket), vectors.ticket_hex);
  for (const f of vectors.frames) {
    const a = f.ad_inputs;
    assert.equal(toHex(associatedData(a.frame_type_code, a.sender_role_code, a.chunk, a.room, a.stream || '')), f.ad_hex, f.name);
  }
});

vectorTest("what a participant's page seals is the vector byte for byte", async () => {
  let n = 0;
  for (const f of vectors.frames) {
    const who = vectors.participants.find((p) => p.ed25519_hex === f.sender_ed25519_hex);
    if (!who) continue;
    const c = await vectorPage(who);
    assert.equal(toHex(c.id.sign.publicRaw), who.ed25519_hex);
    const a = f.ad_inputs;
    const opts = { nonce: hex(f.nonce_hex), seq: f.seq, ...(f.eph_secret_hex ? { ephemeralSecret: hex(f.eph_secret_hex) } : {}) };
    const sealed = await c.seal(a.frame_type_code, a.sender_role_code, a.chunk, a.stream || '', bytes(f.body), opts);
    assert.equal(sealed[1], f.mode, `${f.name}: mode`);
    assert.equal(toHex(sealed), f.payload_hex, f.name);
    n++;
  }
  assert.ok(n >= 3, 'the file has participants\' frames');
});

vectorTest("the page opens every frame of the room's vectors, as the roster allows, and the announce is its own", async () => {
  const c = await vectorPage(null);
  const roster = vectors.frames.find((f) => f.ad_inputs.frame_type_code === T.KeyRoster);
  const frameOfVector = (f) => {
    const a = f.ad_inputs;
    return { type: a.frame_type_code, role: a.sender_role_code, chunk: a.chunk, room: a.room, stream: a.stream || '', payload: hex(f.payload_hex) };
  };
  const r = await c.open(frameOfVector(roster));
  assert.equal(r.from, 'host');
  c.setRoster(parseJson(r.body));
  let opened = 0;
  for (const f of vectors.frames) {
    if (f === roster) continue;
    if (f.mode === 1) {
      await assert.rejects(c.open(frameOfVector(f)), kind('scope'), `${f.name}: only the host opens it`);
      continue;
    }
    const o = await c.open(frameOfVector(f));
    assert.equal(text(o.body), f.body, f.name);
    assert.equal(o.seq, BigInt(f.seq), f.name);
    const who = vectors.participants.find((p) => p.ed25519_hex === f.sender_ed25519_hex);
    if (who) assert.deepEqual([o.from.name, o.from.role, o.from.conn_id], [who.name, who.role, String(who.conn_id)], f.name);
    else assert.equal(o.from, 'host', f.name);
    opened++;
  }
  assert.ok(opened >= 2);
  // The announce in the file is what the page announces as ana on her connection.
  const ana = vectors.participants.find((p) => p.name === 'ana');
  const announce = vectors.frames.find((f) => f.ad_inputs.frame_type_code === T.KeyAnnounce);
  const mine = await (await vectorPage(ana)).announce('ana', String(ana.conn_id));
  assert.deepEqual(mine, JSON.parse(announce.body));
  assert.equal(toHex(b64urlDecode(mine.ticket)), vectors.ticket_id_hex);
});

vectorTest('a key.rotate wrap from the vectors unwraps to its room key', async () => {
  const w = vectors.wrap;
  const inv = parseFragment(`#a.b.c.${vectors.invite_fragment_keys}`);
  const id = await Identity.fromSecrets(new Uint8Array(32).fill(1), hex(w.recipient_secret_hex), 0);
  assert.equal(b64urlEncode(id.dh.publicRaw), w.recipient_public);
  const c = await RoomCrypto.create(w.room, inv, id);
  assert.equal(await c.rotate({ keys: [{ ...w.expected, to: String(w.to + 1) }] }, String(w.to)), 0, 'a wrap for someone else is skipped');
  assert.equal(await c.rotate({ keys: [w.expected] }, String(w.to)), 1);
  assert.equal(c.current, w.epoch);
  const sealed = await c.seal(T.ChatMessage, 2, 0, '', bytes('{"text":"x"}'));
  assert.equal(openRoom(sealed, adOf(T.ChatMessage, 2, 0, w.room), Buffer.from(hex(w.room_key_hex))).epoch, w.epoch);
});

test('invite fragments: seven segments, a v1 one refused, a bare token keyless', () => {
  const k = b64urlEncode(new Uint8Array(32).fill(1));
  const t = b64urlEncode(new Uint8Array(16).fill(2));
  const inv = parseFragment(`#a.b.c.${k}.${k}.${k}.${t}`);
  assert.equal(inv.jwt, 'a.b.c');
  assert.deepEqual([inv.key.length, inv.hostSig.length, inv.hostX.length, inv.ticket.length], [32, 32, 32, 16]);
  assert.deepEqual([...inv.ticket], Array(16).fill(2));
  assert.throws(
    () => parseFragment(`#a.b.c.${k}.${k}`),
    /this invite comes from a cohost that speaks sharing format v1; ask the host to upgrade cohost and send a new invite/,
  );
  assert.equal(parseFragment('#a.b.c').key, null, 'a bare token has no key');
  assert.throws(() => parseFragment(`#a.b.c.${k}.${k}.${k}.${k}`), /damaged/, 'a 32-byte ticket');
  assert.throws(() => parseFragment(`#a.b.c.AAAA.${k}.${k}.${t}`), /damaged/);
  assert.throws(() => parseFragment(`#a.b.c.${k}.${k}.${k}.!!`), /damaged/);
  assert.throws(() => parseFragment(''), /no room token/);
  assert.deepEqual(b64urlDecode(b64urlEncode(new Uint8Array([251, 255, 0]))), new Uint8Array([251, 255, 0]));
});

test('associated data is the envelope version, type, role, chunk, room and stream', () => {
  assert.equal(Buffer.from(associatedData(5, 1, 3, 'room-vec', 'p-1')).toString('hex'), '010501000000000000000308726f6f6d2d76656303702d31');
  assert.equal(Buffer.from(associatedData(10, 2, 0, 'room-vec', '')).toString('hex'), adOf(10, 2, 0, 'room-vec').toString('hex'));
});

test("a host frame opens as the host's; moved, re-keyed, re-signed or of another version it is refused", async () => {
  const c = await page();
  const chunk = { type: T.StreamChunk, chunk: 3, stream: 'p-1', body: '{"type":"stream_chunk","delta":"Hello"}', seq: 5 };
  const payload = sealRoom(chunk);
  const opened = await c.open(frame(chunk, payload));
  assert.equal(text(opened.body), chunk.body);
  assert.equal(opened.from, 'host');
  for (const change of [{ role: 2 }, { chunk: 4 }, { room: 'room-other' }, { stream: 'p-2' }, { type: T.StreamEnd }]) {
    await assert.rejects(c.open({ ...frame(chunk, payload), ...change }), kind('key'), JSON.stringify(change));
  }
  await assert.rejects(roundTrip(c, { ...chunk, key: Buffer.alloc(32, 9) }), kind('key'));
  // The signature covers the epoch and the sequence number: a relay that
  // changes them inside a valid ciphertext is not the threat (AES-GCM
  // stops it); a key holder re-sealing another's signed inner is.
  const inner = sealRoom({ ...chunk, seq: 6 });
  const d = nodeCrypto.createDecipheriv('aes-256-gcm', ROOM_KEY, inner.subarray(6, 18)).setAAD(adOf(5, 1, 3, ROOM, 'p-1'));
  d.setAuthTag(inner.subarray(inner.length - 16));
  const plain = Buffer.concat([d.update(inner.subarray(18, inner.length - 16)), d.final()]);
  plain.writeBigUInt64BE(7n, 32); // another sequence number under the same signature
  const c2 = nodeCrypto.createCipheriv('aes-256-gcm', ROOM_KEY, Buffer.alloc(12, 1)).setAAD(adOf(5, 1, 3, ROOM, 'p-1'));
  const resealed = Buffer.concat([Buffer.from([2, 0]), u32be(0), Buffer.alloc(12, 1), c2.update(plain), c2.final(), c2.getAuthTag()]);
  await assert.rejects(c.open(frame(chunk, resealed)), kind('signature'));
  // Other versions and modes.
  await assert.rejects(c.open(frame(chunk, sealRoom({ ...chunk, version: 1 }))), (e) =>
    kind('version')(e) && e.message === 'the sender speaks sharing format v1; everyone in a room needs a cohost with format v2');
  await assert.rejects(c.open(frame(chunk, sealRoom({ ...chunk, mode: 1 }))), kind('scope'));
  await assert.rejects(c.open(frame(chunk, sealRoom({ ...chunk, mode: 2 }))), kind('version'));
  await assert.rejects(c.open(frame(chunk, new Uint8Array([2]))), kind('short'));
  await assert.rejects(roundTrip(c, { ...chunk, epoch: 3 }), kind('epoch'));
  // A page given another host key takes none of it.
  const other = await page({ ...INVITE, hostSig: EVE.pub });
  await assert.rejects(other.open(frame(chunk, payload)), kind('forged'));
  await assert.rejects(roundTrip(other, { type: T.ChatMessage, body: '{"text":"hi"}', seq: 1 }), kind('unknown'));
});

test('only the host key speaks for the agent and the room; the roster says who else may say what', async () => {
  const c = await page();
  // Before the roster, nobody but the host.
  await assert.rejects(roundTrip(c, { who: ANA, type: T.ChatMessage, role: 2, body: '{"text":"hi"}', seq: 1 }), kind('unknown'));
  assert.equal(c.setRoster(ROSTER), null, 'this page is not in it');
  const chat = await roundTrip(c, { who: ANA, type: T.ChatMessage, role: 2, body: '{"text":"hi"}', seq: 2 });
  assert.deepEqual(chat.from, { conn_id: '7', name: 'ana', role: 'CO_DRIVER', agents: [] });
  // Whatever the stamp: the bound role decides.
  assert.equal((await roundTrip(c, { who: VIC, type: T.ChatMessage, role: 1, body: '{"text":"v"}', seq: 1 })).from.name, 'vic');
  for (const type of HOST_ONLY) {
    for (const [who, role] of [
      [ANA, 2],
      [ANA, 1],
      [EVE, 1],
    ]) {
      await assert.rejects(roundTrip(c, { who, type, role, body: '{}', seq: 100 + type, stream: type >= 4 && type <= 7 ? 'p-9' : '' }), kind('forged'), `type ${type}`);
    }
  }
  // A viewer's key may not suggest or interrupt, a co-driver's may.
  await assert.rejects(roundTrip(c, { who: VIC, type: T.SuggestPrompt, role: 2, body: '{}', seq: 2 }), kind('forged'));
  await assert.rejects(roundTrip(c, { who: VIC, type: T.InterruptRequest, role: 2, body: '{}', seq: 3 }), kind('forged'));
  await roundTrip(c, { who: ANA, type: T.SuggestPrompt, role: 2, body: '{}', seq: 3 });
  // An unbound key may not chat, whatever the stamp.
  await assert.rejects(roundTrip(c, { who: EVE, type: T.ChatMessage, role: 1, body: '{"text":"x"}', seq: 1 }), kind('unknown'));
  // A new roster without ana: her key is gone (a kick).
  c.setRoster({ members: [ROSTER.members[1]] });
  await assert.rejects(roundTrip(c, { who: ANA, type: T.ChatMessage, role: 2, body: '{"text":"after"}', seq: 50 }), kind('unknown'));
  // A roster naming this page's own key says its bound role.
  const self = { conn_id: '18446744073709551615', name: 'me', role: 'viewer', ed25519: b64urlEncode(c.id.sign.publicRaw) };
  assert.deepEqual(c.setRoster({ members: [self, { ed25519: 'not a key!', role: 'viewer' }, { ed25519: self.ed25519, role: 'admin' }] }), {
    conn_id: '18446744073709551615',
    name: 'me',
    role: 'VIEWER',
    agents: [],
  });
});

test("a member on a co-driver's machine: its owner's key sends its turns, and only its", async () => {
  const c = await page();
  c.setRoster({ members: [{ ...ROSTER.members[0], agents: ['codex@ana'] }, ROSTER.members[1]] });
  const turn = (who, agent, seq) => ({ who, type: T.StreamChunk, role: 2, body: JSON.stringify({ agent, type: 'stream_chunk' }), seq, stream: 'm7-p-1' });
  const opened = await roundTrip(c, turn(ANA, 'codex@ana', 1));
  assert.equal(opened.from.name, 'ana');
  // Another member's name, none, or a key the host gave no member: forged.
  await assert.rejects(roundTrip(c, turn(ANA, 'claude', 2)), kind('forged'));
  await assert.rejects(roundTrip(c, { ...turn(ANA, 'codex@ana', 3), body: '{"type":"stream_chunk"}' }), kind('forged'));
  await assert.rejects(roundTrip(c, turn(VIC, 'codex@ana', 1)), kind('forged'));
  // Its approval notices too; never the room's own frames (grants, keys).
  await roundTrip(c, { ...turn(ANA, 'codex@ana', 4), type: T.ToolApprovalRequested, stream: '' });
  await assert.rejects(roundTrip(c, { ...turn(ANA, 'codex@ana', 5), type: T.KeyRoster, stream: '' }), kind('forged'));
});

test('the permission matrix is cohost_protocol::may_send', () => {
  const roles = ['HOST', 'CO_DRIVER', 'VIEWER'];
  const expect = {
    [T.SuggestPrompt]: [false, true, false],
    [T.InterruptRequest]: [false, true, false],
    [T.ApprovalVote]: [false, true, true],
    [T.KeyAnnounce]: [false, true, true],
    [T.ChatMessage]: [true, true, true],
    [T.PromptSuggested]: [false, false, false],
  };
  for (const t of [3, 4, 5, 6, 7, 8, 9, 15, 18, 19]) expect[t] = [true, false, false];
  for (const [t, want] of Object.entries(expect)) {
    assert.deepEqual(roles.map((r) => maySend(Number(t), r)), want, `type ${t}`);
  }
  assert.ok(HOST_ONLY.has(T.KeyRoster) && T.KeyRoster === 19);
});

test('a replay is refused per sender (a window of 4,096); stream frames are placed by chunk instead', async () => {
  const c = await page();
  c.setRoster(ROSTER);
  const chat = (who, seq) => roundTrip(c, { who, type: T.ChatMessage, role: 2, body: `{"text":"${seq}"}`, seq });
  const hostChat = { type: T.ChatMessage, body: '{"text":"once"}', seq: 100 };
  const once = sealRoom(hostChat);
  await c.open(frame(hostChat, once));
  await assert.rejects(c.open(frame(hostChat, once)), kind('replay'), 'the same payload again');
  await assert.rejects(roundTrip(c, hostChat), kind('replay'), 'the same number, sealed again');
  await roundTrip(c, { ...hostChat, seq: 99 }); // late, never taken
  await assert.rejects(roundTrip(c, { ...hostChat, seq: 99 }), kind('replay'));
  await chat(ANA, 100); // another sender's numbers are its own
  await assert.rejects(chat(ANA, 100), kind('replay'));
  await roundTrip(c, { ...hostChat, seq: 101 + REPLAY_WINDOW });
  await roundTrip(c, { ...hostChat, seq: 101 }); // exactly the window's oldest, never taken
  await assert.rejects(roundTrip(c, { ...hostChat, seq: 101 }), kind('replay'));
  await assert.rejects(roundTrip(c, { ...hostChat, seq: 98 }), kind('replay'), 'older than the window');
  await assert.rejects(roundTrip(c, { ...hostChat, seq: 101 + REPLAY_WINDOW }), kind('replay'));
  await roundTrip(c, { ...hostChat, seq: 200 + REPLAY_WINDOW }); // the window slides, what it took moves along
  await assert.rejects(roundTrip(c, { ...hostChat, seq: 101 + REPLAY_WINDOW }), kind('replay'));
  await roundTrip(c, { ...hostChat, seq: 150 + REPLAY_WINDOW }); // below the highest, never taken
  await roundTrip(c, { ...hostChat, seq: 204 + REPLAY_WINDOW });
  await assert.rejects(roundTrip(c, { ...hostChat, seq: 150 + REPLAY_WINDOW }), kind('replay'), 'remembered below a newer highest');
  // A failed frame takes no number.
  await assert.rejects(roundTrip(c, { who: EVE, type: T.ChatMessage, role: 2, body: '{}', seq: 1 }), kind('unknown'));
  const stream = { type: T.StreamChunk, chunk: 1, stream: 'p-1', body: '{"type":"stream_chunk","delta":"x"}', seq: 7 };
  const p = sealRoom(stream);
  await c.open(frame(stream, p));
  await c.open(frame(stream, p));
});

test('what the page sends is signed by its identity: sealed to the host for host-only deliveries, else under the newest key', async () => {
  const c = await page();
  const pub = Buffer.from(c.id.sign.publicRaw);
  assert.equal(pub.toString('hex'), rawPublic(edSecret(Buffer.alloc(32, 0x77))).toString('hex'));
  let seq = 1000n;
  for (const [type, body] of [
    [T.SuggestPrompt, '{"suggestion_id":"s-1","text":"add a test","from":"ana","to":"codex"}'],
    [T.KeyAnnounce, '{"name":"ana"}'],
    [T.InterruptRequest, '{"from":"ana"}'],
    [T.ApprovalVote, '{"tool_id":"t-1","allow":true}'],
  ]) {
    const payload = await c.seal(type, 2, 0, '', bytes(body));
    const got = openAtHost(payload, adOf(type, 2, 0, ROOM));
    assert.deepEqual([got.body, got.seq, got.pub.toString('hex')], [body, seq++, pub.toString('hex')], `type ${type}`);
    // Nobody else with the room key reads it (the page itself neither).
    await assert.rejects(c.open(frame({ type, role: 2 }, payload)), kind('scope'));
    assert.throws(() => openRoom(payload, adOf(type, 2, 0, ROOM)));
  }
  const chat = await c.seal(T.ChatMessage, 3, 0, '', bytes('{"text":"hi"}'));
  assert.deepEqual(openRoom(chat, adOf(T.ChatMessage, 3, 0, ROOM)), { epoch: 0, pub, seq: seq++, body: '{"text":"hi"}' });
  // Fixed nonce and ephemeral secret: the header is what they say.
  const fixed = await c.seal(T.ApprovalVote, 3, 0, '', bytes('{}'), { nonce: new Uint8Array(12).fill(3), ephemeralSecret: new Uint8Array(32).fill(4), seq: 42 });
  assert.equal(Buffer.from(fixed.subarray(2, 34)).toString('hex'), rawPublic(xSecret(Buffer.alloc(32, 4))).toString('hex'));
  assert.equal(Buffer.from(fixed.subarray(34, 46)).toString('hex'), '03'.repeat(12));
  assert.equal(openAtHost(fixed, adOf(T.ApprovalVote, 3, 0, ROOM)).seq, 42n);
  // The page opens what another page seals (mode 0), once that page is in the roster.
  const other = await RoomCrypto.create(ROOM, INVITE, await Identity.fromSecrets(ANA.seed, Buffer.alloc(32, 9), 5));
  const p = await other.seal(T.ChatMessage, 2, 0, '', bytes('{"text":"yo"}'));
  c.setRoster(ROSTER);
  assert.equal((await c.open(frame({ type: T.ChatMessage, role: 2 }, p))).from.name, 'ana');
});

test("key.announce names the invite by its ticket id and proves it, bound to the connection", async () => {
  const c = await page();
  for (const conn of ['42', '18446744073709551615']) {
    const a = await c.announce('ana', conn);
    assert.deepEqual(Object.keys(a).sort(), ['ed25519', 'name', 'proof', 'ticket', 'x25519']);
    assert.equal(a.name, 'ana');
    assert.equal(a.ed25519, b64urlEncode(c.id.sign.publicRaw));
    assert.equal(a.x25519, rawPublic(xSecret(Buffer.alloc(32, 0x78))).toString('base64url'));
    const ticketId = nodeCrypto.createHash('sha256').update(Buffer.concat([Buffer.from('cohost-e2e-v2 ticket\0'), TICKET])).digest().subarray(0, 8);
    assert.equal(a.ticket, ticketId.toString('base64url'));
    const proof = nodeCrypto
      .createHmac('sha256', TICKET)
      .update(Buffer.concat([Buffer.from('cohost-e2e-v2 bind\0'), Buffer.from(ROOM), u64be(conn), b64urlDecode(a.ed25519), b64urlDecode(a.x25519)]))
      .digest();
    assert.equal(a.proof, proof.toString('base64url'), `conn ${conn}`);
  }
  assert.notEqual((await c.announce('ana', '1')).proof, (await c.announce('ana', '2')).proof, 'another connection, another proof');
});

test('a key.rotate wrap for this page unwraps (format v2 info) and the page seals under the newest epoch', async () => {
  const c = await page();
  const recipient = Buffer.from(c.id.dh.publicRaw);
  const key3 = Buffer.alloc(32, 0x33);
  const wrap = (epoch, key, to, info = 'cohost-e2e-v2 key-wrap') => {
    const eph = xSecret(nodeCrypto.randomBytes(32));
    const shared = nodeCrypto.diffieHellman({ privateKey: eph, publicKey: xPublicKey(recipient) });
    const k = Buffer.from(nodeCrypto.hkdfSync('sha256', shared, Buffer.from(ROOM), Buffer.concat([Buffer.from(info), u32be(epoch)]), 32));
    const nonce = nodeCrypto.randomBytes(12);
    const ci = nodeCrypto.createCipheriv('aes-256-gcm', k, nonce).setAAD(u32be(epoch));
    const ct = Buffer.concat([ci.update(key), ci.final(), ci.getAuthTag()]);
    return { epoch, to, eph: rawPublic(eph).toString('base64url'), nonce: nonce.toString('base64url'), ct: ct.toString('base64url') };
  };
  assert.equal(await c.rotate({ keys: [wrap(3, key3, '41')] }, '42'), 0, 'a wrap for someone else is skipped');
  await assert.rejects(c.rotate({ keys: [wrap(3, key3, '42', 'cohost-e2e-v1 key-wrap')] }, '42'), 'a v1 wrap does not unwrap');
  assert.equal(await c.rotate({ keys: [wrap(3, key3, '42')] }, '42'), 1);
  assert.equal(c.current, 3);
  const sealed = await c.seal(T.ChatMessage, 2, 0, '', bytes('{"text":"x"}'));
  assert.equal(openRoom(sealed, adOf(T.ChatMessage, 2, 0, ROOM), key3).epoch, 3);
  // Host frames of that epoch open.
  const f = { type: T.ChatMessage, body: '{"text":"e3"}', seq: 9, epoch: 3, key: key3 };
  assert.equal(text((await roundTrip(c, f)).body), f.body);
});

test('an identity numbers its frames from the Unix time in microseconds', async () => {
  const before = BigInt(Date.now()) * 1000n;
  const id = await Identity.create();
  const after = BigInt(Date.now()) * 1000n;
  const first = id.next();
  assert.ok(first >= before && first <= after, `${first}`);
  assert.equal(id.next(), first + 1n);
  assert.equal(id.sign.publicRaw.length, 32);
  assert.equal(id.dh.publicRaw.length, 32);
});

// ---- loss is visible, never a stall (loss.js) ----

/** A StreamOrder on a clock the test moves, recording its asks and reports. */
function ordered() {
  const log = { resumes: 0, missing: [] };
  let t = 0;
  const o = new StreamOrder({ resume: () => log.resumes++, missing: (s, from, to) => log.missing.push([s, from, to]), now: () => t });
  /** Moves the clock by `ms`, ticking every 250 ms as the page does. */
  const after = (ms) => {
    for (const end = t + ms; t < end; ) {
      t = Math.min(end, t + 250);
      if (o.waiting) o.tick();
    }
  };
  return { o, log, after };
}

test('chunks in order are shown; one at or before the last shown is a duplicate', () => {
  const { o, log } = ordered();
  for (const c of [0, 1, 2]) {
    assert.equal(o.place('p-1', c), 'show');
    o.shown('p-1', c);
  }
  assert.equal(o.place('p-1', 2), 'duplicate');
  assert.equal(o.place('p-1', 0), 'duplicate');
  assert.equal(o.place('p-2', 0), 'show', 'a new stream starts at chunk 0');
  assert.deepEqual([log.resumes, o.waiting], [0, false]);
});

test('a new stream whose first chunks never came is a gap; after a resync any chunk starts it', () => {
  const { o, log, after } = ordered();
  assert.equal(o.place('p-1', 2), 'aside', 'chunks 0 and 1 never came');
  assert.equal(log.resumes, 1);
  after(5_000);
  assert.deepEqual(log.missing, [['p-1', 0, 1]], 'said, not skipped silently');
  o.resynced('p-2');
  assert.equal(o.place('p-2', 7), 'show', 'the relay no longer holds its start');
  o.shown('p-2', 7);
  assert.equal(o.place('p-2', 9), 'aside', 'then in order like any stream');
});

test('a gap is asked again at once, later chunks set aside, and a replay that fills it closes it', () => {
  const { o, log, after } = ordered();
  for (const c of [0, 1, 2, 3]) o.shown('p-1', c);
  assert.equal(o.place('p-1', 5), 'aside', 'chunk 4 never came');
  assert.equal(log.resumes, 1);
  assert.equal(o.place('p-1', 6), 'aside');
  assert.equal(log.resumes, 1, 'one ask while the replay is on its way');
  after(500);
  assert.equal(o.place('p-1', 4), 'show');
  o.shown('p-1', 4);
  assert.equal(o.place('p-1', 5), 'show', 'the replay goes on');
  assert.equal(o.waiting, false);
  after(10_000);
  assert.deepEqual([log.resumes, log.missing], [1, []]);
});

test('a gap nobody fills is asked three times in 4.5 s, then said, and the stream goes on past it', () => {
  const { o, log, after } = ordered();
  for (const c of [0, 1, 2, 3]) o.shown('p-1', c);
  o.place('p-1', 6); // chunks 4 and 5 never come
  o.place('p-1', 7);
  after(999);
  assert.equal(log.resumes, 1, 'not before a second');
  after(1);
  assert.equal(log.resumes, 2, 'again after 1 s');
  after(1499);
  assert.equal(log.resumes, 2);
  after(1);
  assert.equal(log.resumes, 3, 'again after 1.5 s more');
  assert.deepEqual(log.missing, []);
  after(2000);
  assert.deepEqual(log.missing, [['p-1', 4, 5]], 'given up 2 s after the third ask: chunks 4 to 5');
  assert.equal(log.resumes, 4, 'the stream is asked from the first chunk seen past the gap');
  assert.equal(o.last['p-1'], 5);
  assert.equal(o.place('p-1', 6), 'show');
  o.shown('p-1', 6);
  assert.equal(o.place('p-1', 4), 'duplicate', 'a late chunk is not shown out of place');
  after(10_000);
  assert.equal(log.resumes, 4, 'nothing more once in order');
});

test('a chunk that never opens is asked again and given up like a gap; one waiting for a key is asked once the key comes', () => {
  const { o, log, after } = ordered();
  o.shown('p-1', 0);
  assert.equal(o.place('p-1', 1), 'show');
  assert.equal(o.failed('p-1', 1), true);
  assert.equal(log.resumes, 1);
  assert.equal(o.place('p-1', 2), 'aside');
  assert.equal(o.failed('p-1', 1), false, 'the replay fails again: no second notice');
  after(4500);
  assert.deepEqual(log.missing, [['p-1', 1, 1]]);
  assert.equal(o.place('p-1', 2), 'show');
  // A key epoch not held yet: no ask until the key comes, then a fresh one.
  o.shown('p-2', 0);
  assert.equal(o.failed('p-2', 1, true), true);
  assert.equal(o.failed('p-2', 2, true), false, 'one notice per stream');
  after(1000); // asked meanwhile, in vain
  assert.equal(o.gaps.get('p-2').asks, 1);
  const before = log.resumes;
  o.keyLearned();
  assert.equal(log.resumes, before + 1);
  assert.equal(o.gaps.get('p-2').asks, 1, 'a fresh count of asks once the key is here');
  assert.equal(o.place('p-2', 1), 'show');
  o.shown('p-2', 1);
  assert.equal(o.waiting, false);
  // Resynced: what the relay no longer holds is gone, the stream goes on.
  o.place('p-1', 9);
  o.resynced('p-1');
  assert.equal(o.place('p-1', 9), 'show');
  assert.equal(o.waiting, false);
});

test('envelopes round-trip and bad ones decode to null', () => {
  const b = encode(T.StreamChunk, 'r-1', 'p-1', 7, new Uint8Array([1, 2]));
  const f = decode(b);
  assert.deepEqual([f.type, f.chunk, f.room, f.stream, [...f.payload]], [T.StreamChunk, 7, 'r-1', 'p-1', [1, 2]]);
  for (let n = 0; n < b.length; n++) decode(b.subarray(0, n));
  assert.equal(decode(b.subarray(0, 10)), null);
  const bad = b.slice();
  bad[0] = 2;
  assert.equal(decode(bad), null);
  assert.equal(parseJson('{"conn_id": 18446744073709551615, "name":"x"}').conn_id, '18446744073709551615');
});

test('streaming markdown completes what is still open', () => {
  assert.equal(completeStreaming('```rust\nfn main'), '```rust\nfn main\n```\n');
  assert.equal(completeStreaming('some `code'), 'some `code`');
  assert.equal(completeStreaming('very **bold'), 'very **bold**');
  assert.equal(completeStreaming('see [the docs](https://exa'), 'see the docs');
  assert.equal(completeStreaming('done.'), 'done.');
  assert.equal(settledEnd('para one\n\npara two'), 'para one\n\n'.length);
  assert.equal(settledEnd('```\na\n\nb'), 0, 'a blank line inside a fence does not settle');
});

// Two hunks of a modified file, the second with a removed line that reads
// like a file header and one like a hunk header, and no final newline.
const DIFF = [
  'diff --git a/src/lib.rs b/src/lib.rs',
  'index 1111111..2222222 100644',
  '--- a/src/lib.rs',
  '+++ b/src/lib.rs',
  '@@ -2,4 +2,5 @@ fn top() {',
  ' line 2',
  '-line 3',
  '+line three',
  '+line 3b',
  ' line 4',
  ' line 5',
  '@@ -20,3 +21,2 @@',
  ' line 20',
  '--- a/not-a-header',
  '-@@ -1 +1 @@',
  '+end',
  '\\ No newline at end of file',
  '',
].join('\n');

test('a diff is parsed into numbered lines on each side', () => {
  const { lines, hunks } = parseDiff(DIFF);
  const at = (text) => lines.find((l) => l.text === text);
  assert.deepEqual(lines.slice(0, 4).map((l) => l.kind), ['file', 'file', 'file', 'file']);
  assert.equal(hunks.length, 2);
  assert.deepEqual([at(' line 2').old, at(' line 2').new], [2, 2]);
  assert.deepEqual([at('-line 3').old, at('-line 3').new], [3, null]);
  assert.deepEqual([at('+line three').old, at('+line three').new], [null, 3]);
  assert.deepEqual([at('+line 3b').new, at(' line 4').old, at(' line 4').new], [4, 4, 5]);
  assert.deepEqual([at(' line 5').old, at(' line 5').new], [5, 6]);
  assert.deepEqual([at(' line 20').old, at(' line 20').new], [20, 21]);
  // Inside a hunk's counts these are removed lines, not headers.
  assert.deepEqual([at('--- a/not-a-header').kind, at('--- a/not-a-header').old], ['del', 21]);
  assert.deepEqual([at('-@@ -1 +1 @@').kind, at('-@@ -1 +1 @@').old, at('-@@ -1 +1 @@').hunk], ['del', 22, 1]);
  assert.deepEqual([at('+end').new, at('\\ No newline at end of file').kind], [22, 'note']);
  assert.ok(!commentable(at('@@ -20,3 +21,2 @@')) && !commentable(at('index 1111111..2222222 100644')));
  assert.ok(commentable(at('+end')) && commentable(at(' line 20')) && commentable(at('-line 3')));
});

test('a comment points at the new side, or the old one for a removed line', () => {
  const { lines } = parseDiff(DIFF);
  const at = (text) => lines.find((l) => l.text === text);
  assert.deepEqual(lineRef(at('+line 3b')), { n: 4, before: false });
  assert.deepEqual(lineRef(at(' line 5')), { n: 6, before: false });
  assert.deepEqual(lineRef(at('-line 3')), { n: 3, before: true });
  assert.deepEqual(lineRef(at('-@@ -1 +1 @@')), { n: 22, before: true });
});

test('the hunk of a line is its @@ header and every line of that hunk only', () => {
  const parsed = parseDiff(DIFF);
  const i = parsed.lines.findIndex((l) => l.text === '+line 3b');
  assert.equal(hunkText(parsed, i), '@@ -2,4 +2,5 @@ fn top() {\n line 2\n-line 3\n+line three\n+line 3b\n line 4\n line 5');
  const j = parsed.lines.findIndex((l) => l.text === '--- a/not-a-header');
  assert.equal(hunkText(parsed, j), '@@ -20,3 +21,2 @@\n line 20\n--- a/not-a-header\n-@@ -1 +1 @@\n+end\n\\ No newline at end of file');
  assert.equal(hunkText(parsed, 0), '', 'a file header is in no hunk');
});

test('a new file: one hunk from line 1, and its review text', () => {
  const parsed = parseDiff('diff --git a/n.py b/n.py\nnew file mode 100644\n--- /dev/null\n+++ b/n.py\n@@ -0,0 +1,2 @@\n+a = 1\n+b = 2\n');
  const i = parsed.lines.findIndex((l) => l.text === '+b = 2');
  assert.deepEqual(lineRef(parsed.lines[i]), { n: 2, before: false });
  assert.equal(
    reviewText('n.py', lineRef(parsed.lines[i]), hunkText(parsed, i), 'why 2?'),
    'Review comment on n.py, line 2:\n\n```diff\n@@ -0,0 +1,2 @@\n+a = 1\n+b = 2\n```\n\nwhy 2?',
  );
});

// The same cases as cohost_share::review's tests: one format for the TUI and the page.
test('review text is the format cohost_share::review writes', () => {
  const HUNK = '@@ -1,3 +1,3 @@\n fn main() {\n-    old();\n+    new();\n }\n';
  assert.equal(
    reviewText('src/main.rs', { n: 2, before: false }, HUNK, 'why new()?'),
    'Review comment on src/main.rs, line 2:\n\n```diff\n@@ -1,3 +1,3 @@\n fn main() {\n-    old();\n+    new();\n }\n```\n\nwhy new()?',
  );
  assert.equal(
    reviewText('a b/c.py', { n: 7, before: true }, '@@ -7 +6,0 @@\n-gone', 'keep it'),
    'Review comment on a b/c.py, line 7 (before the change):\n\n```diff\n@@ -7 +6,0 @@\n-gone\n```\n\nkeep it',
  );
  assert.ok(reviewText('x', { n: 1, before: false }, '@@ -0,0 +1 @@\n+x\r\n\n', 'one\n\ntwo').endsWith('+x\n```\n\none\n\ntwo'));
  const fenced = reviewText('README.md', { n: 3, before: false }, '@@ -1,2 +1,3 @@\n # Title\n+```sh\n+make\n+```\n', 'run it');
  assert.ok(fenced.includes('\n````diff\n@@'), fenced);
  assert.ok(fenced.endsWith('+```\n````\n\nrun it'), fenced);
  const five = reviewText('x.md', { n: 1, before: false }, '+`````', 'c');
  assert.ok(five.includes('``````diff\n+`````\n``````\n'), five);
});

test('summaries of a turn and of each file', () => {
  const files = [
    { path: 'a.rs', status: 'modified', added: 3, removed: 1 },
    { path: 'new.rs', old_path: 'old.rs', status: 'renamed', added: 0, removed: 0 },
    { path: 'logo.png', status: 'added', binary: true, size: 2048, added: 0, removed: 0 },
    { path: 'run.sh', status: 'mode_changed', old_mode: '100644', new_mode: '100755', added: 0, removed: 0 },
  ];
  assert.equal(summaryText(files), '4 files changed, +3 -1');
  assert.equal(summaryText([files[0]]), '1 file changed, +3 -1');
  assert.equal(pathText(files[1]), 'old.rs -> new.rs');
  assert.equal(pathText(files[0]), 'a.rs');
  assert.equal(countsText(files[0]), '+3 -1');
  assert.equal(countsText(files[2]), 'binary, 2048 bytes');
  assert.equal(modeText(files[3]), 'mode 100644 -> 100755');
  assert.equal(modeText({ new_mode: '100644' }), '', 'an added file has no mode change');
});

test("highlight.js's token tree splits into lines of text segments", () => {
  hljs.registerLanguage('rust', rust);
  const root = hljs.highlight('fn a() {\n  /* x\n y */ "<b>"\n}', { language: 'rust', ignoreIllegals: true })._emitter.rootNode;
  const lines = treeLines(root);
  assert.equal(lines.length, 4);
  assert.deepEqual(lines.map((l) => l.map((s) => s.text).join('')), ['fn a() {', '  /* x', ' y */ "<b>"', '}']);
  assert.deepEqual(lines[0][0], { text: 'fn', cls: 'hljs-keyword' });
  assert.deepEqual(lines[0][2], { text: 'a', cls: 'hljs-title function_' });
  // A comment spanning lines keeps its class on both.
  assert.equal(lines[1].find((s) => s.text.includes('/*')).cls, 'hljs-comment');
  assert.equal(lines[2].find((s) => s.text.includes('*/')).cls, 'hljs-comment');
  assert.equal(lines[2].find((s) => s.text === '"<b>"').cls, 'hljs-string');
  assert.equal(treeLines({ nope: 1 }), null, 'an unknown tree shape is refused');
});

// cohost-core's sanitize/terminal.rs cases: the terminal UI strips diff
// lines with it, so both quote the same hunk.
test('controls are stripped as cohost-core strip_controls does', () => {
  const cases = [
    ['\x1b]0;pwned\x07\x1b[2Jhello', 'hello'],
    ['a\x1b[31mred\x1b[0m b', 'ared b'],
    ['osc52 \x1b]52;c;ZXZpbA==\x1b\\done', 'osc52 done'],
    ['dcs \x1bPq#0;2;0;0;0\x1b\\ end', 'dcs  end'],
    ['c1 \u009b2J and \u009d0;t\u009cx', 'c1  and x'],
    ['bell\x07 bs\x08 cr\r del\x7f', 'bell bs cr del'],
    ['reset \x1bc now', 'reset  now'],
    ['charset \x1b(0box', 'charset box'],
    ['keep\nnewlines\tand tabs', 'keep\nnewlines\tand tabs'],
    ['unterminated \x1b]0;title', 'unterminated '],
    ['trailing esc \x1b', 'trailing esc '],
  ];
  for (const [input, want] of cases) assert.equal(stripControls(input), want, JSON.stringify(input));
});

test("a CRLF file's lines and an escape in a line are quoted without controls", () => {
  const parsed = parseDiff('@@ -1,2 +1,2 @@\r\n a\r\n-b\r\n+b\x1b]52;c;AAAA\x07\r\n');
  const i = parsed.lines.findIndex((l) => l.kind === 'add');
  assert.deepEqual(lineRef(parsed.lines[i]), { n: 2, before: false });
  assert.equal(hunkText(parsed, i), '@@ -1,2 +1,2 @@\n a\n-b\n+b');
});

test('a suggestion addressed to one member reads as the host reads it', () => {
  assert.deepEqual(addressed('@codex add a test'), { to: 'codex', text: 'add a test' });
  assert.deepEqual(addressed('  @claude#2: review it\nplease'), { to: 'claude#2', text: 'review it\nplease' });
  assert.equal(addressed('@codex'), null);
  assert.equal(addressed('mail me@example.com'), null);
  assert.equal(addressed('plain prompt'), null);
});

test("a room's agents are taken only from the host's signed chat, made inert", () => {
  const msg = { text: 'members: mock, mock#2', members: ['mock', 'mock#2'] };
  assert.deepEqual(hostMembers(msg, 'host'), ['mock', 'mock#2']);
  // A participant's chat (RoomCrypto.open names it by its bound key) never
  // speaks for the room, whatever it carries.
  assert.equal(hostMembers({ ...msg, members: ['intruder'] }, { name: 'mallory', role: 'CO_DRIVER' }), null);
  assert.equal(hostMembers({ text: 'hi' }, 'host'), null);
  assert.equal(hostMembers({ members: 'mock' }, 'host'), null);
  assert.deepEqual(hostMembers({ members: ['a\x1b[2Jb', 7, '', 'a\x1b[2Jb', 'x'.repeat(100)] }, 'host'), ['a[2Jb', 'x'.repeat(64)]);
  assert.equal(hostMembers({ members: Array.from({ length: 100 }, (_, i) => `m${i}`) }, 'host').length, 32);
});

test('a suggestion goes to the agent typed, else the one picked, else the host decides', () => {
  const members = ['mock', 'mock#2'];
  assert.deepEqual(addressedTo('@mock fix it', 'mock#2', members), { to: 'mock', text: 'fix it' });
  assert.deepEqual(addressedTo('fix it', 'mock#2', members), { to: 'mock#2', text: 'fix it' });
  assert.deepEqual(addressedTo('fix it', 'gone', members), { text: 'fix it' });
  assert.deepEqual(addressedTo('fix it', '', members), { text: 'fix it' });
});

test("a key's fingerprint is the one the host shows at the door (knock.rs)", async () => {
  // The same known answer as cohost-cli's knock::fingerprint test.
  assert.equal(await keyFingerprint(new Uint8Array(32).fill(1)), '72cd-6e84-22c4-07fb');
  // Only the host answers at the door.
  assert.ok(HOST_ONLY.has(T.KeyDoor) && !maySend(T.KeyDoor, 'CO_DRIVER') && maySend(T.KeyDoor, 'HOST'));
});
