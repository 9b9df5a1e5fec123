// The one error class of the JS API. The core reports bad input as data
// ({"error": {code, message, field, line?, column?}}); the API throws it as a KvCalcError,
// and the wasm instance keeps working.

export class KvCalcError extends Error {
  /**
   * @param {{code: string, message: string, field?: string, line?: number, column?: number}} e
   */
  constructor({ code, message, field = '', line, column }) {
    super(message);
    this.name = 'KvCalcError';
    this.code = code;
    this.field = field;
    if (line !== undefined) {
      this.line = line;
      this.column = column;
    }
  }
}
