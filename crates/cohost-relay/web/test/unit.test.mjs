// Unit tests of the page's modules that need no browser (node --test), run
// by crates/cohost-cli/tests/web_page.rs: the e2e codec against the shared
// test vectors (crates/cohost-share/tests/vectors/e2e-v1.json), the envelope,
// and the streaming-markdown completion.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import test from 'node:test';
import { OpenError, RoomCrypto, associatedData, b64urlDecode, b64urlEncode, parseFragment } from '../e2e.js';
import { T, decode, encode, parseJson } from '../wire.js';
import { completeStreaming, settledEnd } from '../stream-md.js';

const vectors = JSON.parse(
  readFileSync(new URL('../../../cohost-share/tests/vectors/e2e-v1.json', import.meta.url), 'utf8'),
);
const hex = (s) => Uint8Array.from(s.match(/../g).map((b) => parseInt(b, 16)));
const toHex = (b) => [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
const text = (b) => new TextDecoder().decode(b);

async function room() {
  return RoomCrypto.create(vectors.frames[0].ad_inputs.room, hex(vectors.room_key_hex), hex(vectors.host_public_hex));
}

function frameOf(v, payload = hex(v.payload_hex)) {
  const a = v.ad_inputs;
  return { type: a.frame_type_code, role: a.sender_role_code, chunk: a.chunk, room: a.room, stream: a.stream || '', payload };
}

test('associated data matches the vectors', () => {
  for (const v of vectors.frames) {
    const a = v.ad_inputs;
    assert.equal(toHex(associatedData(a.frame_type_code, a.sender_role_code, a.chunk, a.room, a.stream || '')), v.ad_hex, v.name);
  }
});

test('vector payloads open (and the host one verifies)', async () => {
  const c = await room();
  for (const v of vectors.frames) assert.equal(text(await c.open(frameOf(v))), v.body, v.name);
});

test('a frame moved to another role, chunk, room or key fails to open', async () => {
  const c = await room();
  const [host, chat] = vectors.frames;
  for (const change of [{ role: 2 }, { chunk: 4 }, { room: 'room-other' }, { stream: 'p-2' }, { type: T.StreamEnd }]) {
    await assert.rejects(c.open({ ...frameOf(host), ...change }), OpenError, JSON.stringify(change));
  }
  // Stamped HOST but unsigned: refused even though it decrypts.
  await assert.rejects(c.open({ ...frameOf(chat), role: 1 }), (e) => e.kind === 'key' || e.kind === 'signature');
  const wrong = await RoomCrypto.create('room-vec', new Uint8Array(32).fill(9), hex(vectors.host_public_hex));
  await assert.rejects(wrong.open(frameOf(host)), (e) => e instanceof OpenError && e.kind === 'key');
  const otherHost = await RoomCrypto.create('room-vec', hex(vectors.room_key_hex), new Uint8Array(32).fill(7));
  await assert.rejects(otherHost.open(frameOf(host)), (e) => e.kind === 'signature');
  const bad = hex(host.payload_hex);
  bad[0] = 2;
  await assert.rejects(c.open(frameOf(host, bad)), (e) => e.kind === 'version');
});

test('what the page seals is the vector byte for byte, and opens', async () => {
  const c = await room();
  const v = vectors.frames[1];
  const a = v.ad_inputs;
  const sealed = await c.seal(a.frame_type_code, a.sender_role_code, a.chunk, a.stream || '', new TextEncoder().encode(v.body), 0, hex(v.nonce_hex));
  assert.equal(toHex(sealed), v.payload_hex);
});

test('a key.rotate wrap from the vectors unwraps to its room key', async () => {
  const w = vectors.wrap;
  const c = await RoomCrypto.create(w.room, hex(vectors.room_key_hex), hex(vectors.host_public_hex));
  const jwk = { kty: 'OKP', crv: 'X25519', d: b64urlEncode(hex(w.recipient_secret_hex)), x: w.recipient_public };
  c.pair = { privateKey: await crypto.subtle.importKey('jwk', jwk, { name: 'X25519' }, false, ['deriveBits']) };
  assert.equal(await c.rotate({ keys: [{ ...w.expected, to: '41' }] }, '42'), 0, 'a wrap for someone else is skipped');
  assert.equal(await c.rotate({ keys: [w.expected] }, String(w.to)), 1);
  assert.equal(c.current, w.epoch);
  // The unwrapped key is the vector's: what it seals opens under that key.
  const sealed = await c.seal(T.ChatMessage, 2, 0, '', new TextEncoder().encode('x'));
  const key = await crypto.subtle.importKey('raw', hex(w.room_key_hex), 'AES-GCM', false, ['decrypt']);
  const inner = await crypto.subtle.decrypt(
    { name: 'AES-GCM', iv: sealed.subarray(5, 17), additionalData: associatedData(T.ChatMessage, 2, 0, w.room, '') },
    key,
    sealed.subarray(17),
  );
  assert.equal(text(new Uint8Array(inner).subarray(1)), 'x');
});

test('invite fragments', () => {
  const k = vectors.invite_fragment_keys;
  const inv = parseFragment(`#a.b.c.${k}`);
  assert.equal(inv.jwt, 'a.b.c');
  assert.equal(toHex(inv.key), vectors.room_key_hex);
  assert.equal(toHex(inv.hostPub), vectors.host_public_hex);
  assert.equal(parseFragment('#a.b.c').key, null, 'a bare token has no key');
  assert.throws(() => parseFragment('#a.b.c.AAAA.BBBB'), /damaged/);
  assert.throws(() => parseFragment(''), /no room token/);
  assert.deepEqual(b64urlDecode(b64urlEncode(new Uint8Array([251, 255, 0]))), new Uint8Array([251, 255, 0]));
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
