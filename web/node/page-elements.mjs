// The <kv-calc> elements of an HTML page as a browser reads it, for the baker: found by an
// HTML parser (parse5, bundled into dist/bake.mjs at build time: the package keeps no
// dependencies), never by matching text, so `<kv-calc` in an attribute (Rspress copies a
// page's source into <meta name="description">), a comment, a script's string, a <textarea>
// or a code block is not an element. Each element is told by where its start and end tags
// are in the page's text, so the baker rewrites its content alone and leaves every other
// byte of the page as written. The places a page mentions `<kv-calc` where no element is are
// listed too, so a page with no element can say why; and the elements a browser ends early
// (inside a <p>, a block in the fallback closes the paragraph and the element with it).

import { Parser, defaultTreeAdapter, html as HTML, parseFragment } from 'parse5';

const TAG = 'kv-calc';
const MENTION = /<kv-calc\b/i;

// parse5's tree builder, which also notes where each </kv-calc> end tag is: a browser ignores
// one that closes no open element (the element was ended before it), but the baker pairs it
// with its start tag, as the author or an earlier bake wrote them. (Parser is parse5's
// internal class; the package pins the parse5 it bundles.)
class PageParser extends Parser {
  endTags = [];

  onEndTag(token) {
    if (token.tagName === TAG) this.endTags.push(token.location);
    super.onEndTag(token);
  }
}

function parsePage(html) {
  const parser = new PageParser({ sourceCodeLocationInfo: true });
  parser.tokenizer.write(html, true);
  return { document: parser.document, endTags: parser.endTags };
}

// Every node under node in document order, template contents included (an element in a
// <template> is an element of the page once the template is used).
function* walk(node) {
  for (const child of node.childNodes ?? []) {
    yield child;
    yield* walk(child);
  }
  if (node.content) yield* walk(node.content);
}

const isElement = (node) => node.tagName === TAG && node.namespaceURI === HTML.NS.HTML;

/** An error in a page's structure around a <kv-calc>, at a line of the page. */
export class PageError extends Error {
  constructor(line, message) {
    super(message);
    this.line = line;
  }
}

/**
 * The <kv-calc> elements of a page, in order: for each, its attributes (names in lower case,
 * values decoded, the first of a repeated name, as a browser reads them), the line of its
 * start tag, and the offsets of its content in html (from the end of its start tag to the
 * start of its end tag). Throws a PageError for an element with no end tag or inside another.
 * @param {string} html
 */
export function pageElements(html) {
  const { document, endTags } = parsePage(html);
  const found = [...walk(document)].filter(isElement);
  const elements = found.map((node, i) => {
    const { startTag, startLine } = node.sourceCodeLocation;
    const end = endTags.find((t) => t.startOffset >= startTag.endOffset);
    if (!end) throw new PageError(startLine, `<${TAG}> has no </${TAG}> end tag: a browser puts the rest of the page inside it`);
    const next = found[i + 1]?.sourceCodeLocation.startTag;
    if (next && next.startOffset < end.startOffset) {
      throw new PageError(next.startLine, `<${TAG}> inside the <${TAG}> of line ${startLine}: an element's fallback cannot hold another element`);
    }
    return {
      attributes: Object.fromEntries(node.attrs.map((a) => [a.name, a.value])),
      line: startLine,
      contentStart: startTag.endOffset,
      contentEnd: end.startOffset,
    };
  });
  return { elements, mentions: mentions(document) };
}

// Elements whose text is raw (no tags inside), named as a reader of the message knows them.
const RAW_TEXT = new Set(['script', 'style', 'textarea', 'title', 'xmp', 'iframe', 'noembed', 'noframes', 'noscript', 'plaintext']);

const lineIn = (text, index, firstLine) => firstLine + (text.slice(0, index).match(/\n/g)?.length ?? 0);
const within = (node, names) => {
  for (let n = node.parentNode; n; n = n.parentNode) if (names.includes(n.tagName)) return true;
  return false;
};

// One place a page mentions `<kv-calc`: what it is ("a <meta> content attribute", and its
// plural for several), its line, and whether readers see it.
const place = (what, line, shown, an = false) => ({ where: `${an ? 'an' : 'a'} ${what}`, many: `${what}s`, line, shown });

/**
 * Where a page's text says `<kv-calc` and no element is: [{ where, many, line, shown }], where
 * is "a <meta> content attribute", "a <script>", "a comment", "a code block" or "text"; shown
 * is true for text a reader sees (a code block or a paragraph: documentation of the element,
 * as likely as a lost one) and false for what a generator writes out of sight (an attribute,
 * a script, a comment), where a copy of an element's source means the element itself was
 * not written.
 */
