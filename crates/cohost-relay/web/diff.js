// A turn's file changes without a DOM (README "Checkpoints, diffs and
// undo"): the summary texts, a unified diff parsed into numbered lines and
// hunks, the text of a review comment, and highlight.js's token tree split
// into lines. changes.js turns these into DOM nodes (text only);
// keeping them pure lets `node --test` check the line numbers and the
// review text the host will see.

/** `N files changed, +A -R` for a `file_changes` event's files. */
export function summaryText(files) {
  const n = files.length;
  let added = 0;
  let removed = 0;
  for (const f of files) {
    added += Number(f.added) || 0;
    removed += Number(f.removed) || 0;
  }
  return `${n} ${n === 1 ? 'file' : 'files'} changed, +${added} -${removed}`;
}

/** The status letter and word, as `cohost diff` prints them. */
export const STATUS = Object.freeze({
  added: ['A', 'added'],
  modified: ['M', 'modified'],
  deleted: ['D', 'deleted'],
  renamed: ['R', 'renamed'],
  mode_changed: ['T', 'mode changed'],
});

export function statusOf(f) {
  return STATUS[f.status] || ['?', String(f.status || 'changed')];
}

/** The path as people read it: `old -> new` for a rename. */
export function pathText(f) {
  return f.status === 'renamed' && f.old_path ? `${f.old_path} -> ${f.path}` : String(f.path || '');
}

/** `+A -R`, or `binary, N bytes`. */
export function countsText(f) {
  return f.binary ? `binary, ${Number(f.size) || 0} bytes` : `+${Number(f.added) || 0} -${Number(f.removed) || 0}`;
}

/** `mode 100644 -> 100755` when both modes are known and differ, else ''. */
export function modeText(f) {
  return f.old_mode && f.new_mode && f.old_mode !== f.new_mode ? `mode ${f.old_mode} -> ${f.new_mode}` : '';
}

/** A control character a terminal acts on (newline and tab are text); as cohost-core's is_control. */
function isControl(c) {
  const n = c.codePointAt(0);
  return ((n <= 0x1f || (n >= 0x7f && n <= 0x9f)) && c !== '\n' && c !== '\t') || n === 0x2028 || n === 0x2029;
}

/**
 * `text` without terminal control sequences (CSI, OSC, DCS, SOS, PM, APC,
 * other escapes, their C1 forms) and control characters but newline and
 * tab: a port of cohost-core's `strip_controls`, which the terminal UI
 * applies to every diff line, so a hunk quoted in a review comment is the
 * same text from either. A page shows controls harmlessly; the agent
 * reading the quote should not get them either.
 */
export function stripControls(text) {
  if (![...text].some(isControl)) return text;
  const chars = [...text];
  let out = '';
  let i = 0;
  while (i < chars.length) {
    const c = chars[i++];
    if (!isControl(c)) {
      out += c;
      continue;
    }
    let intro = null; // 'csi', 'string' (up to BEL or ST), or nothing more to skip
    if (c === '\x1b') {
      const n = chars[i];
      if (n === '[') {
        i++;
        intro = 'csi';
      } else if (n === ']' || n === 'P' || n === 'X' || n === '^' || n === '_') {
        i++;
        intro = 'string';
      } else if (n !== undefined && n >= '\x20' && n <= '\x7e') {
        // A two-byte escape; an `ESC (` style one takes one more byte.
        i++;
        if (n <= '\x2f') i++;
      }
    } else if (c === '\u009b') {
      intro = 'csi';
    } else if ('\u009d\u0090\u0098\u009e\u009f'.includes(c)) {
      intro = 'string';
    }
    if (intro === 'csi') {
      while (i < chars.length) {
        const n = chars[i++];
        if ((n >= '\x40' && n <= '\x7e') || isControl(n)) break;
      }
    } else if (intro === 'string') {
      while (i < chars.length) {
        const n = chars[i++];
        if (n === '\x07' || n === '\u009c') break;
        if (n === '\x1b') {
          if (chars[i] === '\\') i++;
          break;
        }
      }
    }
  }
  return out;
}

const HUNK_HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

/**
 * A unified diff as lines, each `{kind, text, old, new, hunk}`: `kind` is
 * `file` (headers before the first hunk), `hunk` (an `@@` header), `add`,
 * `del`, `ctx` or `note` (`\ No newline at end of file`); `old` and `new`
 * are the line's numbers on each side (null where it has none); `hunk` is
 * the index in `hunks` of the hunk it belongs to (-1 outside hunks).
 * A hunk ends when its header's line counts are used up, so a removed line
 * that reads `-- a/x` or `@@` is never taken for a header.
 */
