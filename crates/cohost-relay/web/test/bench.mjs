// Render bench (not a test): how long the page takes to show the last chunk
// of a 10,000-chunk answer after its frame arrived. A viewer page in
// headless chromium watches `[mock:chunks:10000]` from a real `cohost share`;
// the page stamps, for the last answer chunk, when its frame arrived
// (WebSocket message event), when it was opened (decrypted, verified,
// appended) and when the render including it finished (layout forced).
// Baseline, same run: rendering the whole answer at once (what redrawing
// everything per chunk would cost on the last one).
//
//   COHOST_BIN=target/debug/cohost COHOST_PLAYWRIGHT_DIR=... node crates/cohost-relay/web/test/bench.mjs [RUNS] [CHUNKS]

import { STEP_MS, launch, startHost } from './harness.mjs';

const runs = Number(process.argv[2] || 3);
const chunks = Number(process.argv[3] || 10000);
const host = await startHost();
const browser = await launch();
try {
  const page = await browser.context.newPage();
  await page.goto(host.invites.web_viewer);
  await page.waitForFunction(() => document.body.dataset.conn === 'connected', null, { timeout: STEP_MS });
  const rows = [];
  for (let i = 1; i <= runs; i++) {
    const t0 = Date.now();
    host.type(`[mock:chunks:${chunks}]`);
    await page.waitForFunction(
      (n) => {
        const t = document.querySelectorAll('.turn');
        return t.length >= n && t[n - 1].dataset.state !== 'streaming';
      },
      i,
      { timeout: 10 * STEP_MS },
    );
    const r = await page.evaluate((n) => {
      const t = document.querySelectorAll('.turn')[n - 1];
      const text = [...t.querySelectorAll('.answer')].map((a) => a.textContent).join('');
      return {
        arrival: Number(t.dataset.lastArrivalMs),
        open: Number(t.dataset.lastOpenMs),
        render: Number(t.dataset.lastRenderMs),
        chunks: (text.match(/chunk\d+/g) || []).length,
      };
    }, i);
    // Baseline in the same run: rendering the whole answer at once, which
    // is what a renderer that redraws everything per chunk pays for the last.
    const whole = await page.evaluate(async (n) => {
      const md = await import('/assets/markdown.js');
      const t = document.querySelectorAll('.turn')[n - 1];
      const text = [...t.querySelectorAll('.answer')].map((a) => a.innerText).join('\n\n');
      const el = document.createElement('div');
      document.body.append(el);
      const t0 = performance.now();
      el.innerHTML = md.renderMarkdown(text);
      void el.offsetHeight;
      const ms = performance.now() - t0;
      el.remove();
      return ms;
    }, i);
    rows.push({
      run: i,
      chunks_shown: r.chunks,
      arrival_to_rendered_ms: +(r.render - r.arrival).toFixed(2),
      opened_to_rendered_ms: +(r.render - r.open).toFixed(2),
      whole_answer_render_ms: +whole.toFixed(2),
      turn_wall_ms: Date.now() - t0,
    });
  }
  console.table(rows);
  const med = (k) => rows.map((r) => r[k]).sort((a, b) => a - b)[Math.floor(rows.length / 2)];
  console.log(
    `median over ${runs} runs of ${chunks} chunks: last chunk rendered ${med('arrival_to_rendered_ms')} ms after its frame arrived ` +
      `(${med('opened_to_rendered_ms')} ms after it was opened); rendering the whole answer at once: ${med('whole_answer_render_ms')} ms`,
  );
} finally {
  await browser.close();
  await host.stop();
}
