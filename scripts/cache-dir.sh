#!/usr/bin/env bash
# Prints the per-user folder where the build's and the lint's caches live (never in the
# clone): ccache's objects (CMakeLists.txt) and clang-tidy's clean verdicts
# (scripts/tidy-cached.mjs). Every entry in it is keyed by the content of its inputs.
echo "${KVCALC_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/kvcalc}"
