// The web page in a real browser (issue 19's "done when"), run by
// crates/cohost-cli/tests/web_page.rs: Debian chromium, headless, driven by
// playwright-core, against a real `cohost share` host over the mock agent.
// Every scenario prints `ok NAME` or throws; the process exits non-zero on
// the first failure.

import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { STEP_MS, launch, need, startHost, startProxy, via, authorityOf } from './harness.mjs';

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

async function withRoom(fn, hostArgs = []) {
  const host = await startHost(hostArgs);
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
  // Chromium's own WebCrypto opens the shared e2e vectors (AES-GCM, Ed25519,
  // X25519, HKDF), through the page's module as served by the relay.
  async browser_crypto_vectors() {
    await withRoom(async ({ browser, link }) => {
      const vectors = JSON.parse(readFileSync(new URL('../../../cohost-share/tests/vectors/e2e-v1.json', import.meta.url), 'utf8'));
      const page = await openPage(browser, link('viewer'));
      const bodies = await page.evaluate(async (v) => {
        const e2e = await import('/assets/e2e.js');
        const hex = (s) => Uint8Array.from(s.match(/../g).map((b) => parseInt(b, 16)));
        const c = await e2e.RoomCrypto.create('room-vec', hex(v.room_key_hex), hex(v.host_public_hex));
        const out = [];
        for (const f of v.frames) {
          const a = f.ad_inputs;
          const frame = { type: a.frame_type_code, role: a.sender_role_code, chunk: a.chunk, room: a.room, stream: a.stream || '', payload: hex(f.payload_hex) };
          out.push(new TextDecoder().decode(await c.open(frame)));
        }
        const w = v.wrap;
        const jwk = { kty: 'OKP', crv: 'X25519', d: e2e.b64urlEncode(hex(w.recipient_secret_hex)), x: w.recipient_public };
        c.pair = { privateKey: await crypto.subtle.importKey('jwk', jwk, { name: 'X25519' }, false, ['deriveBits']) };
        out.push(await c.rotate({ keys: [w.expected] }, String(w.to)));
        return out;
      }, vectors);
      assert.deepEqual(bodies, [...vectors.frames.map((f) => f.body), 1]);
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
      assert.deepEqual(page.errors, []);
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

  // Hostile answer: no script runs, nothing outside the relay is requested.
  async xss_corpus() {
    await withRoom(async ({ host, browser, link }) => {
      const page = await openPage(browser, link('viewer'));
      const corpus = [
        '<script>top.__pwned=1</script>',
        '<img src=x onerror="top.__pwned=2">',
        '[click me](javascript:top.__pwned=3)',
        '<a href="javascript:top.__pwned=4">raw link</a>',
        '![tracker](http://evil.example/pixel.png)',
        '<iframe src="http://evil.example/frame"></iframe>',
        '<svg onload="top.__pwned=5"></svg>',
        '[ok](https://example.org/page)',
      ];
      host.type(`[mock:say] ${corpus.join('\\n\\n')}`);
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

  // A wrong key: a clear message, never garbage.
  async wrong_key() {
    await withRoom(async ({ host, browser, link }) => {
      const good = link('viewer');
      const seg = good.split('#')[1].split('.');
      assert.equal(seg.length, 5, 'web links carry JWT.KEY.HOSTPUB');
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

let failed = false;
for (const [name, run] of Object.entries(scenarios)) {
  if (only && only !== name) continue;
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
