// The C++ types Embind converts at the JS boundary, registered in place of Embind's own
// bind.cpp (the modules link Embind's JS library without it: CMakeLists.txt). bind.cpp
// registers every builtin type (wide and UTF-16/32 strings, emscripten::val, floats, memory
// views), and each registered kind brings its converter into the JS glue. The bindings
// (size_bindings.cpp, table_bindings.cpp, check_bindings.cpp) take and return std::string
// only, so that is the one type here. A binding with any other type throws Embind's
// "unbound types" error when called, in the tests that call it.
#include <emscripten/bind.h>
#include <emscripten/emscripten.h>

#include <cstring>
#include <string>

extern "C" {

// The glue asks for a type's name when it reports a binding whose type is not registered
// ("Cannot call size due to unbound types: ..."). Built without RTTI (CMakeLists.txt), a type
// is known by an address only, so the name says where to look instead. The glue frees it.
EMSCRIPTEN_KEEPALIVE const char* __getTypeName(emscripten::internal::TYPEID) {
    return strdup("a type not registered in wasm/embind_types.cpp");
}

// A constructor, as in bind.cpp: it runs when the module starts, like the bindings' own.
__attribute__((constructor)) void __embind_register_native_and_builtin_types() {
    using namespace emscripten::internal;
    _embind_register_std_string(TypeID<std::string>::get(), "std::string");
}

}  // extern "C"
