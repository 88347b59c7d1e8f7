// The participant page: reads the invite from the URL fragment (never sent
// to the relay), connects to the relay's WebSocket with the token as a
// subprotocol entry (as the CLI does), opens and verifies every payload, and
// renders the room. Reconnects with resume from the last chunk per stream.

import { T, ROLE, decode, encode, isReplayable, isValidId, jsonBytes, parseJson } from './wire.js';
import { OpenError, RoomCrypto, parseFragment } from './e2e.js';
import { GAP_WAIT_MS, StreamOrder } from './loss.js';
import { addressedTo, hostMembers } from './members.js';
import { Turn } from './render.js';
import { WebNotifier } from './notify.js';

const $ = (id) => document.getElementById(id);
const text = new TextDecoder();

const state = {
  room: '',
  jwt: '',
  crypto: null,
  ws: null,
  me: null, // {conn_id, role, name}
  people: new Map(), // conn_id -> {role, name}
  order: null, // StreamOrder: each stream's last chunk shown, its gaps (loss.js)
  turns: new Map(),
  opened: 0, // payloads opened so far
  failing: false, // a failure notice is showing
  duplicates: 0, // chunks that came again after being shown
  refusedCount: 0, // frames refused as replays, forgeries or from unknown senders
  oldFormat: new Set(), // senders said to speak another sharing format
  everConnected: false,
  attempts: 0,
  drops: 0,
  closed: false,
  queue: Promise.resolve(),
  providers: new Map(), // stream (prompt id) -> provider, for notifications
  notifier: null, // WebNotifier, once the page runs
  grants: { grants: [], quorum: [] }, // who the host lets approve what
  asking: new Map(), // tool_id -> its approval request, while undecided
  members: [], // the room's agents, as the host last said (several agents)
};

function fatal(message) {
  state.closed = true;
  if (state.ws) state.ws.close();
  const el = $('fatal');
  el.textContent = message;
  el.hidden = false;
  document.body.dataset.state = 'fatal';
  setConn('stopped');
}

let noticeTimer = 0;
function notice(message, sticky = false) {
  const el = $('notice');
  el.textContent = message;
  el.hidden = false;
  clearTimeout(noticeTimer);
  if (!sticky) noticeTimer = setTimeout(() => (el.hidden = true), 8000);
  const log = $('notices');
  const li = document.createElement('li');
  li.textContent = message;
  log.append(li);
}

function setConn(s) {
  $('conn').textContent = s;
  document.body.dataset.conn = s;
}

/** The host's name for a chat line: the relay's presence name only when it says that connection is the host's. */
function hostName(connId) {
  const p = state.people.get(String(connId));
  return p && p.role === 'HOST' ? p.name : 'host';
}

function renderPeople() {
  const ul = $('people');
  ul.replaceChildren();
  for (const [id, p] of state.people) {
    const li = document.createElement('li');
    li.textContent = `${p.name}${state.me && String(state.me.conn_id) === id ? ' (you)' : ''}`;
    const role = document.createElement('span');
    role.className = `role role-${p.role}`;
    role.textContent = p.role.replace('_', '-').toLowerCase();
    li.append(' ', role);
    ul.append(li);
  }
}

/**
 * The room's agents, as the host said in a signed chat: listed beside the
 * people, and offered to a co-driver as whom a suggestion is for. A room
 * of one agent has no list (the host sends none).
 */
function renderMembers(names) {
  state.members = names;
  const ul = $('members');
  ul.replaceChildren();
  for (const n of names) {
    const li = document.createElement('li');
    li.textContent = n;
    ul.append(li);
  }
  $('membersbox').hidden = names.length < 2;
  const pick = $('to');
  const was = pick.value;
  pick.replaceChildren(new Option('the host\'s choice', ''));
  for (const n of names) pick.append(new Option(n, n));
  pick.value = names.includes(was) ? was : '';
  $('topick').hidden = names.length < 2;
}

// What a turn's diff needs to take review comments: only a co-driver may
// suggest (the relay refuses a viewer's suggestion anyway).
const reviewHooks = {
  canReview: () => state.me?.role === 'CO_DRIVER',
  suggest,
};

