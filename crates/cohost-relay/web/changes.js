// A turn's `file_changes` event in the page: a summary line, then one
// collapsed entry per file whose diff is built when first opened. Paths and
// diff lines come from the host's working tree, which the agent (or anyone
// with write access to it) controls: every string is set with textContent,
// and highlighted code is built from highlight.js's token tree, never from
// its HTML. A co-driver clicks a code line to write a review comment,
// which is sent as a suggestion (see reviewText in diff.js).

import { commentable, countsText, hunkText, lineRef, modeText, parseDiff, pathText, reviewText, statusOf, summaryText, treeLines } from './diff.js';
import { hljs } from './markdown.js';

function h(tag, cls, text) {
  const el = document.createElement(tag);
  if (cls) el.className = cls;
  if (text !== undefined && text !== null) el.textContent = String(text);
  return el;
}

/** The highlight.js language for a path's extension (or its name: `Makefile`), else null. */
function languageOf(path) {
  const name = String(path).split('/').pop() || '';
  const ext = name.includes('.') ? name.split('.').pop().toLowerCase() : name.toLowerCase();
  return ext && ext !== 'diff' && hljs.getLanguage(ext) ? ext : null;
}

/**
 * Per diff line, its code as `{text, cls}` segments, highlighted side by
 * side: each hunk's old side (context and removed lines) and new side
 * (context and added lines) are highlighted as one text each, so a
 * comment or string spanning lines is coloured as in the file. null
 * entries are left plain.
 */
function highlighted(parsed, language) {
  const out = new Array(parsed.lines.length).fill(null);
  if (!language) return out;
  for (const hunk of parsed.hunks) {
    for (const side of ['old', 'new']) {
      const idx = [];
      for (let i = hunk.first; i <= hunk.last; i++) {
        const l = parsed.lines[i];
        if (l.kind === 'ctx' || (side === 'old' ? l.kind === 'del' : l.kind === 'add')) idx.push(i);
      }
      if (!idx.length) continue;
      let segs = null;
      try {
        const code = idx.map((i) => parsed.lines[i].text.slice(1)).join('\n');
        // The token tree is highlight.js's internal emitter; if a future
        // version changes it, treeLines says so and the lines stay plain.
        const root = hljs.highlight(code, { language, ignoreIllegals: true })._emitter?.rootNode;
        segs = treeLines(root);
      } catch {
        segs = null;
      }
      if (!segs || segs.length !== idx.length) continue;
      idx.forEach((i, k) => {
        // A context line is taken from the new side (it reads the same on both).
        if (side === 'new' || parsed.lines[i].kind === 'del') out[i] = segs[k];
      });
    }
  }
  return out;
}

const SIGN = { add: '+', del: '-', ctx: ' ' };

/** The diff of one file as DOM rows; `review` (or null) opens a comment form on a line. */
function diffView(file, review) {
  const parsed = parseDiff(file.diff);
  const segments = highlighted(parsed, languageOf(file.path));
  const box = h('div', 'diff');
  parsed.lines.forEach((line, i) => {
    const row = h('div', `diff-line diff-${line.kind}`);
    row.append(h('span', 'ln ln-old', line.old ?? ''), h('span', 'ln ln-new', line.new ?? ''));
    const code = h('code', 'diff-code');
    if (segments[i]) {
      code.append(h('span', 'diff-sign', SIGN[line.kind]));
      for (const s of segments[i]) code.append(s.cls ? h('span', s.cls, s.text) : document.createTextNode(s.text));
    } else {
      code.textContent = line.text;
    }
    row.append(code);
    if (commentable(line) && review) {
      row.dataset.line = String(i);
      row.tabIndex = 0;
      row.title = 'Comment on this line (sent to the host as a suggestion)';
      const open = () => review(row, parsed, i);
      row.addEventListener('click', () => {
        // Selecting code to copy it is not asking to comment on it.
        if (!String(getSelection() || '')) open();
      });
      row.addEventListener('keydown', (e) => {
        if (e.key === 'Enter' || e.key === ' ') {
          e.preventDefault();
          open();
        }
      });
    }
    box.append(row);
  });
  return box;
}

