#!/usr/bin/env bash
# The check step of action.yml (also run by the tests): falseok check with
# GitHub annotations, the baseline and the job summary, its exit code kept.
# Inputs come from the environment: FALSEOK_PATHS, FALSEOK_BASELINE,
# FALSEOK_ARGS, FALSEOK_SUMMARY ("true"/"false"), GITHUB_STEP_SUMMARY,
# GITHUB_OUTPUT.
set -uo pipefail
args=(check --format github)
if [ -n "${FALSEOK_BASELINE:-}" ]; then
  args+=(--baseline "$FALSEOK_BASELINE")
fi
if [ "${FALSEOK_SUMMARY:-true}" = "true" ] && [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
  args+=(--summary "$GITHUB_STEP_SUMMARY")
fi
# Word splitting of the extra arguments and paths is intended.
# shellcheck disable=SC2206
extra=(${FALSEOK_ARGS:-})
# shellcheck disable=SC2206
paths=(${FALSEOK_PATHS:?the paths input is required})
"${FALSEOK:-falseok}" "${args[@]}" "${extra[@]}" "${paths[@]}"
code=$?
if [ -n "${GITHUB_OUTPUT:-}" ]; then
  echo "exit-code=$code" >> "$GITHUB_OUTPUT"
fi
exit "$code"
