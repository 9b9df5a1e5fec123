// Evaluates the arithmetic written beside each expected figure in tests/expected/*.json:
// integers, x, +, -, (a/b) exact division, ceildiv(a, b), floordiv(a, b), min(a, b). Exact uint64.
#pragma once

#include <cctype>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace kvtest {

class Arithmetic {
public:
    static std::uint64_t eval(const std::string& text) {
        Arithmetic a(text);
        std::uint64_t v = a.expr();
        a.skip();
        if (a.i_ != a.s_.size()) a.fail("trailing text");
        return v;
    }

private:
    explicit Arithmetic(const std::string& s) : s_(s) {}
    const std::string& s_;
    std::size_t i_ = 0;

    [[noreturn]] void fail(const std::string& why) {
        throw std::runtime_error("arithmetic \"" + s_ + "\": " + why + " at " + std::to_string(i_));
    }
    void skip() {
        while (i_ < s_.size() && s_[i_] == ' ')
            ++i_;
    }
    bool eat(const std::string& tok) {
        skip();
        if (s_.compare(i_, tok.size(), tok) == 0) {
            i_ += tok.size();
            return true;
        }
        return false;
    }
    std::uint64_t expr() {
        std::uint64_t v = term();
        for (;;) {
            if (eat("+"))
                v += term();
            else if (eat("-"))
                v -= term();
            else
                return v;
        }
    }
    std::uint64_t term() {
        std::uint64_t v = factor();
        for (;;) {
            skip();
            if (i_ + 1 < s_.size() && s_[i_] == 'x' && s_[i_ + 1] == ' ') {
                ++i_;
                std::uint64_t r = factor();
                if (__builtin_mul_overflow(v, r, &v)) fail("overflow");
            } else if (eat("/")) {
                std::uint64_t d = factor();
                if (d == 0 || v % d != 0) fail("inexact division");
                v /= d;
            } else {
                return v;
            }
        }
    }
    std::uint64_t factor() {
        if (eat("ceildiv(")) {
            std::uint64_t a = expr();
            if (!eat(",")) fail("expected ,");
            std::uint64_t b = expr();
            if (!eat(")")) fail("expected )");
            return a / b + (a % b ? 1 : 0);
        }
        if (eat("floordiv(")) {
            std::uint64_t a = expr();
            if (!eat(",")) fail("expected ,");
            std::uint64_t b = expr();
            if (!eat(")")) fail("expected )");
            return a / b;
        }
        if (eat("min(")) {
            std::uint64_t a = expr();
            if (!eat(",")) fail("expected ,");
            std::uint64_t b = expr();
            if (!eat(")")) fail("expected )");
            return a < b ? a : b;
        }
        if (eat("(")) {
            std::uint64_t v = expr();
            if (!eat(")")) fail("expected )");
            return v;
        }
        skip();
        if (i_ >= s_.size() || !std::isdigit(static_cast<unsigned char>(s_[i_]))) fail("expected a number");
        std::uint64_t v = 0;
        while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_])))
            v = v * 10 + static_cast<std::uint64_t>(s_[i_++] - '0');
        return v;
    }
};

}  // namespace kvtest