function turn(promptId) {
  let t = state.turns.get(promptId);
  if (!t) {
    t = new Turn($('turns'), promptId, reviewHooks);
    state.turns.set(promptId, t);
    $('empty').hidden = true;
  }
  return t;
}

function chatLine(who, role, body) {
  const li = document.createElement('li');
  const name = document.createElement('b');
  name.textContent = who;
  li.append(name, ` ${body}`);
  li.dataset.role = role;
  $('chatlog').append(li);
  li.scrollIntoView({ block: 'nearest' });
}

/** Signs and seals a frame (to the host, or under the newest room key) and sends it. */
async function send(type, body, stream = '', chunk = 0) {
  if (!state.ws || state.ws.readyState !== WebSocket.OPEN || !state.me) throw new Error('not connected');
  const role = ROLE[state.me.role] || 0;
  const payload = await state.crypto.seal(type, role, chunk, stream, jsonBytes(body));
  state.ws.send(encode(type, state.room, stream, chunk, payload));
}

function sendControl(type, value) {
  if (state.ws && state.ws.readyState === WebSocket.OPEN) {
    state.ws.send(encode(type, state.room, '', 0, jsonBytes(value)));
  }
}

function resume() {
  sendControl(T.RoomResume, { streams: state.order.last });
}

/** Chunks `from`..=`to` of a turn will not come: said in the turn and in the notices. */
function missing(stream, from, to) {
  const n = to - from + 1;
  const what = `${n} chunk${n === 1 ? '' : 's'} missing from this answer`;
  turn(stream).missing(what, from, to);
  state.missingChunks = (state.missingChunks || 0) + n;
  document.body.dataset.missing = String(state.missingChunks);
  notice(`${what} (chunk${n === 1 ? ` ${from}` : `s ${from} to ${to}`}): the relay never sent ${n === 1 ? 'it' : 'them'}.`);
}

/** A chunk at or before the last one shown: counted, never shown twice. */
function duplicate(f) {
  state.duplicates++;
  document.body.dataset.duplicates = String(state.duplicates);
  const t = state.turns.get(f.stream);
  if (t && !t.duplicateSaid) {
    t.duplicateSaid = true;
    notice(`A chunk of an answer arrived again after a later one; it is shown once (${state.duplicates} so far).`);
  }
}

/** An application payload that did not open, verify or pass the sender's rights. */
function refused(f, err) {
  const kind = err instanceof OpenError ? err.kind : '';
  if (state.opened === 0 && (kind === 'key' || ((kind === 'unknown' || kind === 'forged') && f.role === ROLE.HOST))) {
    fatal(
      kind === 'key'
        ? "This link's room key does not open this room's messages: the link is wrong or outdated. Ask the host for a new link."
        : "This room's messages are not signed by the host this link names: the link is wrong or outdated. Ask the host for a new link.",
    );
    return;
  }
  if (kind === 'version') {
    // Said once per sender: nothing here can read it.
    if (state.oldFormat.has(f.sender)) return;
    state.oldFormat.add(f.sender);
    notice(`A message was refused: ${err.message}.`, true);
    return;
  }
  if (kind === 'replay' || kind === 'forged' || kind === 'unknown' || kind === 'scope') {
    // Not a loss: something on the way sent a copy or a forgery; it is
    // dropped, counted and said.
    state.refusedCount++;
    document.body.dataset.refused = String(state.refusedCount);
    const why = {
      replay: 'A message arrived twice; the copy was dropped',
      forged: `A message was dropped: ${err.message}`,
      unknown: 'A message signed by nobody the host let in was dropped',
      scope: 'A message meant for the host alone was dropped',
    }[kind];
    notice(`${why} (${state.refusedCount} refused so far).`);
    return;
  }
  if (!isReplayable(f.type)) {
    notice(`A message could not be opened (${err.message}); it was dropped.`);
    return;
  }
  if (kind === 'epoch') {
    // Waits for the host's key.rotate, then the stream is asked again;
    // one notice per stream. Bounded like any gap.
    if (state.order.failed(f.stream, f.chunk, true)) {
      notice(`A message is sealed under a room key this page does not hold yet (${err.message}); waiting for the host's key.`);
    }
    return;
  }
  state.order.failed(f.stream, f.chunk);
  // One notice per run of failures, not one per frame.
  if (!state.failing) notice(`A message could not be opened (${err.message}); asking the relay for it again.`);
  state.failing = true;
}

