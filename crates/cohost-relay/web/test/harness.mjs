// Shared by the browser test and the render bench: a real `cohost share`
// host over the mock agent (embedded relay), a TCP proxy in front of the
// relay that can drop every connection, and Debian's chromium through
// playwright-core.

import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';

export const STEP_MS = 30_000;

export function need(name) {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set (the Rust test sets it)`);
  return v;
}

export function loadPlaywright() {
  const dir = need('COHOST_PLAYWRIGHT_DIR');
  return createRequire(path.join(dir, 'package.json'))('playwright-core');
}

export function tempDir(prefix) {
  return mkdtempSync(path.join(os.tmpdir(), prefix));
}

/**
 * `cohost share --json` over the mock agent; lines of its stdout are
 * notices. `cwd` is the session's working directory (a scratch dir the
 * caller owns, whose files a test changes during a turn); by default the
 * scratch home. `env` adds variables (a standalone relay's admin secret).
 */
export async function startHost(extraArgs = [], { cwd, env = {} } = {}) {
  const home = tempDir('cohost-web-home-');
  const child = spawn(need('COHOST_BIN'), ['share', '--agent', 'mock', '--json', ...extraArgs], {
    env: {
      PATH: process.env.PATH,
      HOME: home,
      XDG_CONFIG_HOME: path.join(home, 'config'),
      XDG_DATA_HOME: path.join(home, 'data'),
      XDG_STATE_HOME: path.join(home, 'state'),
      XDG_CACHE_HOME: path.join(home, 'cache'),
      RUST_LOG: 'warn',
      ...env,
    },
    // The session's working directory (its turns are checkpointed there):
    // the scratch home, never this checkout.
    cwd: cwd || home,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const notices = [];
  const waiters = [];
  readline.createInterface({ input: child.stdout }).on('line', (line) => {
    let n;
    try {
      n = JSON.parse(line);
    } catch {
      return;
    }
    notices.push(n);
    for (const w of [...waiters]) if (w.pred(n)) w.done(n);
  });
  const host = {
    child,
    notices,
    stderr: () => stderr,
    /** The first notice (past or future) matching `pred`. */
    wait(pred, what) {
      const seen = notices.find(pred);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const w = {
          pred,
          done: (n) => {
            clearTimeout(timer);
            waiters.splice(waiters.indexOf(w), 1);
            resolve(n);
          },
        };
        const timer = setTimeout(() => {
          waiters.splice(waiters.indexOf(w), 1);
          reject(new Error(`host: no ${what} within ${STEP_MS} ms; stderr:\n${stderr}`));
        }, STEP_MS);
        waiters.push(w);
      });
    },
    type(line) {
      child.stdin.write(`${line}\n`);
    },
    async stop() {
      child.stdin.end('/quit\n');
      await new Promise((r) => {
        const t = setTimeout(() => {
          child.kill('SIGKILL');
          r();
        }, 5000);
        child.on('exit', () => {
          clearTimeout(t);
          r();
        });
      });
      rmSync(home, { recursive: true, force: true });
    },
  };
  host.invites = await host.wait((n) => n.notice === 'invites', 'invites');
  return host;
}

/** A TCP proxy to `target` (host:port) that can cut every connection at once. */
export async function startProxy(target) {
  const [thost, tport] = [target.slice(0, target.lastIndexOf(':')), Number(target.slice(target.lastIndexOf(':') + 1))];
  const live = new Set();
  const server = net.createServer((client) => {
    const up = net.connect(tport, thost);
    live.add(client);
    live.add(up);
    const gone = () => {
      live.delete(client);
      live.delete(up);
      client.destroy();
      up.destroy();
    };
    client.on('error', gone).on('close', gone);
    up.on('error', gone).on('close', gone);
    client.pipe(up);
    up.pipe(client);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return {
    authority: `127.0.0.1:${server.address().port}`,
    /** Cuts every open connection (the relay's sockets, as a network drop would). */
    dropAll() {
      const n = live.size;
      for (const s of live) s.destroy();
      return n / 2;
    },
    close() {
      for (const s of live) s.destroy();
      server.close();
    },
  };
}

/** The relay authority of a web link. */
export function authorityOf(link) {
  return new URL(link).host;
}

/** `link` pointed at `authority` instead of the relay. */
export function via(link, authority) {
  const u = new URL(link);
  return `${u.protocol}//${authority}${u.pathname}${u.hash}`;
}

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Headless Debian chromium with a fresh user-data dir; every request recorded. */
export async function launch() {
  const { chromium } = loadPlaywright();
  const profile = tempDir('cohost-web-profile-');
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.COHOST_CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1100, height: 760 },
  });
  const requests = [];
  context.on('request', (r) => requests.push(r.url()));
  context.on('requestfailed', (r) => requests.push(r.url()));
  context.on('page', (page) => page.on('websocket', (ws) => requests.push(ws.url())));
  for (const p of context.pages()) p.on('websocket', (ws) => requests.push(ws.url()));
  return {
    context,
    requests,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
