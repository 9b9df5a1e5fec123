// The per-model table that docs bake in at build time: rows of geometry, bytes per token,
// one sequence's cache at a few contexts, and the weights; rendered as Markdown, HTML, CSV
// or JSON. Every string that came from a config is escaped for the format.
#pragma once

#include <string>
#include <vector>

#include "config/json.hpp"
#include "config/model.hpp"
#include "options.hpp"
#include "session.hpp"

namespace kvcalc {

// Options: contexts (a list, or text "4096,32768"; default 4096, 32768, 131072), kv_dtype,
// accounting (default resident), block_size, weight_dtype. A context above a model's own
// max gets no figure (null; "—" when rendered).
Result<json> table_report(const std::vector<std::shared_ptr<const Model>>& models, const Options& options);

// format: md, html, csv or json.
Result<std::string> render_table(const json& table, const std::string& format);

// Escapes for HTML text and attribute values: & < > " '.
std::string html_escape(const std::string& s);

}  // namespace kvcalc
