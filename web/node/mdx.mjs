// kvcalc/mdx: a remark plugin for MDX sites rendered by React (Rspress, Docusaurus, Nextra on
// webpack, any @mdx-js/mdx pipeline). Every <kv-calc> written in a page gets, when the page
// is compiled, what `kvcalc bake` writes inside it (the element's first render as its
// declarative shadow root, linking kvcalc.css, and the figures in words), as the element's
// dangerouslySetInnerHTML, with suppressHydrationWarning. The baked markup is then part of
// what React renders: in the HTML the server writes, where the browser attaches the shadow
// root; left alone when the page hydrates (React does not compare what dangerouslySetInnerHTML
// holds, and suppressHydrationWarning keeps its development build from warning that the
// shadow root's <template> is gone: the parser attached it); and set again as innerHTML on
// a client-side navigation, where the element attaches the template itself. A bake after the
// build (kvcalc bake, bakeSite) cannot reach that last one: the framework's router renders
// the page from its JavaScript, not from the HTML.
//
// Elements with content of their author are left as written (as bake leaves them). An
// element inside a paragraph, or whose attribute the build cannot read (an expression, a
// spread), fails the build with the file, the line and what to write instead.

import { fallbackHtml } from './bake.mjs';
import { ATTRIBUTES } from '../element/state.js';

const TAG = 'kv-calc';
// The props this plugin writes (replacing any the author wrote, as the older recipes did).
const WRITTEN = ['dangerouslySetInnerHTML', 'suppressHydrationWarning'];

// Every node of the tree, depth first.
function* nodes(node) {
  yield node;
  for (const child of node.children ?? []) yield* nodes(child);
}

// A JS literal expression as an MDX attribute value (estree, which MDX compiles, and its text).
function expressionValue(expression, text) {
  return {
    type: 'mdxJsxAttributeValueExpression',
    value: text,
    data: { estree: { type: 'Program', sourceType: 'module', body: [{ type: 'ExpressionStatement', expression }] } },
  };
}

// dangerouslySetInnerHTML={{ __html: "..." }}
function innerHtmlAttribute(html) {
  const literal = { type: 'Literal', value: html, raw: JSON.stringify(html) };
  const object = {
    type: 'ObjectExpression',
    properties: [{ type: 'Property', kind: 'init', method: false, shorthand: false, computed: false, key: { type: 'Identifier', name: '__html' }, value: literal }],
  };
  return { type: 'mdxJsxAttribute', name: 'dangerouslySetInnerHTML', value: expressionValue(object, `{ __html: ${literal.raw} }`) };
}

// An attribute's value as HTML would hold it: text as written, a bare name as "", and an
// expression that is one string or number literal as its text; null when it is any other
// expression.
function attributeText(value) {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  const [statement] = value.data?.estree?.body ?? [];
  const expression = statement?.type === 'ExpressionStatement' ? statement.expression : null;
  if (expression?.type === 'Literal' && ['string', 'number'].includes(typeof expression.value)) return String(expression.value);
  return null;
}

const hasContent = (node) => node.children.some((c) => c.type !== 'text' || c.value.trim());

/**
 * The remark plugin (unified's attacher): use it as `remarkPlugins: [kvcalc]` or
 * `[[kvcalc, { stylesheet: '/docs/kvcalc.css' }]]`.
 * stylesheet: the href of kvcalc.css from the site's pages (default /kvcalc.css: the file
 * writeStylesheet() writes into the folder the site serves at its root); lang: the pages'
 * language, in which the baked figures are written (default en).
 * @param {{stylesheet?: string, lang?: string}} [options]
 */
export default function remarkKvcalc({ stylesheet = '/kvcalc.css', lang = 'en' } = {}) {
  return async (tree, file) => {
    const where = (node) => `${file?.path ?? '<mdx>'}:${node.position?.start.line ?? '?'}`;
    const fail = (node, message) => {
      throw Object.assign(new Error(`${where(node)}: <kv-calc> ${message}`), { file: file?.path, line: node.position?.start.line });
    };
    for (const node of nodes(tree)) {
      if (!/^mdxJsx(Flow|Text)Element$/.test(node.type) || node.name !== TAG || hasContent(node)) continue;
      if (node.type === 'mdxJsxTextElement') {
        fail(node, 'is inside a paragraph, which cannot hold its baked figures (blocks): write it on a line of its own, ' +
          'with a blank line before and after');
      }
      const attributes = {};
      const kept = [];
      for (const a of node.attributes) {
        if (a.type !== 'mdxJsxAttribute') fail(node, `has a spread attribute ({${a.value}}): write each attribute as text, which the build reads`);
        if (WRITTEN.includes(a.name)) continue;
        kept.push(a);
        if (!Object.hasOwn(ATTRIBUTES, a.name)) continue;
        const text = attributeText(a.value);
        if (text === null) fail(node, `${a.name}={${a.value.value}}: the build cannot read an expression: write the value as text (${a.name}="...")`);
        attributes[a.name] = text;
      }
      let html;
      try {
        html = await fallbackHtml(attributes, undefined, { stylesheet, lang });
      } catch (e) {
        if (e.attribute === undefined) throw e;
        fail(node, e.message);
      }
      node.attributes = [...kept, innerHtmlAttribute(html), { type: 'mdxJsxAttribute', name: 'suppressHydrationWarning', value: null }];
    }
  };
}
