// Small HTML helpers for the site build: escaping (every text the build writes from another
// tool or file goes through these) and reading the attributes of one start tag.

const TEXT_ESCAPES = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };
const ATTR_ESCAPES = { ...TEXT_ESCAPES, '"': '&quot;' };

export function escapeText(s) {
  return String(s).replace(/[&<>]/g, (c) => TEXT_ESCAPES[c]);
}

export function escapeAttr(s) {
  return String(s).replace(/[&<>"]/g, (c) => ATTR_ESCAPES[c]);
}

// Text with `code` spans (the element's doc comments use them) as escaped HTML.
export function inlineCode(s) {
  return String(s).split('`').map((part, i) => (i % 2 ? `<code>${escapeText(part)}</code>` : escapeText(part))).join('');
}

const ENTITIES = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

export function decodeEntities(s) {
  return s.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (m, e) => {
    if (e[0] === '#') return String.fromCodePoint(e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : Number(e.slice(1)));
    return ENTITIES[e.toLowerCase()] ?? m;
  });
}

// The attributes of a start tag's inside (`name="value" other`), values decoded.
export function parseAttributes(text) {
  const attrs = {};
  const re = /([^\s"'>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/g;
  let m;
  while ((m = re.exec(text))) {
    const value = m[2] ?? m[3] ?? m[4] ?? '';
    attrs[m[1].toLowerCase()] = decodeEntities(value);
  }
  return attrs;
}

// "Context against the pool" -> "context-against-the-pool"
export function slug(text) {
  return decodeEntities(text.replace(/<[^>]*>/g, '')).toLowerCase()
    .replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '') || 'section';
}
