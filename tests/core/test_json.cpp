// Reading JSON text with nlohmann::json and the config rules on top (core/json.hpp): what it
// accepts, the text it writes, and where it places errors (nlohmann's line and column, in the
// text as given when NaN / Infinity tokens were rewritten).
#include <catch2/catch.hpp>
#include <string>
#include <string_view>

#include "config/json.hpp"
#include "report.hpp"

using namespace std::string_view_literals;
using kvcalc::json;

namespace {

struct Case {
    std::string_view input;
    const char* dump;  // compact text when the input parses, else nullptr
    int line, column;  // of the error (0 for duplicate keys and nesting)
    const char* field;
    const char* message;  // checked for errors without a position
};

}  // namespace

TEST_CASE("json: parses, writes and places errors as nlohmann::json did") {
    const Case cases[] = {
        {"{\"b\":1,\"a\":[true,false,null],\"c\":{}}"sv, "{\"a\":[true,false,null],\"b\":1,\"c\":{}}", 0, 0,
         "", ""},
        {"[]"sv, "[]", 0, 0, "", ""},
        {"  [1, -2, 0, -0, 18446744073709551615, -9223372036854775808]  "sv,
         "[1,-2,0,0,18446744073709551615,-9223372036854775808]", 0, 0, "", ""},
        {"[18446744073709551616, 1.5, 1e3, 1E-5, 0.0001, 1e16, 123456789012345.6, -0.0, 2.50, 1]"sv,
         "[1.8446744073709552e+19,1.5,1000.0,1e-05,0.0001,1e+16,123456789012345.6,-0.0,2.5,1]", 0, 0, "", ""},
        {"[\"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u0001\\u001F\\u007f\\u00e9\\ud83d\\ude00\"]"sv,
         "[\"\\\"\\\\/\\b\\f\\n\\r\\t\\u0001\\u001f\x7f\xc3\xa9\xf0\x9f\x98\x80\"]", 0, 0, "", ""},
        {"{\"a\":NaN,\"b\":[Infinity,-Infinity]}"sv,
         "{\"a\":\"\\u0001NaN\",\"b\":[\"\\u0001Infinity\",\"\\u0001-Infinity\"]}", 0, 0, "", ""},
        {"\xef\xbb\xbf{\"x\":1}"sv, "{\"x\":1}", 0, 0, "", ""},
        {"{\"x\":1}\x00trailing"sv, "{\"x\":1}", 0, 0, "", ""},
        {"{\"a\":1,\"a\":2}"sv, nullptr, 0, 0, "a", "duplicate key \"a\" in the top-level object"},
        {"{\"a\":{\"b\":[{\"c\":1,\"c\":2}]}}"sv, nullptr, 0, 0, "a.b.c", "duplicate key \"c\" in a.b"},
        {"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]"sv,
         nullptr, 0, 0, "", "malformed JSON: nesting deeper than 128 levels"},
        {"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]"sv,
         "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["
         "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]"
         "]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
         0, 0, "", ""},
        {""sv, nullptr, 1, 1, "", ""},
        {"   "sv, nullptr, 1, 4, "", ""},
        {"{"sv, nullptr, 1, 2, "", ""},
        {"{\"a\""sv, nullptr, 1, 5, "", ""},
        {"{\"a\":"sv, nullptr, 1, 6, "", ""},
        {"{\"a\":1"sv, nullptr, 1, 7, "", ""},
        {"{\"a\":1,"sv, nullptr, 1, 8, "", ""},
        {"{\"a\":1,}"sv, nullptr, 1, 8, "", ""},
        {"[1,]"sv, nullptr, 1, 4, "", ""},
        {"[1 2]"sv, nullptr, 1, 4, "", ""},
        {"{\"a\" 1}"sv, nullptr, 1, 6, "", ""},
        {"{1:2}"sv, nullptr, 1, 2, "", ""},
        {"tru"sv, nullptr, 1, 4, "", ""},
        {"nul "sv, nullptr, 1, 4, "", ""},
        {"x"sv, nullptr, 1, 1, "", ""},
        {"01"sv, nullptr, 1, 2, "", ""},
        {"1."sv, nullptr, 1, 3, "", ""},
        {"-"sv, nullptr, 1, 2, "", ""},
        {"1e"sv, nullptr, 1, 3, "", ""},
        {"1e+"sv, nullptr, 1, 4, "", ""},
        {".5"sv, nullptr, 1, 1, "", ""},
        {"\"abc"sv, nullptr, 1, 5, "", ""},
        {"\"a\nb\""sv, nullptr, 2, 1, "", ""},
        {"\"\\x\""sv, nullptr, 1, 3, "", ""},
        {"\"\\u12\""sv, nullptr, 1, 6, "", ""},
        {"\"\\ud800\""sv, nullptr, 1, 8, "", ""},
        {"\"\\ud800\\u0041\""sv, nullptr, 1, 13, "", ""},
        {"\"\\udc00\""sv, nullptr, 1, 7, "", ""},
        {"{\"a\":1}}"sv, nullptr, 1, 8, "", ""},
        {"{\"a\":1} x"sv, nullptr, 1, 9, "", ""},
        {"[NaN NaN]"sv, nullptr, 1, 8, "", ""},
        {"{\"a\":1, NaN :2}"sv, "{\"\\u0001NaN\":2,\"a\":1}", 0, 0, "", ""},
        {"[NaNx]"sv, nullptr, 1, 2, "", ""},
        {"[-Infinityy]"sv, nullptr, 1, 3, "", ""},
        {"[1e400]"sv, nullptr, 1, 6, "", ""},
        {"{\"a\":\n  [1,\n   2,,\n]}"sv, nullptr, 3, 6, "", ""},
        {"\xc3\xaf\xc2\xbb{}"sv, nullptr, 1, 1, "", ""},
        {"\"\xff\""sv, nullptr, 1, 2, "", ""},
        {"\"\xc3\""sv, nullptr, 1, 3, "", ""},
        {"\"\xe0\x80\x80\""sv, nullptr, 1, 3, "", ""},
        {"\"\xed\xa0\x80\""sv, nullptr, 1, 3, "", ""},
        {"\"\xf4\x90\x80\x80\""sv, nullptr, 1, 3, "", ""},
        {"\xff"sv, nullptr, 1, 1, "", ""},
    };
    for (const Case& c : cases) {
        INFO(std::string(c.input));
        auto r = kvcalc::parse_json_text(c.input);
        if (c.dump) {
            REQUIRE(r.ok());
            CHECK(kvcalc::to_text(*r) == c.dump);
            CHECK(kvcalc::parse_json_text(kvcalc::to_text(*r, 2))->dump() == c.dump);  // round trip
        } else {
            REQUIRE(!r.ok());
            CHECK(r.error().code == "malformed_json");
            CHECK(r.error().line == c.line);
            CHECK(r.error().column == c.column);
            CHECK(r.error().field == c.field);
            if (c.line == 0)
                CHECK(r.error().message == c.message);
            else
                CHECK(r.error().message.rfind("malformed JSON at line " + std::to_string(c.line) +
                                                  ", column " + std::to_string(c.column) + ": ",
                                              0) == 0);
        }
    }
}

