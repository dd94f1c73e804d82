#!/usr/bin/env python3
"""Check that the CI examples a user pastes are valid: action.yml is a
composite action whose inputs the check script reads, and every YAML block
of docs/ci.md parses; a GitHub workflow there has `on:` and jobs."""
import re
import sys

import yaml

ok = True


def fail(msg):
    global ok
    ok = False
    print(f"check-ci-yaml: {msg}", file=sys.stderr)


action = yaml.safe_load(open("action.yml"))
if action.get("runs", {}).get("using") != "composite":
    fail("action.yml is not a composite action")
inputs = set(action.get("inputs", {}))
if not {"paths", "baseline", "args", "summary"} <= inputs:
    fail(f"action.yml inputs are {sorted(inputs)}")
script = open("ci/action-check.sh").read()
for name in ("PATHS", "BASELINE", "ARGS", "SUMMARY"):
    if f"FALSEOK_{name}" not in script:
        fail(f"ci/action-check.sh does not read FALSEOK_{name}")

text = open("docs/ci.md").read()
blocks = re.findall(r"```yaml\n(.*?)```", text, re.S)
if not blocks:
    fail("docs/ci.md has no YAML block")
workflows = 0
for block in blocks:
    try:
        doc = yaml.safe_load(block)
    except yaml.YAMLError as e:
        fail(f"docs/ci.md: a YAML block does not parse: {e}")
        continue
    # PyYAML reads the key `on` as True.
    if isinstance(doc, dict) and "jobs" in doc:
        workflows += 1
        if "on" not in doc and True not in doc:
            fail("docs/ci.md: the GitHub workflow has no `on:`")
if workflows == 0:
    fail("docs/ci.md has no complete GitHub workflow (with jobs:)")
print(f"check-ci-yaml: action.yml and {len(blocks)} YAML blocks of docs/ci.md are valid" if ok else "check-ci-yaml: failed")
sys.exit(0 if ok else 1)
