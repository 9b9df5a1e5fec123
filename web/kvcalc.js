// kvcalc: the one module a page imports. The JS API over the wasm core (api.js); the
// <kv-calc> element (element.js) is exported and defined from here too.
export * from './api.js';
export { KvCalcElement, KvCalcChangeEvent, define } from './element.js';
import { define } from './element.js';
define();  // <kv-calc>, unless the page already defined that tag
