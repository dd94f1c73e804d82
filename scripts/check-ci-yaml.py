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
if not {"paths", "baseline", "args", "summary", "version", "release-url"} <= inputs:
    fail(f"action.yml inputs are {sorted(inputs)}")
script = open("ci/action-check.sh").read()
for name in ("PATHS", "BASELINE", "ARGS", "SUMMARY"):
    if f"FALSEOK_{name}" not in script:
        fail(f"ci/action-check.sh does not read FALSEOK_{name}")
# Issue 52: the first step installs the release archive; every step that
# builds from source runs only when it found none; the check always runs.
steps = action.get("runs", {}).get("steps", [])
first = steps[0] if steps else {}
if first.get("id") != "install" or "ci/action-install.sh" not in first.get("run", ""):
    fail("action.yml's first step is not the archive install (id: install, ci/action-install.sh)")
install_env = first.get("env", {})
for name, expr in (("FALSEOK_VERSION", "inputs.version"), ("FALSEOK_RELEASE_URL", "inputs.release-url"),
                   ("FALSEOK_ACTION_REF", "github.action_ref")):
    if expr not in str(install_env.get(name, "")):
        fail(f"action.yml's install step does not pass {expr} as {name}")
install_script = open("ci/action-install.sh").read()
for name in install_env:
    if name not in install_script:
        fail(f"ci/action-install.sh does not read {name}")
for step in steps[1:]:
    builds = "cargo" in step.get("run", "") or "actions/cache" in step.get("uses", "") or step.get("id") == "key"
    conditional = step.get("if") == "steps.install.outputs.from == 'source'"
    if builds and not conditional:
        fail(f"action.yml step `{step.get('name')}` builds from source even when the archive was installed")
    if step.get("id") == "check" and "if" in step:
        fail("action.yml's check step is conditional")
release = yaml.safe_load(open(".github/workflows/release.yml"))
if not isinstance(release, dict) or "jobs" not in release or not ({"on", True} & set(release)):
    fail(".github/workflows/release.yml is not a workflow with `on:` and jobs")

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
print(f"check-ci-yaml: action.yml, release.yml and {len(blocks)} YAML blocks of docs/ci.md are valid" if ok else "check-ci-yaml: failed")
sys.exit(0 if ok else 1)
