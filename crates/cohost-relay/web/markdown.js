// Streaming markdown for hostile text: marked renders, raw HTML in the
// markdown is shown as text (never inserted), images are never loaded,
// links get rel="noopener noreferrer" and only http(s)/mailto targets, and
// DOMPurify sanitizes the result with a small allowlist as a second wall
// (the page's CSP is the third).
//
// While a block streams, its unterminated constructs are completed before
// rendering (an open code fence, inline code, bold, strike, a half-typed
// link), so the reader never sees markup flicker. Settled blocks (before the
// last blank line outside a code fence) are rendered once and kept.

import { completeStreaming, settledEnd } from './stream-md.js';
import { Marked } from './vendor/marked.esm.js';
import DOMPurify from './vendor/purify.es.mjs';
import hljs from './vendor/hljs/core.min.js';
import bash from './vendor/hljs/bash.min.js';
import diff from './vendor/hljs/diff.min.js';
import go from './vendor/hljs/go.min.js';
import javascript from './vendor/hljs/javascript.min.js';
import json from './vendor/hljs/json.min.js';
import python from './vendor/hljs/python.min.js';
import rust from './vendor/hljs/rust.min.js';
import typescript from './vendor/hljs/typescript.min.js';
import xml from './vendor/hljs/xml.min.js';
import yaml from './vendor/hljs/yaml.min.js';

for (const [name, lang] of Object.entries({ bash, diff, go, javascript, json, python, rust, typescript, xml, yaml })) {
  hljs.registerLanguage(name, lang);
}
for (const [alias, name] of Object.entries({ sh: 'bash', shell: 'bash', js: 'javascript', ts: 'typescript', py: 'python', rs: 'rust', html: 'xml', yml: 'yaml', toml: 'yaml' })) {
  hljs.registerAliases(alias, { languageName: name });
}

// The diff view (changes.js) highlights with the same instance and languages.
export { hljs };

export function escapeHtml(s) {
  return String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
}

const SAFE_HREF = /^(https?:|mailto:)/i;

const marked = new Marked({
  gfm: true,
  breaks: false,
  async: false,
  renderer: {
    // Raw HTML from the agent is text, never markup.
    html({ text }) {
      return escapeHtml(text);
    },
    image({ href, text }) {
      return `<span class="img-blocked" title="remote images are not loaded">[image: ${escapeHtml(text || 'untitled')} · ${escapeHtml(href || '')}]</span>`;
    },
    code({ text, lang }) {
      const language = (lang || '').trim().split(/\s+/)[0].toLowerCase();
      if (language && hljs.getLanguage(language)) {
        const html = hljs.highlight(text, { language, ignoreIllegals: true }).value;
        return `<pre><code class="hljs language-${escapeHtml(language)}">${html}</code></pre>\n`;
      }
      return `<pre><code>${escapeHtml(text)}</code></pre>\n`;
    },
  },
});

const ALLOWED_TAGS = [
  'a', 'b', 'blockquote', 'br', 'code', 'del', 'em', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'hr', 'i', 'input',
  'li', 'ol', 'p', 'pre', 's', 'span', 'strong', 'table', 'tbody', 'td', 'th', 'thead', 'tr', 'ul',
];
const ALLOWED_ATTR = ['href', 'title', 'class', 'start', 'align', 'type', 'checked', 'disabled'];

DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  if (node.nodeName === 'A') {
    const href = node.getAttribute('href') || '';
    if (!SAFE_HREF.test(href.trim())) node.removeAttribute('href');
    node.setAttribute('rel', 'noopener noreferrer');
    node.setAttribute('target', '_blank');
  }
  if (node.nodeName === 'INPUT' && node.getAttribute('type') !== 'checkbox') node.remove();
  if (node.nodeName === 'INPUT') node.setAttribute('disabled', '');
});

/**
 * Sanitized HTML for a complete markdown text, as a TrustedHTML where the
 * browser has Trusted Types: the page's CSP lets only DOMPurify's policy
 * reach an HTML sink, so nothing unsanitized can be inserted by mistake.
 */
export function renderMarkdown(md) {
  return DOMPurify.sanitize(marked.parse(md), {
    ALLOWED_TAGS,
    ALLOWED_ATTR,
    ALLOW_DATA_ATTR: false,
    ALLOW_ARIA_ATTR: false,
    RETURN_TRUSTED_TYPE: true,
  });
}

/**
 * One streaming markdown block in the page: append deltas, call flush()
 * (once per animation frame) to render. Settled paragraphs are rendered
 * once; only the growing tail is rendered again.
 */
export class StreamingMarkdown {
  constructor(el) {
    this.el = el;
    this.text = '';
    this.settledLen = 0;
    this.settledEl = document.createElement('div');
    this.tailEl = document.createElement('div');
    el.append(this.settledEl, this.tailEl);
    this.dirty = false;
  }

  append(delta) {
    this.text += delta;
    this.dirty = true;
  }

  flush(done = false) {
    if (!this.dirty && !done) return;
    this.dirty = false;
    const cut = done ? this.text.length : settledEnd(this.text);
    if (cut > this.settledLen) {
      const chunk = document.createElement('div');
      chunk.innerHTML = renderMarkdown(this.text.slice(this.settledLen, cut));
      this.settledEl.append(...chunk.childNodes);
      this.settledLen = cut;
    }
    const tail = this.text.slice(this.settledLen);
    if (tail) this.tailEl.innerHTML = renderMarkdown(done ? tail : completeStreaming(tail));
    else this.tailEl.replaceChildren();
  }
}
