// kvcalc: the one module a page imports. The JS API over the wasm core (api/api.js); the
// <kv-calc> element (element/element.js) is exported and defined from here too.
export * from './api/api.js';
export { KvCalcElement, KvCalcChangeEvent, define } from './element/element.js';
import { define } from './element/element.js';
define();  // <kv-calc>, unless the page already defined that tag
