import DefaultTheme from 'vitepress/theme';

export default {
  extends: DefaultTheme,
  enhanceApp() {
    // In the browser only: while VitePress renders the pages in Node, the element's
    // fallback is what goes into the HTML.
    if (!import.meta.env.SSR) import('kvcalc');
  },
};
