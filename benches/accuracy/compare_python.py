#!/usr/bin/env python3
"""compare_python.py EXPORT.jsonl REF.jsonl [REF2.jsonl] [--misses|--all-misses]: drsg's Python call
bindings against a reference (python_ref.py's output: jedi's, and pyright's when a second is given).

A reference site is a call site (file, line and column of the callee's last name, that name) at which the
reference binds a function, method or class defined in the tree (python_ref.py says how). With two
references, a site is kept when both bind it in the tree and their targets share a definition, and its
targets are the shared ones; sites that only one tool binds, or that they bind to disjoint definitions,
are left out and counted on the `reference:` line. Sites are then keyed as drsg keys calls: (file, line,
callee name); two calls of the same name on one line are one site, with the union of their targets.

drsg's side is its export (`drsg export`): CALLS and INSTANTIATES edges by the caller's file, the call's
`site_line` and the callee name as written at the site (the last name of the edge's `ref`, or of the
edge's end node when the `ref` is cut short with `…`); the target is the edge's end node (file, start
line: a Python definition with decorators starts at its first decorator, as in the reference). Which
symbol drsg names as the caller (a lambda's, a nested function's) is not compared.

- recall: reference sites at which drsg has an edge to one of the reference's definitions;
- precision: of drsg's edges to tree symbols at reference sites, those that end at one of the
  reference's definitions;
- library code: sites whose file is not under a tests/, test/, testing/, examples/, example/, docs/, doc/,
  benchmarks/, benches/ or bench/ directory, is not `test_*.py`, `*_test.py` or `conftest.py`, and whose
  enclosing drsg symbol is not a test.

With `--misses`, each library site drsg does not bind as the reference does is printed, with what drsg
has there (its stand-in and reason, or the edges that end elsewhere); `--all-misses` prints every
such site. When drsg's edges end in a build output of the reference's definition (`v4/classic/schemas.js`
for `src/v4/classic/schemas.ts`, the same name), a line gives the figures counting them as agreeing.
The largest reasons of the misses, and of the library misses, are printed in any case.
"""

import json
import re
import sys
from collections import Counter, defaultdict

IDENT = re.compile(r"[A-Za-z_$\u00c0-\uffff][\w$\u00c0-\uffff]*")
PY_TEST_DIRS = {"tests", "test", "testing", "examples", "example", "docs", "doc", "benchmarks", "benches",
                "bench"}


def py_test_path(path):
    parts = path.split("/")
    name = parts[-1]
    return (any(p in PY_TEST_DIRS for p in parts[:-1]) or name.startswith("test_")
            or name.endswith("_test.py") or name == "conftest.py")


def read_reference(path):
    """{(file, line, col): (name, {(target file, start line): name})}"""
    out = {}
    for raw in open(path, encoding="utf-8"):
        row = json.loads(raw)
        out[(row["file"], row["line"], row["col"])] = (row["name"].lstrip("#"), {(t[0], t[1]): t[2] for t in row["targets"]})
    return out


def combine(refs, tool_names):
    """Sites with their agreed targets, and a line saying how the references agree."""
    if len(refs) == 1:
        sites = {k: v for k, v in refs[0].items() if v[1]}
        return sites, f"reference: {tool_names[0]} binds {len(sites)} call sites in the tree"
    a, b = refs
    sites = {}
    only_a = only_b = disjoint = 0
    for key in a.keys() | b.keys():
        name, ta = a.get(key, (None, {}))
        name_b, tb = b.get(key, (None, {}))
        if ta and tb:
            shared = {t: n for t, n in ta.items() if t in tb}
            if shared:
                sites[key] = (name, shared)
            else:
                disjoint += 1
        elif ta:
            only_a += 1
        elif tb:
            only_b += 1
    na, nb = sum(1 for v in a.values() if v[1]), sum(1 for v in b.values() if v[1])
    return sites, (f"reference: {tool_names[0]} binds {na} call sites in the tree, {tool_names[1]} {nb}; "
                   f"agreed {len(sites)}, left out {disjoint} bound to different definitions, "
                   f"{only_a} bound by {tool_names[0]} only, {only_b} by {tool_names[1]} only")


def read_export(path):
    nodes = {}
    spans = defaultdict(list)
    edges = defaultdict(list)  # (file, line, name) -> [(dst file, dst line, dst key, label, reason)]
    for raw in open(path, encoding="utf-8"):
        row = json.loads(raw)
        if "type" not in row:
            nodes[row["key"]] = row
            if row.get("file") and row.get("line") and row.get("labels", [""])[0] in ("Function", "Method"):
                spans[row["file"]].append((row["line"], row.get("end_line") or row["line"], row["key"]))
            continue
        if row["type"] not in ("CALLS", "INSTANTIATES") or row.get("site_line") is None:
            continue
        src, dst = row["src"], row["dst"]
        ref = row.get("ref") or ""
        names = IDENT.findall(ref)
        # A long `ref` is cut short with `…`: the callee's name is then the end node's.
        name = names[-1] if names and "…" not in ref else re.split(r"::|\.", dst["key"])[-1]
        label = dst["labels"][0] if dst.get("labels") else ""
        edges[(src.get("file"), row["site_line"], name)].append(
            (dst.get("file"), dst.get("line"), dst["key"], label, row.get("reason")))
    return nodes, spans, edges


