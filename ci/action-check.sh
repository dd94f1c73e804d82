#!/usr/bin/env bash
# The check step of action.yml (also run by the tests): tracelint check with
# GitHub annotations, the baseline and the job summary, its exit code kept.
# Inputs come from the environment: TRACELINT_PATHS, TRACELINT_BASELINE,
# TRACELINT_ARGS, TRACELINT_SUMMARY ("true"/"false"), GITHUB_STEP_SUMMARY,
# GITHUB_OUTPUT.
set -uo pipefail
args=(check --format github)
if [ -n "${TRACELINT_BASELINE:-}" ]; then
  args+=(--baseline "$TRACELINT_BASELINE")
fi
if [ "${TRACELINT_SUMMARY:-true}" = "true" ] && [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
  args+=(--summary "$GITHUB_STEP_SUMMARY")
fi
# Word splitting of the extra arguments and paths is intended.
# shellcheck disable=SC2206
extra=(${TRACELINT_ARGS:-})
# shellcheck disable=SC2206
paths=(${TRACELINT_PATHS:?the paths input is required})
"${TRACELINT:-tracelint}" "${args[@]}" "${extra[@]}" "${paths[@]}"
code=$?
if [ -n "${GITHUB_OUTPUT:-}" ]; then
  echo "exit-code=$code" >> "$GITHUB_OUTPUT"
fi
exit "$code"
