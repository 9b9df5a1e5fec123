'use client';
// Defines <kv-calc> in the browser, once the page has hydrated (an effect never runs on the
// server); each element then takes over its baked render.
import { useEffect } from 'react';

export function KvCalcLoader() {
  useEffect(() => {
    import('kvcalc');
  }, []);
  return null;
}
