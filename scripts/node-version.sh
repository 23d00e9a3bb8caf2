#!/usr/bin/env bash
# Node.js binaries for testing Sluice on other Node versions than the machine's, from the npm registry:
# the `node-<os>-<arch>` packages hold the official builds, so `npm pack` fetches them (through npm's own
# registry settings and cache) without install scripts or a system-wide install. Each version lives in
# .cache/node/<version>/.
#
#   scripts/node-version.sh bin 22      print the bin folder of the newest Node 22 (fetched the first time)
#   scripts/node-version.sh run 24 CMD  run CMD with Node 24 first on PATH
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE="$ROOT/.cache/node"

die() { printf 'node-version: %s\n' "$*" >&2; exit 1; }

platform() {
  local os arch
  case $(uname -s) in Linux) os=linux ;; Darwin) os=darwin ;; *) die "no Node package for $(uname -s)" ;; esac
  case $(uname -m) in x86_64 | amd64) arch=x64 ;; aarch64 | arm64) arch=arm64 ;; *) die "no Node package for $(uname -m)" ;; esac
  echo "node-$os-$arch"
}

# The bin folder of the newest release of Node major $1, fetched into the cache when absent.
bin_of() {
  local major=$1 package version dir tmp
  [[ $major =~ ^[0-9]+$ ]] || die "expected a major version such as 22, got '$major'"
  package=$(platform)
  version=$(npm view "$package@$major" version --json 2>/dev/null | tr -d '[]" \n' | tr ',' '\n' | sort -V | tail -n 1)
  [ -n "$version" ] || die "the npm registry has no $package@$major"
  dir="$CACHE/$version"
  if [ ! -x "$dir/bin/node" ]; then
    mkdir -p "$CACHE"
    tmp=$(mktemp -d "$CACHE/.fetch.XXXXXX")
    (cd "$tmp" && npm pack --silent "$package@$version" >/dev/null) || { rm -rf "$tmp"; die "npm pack $package@$version failed"; }
    tar -xzf "$tmp"/*.tgz -C "$tmp"
    rm -rf "$dir"
    mv "$tmp/package" "$dir"
    rm -rf "$tmp"
    [ -x "$dir/bin/node" ] || die "$package@$version holds no bin/node"
  fi
  echo "$dir/bin"
}

case ${1:-} in
  bin) bin_of "${2:?a major version}" ;;
  run)
    bin=$(bin_of "${2:?a major version}")
    shift 2
    PATH="$bin:$PATH" exec "$@"
    ;;
  *) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
esac
