#!/usr/bin/env bash
# The examples' own tools (Vite, VitePress, Docusaurus, Astro Starlight, Eleventy), from their lock
# files: the tests build each example from the packed package, offline. Only the tests need
# them (scripts/test.sh runs this beside the build); `npm start` does not.
set -euo pipefail
cd "$(dirname "$0")/.."
for example in examples/vite-app examples/vitepress-site examples/docusaurus-site examples/astro-starlight examples/eleventy-site; do
  if [ ! -d "$example/node_modules" ] || [ "$example/package-lock.json" -nt "$example/node_modules/.package-lock.json" ]; then
    echo "setup: installing the dev dependencies of $example"
    npm ci --prefix "$example" --no-audit --no-fund --loglevel=error
  fi
done

