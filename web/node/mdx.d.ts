// Types for kvcalc/mdx (dist/mdx.mjs): the remark plugin for MDX sites rendered by React.

export interface RemarkKvcalcOptions {
  /** The href of kvcalc.css from the site's pages (default /kvcalc.css, where writeStylesheet() of kvcalc/bake puts it in the folder the site serves at its root). */
  stylesheet?: string;
  /** The pages' language, in which the baked figures are written (default en). */
  lang?: string;
}

/**
 * A remark plugin (unified's attacher): each <kv-calc> of an MDX page, self-closed or empty,
 * gets what `kvcalc bake` writes inside it (its first render as a declarative shadow root,
 * and the figures in words) as its dangerouslySetInnerHTML, with suppressHydrationWarning,
 * when the page is compiled: the figures are in the server's HTML, survive hydration, and
 * are there on a client-side navigation. An element inside a paragraph, or with an attribute
 * the build cannot read (an expression, a spread), or a bad attribute fails the compile with
 * the file, the line and the attribute.
 * `remarkPlugins: [kvcalc]` or `[[kvcalc, { stylesheet: '/docs/kvcalc.css' }]]`.
 */
export default function remarkKvcalc(options?: RemarkKvcalcOptions): (tree: unknown, file?: { path?: string }) => Promise<void>;
