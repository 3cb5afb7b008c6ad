#!/usr/bin/env python3
"""compare_rust.py INDEX.scip EXPORT.jsonl TREE [--misses|--all-misses]: drsg's call bindings against rust-analyzer's.

With `--misses`, each library site drsg does not bind as rust-analyzer does is printed too, with what
drsg has there (its stand-in and reason).

The reference is rust-analyzer's SCIP index of TREE. A reference site is an occurrence, not a definition,
of a function or method (a SCIP descriptor ending in `().`) whose definition is in the tree, written as a
call: the name is followed by `(` or a turbofish `::<`. Each site is (file, line, callee name) with the
callee's definition (file, line of its name).

drsg's side is its export (`drsg export`): CALLS edges, by the caller's file and the call's line, to the
callee node (file, start line, name).

- recall: reference sites at which drsg has a CALLS edge to the same definition;
- precision: of drsg's edges to tree symbols at reference sites (same file, line and callee name), those
  that end at the reference's definition;
- library code: sites whose file is outside tests/, benches/ and examples/ and whose enclosing drsg
  symbol is not a test.

The SCIP file is read by a small protobuf decoder (the few fields used), so nothing needs installing.
"""

import json
import sys
from collections import defaultdict


def varint(buf, i):
    shift = result = 0
    while True:
        b = buf[i]
        i += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, i
        shift += 7


def fields(buf):
    """(field number, wire type, value) of a message; length-delimited values are memoryviews."""
    i, n = 0, len(buf)
    while i < n:
        key, i = varint(buf, i)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, i = varint(buf, i)
        elif wire == 2:
            length, i = varint(buf, i)
            value = buf[i:i + length]
            i += length
        elif wire == 1:
            value = buf[i:i + 8]
            i += 8
        elif wire == 5:
            value = buf[i:i + 4]
            i += 4
        else:
            raise ValueError(f"wire type {wire} not handled")
        yield number, wire, value


def packed(buf):
    out, i = [], 0
    while i < len(buf):
        v, i = varint(buf, i)
        out.append(v)
    return out


def read_scip(path):
    """{relative path: [(start line, start char, end char, symbol, roles)]}"""
    data = memoryview(open(path, "rb").read())
    docs = {}
    for number, _, value in fields(data):
        if number != 2:  # Index.documents
            continue
        rel, occurrences = None, []
        for n, _, v in fields(value):
            if n == 1:
                rel = bytes(v).decode()
            elif n == 2:
                rng, symbol, roles = [], "", 0
                for on, ow, ov in fields(v):
                    if on == 1:
                        rng = packed(ov) if ow == 2 else rng + [ov]
                    elif on == 2:
                        symbol = bytes(ov).decode()
                    elif on == 3:
                        roles = ov
                if len(rng) == 3:
                    rng = [rng[0], rng[1], rng[0], rng[2]]
                if len(rng) == 4 and rng[0] == rng[2]:
                    occurrences.append((rng[0], rng[1], rng[3], symbol, roles))
        if rel is not None:
            docs[rel] = occurrences
    return docs


def callable_name(symbol):
    """The name of a function or method symbol (descriptor `name().`), else None."""
    if symbol.startswith("local ") or not symbol.endswith(")."):
        return None
    # `scheme manager package version descriptors`: the version's dots are no descriptor separators.
    parts = symbol.split(" ", 4)
    descriptors = parts[4] if len(parts) == 5 else symbol
    head = descriptors[: descriptors.rindex("(")]
    for sep in ("#", "/", ".", "]"):
        head = head.rsplit(sep, 1)[-1]
    return head.strip("`") or None


def is_test_path(path):
    parts = path.split("/")
    return any(p in ("tests", "benches", "examples") for p in parts[:-1])


def main():
    scip_path, export_path, tree = sys.argv[1:4]
    show_misses = "--misses" in sys.argv[4:]
    show_all_misses = "--all-misses" in sys.argv[4:]
    docs = read_scip(scip_path)
    definitions = {}
    for rel, occurrences in docs.items():
        for line, _, _, symbol, roles in occurrences:
            if roles & 1 and callable_name(symbol):
                definitions.setdefault(symbol, (rel, line + 1))
    sites = []  # (file, line, name, definition)
    for rel, occurrences in docs.items():
        try:
            lines = open(f"{tree}/{rel}", encoding="utf-8", errors="replace").read().split("\n")
        except OSError:
            continue
        for line, start, end, symbol, roles in occurrences:
            if roles & 1 or symbol not in definitions:
                continue
            name = callable_name(symbol)
            text = lines[line] if line < len(lines) else ""
            rest = text[end:].lstrip()
            if rest.startswith("(") or rest.startswith("::<"):
                sites.append((rel, line + 1, name, definitions[symbol]))

    nodes = {}
    spans = defaultdict(list)
    edges = defaultdict(list)  # (file, line) -> [(dst file, dst line, dst name, label)]
    for raw in open(export_path, encoding="utf-8"):
        row = json.loads(raw)
        if "type" not in row:
            key = row["key"]
            nodes[key] = row
            if row.get("file") and row.get("line") and row.get("labels", [""])[0] in ("Function", "Method"):
                spans[row["file"]].append((row["line"], row.get("end_line") or row["line"], key))
            continue
        if row["type"] != "CALLS" or row.get("site_line") is None:
            continue
        src, dst = row["src"], row["dst"]
        label = dst["labels"][0] if dst.get("labels") else ""
        name = dst["key"].rsplit("::", 1)[-1].split("#")[0]
        edges[(src.get("file"), row["site_line"])].append(
            (dst.get("file"), dst.get("line"), name, label, dst["key"], row.get("reason"))
        )

    def enclosing(file, line):
        best = None
        for start, end, key in spans.get(file, ()):
            if start <= line <= end and (best is None or start >= best[0]):
                best = (start, key)
        return nodes[best[1]] if best else None

    totals = {"all": [0, 0, 0, 0], "library": [0, 0, 0, 0]}  # sites, found, bound at sites, agreeing
    unresolved = external = 0
    for file, line, name, (dfile, dline) in sites:
        around = enclosing(file, line)
        library = not is_test_path(file) and not (around and around.get("props", {}).get("is_test"))
        at = [e for e in edges.get((file, line), []) if e[2] == name]
        bound = [e for e in at if e[3] not in ("External", "UnresolvedRef")]
        hit = any(e[0] == dfile and e[1] == dline for e in bound)
        agree = sum(1 for e in bound if e[0] == dfile and e[1] == dline)
        if not bound:
            if any(e[3] == "UnresolvedRef" for e in at):
                unresolved += 1
            elif any(e[3] == "External" for e in at):
                external += 1
        if ((show_misses and library) or show_all_misses) and not hit:
            had = "; ".join(f"{e[4]} ({e[5]})" if e[5] else e[4] for e in at) or "no edge of the name"
            print(f"miss {file}:{line} {name} -> {dfile}:{dline}: {had}")
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
    print(f"missed sites: {unresolved} at an unresolved stand-in, {external} at an External stand-in, "
          f"{totals['all'][0] - totals['all'][1] - unresolved - external} with no edge of the name")


if __name__ == "__main__":
    main()
