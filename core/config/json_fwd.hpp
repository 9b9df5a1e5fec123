// The JSON type's name without nlohmann's implementation, for headers that only name it (a
// pointer, a reference, a declaration): a source that reads or builds JSON includes
// config/json.hpp. Most of the core never touches JSON and so never parses nlohmann.
#pragma once

#include <nlohmann/json_fwd.hpp>

namespace kvcalc {

using json = nlohmann::json;

}  // namespace kvcalc
