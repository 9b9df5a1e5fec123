// The theme's MDX components, and <KvCalc> for every page.
import { useMDXComponents as getThemeComponents } from 'nextra-theme-docs';
import { KvCalc } from './components/kv-calc.jsx';

const themeComponents = getThemeComponents();

export function useMDXComponents(components) {
  return { ...themeComponents, KvCalc, ...components };
}
