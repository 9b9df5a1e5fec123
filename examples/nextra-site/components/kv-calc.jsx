// <KvCalc model="..." context="32768" /> in MDX: a server component (React Server Components
// render it at build time, never in the browser) that writes <kv-calc> with what `kvcalc bake`
// writes inside it: its first render as a declarative shadow root, linking /kvcalc.css, and
// the figures in words. As dangerouslySetInnerHTML, React does not compare it when the page
// hydrates (suppressHydrationWarning: the parser has turned its <template> into the shadow
// root) and sets it again on a client-side navigation, where the element attaches it.
import { fallbackHtml } from 'kvcalc/bake';

export async function KvCalc(props) {
  const html = await fallbackHtml(props, undefined, { stylesheet: '/kvcalc.css' });
  return <kv-calc {...props} dangerouslySetInnerHTML={{ __html: html }} suppressHydrationWarning />;
}
