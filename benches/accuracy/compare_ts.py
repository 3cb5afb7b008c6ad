#!/usr/bin/env python3
"""compare_ts.py EXPORT.jsonl REF.jsonl [--misses|--all-misses]: drsg's TypeScript call bindings against
the TypeScript checker's (ts_ref.mjs's output), with compare_python.py's comparison: sites keyed by
(file, line, callee name), the same recall and precision, and the same lines.

Library code: sites whose file is not under a tests/, test/, testing/, __tests__/, spec/, specs/, e2e/,
examples/, example/, docs/, doc/, benchmarks/, benches/ or bench/ directory, is not `*.test.*`, `*.spec.*`,
`*.bench.*` or `*.test-d.ts`, and whose enclosing drsg symbol is not a test.
"""

import os
import re
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_python import compare  # noqa: E402

TS_TEST_DIRS = {"tests", "test", "testing", "__tests__", "spec", "specs", "e2e", "examples", "example", "docs",
                "doc", "benchmarks", "benches", "bench"}
TS_TEST_FILE = re.compile(r"\.(test|spec|bench)\.[cm]?[jt]sx?$|\.test-d\.ts$")


def ts_test_path(path):
    parts = path.split("/")
    return any(p in TS_TEST_DIRS for p in parts[:-1]) or bool(TS_TEST_FILE.search(parts[-1]))


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    flags = [a for a in sys.argv[1:] if a.startswith("--")]
    compare(args[0], args[1:], ts_test_path, "--misses" in flags, "--all-misses" in flags, ["tsc"])