TEST_CASE("json: indented text, and invalid UTF-8 written as U+FFFD") {
    auto r = kvcalc::parse_json_text(R"({"a":[1,{"b":[],"c":{}},"x"],"d":{"e":null}})");
    REQUIRE(r.ok());
    CHECK(kvcalc::to_text(*r, 2) ==
          "{\n  \"a\": [\n    1,\n    {\n      \"b\": [],\n      \"c\": {}\n    },\n    \"x\"\n  ],\n"
          "  \"d\": {\n    \"e\": null\n  }\n}");
    CHECK(kvcalc::to_text(json(std::string("\xff"))) == "\"\xef\xbf\xbd\"");
    CHECK(kvcalc::to_text(json(std::string("a\xc3"))) == "\"a\xef\xbf\xbd\"");  // cut short
    CHECK(kvcalc::to_text(json(std::string("\xc3("))) ==
          "\"\xef\xbf\xbd(\"");  // the breaking byte is read again
    CHECK(kvcalc::to_text(json(std::string("\xed\xa0\x80"))) ==
          "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"");  // a surrogate
    CHECK(kvcalc::to_text(json(std::string("ok\xc2\xa9\x7f\x1b"))) == "\"ok\xc2\xa9\x7f\\u001b\"");
}

TEST_CASE("json: hundredths written with two decimals at most") {
    CHECK(kvcalc::to_text(kvcalc::hundredths_json(65)) == "0.65");
    CHECK(kvcalc::to_text(kvcalc::hundredths_json(1414)) == "14.14");
    CHECK(kvcalc::to_text(kvcalc::hundredths_json(10000)) == "100.0");
    CHECK(kvcalc::to_text(kvcalc::hundredths_json(5)) == "0.05");
    CHECK(kvcalc::to_text(kvcalc::hundredths_json(0)) == "0.0");
}

TEST_CASE("json: a text above 1 MiB is refused before parsing") {
    // {"a":"x...x"} with n x's is n + 8 bytes.
    std::string at_limit = "{\"a\":\"" + std::string(kvcalc::max_json_bytes - 8, 'x') + "\"}";
    REQUIRE(at_limit.size() == 1024 * 1024);
    auto ok = kvcalc::parse_json_text(at_limit);
    REQUIRE(ok.ok());
    CHECK((*ok)["a"].get<std::string>().size() == 1024 * 1024 - 8);
    auto big = kvcalc::parse_json_text(at_limit + " ");
    REQUIRE(!big.ok());
    CHECK(big.error().code == "invalid_value");
    CHECK(big.error().message ==
          "the JSON text is 1048577 bytes, more than kvcalc reads (1 MiB, 1048576 bytes: a config.json is "
          "kilobytes)");
}
