// The web page in a real browser (issue 19's "done when"), run by
// crates/cohost-cli/tests/web_page.rs: Debian chromium, headless, driven by
// playwright-core, against a real `cohost share` host over the mock agent.
// Every scenario prints `ok NAME` or throws; the process exits non-zero on
// the first failure.

import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { STEP_MS, launch, need, startHost, startProxy, tempDir, via, authorityOf } from './harness.mjs';

const only = process.argv[2];
const screenshotDir = need('COHOST_SCREENSHOT_DIR');

/** Every answer block of the page's last turn, as text. */
async function lastTurn(page) {
  return page.evaluate(() => {
    const turns = document.querySelectorAll('.turn');
    const t = turns[turns.length - 1];
    if (!t) return null;
    return {
      prompt: t.querySelector('.prompt')?.textContent ?? '',
      answer: [...t.querySelectorAll('.answer')].map((a) => a.innerText).join('\n'),
      state: t.dataset.state,
      end: t.querySelector('.end')?.textContent ?? '',
      html: t.querySelector('.turn-body')?.innerHTML ?? '',
    };
  });
}

async function waitTurnEnd(page, turns = 1) {
  await page.waitForFunction(
    (n) => {
      const t = document.querySelectorAll('.turn');
      return t.length >= n && t[n - 1].dataset.state !== 'streaming';
    },
    turns,
    { timeout: STEP_MS },
  );
  return lastTurn(page);
}

