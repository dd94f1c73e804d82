#!/usr/bin/env bash
# The install step of action.yml (also run by the tests and by
# scripts/package-check.sh): put the release archive of falseok for this
# runner on the job's PATH, after checking its SHA-256, without compiling.
# Only when the release has no archive for this platform does it say so
# (`from=source`), and action.yml's next steps build from source.
#
# Environment: FALSEOK_VERSION (the `version` input; empty: the Action's own
# tag, FALSEOK_ACTION_REF, when it is a version tag, else the version in the
# Action's Cargo.toml), FALSEOK_RELEASE_URL (the `release-url` input: the
# folder of that version's archives; empty: the Action repository's GitHub
# release v<version>), FALSEOK_ACTION_REPOSITORY, RUNNER_TEMP, GITHUB_PATH,
# GITHUB_OUTPUT. Archive names are `cargo xtask dist`'s:
# falseok-<version>-<target>.tar.gz (.zip on Windows), with <name>.sha256.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

version=${FALSEOK_VERSION:-}
if [ -z "$version" ]; then
  case "${FALSEOK_ACTION_REF:-}" in
    v[0-9]*.*) version=${FALSEOK_ACTION_REF} ;;
  esac
fi
if [ -z "$version" ]; then
  version=$(sed -n 's/^version = "\(.*\)"$/\1/p' "$root/Cargo.toml" | head -n 1)
fi
version=${version#v}
case "$version" in
  [0-9]*.*) ;;
  *) echo "falseok: the version input \`$version\` is not a version (e.g. 0.1.0)" >&2; exit 2 ;;
esac

case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) target=x86_64-unknown-linux-gnu ext=tar.gz ;;
  Linux-aarch64 | Linux-arm64) target=aarch64-unknown-linux-gnu ext=tar.gz ;;
  Darwin-x86_64) target=x86_64-apple-darwin ext=tar.gz ;;
  Darwin-arm64) target=aarch64-apple-darwin ext=tar.gz ;;
  MINGW*-x86_64 | MSYS*-x86_64 | CYGWIN*-x86_64) target=x86_64-pc-windows-msvc ext=zip ;;
  *) target="" ext="" ;;
esac

say() { if [ -n "${GITHUB_OUTPUT:-}" ]; then echo "$1" >> "$GITHUB_OUTPUT"; fi; }
from_source() {
  echo "::notice title=falseok::$1; building falseok from the Action's own source instead"
  say "from=source"
  exit 0
}
[ -n "$target" ] || from_source "no release archive is built for $(uname -s) $(uname -m)"

base=${FALSEOK_RELEASE_URL:-}
if [ -z "$base" ]; then
  base="https://github.com/${FALSEOK_ACTION_REPOSITORY:?the Action repository is unknown: set release-url}/releases/download/v$version"
fi
base=${base%/}
name="falseok-$version-$target.$ext"
work=$(mktemp -d "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/falseok-install.XXXXXX")

# 0: fetched; 1: the release has no such file (HTTP 404, or no such local
# file); anything else stops the step: a failed download is not a missing archive.
fetch() {
  local code status=0
  code=$(curl --silent --show-error --location --retry 3 --output "$2" --write-out '%{http_code}' "$1" 2>"$work/curl.err") || status=$?
  if [ "$status" -eq 37 ] || [ "$code" = 404 ]; then return 1; fi
  if [ "$status" -ne 0 ]; then
    cat "$work/curl.err" >&2
    echo "falseok: downloading $1 failed (curl exit $status)" >&2
    exit 1
  fi
  case "$code" in
    2??|000) return 0 ;;
    *) echo "falseok: downloading $1 failed: HTTP $code" >&2; exit 1 ;;
  esac
}
fetch "$base/$name.sha256" "$work/$name.sha256" || from_source "the release v$version has no $name"
fetch "$base/$name" "$work/$name" || from_source "the release v$version has no $name"

want=$(awk 'NR == 1 { print $1 }' "$work/$name.sha256")
if command -v sha256sum >/dev/null; then
  have=$(sha256sum "$work/$name" | awk '{ print $1 }')
else
  have=$(shasum -a 256 "$work/$name" | awk '{ print $1 }')
fi
if [ "${#want}" -ne 64 ] || [ "$want" != "$have" ]; then
  echo "::error title=falseok::$name: its SHA-256 is $have, the release says ${want:-nothing}; not installing it"
  echo "falseok: $name: checksum mismatch (SHA-256 $have, expected ${want:-none})" >&2
  exit 1
fi

case "$ext" in
  zip) unzip -q "$work/$name" -d "$work" ;;
  *) tar -xzf "$work/$name" -C "$work" ;;
esac
bin="$work/falseok-$version-$target"
exe="$bin/falseok"
[ "$ext" = zip ] && exe="$bin/falseok.exe"
[ -x "$exe" ] || { echo "falseok: $name holds no falseok binary" >&2; exit 1; }
"$exe" --version
if [ -n "${GITHUB_PATH:-}" ]; then echo "$bin" >> "$GITHUB_PATH"; fi
say "from=archive"
say "bin=$exe"
