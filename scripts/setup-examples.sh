#!/usr/bin/env bash
# The examples' own npm tools, for the tests, which build each recipe from the packed package,
# offline. Only the tests need them (scripts/test.sh runs this beside the build); `npm start`
# does not.
# - Vite, VitePress, Docusaurus and Astro Starlight in one install: examples/package.json makes
#   their recipes one npm workspace with one lock file (examples/package-lock.json), so what
#   they share is installed once (508 MB, against 653 MB in four installs of their own).
# - A recipe with a lock file of its own installs alone, as its author's project does:
#   Eleventy's config copies the package from its own node_modules/kvcalc.
# Every recipe keeps its own package.json naming its tools, so a recipe folder copied alone
# installs with `npm install` there.
# A new recipe with npm tools joins the workspace: its folder in examples/package.json's
# "workspaces", no package-lock.json of its own, `npm install --prefix examples` to update
# examples/package-lock.json (commit both); its test installs the tarball with installTarball(env,
# dir) and runs its tools from toolFile(dir, package, file) (tests/browser/examples-support.mjs).
# A recipe whose build reads the package from its own node_modules stays out, with its own lock.
set -euo pipefail
cd "$(dirname "$0")/../examples"
install() {  # folder: npm ci there when its lock file is newer than its install
  if [ ! -d "$1/node_modules" ] || [ "$1/package-lock.json" -nt "$1/node_modules/.package-lock.json" ] ||
     [ "$1/package.json" -nt "$1/node_modules/.package-lock.json" ]; then
    echo "setup: installing the dev dependencies of examples/$1"
    npm ci --prefix "$1" --no-audit --no-fund --loglevel=error
  fi
}
mapfile -t members < <(node -e 'for (const w of require("./package.json").workspaces) console.log(w)')
for member in "${members[@]}"; do
  # A workspace recipe's node_modules of its own, from before the workspace (its own hidden lock
  # file): Node would find its packages before the workspace's.
  if [ -f "$member/node_modules/.package-lock.json" ]; then
    echo "setup: removing examples/$member/node_modules, installed before the examples' workspace"
    rm -rf "$member/node_modules"
  fi
done
install .
for lock in */package-lock.json; do
  install "$(dirname "$lock")"
done
