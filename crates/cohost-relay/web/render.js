// Renders one turn's cohost events (README "Events: cohost's wire format")
// into the page. Every string from the room is untrusted: markdown goes
// through markdown.js, everything else is set as text, never as HTML.

import { renderChanges } from './changes.js';
import { StreamingMarkdown } from './markdown.js';

function h(tag, cls, text) {
  const el = document.createElement(tag);
  if (cls) el.className = cls;
  if (text !== undefined && text !== null) el.textContent = String(text);
  return el;
}

// One animation frame renders every block that changed since the last one,
// however many chunks arrived in between.
const dirty = new Set();
let scheduled = false;
function schedule(turn) {
  dirty.add(turn);
  if (scheduled) return;
  scheduled = true;
  requestAnimationFrame(() => {
    scheduled = false;
    const turns = [...dirty];
    dirty.clear();
    for (const t of turns) t.flush();
  });
}

const KIND_ICON = { read: '📖', edit: '✎', delete: '🗑', move: '↦', search: '🔍', execute: '▶', fetch: '⇣', think: '💭', other: '⚙' };
const ORIGIN = {
  policy: "by the host's policy",
  user: 'by the host',
  remote: 'by the host (remotely)',
  deadline: 'no answer before the deadline',
  cancelled: 'cancelled with the turn',
  crash: 'the agent stopped',
};
const END = { completed: '✓ completed', interrupted: '■ interrupted', error: '✗ ended with an error', max_turns: '■ stopped at the turn limit' };

/**
 * One turn: the prompt, then its events in order. `hooks` lets the turn's
 * file changes take review comments: `canReview()` and `suggest(text, label)`.
 */
export class Turn {
  constructor(container, promptId, hooks = {}) {
    this.promptId = promptId;
    this.hooks = hooks;
    this.el = h('article', 'turn');
    this.el.dataset.promptId = promptId;
    this.el.dataset.state = 'streaming';
    this.head = h('header', 'turn-head');
    this.prompt = h('div', 'prompt');
    this.meta = h('div', 'meta');
    this.head.append(this.prompt, this.meta);
    this.body = h('div', 'turn-body');
    this.foot = h('footer', 'turn-foot');
    this.el.append(this.head, this.body, this.foot);
    container.append(this.el);
    this.reasoning = null;
    this.text = null; // the StreamingMarkdown being appended to
    this.blocks = [];
    this.tools = new Map();
    // When the last answer chunk arrived and was opened (performance.now()),
    // kept on the element with the time it was rendered: the render bench.
    this.lastArrival = 0;
    this.lastOpened = 0;
  }

  started(msg, who) {
    this.prompt.textContent = msg.text || '';
    const origin = msg.origin && msg.origin !== 'host' ? `suggested by ${who || 'a co-driver'}` : 'from the host';
    // In a room of several agents each turn is one member's (several run
    // at once): its name heads the turn.
    const agent = typeof msg.agent === 'string' && msg.agent ? msg.agent : null;
    if (agent) {
      this.el.dataset.agent = agent;
      const provider = msg.provider && msg.provider !== agent ? ` (${msg.provider})` : '';
      this.meta.textContent = `${agent}${provider} · ${origin}`;
    } else {
      this.meta.textContent = `${msg.provider || 'agent'} · ${origin}`;
    }
  }

  /** A cohost event of this turn. `arrived` is when its frame arrived (performance.now()). */
  event(ev, arrived) {
    switch (ev.type) {
      case 'stream_start':
        if (ev.model) this.meta.textContent += ` · ${ev.model}`;
        break;
      case 'reasoning_chunk':
        if (!this.reasoning) {
          const d = h('details', 'reasoning');
          d.append(h('summary', null, 'Reasoning'));
          this.reasoningText = h('div', 'reasoning-text');
          d.append(this.reasoningText);
          this.body.append(d);
          this.reasoning = d;
        }
        this.reasoningText.textContent += ev.delta || '';
        break;
      case 'stream_chunk': {
        if (!this.text) {
          const el = h('div', 'answer md');
          this.body.append(el);
          this.text = new StreamingMarkdown(el);
          this.blocks.push(this.text);
        }
        this.text.append(ev.delta || '');
        this.lastArrival = arrived;
        this.lastOpened = performance.now();
        schedule(this);
        break;
      }
      case 'tool_call':
      case 'tool_approval_requested':
      case 'tool_approval_decided':
      case 'tool_executed':
        this.tool(ev);
        break;
      case 'usage':
        this.usage(ev);
        break;
      case 'status':
        this.line('status', `… ${ev.message || ''}`);
        break;
      case 'error':
        this.line('error', `${ev.code || 'ERROR'}: ${ev.message || ''}${ev.suggested_fix ? ` — ${ev.suggested_fix}` : ''}`);
        break;
      case 'steered':
        this.steered(ev);
        break;
      case 'file_changes':
        // Just before stream_end: under the answer, above the turn's end.
        this.closeText();
        this.body.append(renderChanges(ev, this.hooks));
        break;
      case 'stream_end':
        if (ev.usage) this.usage(ev.usage);
        this.end(ev.reason || 'completed');
        break;
      default:
        break; // tolerant reader: unknown event types are skipped
    }
  }