BUILD = re.compile(r"\.(js|cjs|mjs|d\.ts|d\.cts|d\.mts)$")


def module_path(file):
    stem = re.sub(r"\.(js|cjs|mjs|jsx|d\.ts|d\.cts|d\.mts|ts|tsx|mts|cts)$", "", file)
    return stem[4:] if stem.startswith("src/") else stem


def build_copy(edge, targets):
    """Whether EDGE ends in a build output (.js, .d.ts) of a reference definition: the same module path
    with `src/` left out, the same name."""
    if not edge[0] or not BUILD.search(edge[0]):
        return False
    name = re.split(r"::|\.", edge[2])[-1]
    return any(module_path(edge[0]) == module_path(f) and name == n for (f, _), n in targets.items())


def compare(export_path, ref_paths, is_test_path, show_misses=False, show_all_misses=False, tool_names=None):
    refs = [read_reference(p) for p in ref_paths]
    ref_sites, agreement = combine(refs, tool_names or [p.rsplit("/", 1)[-1] for p in ref_paths])
    sites = {}  # (file, line, name) -> {(file, start line): name}
    for (file, line, _col), (name, targets) in ref_sites.items():
        sites.setdefault((file, line, name), {}).update(targets)
    nodes, spans, edges = read_export(export_path)

    def enclosing(file, line):
        best = None
        for start, end, key in spans.get(file, ()):
            if start <= line <= end and (best is None or start >= best[0]):
                best = (start, key)
        return nodes[best[1]] if best else None

    totals = {"all": [0, 0, 0, 0], "library": [0, 0, 0, 0]}  # sites, found, bound at sites, agreeing
    unresolved = external = 0
    reasons, library_reasons = Counter(), Counter()
    via_build = {"all": [0, 0], "library": [0, 0]}  # found, agreeing, with build copies counted
    for (file, line, name), targets in sorted(sites.items()):
        around = enclosing(file, line)
        library = not is_test_path(file) and not (around and around.get("props", {}).get("is_test"))
        at = edges.get((file, line, name), [])
        bound = [e for e in at if e[3] not in ("External", "UnresolvedRef") and e[0]]
        agree = sum(1 for e in bound if (e[0], e[1]) in targets)
        hit = agree > 0
        built = sum(1 for e in bound if (e[0], e[1]) not in targets and build_copy(e, targets))
        for group in ("all", "library") if library else ("all",):
            via_build[group][0] += hit or built > 0
            via_build[group][1] += agree + built
        if not bound:
            if any(e[3] == "UnresolvedRef" for e in at):
                unresolved += 1
            elif any(e[3] == "External" for e in at):
                external += 1
        if not hit:
            why = [e[4] or e[3] for e in at if e[3] in ("UnresolvedRef", "External")]
            if bound:
                build = all(re.search(r"\.(js|cjs|mjs|d\.[cm]?ts)$", e[0]) for e in bound) and not any(
                    re.search(r"\.(js|cjs|mjs|d\.[cm]?ts)$", f) for f, _ in targets)
                why = ["bound elsewhere: to a build output (.js, .d.ts)" if build else "bound elsewhere"]
            why = re.sub(r"`[^`]*`", "`…`", why[0]) if why else "no edge of the name"
            reasons[why] += 1
            if library:
                library_reasons[why] += 1
        if ((show_misses and library) or show_all_misses) and not hit:
            want = ", ".join(f"{f}:{l} {n}" for (f, l), n in sorted(targets.items()))
            had = "; ".join(f"{e[2]} ({e[4]})" if e[4] else e[2] for e in at) or "no edge of the name"
            print(f"miss {file}:{line} {name} -> {want}: {had}")
        for group in ("all", "library") if library else ("all",):
            t = totals[group]
            t[0] += 1
            t[1] += hit
            t[2] += len(bound)
            t[3] += agree
    for group, (n, found, bound, agree) in totals.items():
        recall = found / n if n else 0.0
        precision = agree / bound if bound else 0.0
        print(f"{group:8} sites {n:6}  recall {recall:.3f}  precision {precision:.3f}  ({bound} edges at sites)")
    if via_build["all"][1] > totals["all"][3]:
        print("counting an edge to the build output of the reference's definition as agreeing: " + ", ".join(
            f"{g} recall {via_build[g][0] / max(totals[g][0], 1):.3f} precision {via_build[g][1] / max(totals[g][2], 1):.3f}"
            for g in ("all", "library")))
    print(f"missed sites: {unresolved} at an unresolved stand-in, {external} at an External stand-in, "
          f"{totals['all'][0] - totals['all'][1] - unresolved - external} with no edge of the name "
          f"or bound elsewhere")
    print(agreement)
    print("misses by reason: " + "; ".join(f"{r}: {n}" for r, n in reasons.most_common(6)))
    print("library misses by reason: " + "; ".join(f"{r}: {n}" for r, n in library_reasons.most_common(6)))


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    flags = [a for a in sys.argv[1:] if a.startswith("--")]
    compare(args[0], args[1:], py_test_path, "--misses" in flags, "--all-misses" in flags,
            [p.rsplit("/", 1)[-1].split(".")[-2] if p.count(".") >= 2 else p for p in args[1:]])


if __name__ == "__main__":
    main()
