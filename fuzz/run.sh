#!/usr/bin/env bash
# Run every fuzz target for SECONDS (default 300) each, one after another.
# Needs cargo-fuzz (`cargo install cargo-fuzz`); RUSTC_BOOTSTRAP lets the
# stable toolchain use the sanitizer flags cargo-fuzz passes.
# Crashes land in fuzz/artifacts/<target>/; turn each into a regression test.
set -euo pipefail
cd "$(dirname "$0")"
seconds="${1:-300}"
export RUSTC_BOOTSTRAP=1
targets=$(cargo fuzz list)
for t in $targets; do
  mkdir -p "corpus/$t" "seeds/$t"
  echo "== $t ($seconds s)"
  cargo fuzz run -O "$t" "corpus/$t" "seeds/$t" -- -max_total_time="$seconds" -max_len=65536 -rss_limit_mb=4096 2>&1 | tail -n 4
done