export function parseDiff(diff) {
  const raw = String(diff || '').split('\n');
  if (raw.length && raw[raw.length - 1] === '') raw.pop();
  const lines = [];
  const hunks = [];
  let oldLeft = 0;
  let newLeft = 0;
  let oldNo = 0;
  let newNo = 0;
  let current = -1;
  for (const t of raw) {
    // Classified by the raw line, shown and quoted without controls (a CRLF
    // file's \r included), as the terminal UI does.
    const text = stripControls(t);
    const inside = oldLeft > 0 || newLeft > 0;
    if (inside) {
      const c = t[0];
      // git writes a context line of an empty line as a lone space; an
      // editor or a sanitizer may have trimmed it to nothing.
      if (c === '+' && newLeft > 0) {
        lines.push({ kind: 'add', text, old: null, new: newNo++, hunk: current });
        newLeft--;
        continue;
      }
      if (c === '-' && oldLeft > 0) {
        lines.push({ kind: 'del', text, old: oldNo++, new: null, hunk: current });
        oldLeft--;
        continue;
      }
      if ((c === ' ' || t === '') && oldLeft > 0 && newLeft > 0) {
        lines.push({ kind: 'ctx', text, old: oldNo++, new: newNo++, hunk: current });
        oldLeft--;
        newLeft--;
        continue;
      }
    }
    if (t[0] === '\\' && current >= 0 && lines[lines.length - 1].hunk === current) {
      lines.push({ kind: 'note', text, old: null, new: null, hunk: current });
      continue;
    }
    const m = HUNK_HEADER.exec(t);
    if (m) {
      oldNo = Number(m[1]);
      newNo = Number(m[3]);
      oldLeft = m[2] === undefined ? 1 : Number(m[2]);
      newLeft = m[4] === undefined ? 1 : Number(m[4]);
      current = hunks.length;
      hunks.push({ first: lines.length, last: lines.length });
      lines.push({ kind: 'hunk', text, old: null, new: null, hunk: current });
      continue;
    }
    // Anything else is a file header (`diff --git`, `index`, `---`, `+++`,
    // `rename from`, `Binary files … differ`), or a line past a hunk's
    // counts in a damaged diff: shown, numbered nowhere, not commentable.
    oldLeft = 0;
    newLeft = 0;
    current = -1;
    lines.push({ kind: 'file', text, old: null, new: null, hunk: -1 });
  }
  lines.forEach((l, i) => {
    if (l.hunk >= 0) hunks[l.hunk].last = i;
  });
  return { lines, hunks };
}

/** Whether a parsed line can carry a review comment (a code line in a hunk). */
export function commentable(line) {
  return line.kind === 'add' || line.kind === 'del' || line.kind === 'ctx';
}

/**
 * Where a comment on `line` points: `{n, before}`: the new side's number,
 * or the old side's for a removed line (`before`: the line is gone after
 * the change).
 */
export function lineRef(line) {
  return line.kind === 'del' ? { n: line.old, before: true } : { n: line.new, before: false };
}

/** The whole hunk holding line `index` of a parsed diff: its `@@` header and lines. */
export function hunkText(parsed, index) {
  const h = parsed.hunks[parsed.lines[index]?.hunk];
  if (!h) return '';
  return parsed.lines
    .slice(h.first, h.last + 1)
    .map((l) => l.text)
    .join('\n');
}

/**
 * The suggestion a review comment becomes, exactly as
 * `cohost_share::review::review_prompt` writes it for the terminal UI, so
 * the host and the agent read one format: the hunk's final line breaks are
 * dropped so the fence closes on the next line, the comment is as given;
 * the fence is longer than any run of backticks in the hunk, so a hunk that
 * holds a fence of its own (a Markdown file's) cannot close it early.
 */
export function reviewText(path, ref, hunk, comment) {
  const where = ref.before ? `line ${ref.n} (before the change)` : `line ${ref.n}`;
  const body = String(hunk).replace(/[\r\n]+$/, '');
  const longest = Math.max(2, ...(body.match(/`+/g) || []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  return `Review comment on ${path}, ${where}:\n\n${fence}diff\n${body}\n${fence}\n\n${comment}`;
}

/** highlight.js's class names for a scope: `title.function` -> `hljs-title function_`. */
function scopeClasses(scope) {
  if (!scope || scope.startsWith('language:')) return [];
  const [first, ...rest] = scope.split('.');
  return [`hljs-${first}`, ...rest.map((r, i) => `${r}${'_'.repeat(i + 1)}`)];
}

/**
 * highlight.js's token tree (`{scope, children}` nodes and strings) as
 * lines of `{text, cls}` segments, cut at every newline. The page builds
 * spans from these with textContent, so highlighted code never passes
 * through HTML. Returns null when the tree is not of that shape.
 */
export function treeLines(root) {
  const lines = [[]];
  const walk = (node, classes) => {
    if (typeof node === 'string') {
      const parts = node.split('\n');
      parts.forEach((p, i) => {
        if (i > 0) lines.push([]);
        if (p) lines[lines.length - 1].push({ text: p, cls: classes.join(' ') });
      });
      return true;
    }
    if (!node || !Array.isArray(node.children)) return false;
    const inner = [...classes, ...scopeClasses(node.scope)];
    return node.children.every((c) => walk(c, inner));
  };
  return walk(root, []) ? lines : null;
}
