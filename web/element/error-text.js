// How the element words a KvCalcError for a reader.

// "num_attention_heads: missing ..." as the core words it; the field is added in front when
// the message does not already name it, and JSON syntax errors get their position.
export function describeError(e) {
  const message = String(e && e.message ? e.message : e);
  let text = e && e.field && !message.includes(e.field) ? `${e.field}: ${message}` : message;
  if (e && e.line && !message.includes(`line ${e.line}`)) text += ` (line ${e.line}, column ${e.column})`;
  return text;
}
