// Byte counts as people read them, computed with integers only (no float rounding).
#pragma once

#include <cstdint>
#include <string>

namespace kvcalc {

// "1,048,576" (sep ","), "1048576" (sep "").
std::string group_thousands(std::uint64_t v, const std::string& sep = ",");

// 1024-based: "56 KiB", "1.75 GiB", "512 B". Two decimals at most, trailing zeros dropped,
// rounded half up. decimal = true gives "1.88 GB" (1000-based, labelled kB, MB, GB, TB).
std::string format_bytes(std::uint64_t bytes, bool decimal = false);

// value / 10^scale as a decimal string with `scale` digits: fixed_point(65, 2) = "0.65".
std::string fixed_point(std::uint64_t value, unsigned scale);

}  // namespace kvcalc