  /**
   * Text that reached the agent while this turn ran (the host's line, or a
   * participant's suggestion the host accepted): shown where it came in,
   * between the answer before it and the answer after, as the terminal
   * shows `NAME → this turn`. No `by`: the host's own line.
   */
  steered(ev) {
    this.closeText();
    const el = h('div', 'steered');
    const who = typeof ev.by === 'string' && ev.by ? ev.by : 'host';
    el.append(h('span', 'steered-who', `↪ ${who} → this turn`), h('span', 'steered-text', ev.text || ''));
    this.body.append(el);
  }

  line(cls, text) {
    this.closeText();
    this.body.append(h('div', cls, text));
  }

  closeText() {
    if (this.text) {
      this.text.flush(true);
      this.text = null;
    }
  }

  usage(u) {
    this.foot.textContent = `tokens: ${u.input_tokens ?? 0} in · ${u.output_tokens ?? 0} out`;
  }

  /**
   * The tool card for `ev.tool_id`, created on first sight, updated by every
   * later event. `decide(allow)`, given for a call this participant may
   * decide (the host granted it approval), puts Allow and Deny on the card.
   */
  tool(ev, decide = null) {
    let card = this.tools.get(ev.tool_id);
    if (!card) {
      this.closeText();
      const el = h('section', 'tool');
      el.dataset.toolId = ev.tool_id || '';
      const title = h('div', 'tool-title');
      const input = h('pre', 'tool-input');
      const approval = h('div', 'tool-approval');
      const result = h('div', 'tool-result');
      el.append(title, input, approval, result);
      this.body.append(el);
      card = { el, title, input, approval, result };
      this.tools.set(ev.tool_id, card);
    }
    if (ev.name) card.title.textContent = `${KIND_ICON[ev.kind] || '⚙'} ${ev.name}${ev.kind ? ` (${ev.kind})` : ''}`;
    if (ev.input !== undefined) card.input.textContent = JSON.stringify(ev.input, null, 2);
    if (ev.type === 'tool_approval_requested' && !card.decided) {
      card.approval.textContent = decide
        ? 'you may decide: '
        : `awaiting the host's decision (${(ev.options || []).join(', ')})`;
      card.el.dataset.approval = 'pending';
      if (decide) {
        for (const [label, allow] of [['Allow', true], ['Deny', false]]) {
          const b = h('button', `vote vote-${allow ? 'allow' : 'deny'}`, label);
          b.type = 'button';
          b.addEventListener('click', () => {
            for (const other of card.approval.querySelectorAll('button')) other.disabled = true;
            decide(allow);
          });
          card.approval.append(b);
        }
      }
    }
    if (ev.type === 'tool_approval_decided') {
      card.decided = true;
      const allow = /^allow/.test(ev.decision || '');
      const who = ev.deciders?.length ? `by ${ev.deciders.join(', ')}` : ORIGIN[ev.origin] || ev.origin || '';
      card.approval.textContent = `${allow ? '✓ allowed' : '✗ rejected'} (${ev.decision}) · ${who}`;
      card.el.dataset.approval = allow ? 'allowed' : 'rejected';
    }
    if (ev.type === 'tool_executed') {
      card.result.textContent = `${ev.status}${ev.output_preview ? `: ${ev.output_preview}` : ''}`;
      card.el.dataset.status = ev.status || '';
    }
  }

  end(reason) {
    this.closeText();
    for (const b of this.blocks) b.flush(true);
    this.el.dataset.state = reason;
    this.el.append(h('div', `end end-${reason}`, END[reason] || `ended: ${reason}`));
    this.markRendered();
  }

  /** Renders what changed (called once per animation frame). */
  flush() {
    if (this.text) this.text.flush();
    this.markRendered();
  }

  markRendered() {
    if (!this.lastArrival) return;
    // Reading layout forces it, so the time includes it.
    void this.el.offsetHeight;
    this.el.dataset.lastArrivalMs = this.lastArrival.toFixed(2);
    this.el.dataset.lastOpenMs = this.lastOpened.toFixed(2);
    this.el.dataset.lastRenderMs = performance.now().toFixed(2);
  }

  /** Chunks `from`..=`to` of this turn never came, after asking the relay again: said where they were. */
  missing(what, from, to) {
    this.line('missing', `⚠ ${what}: the relay never sent ${from === to ? `chunk ${from}` : `chunks ${from} to ${to}`}`);
    this.el.dataset.missing = String((Number(this.el.dataset.missing) || 0) + to - from + 1);
  }

  /** A resync: the relay could not replay part of this turn. */
  resynced(reason) {
    this.line('resync', `⚠ part of this turn could not be replayed (${reason}); what is shown may be incomplete`);
  }
}
