// The check: an advertised max context against the KV pool a deployment has (given in
// tokens, read from the engine's startup log, or derived from a GPU), as the engine admits
// requests. The report the CLI prints with --json and the JS API returns.
#pragma once

#include "config/json.hpp"
#include "options.hpp"
#include "session.hpp"

namespace kvcalc {

Result<json> check_report(const Model& model, const Options& options);

}  // namespace kvcalc