function mentions(document) {
  const out = [];
  for (const node of walk(document)) {
    const loc = node.sourceCodeLocation;
    if (!loc) continue;
    if (node.attrs) {
      for (const a of node.attrs) {
        if (MENTION.test(a.value)) out.push(place(`<${node.tagName}> ${a.name} attribute`, loc.attrs?.[a.name]?.startLine ?? loc.startLine, false));
      }
      // An element of another namespace (inside <svg> or <math>) is no <kv-calc> either.
      if (node.tagName === TAG && !isElement(node)) out.push(place(`element inside <${node.namespaceURI === HTML.NS.SVG ? 'svg' : 'math'}>`, loc.startLine, false, true));
    } else if (node.nodeName === '#comment' && MENTION.test(node.data)) {
      out.push(place('comment', loc.startLine, false));
    } else if (node.nodeName === '#text') {
      const m = MENTION.exec(node.value);
      if (!m) continue;
      const line = lineIn(node.value, m.index, loc.startLine);
      const parent = node.parentNode.tagName;
      if (RAW_TEXT.has(parent)) out.push(place(`<${parent}>`, line, parent === 'textarea' || parent === 'title'));
      else if (within(node, ['pre', 'code'])) out.push(place('code block', line, true));
      else out.push({ where: 'text', many: 'places in the text', line, shown: true });
    }
  }
  return out;
}

/**
 * One phrase listing where a page mentions `<kv-calc` ("a <meta> content attribute (line 5),
 * 2 comments (lines 9, 12) and a code block (line 30)").
 * @param {{where: string, many: string, line: number}[]} list
 */
export function mentionsText(list) {
  const groups = new Map();
  for (const m of list) groups.set(m.where, { ...m, lines: [...(groups.get(m.where)?.lines ?? []), m.line] });
  const parts = [...groups.values()].map((g) => (g.lines.length === 1 ? `${g.where} (line ${g.lines[0]})`
    : `${g.lines.length} ${g.many} (lines ${g.lines.join(', ')})`));
  return parts.length > 1 ? `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}` : parts[0];
}

/**
 * What an element's content holds, as the element reads it: kind 'empty' (white space,
 * comments and its inline config only), 'baked' (a fallback this tool wrote: an element in it
 * carries data-kvcalc-baked) or 'authored'; and inline, its inline config (the first child
 * <script type="application/json">: its text and its source as written), if any.
 * @param {string} content
 */
export function readContent(content) {
  const context = defaultTreeAdapter.createElement(TAG, HTML.NS.HTML, []);
  const fragment = parseFragment(context, content, { sourceCodeLocationInfo: true });
  let inline;
  let written = false;
  for (const node of fragment.childNodes) {
    if (node.nodeName === '#comment' || (node.nodeName === '#text' && !node.value.trim())) continue;
    if (!inline && node.tagName === 'script' && node.attrs.find((a) => a.name === 'type')?.value === 'application/json') {
      const loc = node.sourceCodeLocation;
      inline = { text: node.childNodes.map((t) => t.value).join(''), source: content.slice(loc.startOffset, loc.endOffset) };
    } else {
      written = true;
    }
  }
  const baked = [...walk(fragment)].some((node) => node.attrs?.some((a) => a.name === 'data-kvcalc-baked'));
  return { kind: baked ? 'baked' : written ? 'authored' : 'empty', inline };
}

/**
 * The elements of a page a browser ends before their end tag, so that what follows in their
 * content is shown after them: [{ index, paragraphOffset, closedBy, closedOffset }]: the
 * element's place among the page's <kv-calc> elements, the offset of the <p> it is in (if it
 * is), and the tag that ends it and its offset. The case met in practice: Markdown wraps an
 * element written inline in a <p>, and a block in its fallback (a <p>, a <div>, a <table>)
 * closes that paragraph, and the element with it.
 * @param {string} html
 */
export function endedEarly(html) {
  const { document } = parsePage(html);
  const out = [];
  [...walk(document)].filter(isElement).forEach((node, index) => {
    const loc = node.sourceCodeLocation;
    if (loc.endTag || loc.endOffset === undefined || loc.endOffset >= html.length) return;
    let paragraph = node.parentNode;
    while (paragraph && paragraph.tagName !== 'p' && paragraph.tagName !== 'body') paragraph = paragraph.parentNode;
    out.push({
      index,
      paragraphOffset: paragraph?.tagName === 'p' ? paragraph.sourceCodeLocation?.startOffset : undefined,
      closedBy: /^<\/?([a-zA-Z][^\s/>]*)/.exec(html.slice(loc.endOffset))?.[1]?.toLowerCase(),
      closedOffset: loc.endOffset,
    });
  });
  return out;
}