function handleControl(f) {
  let v;
  try {
    v = parseJson(f.payload);
  } catch {
    return;
  }
  switch (f.type) {
    case T.RoomWelcome:
      state.me = v.you;
      state.people = new Map((v.participants || []).map((p) => [String(p.conn_id), p]));
      document.body.dataset.role = v.you.role;
      $('role').textContent = `${v.you.name} · ${v.you.role.replace('_', '-').toLowerCase()}`;
      $('codrive').hidden = v.you.role !== 'CO_DRIVER';
      renderPeople();
      // First frame after every welcome: this tab's keys, bound to this
      // connection by the invite's ticket, sealed to the host.
      state.crypto
        .announce(v.you.name, v.you.conn_id)
        .then((body) => send(T.KeyAnnounce, body))
        .catch(() => notice('Could not announce this page to the host; reload to try again.'));
      break;
    case T.PresenceJoin:
      state.people.set(String(v.conn_id), v);
      renderPeople();
      break;
    case T.PresenceLeave:
      state.people.delete(String(v.conn_id));
      renderPeople();
      break;
    case T.PresenceList:
      state.people = new Map((v.participants || []).map((p) => [String(p.conn_id), p]));
      renderPeople();
      break;
    case T.RoomResync:
      for (const s of v.streams || []) {
        // What the relay no longer holds is gone: take the stream up again
        // at whatever comes next.
        state.order.resynced(s);
        const t = state.turns.get(s);
        if (t) t.resynced(v.reason || 'evicted');
      }
      notice(`Resynced: the relay no longer holds part of ${v.streams?.length || 0} turn(s) (${v.reason || ''}).`);
      break;
    case T.RoomGap:
      notice('The connection fell behind; catching up from the last chunk shown.');
      resume();
      break;
    case T.RoomError:
      notice(`The relay refused a message: ${v.message || v.code}`);
      break;
    default:
      break;
  }
}

/**
 * The host's answer while this tab knocks (a room shared with --knock):
 * only the one addressed to this connection counts (the frame opened with
 * the host's signature, so nobody else wrote it).
 */
async function door(msg) {
  if (!state.me || String(msg.to) !== String(state.me.conn_id)) return;
  const fp = await state.crypto.fingerprint();
  document.body.dataset.door = msg.answer;
  clearTimeout(state.doorTimer);
  switch (msg.answer) {
    case 'waiting': {
      const t = Number(msg.timeout_secs);
      const within = Number.isInteger(t) && t > 0 ? ` (refused in ${t % 60 ? `${t} s` : `${t / 60} min`} without an answer)` : '';
      notice(`Waiting for the host to let you in; your key fingerprint is ${fp}: the host sees it beside your name${within}.`, true);
      // A relay may hold the answer back; it cannot keep this page waiting
      // past the host's deadline and a grace (cohost join's DOOR_GRACE).
      if (within) {
        state.doorTimer = setTimeout(() => fatal('No answer came from the host in time, so you were not let in; nothing of the room reached this page.'), (t + 30) * 1000);
      }
      break;
    }
    case 'admitted':
      notice('The host let you in.');
      break;
    case 'refused':
      fatal(`The host did not let you in (your key fingerprint ${fp}); nothing of the room reached this page.`);
      break;
    case 'timed_out':
      fatal(`The host did not answer in time, so you were not let in (your key fingerprint ${fp}); nothing of the room reached this page.`);
      break;
    default:
      break;
  }
}

