#!/usr/bin/env bash
# Browser test of the embedded dashboard against the real `scil serve`:
# Debian's Chromium driven by playwright-core (never `npx playwright install`).
#   web/test.sh            build scil (debug), run tests/browser/run.mjs
#   web/test.sh --mock     same test against the contract mock (no cargo build)
# Env: CARGO_TARGET_DIR (default ./target), SCIL_BIN, CHROMIUM (default /usr/bin/chromium),
#      SCREENSHOT (default target/dashboard.png). Last line: `browser: N passed, M failed`.
set -euo pipefail
cd "$(dirname "$0")/.."

CHROMIUM="${CHROMIUM:-/usr/bin/chromium}"
if [ ! -x "$CHROMIUM" ]; then
  if [ "$(id -u)" = 0 ]; then
    echo "web/test.sh: installing Debian chromium" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-dejavu-core >/dev/null
  else
    echo "web/test.sh: $CHROMIUM missing (apt-get install -y chromium)" >&2
    exit 2
  fi
fi

if [ ! -d web/node_modules/playwright-core ] || [ web/package-lock.json -nt web/node_modules/.package-lock.json ]; then
  (cd web && npm ci --no-audit --no-fund --loglevel=error)
fi

if [[ " $* " != *" --mock "* ]] && [ -z "${SCIL_BIN:-}" ]; then
  cargo build --quiet --bin scil
fi
exec node tests/browser/run.mjs "$@"