async function openPage(browser, link) {
  const page = await browser.context.newPage();
  page.on('websocket', (ws) => browser.requests.push(ws.url()));
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.addInitScript(() => {
    window.__violations = [];
    document.addEventListener('securitypolicyviolation', (e) => window.__violations.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
  await page.goto(link);
  await page.waitForFunction(() => document.body.dataset.conn === 'connected' || document.body.dataset.state === 'fatal', null, {
    timeout: STEP_MS,
  });
  page.errors = errors;
  return page;
}

function inOrder(text, words) {
  let at = -1;
  for (const w of words) {
    const i = text.indexOf(w, at + 1);
    assert.ok(i > at, `"${w}" missing or out of order in:\n${text}`);
    at = i;
  }
}

// Hostile strings: in an answer (xss_corpus), in changed files' names and
// contents (changes_shown).
const XSS = [
  '<script>top.__pwned=1</script>',
  '<img src=x onerror="top.__pwned=2">',
  '[click me](javascript:top.__pwned=3)',
  '<a href="javascript:top.__pwned=4">raw link</a>',
  '![tracker](http://evil.example/pixel.png)',
  '<iframe src="http://evil.example/frame"></iframe>',
  '<svg onload="top.__pwned=5"></svg>',
  '[ok](https://example.org/page)',
];

/** What the page inserted that could run or load something, and what tried to. */
async function activeContent(page) {
  return page.evaluate(() => ({
    pwned: window.__pwned,
    violations: window.__violations,
    bad: document.getElementById('turns').querySelectorAll('script, img, iframe, svg, object, embed, a[href^="javascript"], [onerror], [onload]').length,
  }));
}

// A turn that changes files. The mock agent writes none, so the test
// changes the session's working directory (a scratch dir) while the mock's
// slow turn runs: checkpoints record whoever changed the tree.
const RUST = Array.from({ length: 10 }, (_, i) => `fn step_${i + 1}() -> u32 { ${i + 1} }`);
const NAMES = {
  html: '<img src=x onerror="top.__pwned=6">.html',
  js: 'javascript:top.__pwned=7.txt',
  renamedFrom: 'old<b>name.txt',
  renamedTo: '<svg onload="top.__pwned=8">.txt',
};
const BIG_LINES = 3000;

function seedTree(dir) {
  mkdirSync(path.join(dir, 'src'));
  writeFileSync(path.join(dir, 'src/lib.rs'), `${RUST.join('\n')}\n`);
  writeFileSync(path.join(dir, NAMES.renamedFrom), 'moved content\nline two\nline three\n');
  writeFileSync(path.join(dir, 'run.sh'), '#!/bin/sh\necho hi\n', { mode: 0o644 });
}

/** The turn's changes: 7 files, +3011 -1 (2+8+1+3000 added, 1 removed). */
function changeTree(dir) {
  const rust = [...RUST];
  rust.splice(4, 1, 'fn step_five() -> u32 { 5 }', 'fn step_5b() -> u32 { 55 }');
  writeFileSync(path.join(dir, 'src/lib.rs'), `${rust.join('\n')}\n`);
  writeFileSync(path.join(dir, NAMES.html), `${XSS.join('\n')}\n`);
  writeFileSync(path.join(dir, NAMES.js), 'x\n');
  renameSync(path.join(dir, NAMES.renamedFrom), path.join(dir, NAMES.renamedTo));
  chmodSync(path.join(dir, 'run.sh'), 0o755);
  writeFileSync(path.join(dir, 'blob.bin'), Buffer.alloc(300, 0));
  // Over the event's 64 KiB bound per file: counts only, diff_truncated.
  writeFileSync(path.join(dir, 'big.txt'), Array.from({ length: BIG_LINES }, (_, i) => `${'0123456789'.repeat(4)} ${i}\n`).join(''));
}

// The hunk git writes for src/lib.rs's change (3 lines of context).
const LIB_HUNK = [
  '@@ -2,7 +2,8 @@ fn step_1() -> u32 { 1 }',
  ' fn step_2() -> u32 { 2 }',
  ' fn step_3() -> u32 { 3 }',
  ' fn step_4() -> u32 { 4 }',
  '-fn step_5() -> u32 { 5 }',
  '+fn step_five() -> u32 { 5 }',
  '+fn step_5b() -> u32 { 55 }',
  ' fn step_6() -> u32 { 6 }',
  ' fn step_7() -> u32 { 7 }',
  ' fn step_8() -> u32 { 8 }',
].join('\n');

/** A room whose session works in a seeded scratch dir; `fn` gets `changed()`, which runs the changing turn. */
async function withChangingRoom(fn) {
  const work = tempDir('cohost-web-work-');
  seedTree(work);
  try {
    await withRoom(
      (room) =>
        fn({
          ...room,
          /** Runs a slow turn, changes the tree mid-turn, waits for its end on `pages`. */
          async changed(pages) {
            room.host.type('[mock:slow]');
            await pages[0].waitForFunction(() => /tick 3\b/.test(document.querySelector('.turn .answer')?.innerText ?? ''), null, {
              timeout: STEP_MS,
            });
                  changeTree(work);
            for (const p of pages) assert.equal((await waitTurnEnd(p)).state, 'completed');
          },
        }),
      [],
      { cwd: work },
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** Every file entry of the page's changes, as shown (opened, so its diff is built). */
async function openChanges(page) {
  // A page behind another gets few animation frames, and a click waits for some.
  await page.bringToFront();
  for (const s of await page.locator('.change > summary').all()) await s.click();
  await page.waitForFunction(() => [...document.querySelectorAll('.change')].every((d) => d.dataset.built), null, { timeout: STEP_MS });
  return page.evaluate(() =>
    [...document.querySelectorAll('.change')].map((d) => ({
      path: d.dataset.path,
      status: d.querySelector('.change-status').textContent,
      word: d.querySelector('.change-status').title,
      head: d.querySelector('summary').textContent,
      body: [...d.children].slice(1).map((c) => c.innerText).join('\n'),
    })),
  );
}

async function withRoom(fn, hostArgs = [], hostOpts = {}) {
  const host = await startHost(hostArgs, hostOpts);
  const proxy = await startProxy(authorityOf(host.invites.web_viewer));
  const browser = await launch();
  try {
    await fn({ host, proxy, browser, link: (role) => via(host.invites[`web_${role}`], proxy.authority) });
    const outside = browser.requests.filter((u) => !u.startsWith(`http://${proxy.authority}/`) && !u.startsWith(`ws://${proxy.authority}/`));
    assert.deepEqual(outside, [], 'the page requested something outside its relay');
  } finally {
    await browser.close();
    proxy.close();
    await host.stop();
  }
}

const scenarios = {
  // Chromium's own WebCrypto (AES-GCM, Ed25519, X25519, HKDF, HMAC) through
  // the page's module as served by the relay, against the shared format-v2
  // vectors: what a participant seals is the vector byte for byte (to the
  // host or under the room key), every frame under the room key opens as
  // the roster allows, and the key wrap unwraps.
  async browser_crypto_vectors() {
    await withRoom(async ({ browser, link }) => {
      const vectors = JSON.parse(readFileSync(new URL('../../../cohost-share/tests/vectors/e2e-v2.json', import.meta.url), 'utf8'));
      const page = await openPage(browser, link('viewer'));
      const got = await page.evaluate(async (v) => {
        const e2e = await import('/assets/e2e.js');
        const wire = await import('/assets/wire.js');
        const hex = (s) => Uint8Array.from(s.match(/../g).map((b) => parseInt(b, 16)));
        const toHex = (b) => [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
        const inv = e2e.parseFragment(`#a.b.c.${v.invite_fragment_keys}`);
        const as = async (p) => e2e.RoomCrypto.create(v.room, inv, p && (await e2e.Identity.fromSecrets(hex(p.seed_hex), hex(p.x25519_secret_hex), 0)));
        const frameOf = (f) => {
          const a = f.ad_inputs;
          return { type: a.frame_type_code, role: a.sender_role_code, chunk: a.chunk, room: a.room, stream: a.stream || '', payload: hex(f.payload_hex) };
        };
        const out = { sealed: [], opened: [] };
        for (const f of v.frames) {
          const who = v.participants.find((p) => p.ed25519_hex === f.sender_ed25519_hex);
          if (!who) continue;
          const a = f.ad_inputs;
          const opts = { nonce: hex(f.nonce_hex), seq: f.seq, ephemeralSecret: f.eph_secret_hex ? hex(f.eph_secret_hex) : undefined };
          const sealed = await (await as(who)).seal(a.frame_type_code, a.sender_role_code, a.chunk, a.stream || '', new TextEncoder().encode(f.body), opts);
          out.sealed.push([f.name, toHex(sealed) === f.payload_hex]);
        }
        const c = await as(null);
        const roster = v.frames.find((f) => f.ad_inputs.frame_type_code === 19);
        const rosterBody = (await c.open(frameOf(roster))).body;
        c.setRoster(wire.parseJson(rosterBody));
        for (const f of v.frames) {
          if (f.mode !== 0) continue;
          // The roster was taken once above: opened again it is a replay.
          const body = f === roster ? rosterBody : (await c.open(frameOf(f))).body;
          out.opened.push([f.name, new TextDecoder().decode(body) === f.body]);
        }
        const w = v.wrap;
        const r = await e2e.RoomCrypto.create(w.room, inv, await e2e.Identity.fromSecrets(new Uint8Array(32).fill(1), hex(w.recipient_secret_hex), 0));
        out.unwrapped = await r.rotate({ keys: [w.expected] }, String(w.to));
        return out;
      }, vectors);
      const participants = vectors.frames.filter((f) => vectors.participants.some((p) => p.ed25519_hex === f.sender_ed25519_hex));
      assert.deepEqual(got.sealed, participants.map((f) => [f.name, true]));
      assert.deepEqual(got.opened, vectors.frames.filter((f) => f.mode === 0).map((f) => [f.name, true]));
      assert.equal(got.unwrapped, 1);
    });
  },

  // A viewer sees a streamed answer in order, then the turn's end; tool
  // approvals show who decided; the screenshot for the README.
  async viewer_streams() {
    await withRoom(async ({ host, browser, link }) => {
      const page = await openPage(browser, link('viewer'));
      await page.setViewportSize({ width: 1000, height: 820 });
      // The echo scenario reasons first: reasoning is collapsed.
      host.type('what are you?');
      const t0 = await waitTurnEnd(page, 1);
      assert.equal(t0.state, 'completed');
      assert.match(t0.answer, /Hello from cohost's built-in mock agent/);
      const reasoning = await page.evaluate(() => {
        const d = document.querySelector('.turn details.reasoning');
        return d && { open: d.open, text: d.querySelector('.reasoning-text').textContent };
      });
      assert.deepEqual(reasoning, { open: false, text: 'The user wrote a prompt; answer briefly and say what I am.' });
      const words = Array.from({ length: 30 }, (_, i) => `w${i}`);
      host.type(`[mock:say] ## Streaming answer\\n\\n${words.join(' ')}\\n\\n\`\`\`rust\\nfn main() { println!("hi"); }\\n\`\`\`\\n\\n**done**`);
      // Seen while streaming: some words and not yet the end.
      await page.waitForFunction(() => /w3\b/.test(document.querySelectorAll('.turn')[1]?.querySelector('.answer')?.innerText ?? ''), null, {
        timeout: STEP_MS,
      });
      const partial = await lastTurn(page);
      assert.equal(partial.state, 'streaming', 'the first words show before the turn ends');
      const t = await waitTurnEnd(page, 2);
      inOrder(t.answer, ['Streaming answer', ...words, 'fn main()', 'done']);
      assert.equal(t.state, 'completed');
      assert.match(t.end, /completed/);
      assert.match(t.html, /<code class="hljs language-rust">/, `code is highlighted in:\n${t.html}`);
      assert.match(t.html, /<strong>done<\/strong>/);
      // A tool call the host allows: the card says who decided.
      const approval = host.wait((n) => n.notice === 'approval_needed', 'approval_needed');
      host.type('[mock:tool] write the file');
      await approval;
      await page.waitForSelector('.tool[data-approval="pending"]', { timeout: STEP_MS });
      host.type('/allow');
      const t2 = await waitTurnEnd(page, 3);
      assert.equal(t2.state, 'completed');
      const card = await page.locator('.tool').last().innerText();
      assert.match(card, /write_file/);
      assert.match(card, /allowed \(allow_once\) · by the host/);
      assert.match(card, /ok: wrote 26 bytes/);
      mkdirSync(screenshotDir, { recursive: true });
      await page.screenshot({ path: path.join(screenshotDir, 'web-viewer.png'), fullPage: true });
      // Phone-sized: the layout fits the width (no horizontal scroll).
      await page.setViewportSize({ width: 390, height: 844 });
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 0, `the page scrolls sideways on a phone by ${overflow}px`);
      // The room key left the address bar (issue 37), and a reload still
      // gets in (the tab keeps the invite in its sessionStorage).
      assert.ok(!page.url().includes('#'), `the invite stays in the URL: ${page.url()}`);
      await page.reload();
      await page.waitForFunction(() => document.body.dataset.conn === 'connected' || document.body.dataset.state === 'fatal', null, {
        timeout: STEP_MS,
      });
      assert.equal(await page.evaluate(() => document.body.dataset.conn), 'connected', 'a reload gets back in');
      assert.deepEqual(page.errors, []);
    });
  },

  // Delegated and quorum approvals (issue 34): edit calls need two
  // approvals; the co-driver page the host granted approval to shows Allow
  // and Deny on the call's card, the viewer page does not; the page's Allow
  // is one approval of two, the host's the second; both pages say who decided.
  async delegated_approval() {
    await withRoom(
      async ({ host, browser, link }) => {
        const co = await openPage(browser, link('co_driver'));
        const viewer = await openPage(browser, link('viewer'));
        // By name: the harness's JSON.parse rounds u64 connection ids.
        const joined = await host.wait(
          (n) => n.notice === 'presence' && n.presence.kind === 'joined' && n.presence.who?.role === 'CO_DRIVER',
          'the co-driver page',
        );
        host.type(`/grant ${joined.presence.who.name} approve edit`);
        // textContent: the notices' list sits in a closed <details>.
        await co.waitForFunction(() => /lets you approve tool calls \(edit\)/.test(document.getElementById('notices').textContent), null, {
          timeout: STEP_MS,
        });
        const asked = host.wait((n) => n.notice === 'approval_needed', 'the approval request');
        host.type('[mock:tool] write the file');
        const { tool_id: id } = await asked;
        const card = `.tool[data-tool-id="${id}"]`;
        await co.waitForSelector(`${card} button.vote-allow`, { timeout: STEP_MS });
        await viewer.waitForSelector(`${card}[data-approval="pending"]`, { timeout: STEP_MS });
        assert.equal(await viewer.locator('button.vote').count(), 0, 'a viewer without a grant gets no buttons');
        await co.click(`${card} button.vote-allow`);
        const counted = await host.wait((n) => n.notice === 'room' && /1 of 2 approvals/.test(n.message), 'one approval of two');
        assert.match(counted.message, /co-driver #\d+/);
        assert.equal(await co.locator(`${card}[data-approval="pending"]`).count(), 1, 'one approval of two runs nothing');
        host.type(`/allow ${id}`);
        for (const page of [co, viewer]) {
          assert.equal((await waitTurnEnd(page)).state, 'completed');
          const said = await page.locator(`${card} .tool-approval`).innerText();
          assert.match(said, /allowed \(allow_once\) · by .*co-driver #\d+.*, host/);
          assert.deepEqual(page.errors, []);
        }
      },
      ['--approve', 'ask', '--quorum', 'edit=2'],
    );
  },

  // Steering (issue 34): a host line and a co-driver's suggestion the host
  // accepts while the mock's slow turn runs reach that turn (no new turn):
  // each page shows them inside it, where they came in, named by who sent
  // them; the answer after them says the mock took them.
  async steered_shown() {
    await withRoom(async ({ host, browser, link }) => {
      const co = await openPage(browser, link('co_driver'));
      const viewer = await openPage(browser, link('viewer'));
      host.type('[mock:slow]');
      await viewer.waitForFunction(() => /tick 3\b/.test(document.querySelector('.turn .answer')?.innerText ?? ''), null, {
        timeout: STEP_MS,
      });
      host.type('also mention the changelog');
      await host.wait((n) => n.notice === 'event' && n.event?.type === 'steered', 'the host line steered');
      await co.fill('#suggestinput', 'and <b>the</b> readme');
      await co.click('#suggestform button[type=submit]');
      const s = await host.wait((n) => n.notice === 'suggested', 'suggestion');
      host.type(`/accept ${s.suggestion.suggestion_id}`);
      for (const page of [co, viewer]) {
        const t = await waitTurnEnd(page, 1);
        assert.equal(t.state, 'completed');
        assert.equal(await page.locator('.turn').count(), 1, 'a steer starts no turn of its own');
        const steered = await page.evaluate(() =>
          [...document.querySelectorAll('.turn .steered')].map((e) => [e.querySelector('.steered-who').textContent, e.querySelector('.steered-text').textContent]),
        );
        assert.equal(steered.length, 2, JSON.stringify(steered));
        assert.deepEqual(steered[0], ['↪ host → this turn', 'also mention the changelog']);
        assert.match(steered[1][0], /^↪ .*co-driver.* → this turn$/);
        assert.equal(steered[1][1], 'and <b>the</b> readme', 'a steered text stays text');
        // Where they came in: between answer blocks, before the turn's end.
        const order = await page.evaluate(() => [...document.querySelector('.turn').querySelectorAll('.answer, .steered, .end')].map((e) => e.className.split(' ')[0]));
        assert.deepEqual(order, ['answer', 'steered', 'answer', 'steered', 'answer', 'end']);
        inOrder(t.answer, ['[steered: also mention the changelog]', '[steered: and <b>the</b> readme]']);
        assert.deepEqual(await activeContent(page), { pwned: undefined, violations: [], bad: 0 });
        assert.deepEqual(page.errors, []);
      }
    });
  },

  // A co-driver's suggestion reaches the host, is accepted, and its answer
  // appears on the co-driver's and the viewer's page; chat and the
  // interrupt request reach the host.
  async co_driver_suggests() {
    await withRoom(async ({ host, browser, link }) => {
      const co = await openPage(browser, link('co_driver'));
      const viewer = await openPage(browser, link('viewer'));
      assert.ok(await co.isVisible('#suggestform'), 'a co-driver gets the suggestion box');
      assert.ok(!(await viewer.isVisible('#suggestform')), 'a viewer does not');
      await co.fill('#suggestinput', '[mock:say] answer to the suggestion s1 s2 s3');
      await co.click('#suggestform button[type=submit]');
      const s = await host.wait((n) => n.notice === 'suggested', 'suggestion');
      assert.equal(s.suggestion.text, '[mock:say] answer to the suggestion s1 s2 s3');
      host.type(`/accept ${s.suggestion.suggestion_id}`);
      for (const page of [co, viewer]) {
        const t = await waitTurnEnd(page);
        assert.equal(t.state, 'completed');
        inOrder(t.answer, ['answer', 'to', 'the', 'suggestion', 's1', 's2', 's3']);
      }
      await co.waitForSelector('#suggestions li[data-state="accepted"]', { timeout: STEP_MS });
      await co.fill('#chatinput', 'hello from the browser');
      await co.click('#chatform button[type=submit]');
      const chat = await host.wait((n) => n.notice === 'chat' && /hello from the browser/.test(n.chat.text), 'chat');
      assert.equal(chat.chat.text, 'hello from the browser');
      await viewer.waitForFunction(() => /hello from the browser/.test(document.getElementById('chatlog').innerText), null, {
        timeout: STEP_MS,
      });
      await co.click('#interrupt');
      const asked = await host.wait((n) => n.notice === 'interrupt_requested', 'interrupt request');
      assert.match(asked.from, /^co-driver #\d+$/, 'the host is told which co-driver asked');
      const people = await viewer.locator('#people').innerText();
      assert.match(people, /co-driver/);
    });
  },

  // A room of two agents: the host's compare shows one turn per member,
  // each headed by its member; a co-driver's `@mock#2 TEXT` reaches the host
  // as a suggestion for that member and runs there only.
  async room_of_two_members() {
    await withRoom(
      async ({ host, browser, link }) => {
        const co = await openPage(browser, link('co_driver'));
        const viewer = await openPage(browser, link('viewer'));
        host.type('/compare [mock:say] both of you answer');
        const members = async (page, n) => {
          await page.waitForFunction(
            (k) => [...document.querySelectorAll('.turn')].filter((t) => t.dataset.state === 'completed').length >= k,
            n,
            { timeout: STEP_MS },
          );
          return page.evaluate(() =>
            [...document.querySelectorAll('.turn')].map((t) => ({
              agent: t.dataset.agent || '',
              meta: t.querySelector('.meta')?.textContent ?? '',
              answer: [...t.querySelectorAll('.answer')].map((a) => a.innerText).join('\n'),
            })),
          );
        };
        for (const page of [co, viewer]) {
          const turns = await members(page, 2);
          assert.deepEqual(turns.map((t) => t.agent).sort(), ['mock', 'mock#2']);
          for (const t of turns) {
            assert.match(t.meta, new RegExp(`^${t.agent.replace('#', '\\#')} \\(mock\\)|^${t.agent} `), t.meta);
            inOrder(t.answer, ['both', 'of', 'you', 'answer']);
          }
        }
        await co.fill('#suggestinput', '@mock#2 [mock:say] only the second');
        await co.click('#suggestform button[type=submit]');
        const s = await host.wait((n) => n.notice === 'suggested', 'suggestion');
        assert.equal(s.suggestion.to, 'mock#2');
        assert.equal(s.suggestion.text, '[mock:say] only the second');
        host.type(`/accept ${s.suggestion.suggestion_id}`);
        for (const page of [co, viewer]) {
          const turns = await members(page, 3);
          const last = turns[turns.length - 1];
          assert.equal(last.agent, 'mock#2');
          inOrder(last.answer, ['only', 'the', 'second']);
        }
        await co.waitForSelector('#suggestions li[data-state="accepted"]', { timeout: STEP_MS });
      },
      ['--agent', 'mock'],
    );
  },

  // A room of two agents (issue 33): both pages list the agents the host
  // named in its signed chat; a co-driver bound by the host that sends a
  // chat carrying its own list (as any participant holding an invite can)
  // is shown as a chat line and changes no list; the co-driver page's
  // picker addresses a suggestion to one agent, which runs there only.
  async members_and_picker() {
    await withRoom(
      async ({ host, browser, link }) => {
        const co = await openPage(browser, link('co_driver'));
        const viewer = await openPage(browser, link('viewer'));
        const listed = (page) => page.evaluate(() => [...document.querySelectorAll('#members li')].map((li) => li.textContent));
        for (const page of [co, viewer]) {
          await page.waitForFunction(() => document.querySelectorAll('#members li').length === 2, null, { timeout: STEP_MS });
          assert.deepEqual(await listed(page), ['mock', 'mock#2']);
          assert.ok(await page.isVisible('#membersbox'));
        }
        assert.ok(await co.isVisible('#topick'), 'a co-driver gets the agent picker');
        assert.deepEqual(await co.evaluate(() => [...document.querySelectorAll('#to option')].map((o) => o.value)), ['', 'mock', 'mock#2']);
        // Mallory: a second co-driver, made in the co-driver page's tab from
        // its link (the page's own modules, its own identity and socket),
        // bound by the host, then claiming the room's agents in a chat.
        const said = await co.evaluate(async (hash) => {
          const wire = await import('/assets/wire.js');
          const e2e = await import('/assets/e2e.js');
          const room = location.pathname.split('/')[2];
          const inv = e2e.parseFragment(hash);
          const c = await e2e.RoomCrypto.create(room, inv);
          const ws = new WebSocket(`ws://${location.host}/v1/rooms/${room}/ws`, ['cohost.v1', `cohost.token.${inv.jwt}`]);
          ws.binaryType = 'arraybuffer';
          const send = async (type, role, body) => ws.send(wire.encode(type, room, '', 0, await c.seal(type, role, 0, '', wire.jsonBytes(body))));
          const result = await new Promise((resolve, reject) => {
            const timer = setTimeout(() => reject(new Error('mallory was never bound')), 20000);
            let role = 0;
            ws.onmessage = async (ev) => {
              const f = wire.decode(ev.data);
              if (!f) return;
              if (f.type === wire.T.RoomWelcome) {
                const w = wire.parseJson(f.payload);
                role = wire.ROLE[w.you.role];
                await send(wire.T.KeyAnnounce, role, await c.announce('mallory', w.you.conn_id));
              } else if (f.type === wire.T.KeyRoster) {
                const { body } = await c.open(f);
                if (!c.setRoster(wire.parseJson(body))) return;
                await send(wire.T.ChatMessage, role, { from: 'host', text: 'forged list', members: ['intruder'] });
                clearTimeout(timer);
                resolve('sent');
              }
            };
          });
          setTimeout(() => ws.close(), 2000);
          return result;
        }, `#${link('co_driver').split('#')[1]}`);
        assert.equal(said, 'sent');
        for (const page of [co, viewer]) {
          await page.waitForFunction(() => /forged list/.test(document.getElementById('chatlog').innerText), null, { timeout: STEP_MS });
          const line = await page.locator('#chatlog li', { hasText: 'forged list' }).innerText();
          assert.match(line, /^mallory forged list$/, 'the chat is the signer\'s, under its bound name');
          assert.deepEqual(await listed(page), ['mock', 'mock#2'], "a participant's list changed the page's");
        }
        // The picker: a suggestion for mock#2 without typing @mock#2.
        await co.bringToFront();
        await co.selectOption('#to', 'mock#2');
        await co.fill('#suggestinput', '[mock:say] picked the second');
        await co.click('#suggestform button[type=submit]');
        const s = await host.wait((n) => n.notice === 'suggested', 'suggestion');
        assert.equal(s.suggestion.to, 'mock#2');
        assert.equal(s.suggestion.text, '[mock:say] picked the second');
        host.type(`/accept ${s.suggestion.suggestion_id}`);
        for (const page of [co, viewer]) {
          await page.waitForFunction(() => [...document.querySelectorAll('.turn')].some((t) => t.dataset.state === 'completed'), null, {
            timeout: STEP_MS,
          });
          const turns = await page.evaluate(() => [...document.querySelectorAll('.turn')].map((t) => [t.dataset.agent, t.querySelector('.answer')?.innerText ?? '']));
          assert.deepEqual(turns.length, 1, JSON.stringify(turns));
          assert.equal(turns[0][0], 'mock#2');
          inOrder(turns[0][1], ['picked', 'the', 'second']);
          assert.deepEqual(page.errors, []);
        }
      },
      ['--agent', 'mock'],
    );
  },

  // Hostile answer: no script runs, nothing outside the relay is requested.
  async xss_corpus() {
    await withRoom(async ({ host, browser, link }) => {
      const page = await openPage(browser, link('viewer'));
      host.type(`[mock:say] ${XSS.join('\\n\\n')}`);
      const t = await waitTurnEnd(page);
      assert.equal(t.state, 'completed');
      const dom = await page.evaluate(() => {
        const root = document.getElementById('turns');
        return {
          pwned: window.__pwned,
          violations: window.__violations,
          bad: root.querySelectorAll('script, img, iframe, svg, object, embed, [onerror], [onload]').length,
          hrefs: [...root.querySelectorAll('a')].map((a) => [a.getAttribute('href'), a.getAttribute('rel')]),
          text: root.innerText,
        };
      });
      assert.equal(dom.pwned, undefined, 'a script of the answer ran');
      assert.equal(dom.bad, 0, 'an active element was inserted');
      assert.deepEqual(dom.violations, [], 'nothing tried to break the CSP');
      for (const [href, rel] of dom.hrefs) {
        assert.ok(href === null || /^https?:/.test(href), `unsafe href ${href}`);
        assert.equal(rel, 'noopener noreferrer');
      }
      assert.ok(dom.hrefs.some(([h]) => h === 'https://example.org/page'), 'a safe link stays a link');
      assert.match(dom.text, /<script>top.__pwned=1<\/script>/, 'raw HTML shows as text');
      assert.match(dom.text, /image: tracker/, 'images show as a placeholder');
      for (const a of await page.locator('#turns a:not([href])').all()) await a.click();
      assert.equal(await page.evaluate(() => window.__pwned), undefined);
      const headers = (await page.request.get(page.url())).headers();
      assert.match(headers['content-security-policy'], /default-src 'none'; script-src 'self'/);
      assert.match(headers['content-security-policy'], /require-trusted-types-for 'script'; trusted-types dompurify/);
      const sink = await page.evaluate(() => {
        try {
          document.createElement('div').innerHTML = '<b>x</b>';
          return 'a string reached an HTML sink';
        } catch (e) {
          return e.name;
        }
      });
      assert.equal(sink, 'TypeError', 'Trusted Types keep strings out of HTML sinks');
      assert.equal(headers['x-content-type-options'], 'nosniff');
      assert.equal(headers['referrer-policy'], 'no-referrer');
      assert.deepEqual(page.errors, []);
    });
  },

  // A turn's changed files under its answer, on a viewer's and a
  // co-driver's page: the summary, each file's status, path, counts and
  // mode, its diff coloured and highlighted; hostile names and contents
  // stay text, run nothing and request nothing outside the relay.
  async changes_shown() {
    await withChangingRoom(async ({ browser, link, changed }) => {
      const viewer = await openPage(browser, link('viewer'));
      const co = await openPage(browser, link('co_driver'));
      await changed([viewer, co]);
      for (const page of [viewer, co]) {
        const summary = await page.locator('.turn .changes-summary').innerText();
        assert.equal(summary, `7 files changed, +${2 + XSS.length + 1 + BIG_LINES} -1`);
        // Under the answer, above the turn's end.
        const order = await page.evaluate(() => [...document.querySelector('.turn').querySelectorAll('.answer, .changes, .end')].map((e) => e.className));
        assert.deepEqual(order, ['answer md', 'changes', 'end end-completed']);
      }
      const files = await openChanges(viewer);
      const by = Object.fromEntries(files.map((f) => [f.path, f]));
      assert.deepEqual(Object.keys(by).sort(), ['big.txt', 'blob.bin', NAMES.js, NAMES.html, NAMES.renamedTo, 'run.sh', 'src/lib.rs'].sort());
      assert.deepEqual([by['src/lib.rs'].status, by['src/lib.rs'].word, by['src/lib.rs'].head], ['M', 'modified', 'M src/lib.rs +2 -1']);
      assert.equal(by[NAMES.html].head, `A ${NAMES.html} +${XSS.length} -0`);
      assert.equal(by[NAMES.js].head, `A ${NAMES.js} +1 -0`);
      assert.equal(by[NAMES.renamedTo].head, `R ${NAMES.renamedFrom} -> ${NAMES.renamedTo} +0 -0`);
      assert.equal(by['run.sh'].head, 'T run.sh +0 -0 mode 100644 -> 100755');
      assert.equal(by['blob.bin'].head, 'A blob.bin binary, 300 bytes');
      assert.match(by['big.txt'].head, new RegExp(`^A big.txt \\+${BIG_LINES} -0 diff too large$`));
      assert.match(by['big.txt'].body, /too large to send to the room; run `cohost diff --turn 1` on the host/);
      // The hostile file's lines are its text, character for character.
      for (const x of XSS) assert.ok(by[NAMES.html].body.includes(`+${x}`), `${x} is not shown as text in:\n${by[NAMES.html].body}`);
      // src/lib.rs: rows, numbers and colours.
      const lib = await viewer.evaluate(() => {
        const d = [...document.querySelectorAll('.change')].find((e) => e.dataset.path === 'src/lib.rs');
        const rows = [...d.querySelectorAll('.diff-line')].map((r) => ({
          kind: r.className.replace('diff-line diff-', ''),
          old: r.querySelector('.ln-old').textContent,
          new: r.querySelector('.ln-new').textContent,
          text: r.querySelector('.diff-code').textContent,
          color: getComputedStyle(r).color,
          background: getComputedStyle(r).backgroundColor,
          keywords: [...r.querySelectorAll('.hljs-keyword')].map((k) => k.textContent),
        }));
        return rows;
      });
      const row = (text) => lib.find((r) => r.text === text);
      assert.deepEqual(
        lib.filter((r) => r.kind === 'file').map((r) => r.text.split(' ')[0]),
        ['diff', 'index', '---', '+++'],
        'the file header rows',
      );
      const hunk = lib.filter((r) => r.kind !== 'file').map((r) => r.text).join('\n');
      assert.equal(hunk, LIB_HUNK, 'the rows are the hunk, in order');
      assert.deepEqual([row('-fn step_5() -> u32 { 5 }').kind, row('-fn step_5() -> u32 { 5 }').old, row('-fn step_5() -> u32 { 5 }').new], ['del', '5', '']);
      assert.deepEqual([row('+fn step_five() -> u32 { 5 }').kind, row('+fn step_five() -> u32 { 5 }').new], ['add', '5']);
      assert.deepEqual([row('+fn step_5b() -> u32 { 55 }').new, row(' fn step_6() -> u32 { 6 }').old, row(' fn step_6() -> u32 { 6 }').new], ['6', '6', '7']);
      const [add, del, ctx, hunkRow, file] = ['add', 'del', 'ctx', 'hunk', 'file'].map((k) => lib.find((r) => r.kind === k));
      assert.notEqual(add.background, ctx.background, '+ lines are marked');
      assert.notEqual(del.background, ctx.background, '- lines are marked');
      assert.notEqual(add.background, del.background);
      assert.notEqual(hunkRow.color, ctx.color, 'hunk headers are distinct');
      assert.notEqual(file.color, ctx.color, 'file headers are dim');
      assert.match(add.color, /^rgb\((\d+), (\d+), (\d+)\)$/);
      const [r, g] = add.color.match(/\d+/g).map(Number);
      assert.ok(g > r, `+ lines are green (${add.color})`);
      const [r2, g2] = del.color.match(/\d+/g).map(Number);
      assert.ok(r2 > g2, `- lines are red (${del.color})`);
      assert.deepEqual(row('+fn step_5b() -> u32 { 55 }').keywords, ['fn'], 'Rust is highlighted by its extension');
      // Nothing hostile ran, loaded or was inserted, on either page.
      await openChanges(co);
      for (const page of [viewer, co]) {
        const seen = await activeContent(page);
        assert.deepEqual(seen, { pwned: undefined, violations: [], bad: 0 });
        assert.deepEqual(page.errors, []);
      }
      // A viewer cannot comment: its lines open no form.
      await viewer.bringToFront();
      await viewer.locator('.diff-add').first().click();
      assert.equal(await viewer.locator('.review-form').count(), 0, 'a viewer got a review form');
      assert.equal(await viewer.locator('.diff-line[data-line]').count(), 0, "a viewer's lines are commentable");
    });
  },

  // A co-driver comments on a removed and an added line: each reaches the
  // host as a suggestion in the review format (path, line, hunk, comment);
  // accepted, it is the next turn's prompt.
  async review_comments() {
    await withChangingRoom(async ({ host, browser, link, changed }) => {
      const co = await openPage(browser, link('co_driver'));
      const viewer = await openPage(browser, link('viewer'));
      await changed([co, viewer]);
      await co.bringToFront();
      await co.locator('.change[data-path="src/lib.rs"] > summary').click();
      const comment = async (text, words) => {
        await co.locator('.change[data-path="src/lib.rs"] .diff-line', { hasText: text }).click();
        await co.fill('.review-form textarea', words);
        await co.click('.review-form button[type=submit]');
        return host.wait((n) => n.notice === 'suggested' && n.suggestion.text.endsWith(words), `the suggestion "${words}"`);
      };
      const removed = await comment('-fn step_5() -> u32 { 5 }', 'keep the old name, callers use it');
      assert.equal(
        removed.suggestion.text,
        `Review comment on src/lib.rs, line 5 (before the change):\n\n\`\`\`diff\n${LIB_HUNK}\n\`\`\`\n\nkeep the old name, callers use it`,
      );
      await co.waitForSelector('.review-sent', { timeout: STEP_MS });
      // A hostile comment stays text wherever it shows (the list, the next prompt).
      const words = `why 55? ${XSS[1]}`;
      const added = await comment('+fn step_5b() -> u32 { 55 }', words);
      assert.equal(added.suggestion.text, `Review comment on src/lib.rs, line 6:\n\n\`\`\`diff\n${LIB_HUNK}\n\`\`\`\n\n${words}`);
      // The host accepts one: it runs as the next prompt, seen on both pages.
      host.type(`/accept ${added.suggestion.suggestion_id}`);
      for (const page of [co, viewer]) {
        const t = await waitTurnEnd(page, 2);
        assert.equal(t.prompt, added.suggestion.text);
      }
      await co.waitForSelector(`#suggestions li[data-suggestion-id="${added.suggestion.suggestion_id}"][data-state="accepted"]`, { timeout: STEP_MS });
      for (const page of [co, viewer]) {
        assert.deepEqual(await activeContent(page), { pwned: undefined, violations: [], bad: 0 });
        assert.deepEqual(page.errors, []);
      }
    });
  },

  // A wrong key: a clear message, never garbage; a format-v1 link and a
  // bare token say what is wrong with them.
  async wrong_key() {
    await withRoom(async ({ host, browser, link }) => {
      const good = link('viewer');
      const seg = good.split('#')[1].split('.');
      assert.equal(seg.length, 7, 'web links carry JWT.KEY.HOSTSIG.HOSTX.TICKET');
      const v1 = await openPage(browser, `${good.split('#')[0]}#${seg.slice(0, 5).join('.')}`);
      assert.match(
        await v1.locator('#fatal').innerText(),
        /this invite comes from a cohost that speaks sharing format v1; ask the host to upgrade cohost and send a new invite/,
      );
      const key = seg[3];
      seg[3] = (key[0] === 'A' ? 'B' : 'A') + key.slice(1);
      const page = await openPage(browser, `${good.split('#')[0]}#${seg.join('.')}`);
      host.type('[mock:say] secret words nobody should see');
      await page.waitForSelector('#fatal:not([hidden])', { timeout: STEP_MS });
      assert.match(await page.locator('#fatal').innerText(), /room key does not open/);
      assert.equal(await page.locator('.turn').count(), 0, 'nothing undecryptable is shown');
      assert.doesNotMatch(await page.locator('body').innerText(), /secret words/);
      const bare = await openPage(browser, `${good.split('#')[0]}#${seg.slice(0, 3).join('.')}`);
      assert.match(await bare.locator('#fatal').innerText(), /no room key/);
    });
  },

  // The host removes the viewer: the page says so and stops.
  async kicked() {
    await withRoom(async ({ host, browser, link }) => {
      const page = await openPage(browser, link('viewer'));
      // The page is connected to the relay before the host has seen it join:
      // a kick typed earlier finds nobody to remove.
      await host.wait((n) => n.notice === 'presence' && n.presence.kind === 'joined' && !n.presence.you, 'the viewer joining');
      host.type('/kick viewer');
      await page.waitForSelector('#fatal:not([hidden])', { timeout: STEP_MS });
      assert.match(await page.locator('#fatal').innerText(), /removed you from the room/);
    });
  },

  // Issue 34, --knock: a page at the door says it waits, with the key
  // fingerprint the host reads beside its name, then that it was let in
  // (and shows the next turn); a second page the host refuses says so and
  // stops, having shown nothing of the room.
  async knock() {
    await withRoom(
      async ({ host, browser, link }) => {
        const knocked = async () => {
          const n = await host.wait(
            (n) => n.notice === 'room' && /knocks: key fingerprint/.test(n.message) && !host.notices.answered?.has(n),
            'a knock',
          );
          (host.notices.answered ??= new Set()).add(n);
          const [, fp] = n.message.match(/knocks: key fingerprint ([0-9a-f-]{19})/);
          const [, who] = n.message.match(/\/admit (\S+) or/);
          return { fp, who };
        };
        const waits = async (page) => {
          await page.waitForFunction(() => document.body.dataset.door === 'waiting', null, { timeout: STEP_MS });
          return page.locator('#notice').innerText();
        };
        const ana = await openPage(browser, link('co_driver'));
        const k1 = await knocked();
        const said = await waits(ana);
        assert.match(said, /^Waiting for the host to let you in; your key fingerprint is \S+: the host sees it beside your name \(refused in 5 min without an answer\)\.$/);
        assert.ok(said.includes(`your key fingerprint is ${k1.fp}`), `${said} / ${k1.fp}`);
        host.type(`/admit ${k1.who}`);
        await ana.waitForFunction(() => document.body.dataset.door === 'admitted', null, { timeout: STEP_MS });
        host.type('[mock:say] pangolin');
        const t = await waitTurnEnd(ana);
        assert.match(t.answer, /pangolin/);

        const bo = await openPage(browser, link('viewer'));
        const k2 = await knocked();
        await waits(bo);
        host.type(`/refuse ${k2.who}`);
        await bo.waitForSelector('#fatal:not([hidden])', { timeout: STEP_MS });
        assert.match(await bo.locator('#fatal').innerText(), new RegExp(`^The host did not let you in \\(your key fingerprint ${k2.fp}\\)`));
        assert.equal(await bo.locator('.turn').count(), 0, 'nothing of the room reached the refused page');
        assert.deepEqual(ana.errors, []);
        assert.deepEqual(bo.errors, []);
      },
      ['--knock'],
    );
  },

  // Issue 37, loss is visible: a relay in the middle (the Rust proxy of
  // relay_mitm.rs, run by crates/cohost-cli/tests/it/web_page.rs in front of
  // a real relay named by COHOST_WEB_RELAY) leaves out envelope chunk 4 of the
  // first turn once and of the second turn always. The first is asked again
  // and shown whole, in order; the second says "1 chunk missing from this
  // answer" where the chunk was, and the rest of the turn flows to its end.
  async chunk_dropped() {
    await withRoom(
      async ({ host, browser, link }) => {
        const page = await openPage(browser, link('viewer'));
        const words = (answer) => answer.match(/chunk\d+/g) || [];
        const all = Array.from({ length: 30 }, (_, i) => `chunk${i}`);
        host.type('[mock:chunks:30] turn 1');
        const t1 = await waitTurnEnd(page, 1);
        assert.equal(t1.state, 'completed');
        assert.deepEqual(words(t1.answer), all, 'the dropped chunk was asked for again: every chunk once, in order');
        assert.equal(await page.locator('.turn .missing').count(), 0);
        host.type('[mock:chunks:30] turn 2');
        const t2 = await waitTurnEnd(page, 2);
        assert.equal(t2.state, 'completed', 'a chunk that never comes does not stall the turn');
        const got = words(t2.answer);
        assert.equal(got.length, all.length - 1, `one chunk left out:\n${t2.answer}`);
        assert.deepEqual(got, all.filter((w) => got.includes(w)), 'the rest in order, none twice');
        const turn2 = page.locator('.turn').nth(1);
        assert.match(await turn2.locator('.missing').innerText(), /^⚠ 1 chunk missing from this answer: the relay never sent chunk 4$/);
        // Said where the chunk was: between the answer's parts.
        const order = await turn2.evaluate((t) => [...t.querySelectorAll('.answer, .missing, .end')].map((e) => e.className.split(' ')[0]));
        assert.deepEqual(order, ['answer', 'missing', 'answer', 'end']);
        assert.equal(await page.evaluate(() => document.body.dataset.missing), '1');
        assert.match(await page.locator('#notices').textContent(), /1 chunk missing from this answer \(chunk 4\)/);
        assert.deepEqual(page.errors, []);
      },
      ['--relay', need('COHOST_WEB_RELAY')],
      { env: { COHOST_RELAY_ADMIN_SECRET: need('COHOST_RELAY_ADMIN_SECRET') } },
    );
  },

  // The relay connection drops mid-stream: the page reconnects, resumes from
  // its last chunk and misses none.
  async resume_after_drop() {
    await withRoom(async ({ host, proxy, browser, link }) => {
      const page = await openPage(browser, link('viewer'));
      host.type('[mock:slow]');
      await page.waitForFunction(() => /tick 10\b/.test(document.querySelector('.turn .answer')?.innerText ?? ''), null, {
        timeout: STEP_MS,
      });
      assert.ok(proxy.dropAll() >= 1, 'a connection was cut');
      const t = await waitTurnEnd(page);
      assert.equal(t.state, 'completed');
      const ticks = t.answer.match(/tick \d+/g);
      assert.deepEqual(ticks, Array.from({ length: 50 }, (_, i) => `tick ${i}`), 'every chunk once, in order');
      assert.ok(Number(await page.evaluate(() => document.body.dataset.drops)) >= 1, 'the page saw the drop');
      assert.match(await page.locator('#notices').textContent(), /Reconnected; resuming from chunk \d+ of the running turn/);
    });
  },
};

// Scenarios that need a relay the Rust test sets up: run only by name.
const BY_NAME_ONLY = new Set(['chunk_dropped']);
let failed = false;
for (const [name, run] of Object.entries(scenarios)) {
  if (only ? only !== name : BY_NAME_ONLY.has(name)) continue;
  const t0 = Date.now();
  try {
    await run();
    console.log(`ok ${name} (${Date.now() - t0} ms)`);
  } catch (e) {
    failed = true;
    console.log(`FAILED ${name}: ${e.stack || e}`);
  }
}
process.exit(failed ? 1 : 0);
