#!/usr/bin/env bash
# Issue 52: every package CI can build, installed from the local artifacts
# exactly as a user installs it from its registry, and the README's main
# command run through each, with the same output and exit code as the cargo
# build. Run by .ci/run after the tests; nothing is published.
#
#   scripts/package-check.sh [FALSEOK]
#
# FALSEOK (default target/debug/falseok) is the binary packed: CI packs the
# binary its tests ran. Release builds (`cargo xtask dist` without --bin,
# maturin --profile dist) pack the same code optimised (docs/install.md).
#   1. `cargo xtask dist`: the host's archive, its checksum, the npm
#      packages and the Homebrew formula, into target/distrib;
#   2. the wheel (maturin, `bindings = "bin"`), installed into fresh virtual
#      environments by pip and by uv, and run by `uvx`, all offline;
#   3. the npm packages packed with `npm pack`, installed offline into a fresh
#      folder, locally and globally, and run through `npx`;
#   4. the archive installed by the Action's install step (ci/action-install.sh)
#      from the release folder, then the Action's check step run with it.
# Homebrew itself is not here (no brew on Linux CI): xtask's tests check the
# formula against the archive and its checksum.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(realpath "${1:-target/debug/falseok}")
dist="$PWD/target/distrib"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
start=$(date +%s)

rm -rf "$dist"
cargo run -q -p xtask -- dist --bin "$bin" --out "$dist"

# The README's main command and the gate on the same sample: what every
# installed falseok must print, byte for byte, with the same exit code.
# expect SAMPLE: what the cargo build prints for it, as `same` compares.
expect() {
  sample=$1
  "$bin" scan "$sample" > "$work/want-scan"
  set +e
  "$bin" check "$sample" > "$work/want-check" 2>&1
  want_code=$?
  set -e
}
relative=sample-traces/peri-postmortem.db
expect "$relative"
checked=0
same() {
  local how=$1
  shift
  "$@" scan "$sample" > "$work/got-scan" || { echo "package-check: $how: \`falseok scan\` failed" >&2; exit 1; }
  cmp -s "$work/want-scan" "$work/got-scan" || { echo "package-check: $how: \`falseok scan\` prints other output than the cargo build" >&2; diff "$work/want-scan" "$work/got-scan" | head -n 20 >&2; exit 1; }
  set +e
  "$@" check "$sample" > "$work/got-check" 2>&1
  local code=$?
  set -e
  [ "$code" -eq "$want_code" ] || { echo "package-check: $how: \`falseok check\` exits $code, the cargo build $want_code" >&2; exit 1; }
  cmp -s "$work/want-check" "$work/got-check" || { echo "package-check: $how: \`falseok check\` prints other output than the cargo build" >&2; exit 1; }
  checked=$((checked + 1))
  echo "package-check: $how: same output and exit code as the cargo build"
}

# 2. PyPI: the wheel, built by maturin from the binary cargo already built
# (the dev profile: nothing is compiled again).
py=$(bash scripts/ci-python.sh maturin:maturin uv:uv)
tools=$(dirname "$py")
"$tools/maturin" build --quiet --profile dev --locked --out "$dist/wheels" >&2
wheel=$(ls "$dist"/wheels/falseok-*.whl)
"$py" -m venv "$work/pip"
# README: `pip install falseok`, from the local wheel instead of PyPI.
"$work/pip/bin/pip" install --quiet --disable-pip-version-check --no-index --find-links "$dist/wheels" falseok
same "pip install falseok (wheel $(basename "$wheel"))" "$work/pip/bin/falseok"
export UV_CACHE_DIR="$work/uv-cache" UV_NO_CONFIG=1 UV_PYTHON_DOWNLOADS=never
"$tools/uv" venv --quiet --python "$py" "$work/uv"
VIRTUAL_ENV="$work/uv" "$tools/uv" pip install --quiet --offline --no-index --find-links "$dist/wheels" falseok
same "uv pip install falseok" "$work/uv/bin/falseok"
# README: `uvx falseok scan`.
same "uvx falseok" "$tools/uvx" --quiet --offline --no-index --find-links "$dist/wheels" --python "$py" falseok

# 3. npm: both packages packed, then installed offline from the tarballs,
# with an empty cache: npm reaches no registry.
mkdir -p "$work/packs" "$work/app" "$work/global"
(cd "$work/packs" && npm pack --silent "$dist/npm/falseok-"*/ "$dist/npm/falseok" >/dev/null)
packs=("$work"/packs/falseok-*.tgz)
npm_flags=(--offline --cache "$work/npm-cache" --no-audit --no-fund --loglevel=error)
echo '{"private": true}' > "$work/app/package.json"
(cd "$work/app" && npm install "${npm_flags[@]}" "${packs[@]}" >/dev/null)
npx_falseok() { (cd "$work/app" && npx --offline --no-install falseok "$@"); }
# npx runs in the app folder: the sample by its absolute path, then back.
expect "$PWD/$relative"
[ "$(npx_falseok --version)" = "$("$bin" --version)" ] || { echo "package-check: npx falseok --version differs" >&2; exit 1; }
# README: `npx falseok scan`.
same "npm install falseok; npx falseok" npx_falseok
# README: `npm install -g falseok`.
npm install --global --prefix "$work/global" "${npm_flags[@]}" "${packs[@]}" >/dev/null
same "npm install -g falseok" "$work/global/bin/falseok"
expect "$relative"

# 4. The Action's install step, from the release folder `cargo xtask dist`
# wrote, then the check step with the job's PATH as GitHub makes it. A cargo
# that fails stands in for the runner's: nothing may compile.
mkdir -p "$work/runner"
printf '#!/bin/sh\necho "the Action compiled: cargo $*" >&2\nexit 101\n' > "$work/runner/cargo"
chmod 755 "$work/runner/cargo"
: > "$work/github-path"
PATH="$work/runner:$PATH" RUNNER_TEMP="$work" GITHUB_PATH="$work/github-path" GITHUB_OUTPUT="$work/install-output" \
  FALSEOK_RELEASE_URL="file://$dist" FALSEOK_VERSION="" FALSEOK_ACTION_REF="" \
  bash ci/action-install.sh >/dev/null
grep -qx 'from=archive' "$work/install-output" || { echo "package-check: the Action did not install the archive" >&2; exit 1; }
action_bin=$(head -n 1 "$work/github-path")
same "the Action's install step (release archive $(basename "$dist"/falseok-*.tar.gz))" "$action_bin/falseok"
set +e
PATH="$action_bin:$work/runner:$PATH" FALSEOK_PATHS="$sample" FALSEOK_SUMMARY=false GITHUB_OUTPUT="$work/check-output" \
  bash ci/action-check.sh > "$work/annotations"
code=$?
set -e
[ "$code" -eq "$want_code" ] && grep -qx "exit-code=$want_code" "$work/check-output" \
  || { echo "package-check: the Action's check step exited $code" >&2; exit 1; }
echo "package-check: the Action's check step ran the archive's falseok (exit $code), nothing compiled"

echo "package-check: $checked installs checked in $(( $(date +%s) - start )) s"
