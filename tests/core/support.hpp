// Helpers shared by the Catch2 files: reading the shared configs, sizing them.
#pragma once

#include <catch2/catch.hpp>
#include <cstdio>
#include <string>

#include "api.hpp"
#include "config/model.hpp"
#include "sizing/sizing.hpp"

namespace kvtest {

// A whole file's text (tests read real files: the shared configs, the expected table).
inline std::string read_file(const std::string& path) {
    std::FILE* f = std::fopen(path.c_str(), "rb");
    INFO(path);
    REQUIRE(f != nullptr);
    std::string text;
    char buf[4096];
    std::size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0)
        text.append(buf, n);
    std::fclose(f);
    return text;
}

// The text of ../shared/configs/<name> (tests read the real published files).
inline std::string shared_config(const std::string& name) {
    return read_file(std::string(KVCALC_SHARED_DIR) + "/configs/" + name);
}

inline kvcalc::ModelSpec model(const std::string& name) {
    auto m = kvcalc::read_model_text(shared_config(name));
    INFO(name << ": " << (m ? "" : m.error().message));
    REQUIRE(m.ok());
    return m.value();
}

// A config written in the test, read; and one the reader must refuse, its error.
inline kvcalc::ModelSpec read_written(const std::string& text) {
    auto m = kvcalc::read_model_text(text);
    INFO(text << "\n" << (m ? "" : m.error().message));
    REQUIRE(m.ok());
    return m.value();
}

inline kvcalc::Error refused_written(const std::string& text) {
    auto m = kvcalc::read_model_text(text);
    INFO(text);
    REQUIRE_FALSE(m.ok());
    return m.error();
}

inline kvcalc::SizeResult size(const std::string& name, kvcalc::SizeOptions o = {}) {
    auto r = kvcalc::size_model(model(name), o);
    INFO(name << ": " << (r ? "" : r.error().message));
    REQUIRE(r.ok());
    return r.value();
}

inline kvcalc::SizeOptions at(std::uint64_t context, kvcalc::Accounting a = kvcalc::Accounting::resident) {
    kvcalc::SizeOptions o;
    o.context = context;
    o.accounting = a;
    return o;
}

inline constexpr std::uint64_t KiB = 1024, MiB = 1024 * KiB, GiB = 1024 * MiB;

}  // namespace kvtest
