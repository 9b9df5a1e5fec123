// Defines <kv-calc> in the browser.
import 'kvcalc';
