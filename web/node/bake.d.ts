// Types for kvcalc/bake (dist/bake.mjs): the baked content of <kv-calc> elements (the
// element's first render as its declarative shadow root, and the figures in words), for
// build plugins. Runs in Node 20+ (it reads the wasm beside it).

/** The package version that baked fallbacks are marked with (data-kvcalc-baked). */
export const VERSION: string;

export interface BakeResult {
  /** The page with every empty or previously baked <kv-calc> filled. */
  html: string;
  /** Whether html differs from the text given. */
  changed: boolean;
  /** <kv-calc> elements baked. */
  count: number;
  /** <kv-calc> elements whose author-written content was left alone (no force). */
  skipped: number;
  /**
   * Where the baked renders link kvcalc.css from (null when nothing was baked). rootCopy:
   * the file at the root of the folder (options.root), which the caller writes there
   * (writeStylesheet(root)); else the one beside the page's kvcalc.js, or the href given.
   */
  stylesheet: { href: string; rootCopy: boolean } | null;
  /** <kv-calc> elements found (read by an HTML parser: never in an attribute, a comment, a script or a code block). */
  elements: number;
  /** For a page with no <kv-calc> element, where its text says `<kv-calc` (noElementMessage() tells them). */
  mentions: Mention[];
  /**
   * What the author should know, each naming the file and the line: an element a browser
   * ends early (inside a <p>, the fallback's block closes it) and shows its fallback after.
   */
  warnings: string[];
}

/** A place a page says `<kv-calc` where no element is. */
export interface Mention {
  /** "a <meta> content attribute", "a <script>", "a comment", "a code block", "text", ... */
  where: string;
  /** The same, plural ("comments"). */
  many: string;
  line: number;
  /** Whether readers see it (a code block, text), rather than a copy out of sight. */
  shown: boolean;
}

export interface BakeOptions {
  /** Named in error messages ("docs/index.html:12: <kv-calc> context: ..."). */
  file?: string;
  /** Replace content an author wrote inside a <kv-calc> too. */
  force?: boolean;
  /**
   * The folder the page is baked in: its baked renders link kvcalc.css at its root (by the
   * site's own absolute prefix when the page shows one) unless the page loads kvcalc.js.
   */
  root?: string;
  /** The href of kvcalc.css from the page (a build plugin that puts the file there itself). */
  stylesheet?: string;
}

/**
 * Bakes every <kv-calc> of one HTML text. Rejects with an Error naming the file, the line and
 * the attribute (also as its file, line and attribute properties) on bad input, or saying
 * that nothing tells where kvcalc.css is (no kvcalc.js script in the page, no root, no
 * stylesheet).
 */
export function bake(html: string, options?: BakeOptions): Promise<BakeResult>;

/**
 * The fallback HTML for one <kv-calc> with these attributes (as written in HTML: "32K",
 * "bf16") and inline config text: the figures in words; with stylesheet (the href of
 * kvcalc.css from the page), first the element's first render as its declarative shadow
 * root, as bake() writes it (lang: the page's language, for the numbers). Rejects with an
 * Error with an attribute property.
 */
export function fallbackHtml(attributes: Record<string, string>, inlineConfigText?: string,
  options?: { stylesheet?: string; lang?: string }): Promise<string>;

/** The element's style sheet, as dist/kvcalc.css holds it. */
export function stylesheetText(): string;

/**
 * Writes kvcalc.css at the root of a baked folder (unless it is there as this version wrote
 * it; refuses to replace a kvcalc.css that is not the element's). Returns its path.
 */
export function writeStylesheet(root: string): string;

/** Why a page with these mentions and no element got nothing, naming file and places; undefined for none. */
export function noElementMessage(file: string, mentions: Mention[]): string | undefined;

/** Why a run over these paths baked nothing, when no file holds a <kv-calc> element. */
export function nothingBakedMessage(paths: string[], files: number, mentioned: boolean): string;

/** The attributes of a start tag's inside, values decoded, names in lower case. */
export function parseAttributes(text: string): Record<string, string>;

/**
 * The HTML files of a path: the path itself when it is a file, else every .html file under
 * the folder (node_modules and dot folders skipped), in name order. Throws when nothing is there.
 */
export function htmlFiles(path: string): string[];

/** Writes a baked page over its file: beside it first, then renamed over it (never half written). */
export function writeWhole(file: string, html: string): void;

export interface BakeSiteOptions {
  /** Replace content an author wrote inside a <kv-calc> too. */
  force?: boolean;
  /** The href of kvcalc.css from every page (else found per page, as bake() finds it). */
  stylesheet?: string;
  /** No longer needed (a baked element has its live layout from the first paint): ignored. */
  reserve?: boolean;
  /** No longer needed: ignored. */
  chromium?: string;
}

/**
 * Bakes every HTML file of a built site (a folder, or one file) in place, for a build
 * plugin's after-build hook, and writes kvcalc.css at its root when a page links it there:
 * HTML files read, files rewritten, <kv-calc> baked, and the warnings (also printed on
 * stderr): an element a browser ends early, a page that mentions `<kv-calc` with no element,
 * a site with no element at all. Rejects on the first bad <kv-calc> (as bake() does), that
 * file left as it was.
 */
export function bakeSite(path: string, options?: BakeSiteOptions): Promise<{ files: number; changed: number; count: number; warnings: string[] }>;
