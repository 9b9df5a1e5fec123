// The `kvcalc-change` event's class: one per page, in kvcalc.js (element.js exports it there),
// so that a page's `instanceof KvCalcChangeEvent` holds for the events live.js, fetched
// later, dispatches.

/** The `kvcalc-change` event: a new result is on screen. */
export class KvCalcChangeEvent extends Event {
  constructor(result, check, state) {
    super('kvcalc-change', { bubbles: true, composed: true });
    this.result = result;
    this.check = check;
    this.state = state;
  }
}
