// Internal to the JSON layer (json_text.cpp, json_number.cpp, json_parse.cpp): number text
// and UTF-8 helpers the writer and the parser share. Not part of the core's interface.
#pragma once

#include <string>
#include <string_view>

namespace kvcalc::json_detail {

inline constexpr char hex_digits[] = "0123456789abcdef";

// A decimal as digits d1 d2 ... dk (no leading or trailing zeros; empty for zero) and the
// place of the decimal point: value = 0.d1d2...dk x 10^point.
struct Decimal {
    bool negative = false;
    std::string digits;
    long point = 0;
};

// Reads JSON number text (already checked against the grammar).
Decimal read_decimal(std::string_view t);

// True when the nearest double to `d` would be infinite.
bool overflows_double(const Decimal& d);

// The text nlohmann::json wrote for the double nearest to `d` ("0.9", "1e-05", "100.0").
std::string double_text(Decimal d);

// The number of bytes a UTF-8 sequence starting with `b` has and the range its second
// byte must be in (later bytes are 0x80..0xBF); 0 for a byte that cannot start one.
int utf8_lead(unsigned char b, unsigned char& lo, unsigned char& hi);

}  // namespace kvcalc::json_detail