async function handleApp(f, arrived) {
  let body;
  let from;
  try {
    ({ body, from } = await state.crypto.open(f));
  } catch (e) {
    refused(f, e);
    return false;
  }
  let msg;
  try {
    // key.rotate, the roster, the grants and the door name u64 connection ids, which JSON.parse would round.
    const ids = f.type === T.KeyRotate || f.type === T.ApprovalGrants || f.type === T.KeyRoster || f.type === T.KeyDoor;
    msg = ids ? parseJson(body) : JSON.parse(text.decode(body));
  } catch {
    refused(f, new OpenError('json', 'not a cohost message'));
    return false;
  }
  state.opened++;
  state.failing = false;
  switch (f.type) {
    case T.ExecutionStarted:
      turn(f.stream).started(msg, msg.origin !== 'host' ? suggestionAuthor(msg.origin) : null);
      state.providers.set(f.stream, msg.provider);
      break;
    case T.StreamChunk:
    case T.StreamEnd:
    case T.StreamInterrupted:
      turn(f.stream).event(msg, arrived);
      if (msg.type === 'stream_end' || msg.type === 'budget') state.notifier.event(msg, state.providers.get(f.stream));
      break;
    case T.ToolApprovalRequested:
    case T.ToolApprovalDecided:
      if (msg.type === 'tool_approval_requested') state.asking.set(msg.tool_id, msg);
      else state.asking.delete(msg.tool_id);
      if (msg.prompt_id) turn(msg.prompt_id).tool(msg, decider(msg));
      if (msg.type === 'tool_approval_requested') state.notifier.event(msg, state.providers.get(msg.prompt_id));
      break;
    case T.ApprovalGrants:
      granted(msg);
      break;
    case T.SuggestionDecided:
      decided(msg);
      break;
    case T.ChatMessage:
      // Who said it is who signed it, as the host bound that key; the
      // relay's sender id names nobody.
      if (from === 'host') chatLine(hostName(f.sender), 'HOST', msg.text || '');
      else chatLine(from.name || 'someone', from.role, msg.text || '');
      {
        // Only the host says who the agents are: a participant's chat
        // carrying a list is only its text.
        const names = hostMembers(msg, from);
        if (names) renderMembers(names);
      }
      break;
    case T.KeyRoster:
      state.crypto.setRoster(msg);
      break;
    case T.KeyDoor:
      await door(msg);
      break;
    case T.KeyRotate:
      // The streams that waited for this key are asked again, afresh.
      if (state.me && (await state.crypto.rotate(msg, state.me.conn_id).catch(() => 0))) state.order.keyLearned();
      break;
    default:
      break;
  }
  return true;
}

async function onFrame(buf, arrived) {
  const f = decode(buf);
  if (!f || f.room !== state.room) return;
  if (isReplayable(f.type)) {
    // Past a gap the chunk is set aside (it comes again with the replay).
    const place = state.order.place(f.stream, f.chunk);
    if (place === 'duplicate') return duplicate(f);
    if (place === 'show' && (await handleApp(f, arrived))) state.order.shown(f.stream, f.chunk);
    return;
  }
  if (f.type === T.RoomClose) {
    state.closed = true;
    notice('The host closed the room.', true);
    setConn('closed');
    return;
  }
  if (f.type >= T.PresenceJoin && f.type <= T.PresenceList) return handleControl(f);
  if (f.type >= T.RoomResume && f.type <= T.RoomWelcome) return handleControl(f);
  if (f.type === T.RoomPing || f.type === T.RoomPong) return;
  await handleApp(f, arrived);
}

