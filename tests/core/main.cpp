// The Catch2 runner, in its own file so test files rebuild quickly.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
