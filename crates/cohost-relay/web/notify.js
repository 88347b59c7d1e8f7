// Browser notifications for the shared session's page (issue 34). The
// browser is asked for permission only after a click on the header's
// "Notify me" button (never on load); once granted, a tool call that waits
// for the host, a turn's end or failure, and a budget nearing or spent are
// shown while the page is hidden or not focused. A notice says who and
// what happened in a short title and line, made of names and reasons:
// never a prompt, an answer or a tool's arguments. A second click turns
// them off again.

const MAX = 120;

/** One line of at most MAX characters, without control characters. */
function clean(s) {
  // eslint-disable-next-line no-control-regex
  const t = String(s ?? '').replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ').trim();
  return t.length <= MAX ? t : `${t.slice(0, MAX - 3)}...`;
}

/**
 * The notice an event (cohost's wire format) is worth, or null: `agent`
 * names the agent when the event does not (a session of one agent).
 */
export function noticeFor(ev, agent) {
  const who = clean(ev.agent || agent || 'the agent');
  switch (ev.type) {
    case 'tool_approval_requested':
      return { tag: 'approval_needed', title: `cohost: ${who} needs approval`, body: clean(`${who} wants to run the tool ${ev.name}`) };
    case 'stream_end': {
      const why = {
        completed: 'the turn is done',
        interrupted: 'the turn was interrupted',
        max_turns: "the turn stopped at the agent's turn limit",
        budget: 'the turn was stopped: the budget is spent',
      }[ev.reason];
      if (ev.reason === 'error' || !why) return { tag: 'turn_failed', title: `cohost: ${who} failed`, body: 'the turn failed' };
      return { tag: 'turn_ended', title: `cohost: ${who} is done`, body: why };
    }
    case 'budget': {
      const spent = ev.usd != null
        ? `$${Number(ev.spent_usd).toFixed(2)} of $${Number(ev.usd).toFixed(2)} spent`
        : `${ev.spent_tokens} of ${ev.tokens} tokens spent`;
      if (ev.level === 'warning') return { tag: 'budget_warning', title: 'cohost: 80% of the budget is spent', body: spent };
      if (ev.level === 'exceeded') return { tag: 'budget_exceeded', title: 'cohost: the budget is spent', body: `${spent}; the host can raise it` };
      return null;
    }
    default:
      return null;
  }
}

/** The page's notifier: the button, the permission, what was shown. */
export class WebNotifier {
  constructor(win, button) {
    this.win = win;
    this.button = button;
    this.on = false;
    this.shown = new Set();
  }

  /** Offer the button when the browser has notifications at all. */
  wire() {
    const N = this.win.Notification;
    if (!N || !this.button) return;
    this.button.hidden = false;
    this.label();
    this.button.addEventListener('click', async () => {
      if (this.on) {
        this.on = false;
      } else {
        // Asked only now, on the user's click (an answer given before
        // comes back at once).
        this.on = (await N.requestPermission()) === 'granted';
      }
      this.label();
    });
  }

  label() {
    const denied = this.win.Notification?.permission === 'denied';
    this.button.textContent = this.on ? 'Notifications on' : denied ? 'Notifications blocked' : 'Notify me';
    this.button.setAttribute('aria-pressed', String(this.on));
  }

  /** Tell the user of `ev` (once per event id) while they look elsewhere. */
  event(ev, agent) {
    if (!this.on || !ev || this.shown.has(ev.id)) return;
    const n = noticeFor(ev, agent);
    if (!n) return;
    this.shown.add(ev.id);
    const doc = this.win.document;
    if (!doc.hidden && doc.hasFocus()) return;
    try {
      new this.win.Notification(n.title, { body: n.body, tag: `${n.tag}:${ev.id}` });
    } catch {
      // A browser that lists Notification but refuses it here: nothing to do.
    }
  }
}
