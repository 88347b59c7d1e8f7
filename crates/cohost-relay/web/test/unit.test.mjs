// Unit tests of the page's modules that need no browser (node --test), run
// by crates/cohost-cli/tests/web_page.rs: the e2e codec against the shared
// test vectors (crates/cohost-share/tests/vectors/e2e-v1.json), the envelope,
// the streaming-markdown completion, and a turn's diff: line numbers, hunks,
// the review comment's text and the summaries.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import test from 'node:test';
import { OpenError, RoomCrypto, associatedData, b64urlDecode, b64urlEncode, parseFragment } from '../e2e.js';
import { T, addressed, decode, encode, parseJson } from '../wire.js';
import { completeStreaming, settledEnd } from '../stream-md.js';
import { commentable, countsText, hunkText, lineRef, modeText, parseDiff, pathText, reviewText, stripControls, summaryText, treeLines } from '../diff.js';
import hljs from '../vendor/hljs/core.min.js';
import rust from '../vendor/hljs/rust.min.js';

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

test('a host-only frame stamped as a participant opens only signed, and a replay is refused', async () => {
  const c = await room();
  const [host, chat] = vectors.frames;
  // The chat vector is unsigned: sealed again as a stream chunk from a
  // "co-driver" (what a relay holding a viewer's key could forge) it is
  // refused as forged, though it decrypts.
  const forger = await room();
  const forged = { type: T.StreamChunk, role: 2, chunk: 0, room: chat.ad_inputs.room, stream: 'p-9' };
  const payload = await forger.seal(forged.type, forged.role, forged.chunk, forged.stream, new TextEncoder().encode('{"type":"stream_chunk"}'));
  await assert.rejects(c.open({ ...forged, payload }), (e) => e.kind === 'forged');
  // The same chat payload twice: the second is a replay.
  assert.equal(text(await c.open(frameOf(chat))), chat.body);
  await assert.rejects(c.open(frameOf(chat)), (e) => e.kind === 'replay');
  // Stream frames are placed by chunk index, not refused: the relay resends them.
  await c.open(frameOf(host));
  await c.open(frameOf(host));
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
