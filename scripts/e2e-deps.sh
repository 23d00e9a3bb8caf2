#!/usr/bin/env bash
# The real clients the end-to-end tests (*.e2e.test.ts) drive: Debian's chromium (the web UI's browser tests, driven
# by playwright-core; never a browser download) and the psql client (the Postgres wire protocol tests). Installs
# them with apt when they are missing, which needs root, as CI runs; otherwise says what to install.
set -euo pipefail

missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v psql >/dev/null 2>&1 || missing+=(postgresql-client)
if [ ${#missing[@]} -eq 0 ]; then
  echo "e2e clients present: $(chromium --version 2>/dev/null | head -1); $(psql --version)"
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "missing ${missing[*]}: install with: sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq || echo "apt-get update failed; trying the package lists already here" >&2
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "installed ${missing[*]}: $(chromium --version 2>/dev/null | head -1); $(psql --version)"