function connect() {
  if (state.closed) return;
  const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
  const ws = new WebSocket(`${scheme}://${location.host}/v1/rooms/${state.room}/ws`, ['cohost.v1', `cohost.token.${state.jwt}`]);
  ws.binaryType = 'arraybuffer';
  state.ws = ws;
  setConn(state.everConnected ? 'reconnecting…' : 'connecting…');
  ws.onopen = () => {
    const again = state.everConnected;
    state.everConnected = true;
    state.attempts = 0;
    setConn('connected');
    resume();
    if (again) {
      const open = [...state.turns.values()].filter((t) => t.el.dataset.state === 'streaming');
      const where = open.map((t) => `chunk ${state.order.last[t.promptId] ?? 0} of the running turn`).join(', ');
      notice(`Reconnected; resuming from ${where || 'the last chunk shown'}.`);
    }
  };
  ws.onmessage = (ev) => {
    const arrived = performance.now();
    state.queue = state.queue.then(() => onFrame(ev.data, arrived)).catch(() => {});
  };
  ws.onclose = (ev) => {
    if (state.ws !== ws || state.closed) return;
    if (ev.code === 4000) {
      state.closed = true;
      notice('The host closed the room.', true);
      setConn('closed');
      return;
    }
    if (ev.code === 4403) {
      fatal('The host removed you from the room.');
      return;
    }
    if (ev.code === 4401) {
      fatal("The relay refused this link's token: it expired or was revoked. Ask the host for a new link.");
      return;
    }
    state.attempts++;
    if (!state.everConnected && state.attempts >= 4) {
      fatal('Cannot join the room: the relay refuses this link (its token may be expired or revoked) or cannot be reached.');
      return;
    }
    if (state.attempts >= 12) {
      fatal('Lost the room: the relay has refused or not answered 12 reconnects (the room may be closed, or the link revoked). Reload to try again.');
      return;
    }
    if (state.everConnected) {
      state.drops++;
      document.body.dataset.drops = String(state.drops);
      notice('Connection lost; reconnecting…');
    }
    const delay = Math.min(5000, 250 * 2 ** Math.min(state.attempts, 5)) * (1 + Math.random() / 4);
    setConn('reconnecting…');
    setTimeout(connect, delay);
  };
}

// Suggestions this page made: id -> list item.
const mine = new Map();
/** This page's grant to approve tool calls, if the host gave one. */
function myGrant() {
  const me = state.me && String(state.me.conn_id);
  return (state.grants.grants || []).find((g) => String(g.conn_id) === me) || null;
}

/** Sends this page's vote on a call it may decide (null: it may not). */
function decider(msg) {
  if (msg.type !== 'tool_approval_requested') return null;
  const g = myGrant();
  if (!g || (g.kinds?.length && !g.kinds.includes(msg.kind))) return null;
  return (allow) =>
    send(T.ApprovalVote, { tool_id: msg.tool_id, allow })
      .then(() => chatLine('you', state.me?.role || '', `${allow ? '✓ allowed' : '✗ denied'} ${msg.name || 'a tool call'}`))
      .catch(() => notice('Not connected; the decision was not sent.'));
}

/** The host changed who may approve: say so, and arm the calls waiting. */
function granted(g) {
  const before = myGrant();
  state.grants = { grants: g.grants || [], quorum: g.quorum || [] };
  const now = myGrant();
  if (now && !before) notice(`The host lets you approve tool calls (${now.kinds?.length ? now.kinds.join(', ') : 'every kind'}).`);
  if (before && !now) notice('The host took back your approval of tool calls.');
  for (const msg of state.asking.values()) if (msg.prompt_id) turn(msg.prompt_id).tool(msg, decider(msg));
}

function suggestionAuthor(id) {
  return mine.has(id) ? 'you' : null;
}
function decided(d) {
  const li = mine.get(d.suggestion_id);
  if (!li) return;
  li.dataset.state = d.accepted ? 'accepted' : 'rejected';
  li.querySelector('.state').textContent = d.accepted ? '✓ accepted' : '✗ rejected';
}

// A co-driver frame larger than this is refused by the relay (64 KiB,
// crates/cohost-relay/src/config.rs); the margin covers the envelope and
// the encryption's nonce and tag.
const MAX_SUGGESTION_BYTES = 60 * 1024;

/**
 * Sends a suggestion (typed, or a review comment on a diff line) and lists
 * it under the suggestion box with `label`, to be marked accepted or
 * rejected when the host decides; `picked` is the agent chosen beside the
 * box (a room of several). Rejects with a reason to show.
 */
