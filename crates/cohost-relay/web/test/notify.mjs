// Browser notifications of the web page (issue 34), run by
// crates/cohost-cli/tests/it/web_page_notify.rs: the page's notice texts
// without a browser, then Debian chromium (headless, playwright-core)
// against a real `cohost share` host over the mock agent: permission is
// asked for only after a click on "Notify me"; a notification is made only
// while the page is not focused, for the tool call that waits for the host,
// the turn's end and the spent budget; never with the prompt's words.
// Prints `ok NAME` per scenario, exits non-zero on a failure.

import assert from 'node:assert/strict';
import { STEP_MS, authorityOf, launch, startHost, startProxy, via } from './harness.mjs';
import { noticeFor } from '../notify.js';

const only = process.argv[2];

const scenarios = {
  // The texts, as the Rust notifier makes them, without a browser.
  async web_notice_texts() {
    const approval = noticeFor({ type: 'tool_approval_requested', name: 'Bash', input: { command: 'rm -rf secret-words' } }, 'claude');
    assert.deepEqual(approval, { tag: 'approval_needed', title: 'cohost: claude needs approval', body: 'claude wants to run the tool Bash' });
    assert.equal(noticeFor({ type: 'stream_end', reason: 'budget', agent: 'codex' }).body, 'the turn was stopped: the budget is spent');
    assert.equal(noticeFor({ type: 'stream_end', reason: 'error' }, 'x').tag, 'turn_failed');
    assert.equal(noticeFor({ type: 'stream_chunk', delta: 'answer' }, 'x'), null);
    const spent = noticeFor({ type: 'budget', level: 'exceeded', spent_usd: 1.234, spent_tokens: 9, usd: 1 });
    assert.equal(spent.body, '$1.23 of $1.00 spent; the host can raise it');
    const evil = noticeFor({ type: 'tool_approval_requested', name: `x\u001b]0;title\u0007${'y'.repeat(300)}` }, 'a');
    assert.ok(!/[\u0000-\u001f]/.test(evil.body) && evil.body.length <= 120, evil.body);
  },

  async web_notifications_after_a_click() {
    const host = await startHost(['--budget-tokens', '100']);
    const proxy = await startProxy(authorityOf(host.invites.web_viewer));
    const browser = await launch();
    try {
      const link = via(host.invites.web_co_driver, proxy.authority);
      await browser.context.grantPermissions(['notifications'], { origin: new URL(link).origin });
      const page = await browser.context.newPage();
      await page.addInitScript(() => {
        // Every Notification made and every permission request, kept for
        // the test; focus as the test sets it.
        window.__notes = [];
        window.__asked = 0;
        window.__focused = true;
        const Real = window.Notification;
        class Spy {
          constructor(title, opts) {
            window.__notes.push({ title, body: opts?.body ?? '', tag: opts?.tag ?? '' });
            try {
              new Real(title, opts);
            } catch {
              // Headless: the real one may not show; the call is what counts.
            }
          }
          static get permission() {
            return Real.permission;
          }
          static requestPermission() {
            window.__asked++;
            return Real.requestPermission();
          }
        }
        window.Notification = Spy;
        document.hasFocus = () => window.__focused;
      });
      await page.goto(link);
      await page.waitForFunction(() => document.body.dataset.conn === 'connected', null, { timeout: STEP_MS });
      const turns = async (n) =>
        page.waitForFunction((k) => {
          const t = document.querySelectorAll('.turn');
          return t.length >= k && t[k - 1].dataset.state !== 'streaming';
        }, n, { timeout: STEP_MS });
      const notes = () => page.evaluate(() => window.__notes);
      assert.equal(await page.locator('#notify').textContent(), 'Notify me');
      assert.equal(await page.evaluate(() => window.__asked), 0, 'nothing asked on load');

      // Before the click: a turn ends unfocused, and nothing is shown.
      await page.evaluate(() => (window.__focused = false));
      host.type('[mock:text] first words-of-the-prompt');
      await turns(1);
      assert.deepEqual(await notes(), []);
      assert.equal(await page.evaluate(() => window.__asked), 0);

      // The click asks, once; focused, a turn's end shows nothing.
      await page.evaluate(() => (window.__focused = true));
      await page.click('#notify');
      await page.waitForFunction(() => document.querySelector('#notify').textContent === 'Notifications on', null, { timeout: STEP_MS });
      assert.equal(await page.evaluate(() => window.__asked), 1);
      host.type('[mock:text] second');
      await turns(2);
      assert.deepEqual(await notes(), []);

      // Looking elsewhere: the approval the host waits for, then the end.
      await page.evaluate(() => (window.__focused = false));
      const approval = host.wait((n) => n.notice === 'approval_needed', 'approval_needed');
      host.type('[mock:tool] words-of-the-prompt write it');
      await approval;
      await page.waitForFunction(() => window.__notes.length >= 1, null, { timeout: STEP_MS });
      host.type('/allow');
      await turns(3);
      await page.waitForFunction(() => window.__notes.length >= 2, null, { timeout: STEP_MS });
      let seen = await notes();
      assert.equal(seen[0].title, 'cohost: mock needs approval');
      assert.equal(seen[0].body, 'mock wants to run the tool write_file');
      assert.match(seen[0].tag, /^approval_needed:/);
      assert.equal(seen[1].title, 'cohost: mock is done');
      assert.match(seen[1].tag, /^turn_ended:/);

      // Turns until the budget (100 tokens) is spent: that is shown too.
      for (let i = 4; i < 12; i++) {
        seen = await notes();
        if (seen.some((n) => n.tag.startsWith('budget_exceeded:'))) break;
        host.type('[mock:text] more');
        await turns(i);
      }
      await page.waitForFunction(() => window.__notes.some((n) => n.tag.startsWith('budget_exceeded:')), null, { timeout: STEP_MS });
      seen = await notes();
      const spent = seen.find((n) => n.tag.startsWith('budget_exceeded:'));
      assert.equal(spent.title, 'cohost: the budget is spent');
      assert.match(spent.body, /of 100 tokens spent/);
      for (const n of seen) assert.ok(!JSON.stringify(n).includes('words-of-the-prompt'), `a prompt in ${JSON.stringify(n)}`);

      // A second click turns them off.
      await page.click('#notify');
      assert.equal(await page.locator('#notify').textContent(), 'Notify me');
    } finally {
      await browser.close();
      proxy.close();
      await host.stop();
    }
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
