// What a streaming markdown text leaves open, without a DOM: the settled
// prefix (before the last blank line outside a code fence) and the
// completion of an unterminated tail (fence, inline code, bold, strike, a
// half-typed link), so it renders as it will once finished.

/** The fence state after `line`: the open fence marker, or null. */
function fenceStep(open, line) {
  const m = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(line);
  if (!m) return open;
  if (open === null) return m[1];
  const closes = m[1][0] === open[0] && m[1].length >= open.length && m[2].trim() === '';
  return closes ? null : open;
}

/** The marker of a code fence opened and not closed, or null. */
function openFence(md) {
  let open = null;
  for (const line of md.split('\n')) open = fenceStep(open, line);
  return open;
}

/**
 * Completes what a streaming tail leaves open, so it renders as it will
 * once finished.
 */
export function completeStreaming(md) {
  const fence = openFence(md);
  if (fence) return md + (md.endsWith('\n') ? '' : '\n') + fence + '\n';
  let out = md;
  // A half-typed link or image: show its text until the URL is complete.
  out = out.replace(/!?\[([^\]\n]*)\]\([^)\s]*$/, '$1');
  out = out.replace(/!?\[([^\]\n]*)$/, (m, t) => (m.startsWith('!') ? t : `[${t}`));
  const last = out.slice(out.lastIndexOf('\n\n') + 1);
  const count = (re) => (last.match(re) || []).length;
  if (count(/`/g) % 2 === 1) out += '`';
  else {
    if (count(/\*\*/g) % 2 === 1) out += '**';
    if (count(/~~/g) % 2 === 1) out += '~~';
  }
  return out;
}

/** Where the settled part of a streaming text ends: after its last blank line outside a fence. */
export function settledEnd(md) {
  let end = 0;
  let fence = null;
  let pos = 0;
  const lines = md.split('\n');
  for (let i = 0; i < lines.length - 1; i++) {
    const line = lines[i];
    fence = fenceStep(fence, line);
    pos += line.length + 1;
    if (fence === null && line.trim() === '' && i > 0) end = pos;
  }
  return end;
}

