"""The independent floor of the JSONL bench (scripts/bench.sh, issue 53):
every line of every `.jsonl` file under FOLDER parsed by orjson on one
thread, each file read whole and split on newlines, files in sorted path
order. Prints the lines parsed and the lines that were not JSON.

    python scripts/orjson-floor.py FOLDER

A scan must read and parse the same lines, so this is what any reader of
the folder built on the fastest common JSON parser pays at the least; the
bench prints a cold scan's time over it beside `cargo xtask json-floor`
(serde_json, the project's own floor). Runs in the bench's virtual
environment (scripts/ci-python.sh orjson:orjson), never the user's Python.
"""

import os
import sys

import orjson


def main() -> int:
    if len(sys.argv) != 2 or not os.path.isdir(sys.argv[1]):
        print("usage: orjson-floor.py FOLDER", file=sys.stderr)
        return 2
    paths = []
    for top, _, names in os.walk(sys.argv[1]):
        paths.extend(os.path.join(top, n) for n in names if n.endswith(".jsonl"))
    parsed = broken = 0
    loads = orjson.loads
    for path in sorted(paths):
        with open(path, "rb") as f:
            data = f.read()
        for line in data.split(b"\n"):
            if not line.strip():
                continue
            try:
                loads(line)
                parsed += 1
            except orjson.JSONDecodeError:
                broken += 1
    print(f"{parsed} lines parsed, {broken} not JSON")
    return 0


if __name__ == "__main__":
    sys.exit(main())
