#!/usr/bin/env bash
# The examples' own npm tools (Vite, VitePress, Docusaurus, Astro Starlight, Eleventy), in one install:
# examples/ is an npm workspace of the recipes that have npm tools, with one lock file
# (examples/package-lock.json), so what they share is installed once (about 520 MB, against
# 670 MB for five installs of their own). The tests build each recipe from the packed package,
# offline. Only the tests need them (scripts/test.sh runs this beside the build); `npm start`
# does not. Each recipe keeps its own package.json naming its tools, so a recipe folder copied
# alone installs with `npm install` there.
set -euo pipefail
cd "$(dirname "$0")/../examples"
# A recipe's node_modules of its own, from before the workspace (its own hidden lock file):
# Node would find its packages before the workspace's.
for own in */node_modules/.package-lock.json; do
  [ -f "$own" ] || continue
  echo "setup: removing $(dirname "$own"), installed before the examples' workspace"
  rm -rf "$(dirname "$own")"
done
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ] ||
   [ package.json -nt node_modules/.package-lock.json ]; then
  echo "setup: installing the examples' dev dependencies (one npm workspace: examples/package.json)"
  npm ci --no-audit --no-fund --loglevel=error
fi
