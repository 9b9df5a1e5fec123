// snprintf for the wasm module, integers only (linked with -Wl,--wrap=snprintf).
// The only callers are nlohmann's escapes ("\\u%04x", "<U+%.4X>", "%.2X"); libc's full
// snprintf would pull in the float formatter and long-double arithmetic (~1.4 KB gzip).
// A float conversion would print wrongly here, so it aborts instead: loud, never a wrong
// number (the module is built without exceptions, and the JS layer reports the abort).
#include <cstdarg>
#include <cstddef>
#include <cstdlib>

extern "C" int vsniprintf(char* out, std::size_t size, const char* format, std::va_list args);

namespace {

bool has_float_conversion(const char* f) {
    for (; *f; ++f) {
        if (*f != '%') continue;
        ++f;
        while (*f && !((*f >= 'a' && *f <= 'z') || (*f >= 'A' && *f <= 'Z') || *f == '%'))
            ++f;
        while (*f == 'l' || *f == 'h' || *f == 'j' || *f == 'z' || *f == 't' || *f == 'L')
            ++f;
        switch (*f) {
            case 'e':
            case 'E':
            case 'f':
            case 'F':
            case 'g':
            case 'G':
            case 'a':
            case 'A':
                return true;
            case '\0':
                return false;
            default:
                break;
        }
    }
    return false;
}

}  // namespace

extern "C" int __wrap_snprintf(char* out, std::size_t size, const char* format, ...) {
    if (has_float_conversion(format)) std::abort();
    std::va_list args;
    va_start(args, format);
    int n = vsniprintf(out, size, format, args);
    va_end(args);
    return n;
}
