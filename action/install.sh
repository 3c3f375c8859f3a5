#!/usr/bin/env bash
# Installs Crucible for the action. CRUCIBLE_VERSION says from where:
#   action      the action's own checkout ($ACTION_PATH) is Crucible's source: build the CLI and link it
#   *.tgz       a packed package (`npm pack`), which is how the action's own test installs it
#   otherwise   the npm package crucible-harness at that version or tag (never `crucible`: that
#               name on the registry is an unrelated package)
set -euo pipefail
version="${CRUCIBLE_VERSION:-action}"
case "$version" in
  action)
    cd "${ACTION_PATH:?ACTION_PATH must name the action checkout}"
    # A cached build (the action's cache step) is used only when it was built from exactly this source.
    stamp="$(find package-lock.json tsconfig.build.json scripts src -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -d' ' -f1)"
    if [ -f dist/cli/main.js ] && [ "$(cat dist/.crucible-build-stamp 2>/dev/null)" = "$stamp" ]; then
      echo "Crucible's build is cached for this source: not building"
    else
      npm ci --no-audit --no-fund
      npx tsc -p tsconfig.build.json
      node scripts/bundle-cli.mjs
      echo "$stamp" > dist/.crucible-build-stamp
    fi
    npm install -g --no-audit --no-fund .
    ;;
  *.tgz)
    [ -f "$version" ] || { echo "crucible-version: no packed package at $version (fix: give the path of an npm pack tarball)" >&2; exit 2; }
    npm install -g --no-audit --no-fund "$(realpath "$version")"
    ;;
  *)
    npm install -g --no-audit --no-fund "crucible-harness@$version"
    ;;
esac
crucible --version