/** The body of a file's entry: its diff, or why there is none. */
function fileBody(file, turn, review) {
  if (file.diff_truncated) {
    return h('p', 'diff-missing', `This diff is too large to send to the room; run \`cohost diff --turn ${turn}\` on the host to see it.`);
  }
  if (!file.diff) return h('p', 'diff-missing', file.binary ? 'Binary file: no diff.' : 'No diff was recorded for this file.');
  return diffView(file, review);
}

/**
 * The inline form a co-driver writes a review comment in, under the
 * clicked line; `send(text, label)` sends the suggestion (a promise).
 */
function commentForm(file, send) {
  return (row, parsed, index) => {
    const existing = row.nextElementSibling;
    if (existing && existing.classList.contains('review-form')) {
      existing.querySelector('textarea').focus();
      return;
    }
    const ref = lineRef(parsed.lines[index]);
    const where = ref.before ? `line ${ref.n} (before the change)` : `line ${ref.n}`;
    const form = h('form', 'review-form');
    form.autocomplete = 'off';
    const input = h('textarea', 'review-input');
    input.rows = 3;
    input.maxLength = 8000;
    input.placeholder = `Comment on ${file.path}, ${where}; the host decides whether the agent gets it`;
    input.setAttribute('aria-label', `review comment on ${file.path}, ${where}`);
    const actions = h('div', 'actions');
    const submit = h('button', null, 'Send as suggestion');
    submit.type = 'submit';
    const cancel = h('button', 'cancel', 'Cancel');
    cancel.type = 'button';
    actions.append(submit, cancel);
    form.append(input, actions);
    cancel.addEventListener('click', () => form.remove());
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      const comment = input.value.trim();
      if (!comment) return;
      const text = reviewText(file.path, ref, hunkText(parsed, index), comment);
      submit.disabled = true;
      send(text, `Review comment on ${file.path}, ${where}: ${comment}`).then(
        () => form.replaceWith(h('div', 'review-sent', `Review comment sent to the host as a suggestion (${where}).`)),
        (err) => {
          submit.disabled = false;
          form.append(h('div', 'review-error', err?.message || 'Not sent.'));
        },
      );
    });
    row.after(form);
    input.focus();
  };
}

/**
 * The section for one `file_changes` event. `hooks.canReview()` says
 * whether this participant may comment (a co-driver); `hooks.suggest`
 * sends a suggestion.
 */
export function renderChanges(ev, hooks = {}) {
  const files = Array.isArray(ev.files) ? ev.files : [];
  const section = h('section', 'changes');
  section.dataset.turn = String(ev.turn ?? '');
  section.append(h('div', 'changes-summary', summaryText(files)));
  for (const file of files) {
    const entry = h('details', 'change');
    entry.dataset.status = String(file.status || '');
    entry.dataset.path = String(file.path || '');
    const summary = h('summary', 'change-head');
    const [letter, word] = statusOf(file);
    const badge = h('span', 'change-status', letter);
    badge.title = word;
    badge.setAttribute('aria-label', word);
    summary.append(badge, ' ', h('span', 'change-path', pathText(file)), ' ', h('span', 'change-counts', countsText(file)));
    const mode = modeText(file);
    if (mode) summary.append(' ', h('span', 'change-mode', mode));
    if (file.diff_truncated) summary.append(' ', h('span', 'change-truncated', 'diff too large'));
    entry.append(summary);
    // Built when first opened: a turn may change hundreds of files.
    entry.addEventListener('toggle', () => {
      if (!entry.open || entry.dataset.built) return;
      entry.dataset.built = '1';
      const review = hooks.canReview?.() && hooks.suggest ? commentForm(file, hooks.suggest) : null;
      entry.append(fileBody(file, ev.turn ?? '', review));
    });
    section.append(entry);
  }
  return section;
}
