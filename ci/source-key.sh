#!/usr/bin/env bash
# Print a short hash of falseok's sources under $1 (Cargo.lock, Cargo.toml,
# src/): the cache key of the installed binary, so a new version rebuilds.
set -euo pipefail
cd "${1:-.}"
find Cargo.lock Cargo.toml src -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -c1-16