async function suggest(body, label = body, picked = '') {
  const msg = { suggestion_id: randomId('s-'), text: body, from: state.me?.name };
  // `@codex TEXT`, or the agent picked beside the box: for one agent of a
  // room of several (the host puts typed words back together when its
  // room has one agent). A review comment goes where the host's prompts go.
  Object.assign(msg, addressedTo(body, picked, state.members));
  if (jsonBytes(msg).length > MAX_SUGGESTION_BYTES) {
    throw new Error('Too large to send (the hunk is over 60 KiB): write the comment as a suggestion quoting the lines instead.');
  }
  try {
    await send(T.SuggestPrompt, msg);
  } catch {
    throw new Error('Not connected; the suggestion was not sent.');
  }
  const li = document.createElement('li');
  li.dataset.suggestionId = msg.suggestion_id;
  li.dataset.state = 'pending';
  const s = document.createElement('span');
  s.className = 'state';
  s.textContent = '… waiting for the host';
  li.append(document.createTextNode(`${label} `), s);
  $('suggestions').append(li);
  mine.set(msg.suggestion_id, li);
}

function randomId(prefix) {
  const b = crypto.getRandomValues(new Uint8Array(6));
  return prefix + [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
}

function wireForms() {
  $('chatform').addEventListener('submit', (e) => {
    e.preventDefault();
    const input = $('chatinput');
    const body = input.value.trim();
    if (!body) return;
    send(T.ChatMessage, { from: state.me?.name, text: body })
      .then(() => {
        chatLine('you', state.me?.role || '', body);
        input.value = '';
      })
      .catch(() => notice('Not connected; the message was not sent.'));
  });
  $('suggestform').addEventListener('submit', (e) => {
    e.preventDefault();
    const input = $('suggestinput');
    const body = input.value.trim();
    if (!body) return;
    suggest(body, body, $('to').value)
      .then(() => (input.value = ''))
      .catch((err) => notice(err.message));
  });
  $('interrupt').addEventListener('click', () => {
    send(T.InterruptRequest, { from: state.me?.name })
      .then(() => {
        chatLine('you', state.me?.role || '', '⏹ asked the host to interrupt the running turn');
      })
      .catch(() => notice('Not connected; the request was not sent.'));
  });
}

/**
 * The invite's fragment, taken out of the address bar and this history
 * entry so the room key is not left in the URL (issue 37); it is kept in
 * this tab's sessionStorage, gone when the tab closes, so a reload still
 * gets in.
 */
function takeFragment(room) {
  const slot = `cohost-invite:${room}`;
  let hash = location.hash;
  try {
    if (hash && hash !== '#') sessionStorage.setItem(slot, hash);
    else hash = sessionStorage.getItem(slot) || '';
  } catch {
    // Storage refused (a private mode): the key stays only in memory.
  }
  if (location.hash) history.replaceState(null, '', location.pathname + location.search);
  return hash;
}

async function main() {
  wireForms();
  state.order = new StreamOrder({ resume, missing });
  setInterval(() => state.order.waiting && state.order.tick(), GAP_WAIT_MS / 4);
  state.notifier = new WebNotifier(window, $('notify'));
  state.notifier.wire();
  const m = /^\/join\/([^/]+)\/?$/.exec(location.pathname);
  if (!m || !isValidId(m[1])) return fatal('This is not a room link: it should look like /join/ROOM#… as the host printed it.');
  state.room = m[1];
  let inv;
  try {
    inv = parseFragment(takeFragment(state.room));
  } catch (e) {
    return fatal(e.message);
  }
  state.jwt = inv.jwt;
  if (!inv.key) return fatal('This link has no room key; ask the host for a new link.');
  try {
    // This tab's identity (Ed25519 and X25519 keys) lives as long as the tab.
    state.crypto = await RoomCrypto.create(state.room, inv);
  } catch {
    return fatal('This browser cannot decrypt the room (it lacks WebCrypto AES-GCM, Ed25519 or X25519): use a current Chromium, Firefox or Safari.');
  }
  $('e2e').textContent = 'end-to-end encrypted';
  $('e2e').className = 'e2e-on';
  connect();
}

main();
