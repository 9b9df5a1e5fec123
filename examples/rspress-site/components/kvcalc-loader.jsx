// Defines <kv-calc> in the browser, once the page has hydrated (an effect never runs when
// Rspress renders the pages in Node); each element then takes over its baked render.
import { useEffect } from 'react';

export default function KvCalcLoader() {
  useEffect(() => {
    import('kvcalc');
  }, []);
  return null;
}
