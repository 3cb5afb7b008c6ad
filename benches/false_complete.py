#!/usr/bin/env python3
"""false_complete.py DRSG TREE [--sample N] [--seed S] [--show K]: replays an agent's question on a real
tree and counts the answers that claim a completeness they do not have.

For a random sample of the tree's functions and methods whose names no other definition of the tree
has, it asks `drsg context KEY` for the callers. When the answer says the callers are complete, every
call of that name the source shows (`name(`, `name::<…>(`, `name<…>(` outside comments, strings,
`quote!` bodies, attributes, definitions and imports, found by scanning the files drsg indexes) must be one of the caller sites it
lists. A call it does not list is
  - bound but not listed: the graph binds it to the function, the answer leaves it out;
  - dropped: no call edge of that name starts at that line at all (the site was lost: a false complete);
  - a stand-in of the tree: it binds to an `ext::` stand-in whose path names a type of the tree (the
    site was mistaken for external: a false complete too);
  - elsewhere: it binds to another target of that name (an external function or another symbol of the
    tree), listed for a reader to judge, since a name unique in the tree may still be an external's.
Prints one summary line per tree and the false completes found (at most --show).
"""

import argparse
import collections
import json
import os
import random
import re
import subprocess
import sys
import tempfile

SOURCE = (".rs", ".py", ".pyi", ".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs")
# Build outputs beside the sources (their copies of each function are other symbols) are not read.
SKIP_DIRS = {".git", "node_modules", "target", "dist", "build", "esm", "esm5", "cjs", "types", ".venv", "__pycache__"}
# Methods a derive writes: a call of one on a type of the tree is std's code, rightly a stand-in.
DERIVABLE = {"clone", "clone_from", "eq", "ne", "cmp", "partial_cmp", "hash", "fmt", "default"}
# Names the runtime or the framework calls, which no call site in the tree need name.
SKIP_NAMES = {"main", "__init__", "__new__", "constructor", "setUp", "tearDown", "default", "new"}


def run(args, **kw):
    return subprocess.run(args, check=True, capture_output=True, text=True, **kw).stdout


def jsonl(text):
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def last_segment(key):
    key = key.split("#", 1)[0]
    return re.split(r"::|\.|/", key)[-1]


def blank(text, ext):
    """`text` with its comments, string literals and token-generating macro bodies (`quote! { … }`)
    replaced by spaces, line breaks kept, so that what remains is code at its own line and column."""
    out = list(text)
    n, i = len(text), 0
    rust, python = ext == ".rs", ext in (".py", ".pyi")

    def wipe(a, b):
        for k in range(a, min(b, n)):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        c = text[i]
        if python and c == "#" or not python and text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            wipe(i, j)
            i = j
        elif not python and text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if rust and text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            wipe(i, j)
            i = j
        elif rust and re.match(r"(br|r)#*\"", text[i : i + 80]) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r"(br|r)(#*)\"", text[i:])
            close = '"' + m.group(2)
            j = text.find(close, i + m.end())
            j = n if j < 0 else j + len(close)
            wipe(i, j)
            i = j
        elif rust and re.match(r"(quote|quote_spanned)!\s*[\(\[\{]", text[i : i + 40]) and (i == 0 or not text[i - 1].isalnum()):
            open_at = i + re.match(r"(quote|quote_spanned)!\s*", text[i:]).end()
            pairs = {"(": ")", "[": "]", "{": "}"}
            opener, closer, depth, j = text[open_at], pairs[text[open_at]], 0, open_at
            while j < n:
                if text[j] == opener:
                    depth += 1
                elif text[j] == closer:
                    depth -= 1
                    if depth == 0:
                        break
                j += 1
            wipe(open_at, j + 1)
            i = j + 1
        elif python and (text.startswith('"""', i) or text.startswith("'''", i)):
            quote = text[i : i + 3]
            j = text.find(quote, i + 3)
            j = n if j < 0 else j + 3
            wipe(i, j)
            i = j
        elif c in "\"`" or c == "'" and not (rust and re.match(r"'[A-Za-z_][A-Za-z0-9_]*(?!')", text[i : i + 40])):
            j = i + 1
            while j < n and text[j] != c:
                if text[j] == "\\":
                    j += 1
                elif text[j] == "\n" and c != "`" and not rust:
                    break
                j += 1
            wipe(i, j + 1)
            i = j + 1
        else:
            i += 1
    return "".join(out)


def is_definition_or_import(code, name):
    s = code.strip()
    if re.match(r"^(pub(\([^)]*\))?\s+)?(async\s+)?(const\s+)?(unsafe\s+)?(extern\s+\"[^\"]*\"\s+)?fn\s+" + re.escape(name) + r"\b", s):
        return True
    if re.match(r"^(async\s+)?def\s+" + re.escape(name) + r"\b", s):
        return True
    if re.match(r"^(export\s+)?(default\s+)?(async\s+)?function\*?\s+" + re.escape(name) + r"\b", s):
        return True
    # An overload or interface member signature: `name(…): T;`.
    if re.match(r"^((public|private|protected|static|async|readonly|override|abstract|declare|get|set)\s+)*" + re.escape(name) + r"\s*(<[^>]*>)?\s*\([^;]*\)\s*:\s*[^;]+;\s*$", s):
        return True
    # A class member: `name(…) {`, `async name(…): T {`, `static name(…)`.
    if re.match(r"^((public|private|protected|static|async|readonly|override|get|set)\s+)*" + re.escape(name) + r"\s*(<[^>]*>)?\s*\([^;]*\)\s*(:[^=;]*)?\{?\s*$", s):
        return True
    if re.match(r"^(use|import|from|export\s*\{|export\s+\*)\b", s) or "require(" in s:
        return True
    return False


def generated(tree, path):
    """A build output or a declaration file: a copy of what the sources define (a `.js` beside the
    `.d.ts` of its name is a compiled module)."""
    parts = path.split("/")
    if any(p in SKIP_DIRS for p in parts[:-1]) or parts[-1].endswith((".d.ts", ".d.mts", ".d.cts")):
        return True
    stem, ext = os.path.splitext(os.path.join(tree, path))
    return ext in (".js", ".cjs", ".mjs") and any(os.path.exists(stem + d) for d in (".d.ts", ".d.cts", ".d.mts"))


def call_sites(tree, name, skip):
    """`(file, line)` of the calls of `name` in `tree`, but for the lines `skip` holds by file (spans)."""
    pattern = re.compile(r"(?<![\w$!])" + re.escape(name) + r"\s*(\(|::<[^;()]*>\s*\(|<[^;=()]*>\s*\()")
    for root, dirs, files in os.walk(tree):
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS]
        for f in files:
            ext = os.path.splitext(f)[1]
            path = os.path.join(root, f)
            rel = os.path.relpath(path, tree)
            if ext not in SOURCE or generated(tree, rel):
                continue
            try:
                text = open(path, encoding="utf-8").read()
            except (UnicodeDecodeError, OSError):
                continue
            if name not in text:
                continue
            for n, code in enumerate(blank(text, ext).splitlines(), 1):
                if name not in code or any(a <= n <= b for a, b in skip.get(rel, ())):
                    continue
                # Attributes (`#[tokio::test(…)]`, `#[from_request(state(S))]`) and decorators' arguments.
                if code.strip().startswith(("#[", "#![")):
                    continue
                if pattern.search(code) and not is_definition_or_import(code, name):
                    yield rel, n


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("drsg")
    ap.add_argument("tree")
    ap.add_argument("--sample", type=int, default=100)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--show", type=int, default=10)
    ap.add_argument("--elsewhere", type=int, default=0, help="also list this many sites bound elsewhere")
    a = ap.parse_args()
    tree = os.path.abspath(a.tree)
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "g.drsg")
        drsg = lambda *args: run([a.drsg, "--db", db, *args])  # noqa: E731
        drsg("index", tree, "--plane", "fc", "-q")
        nodes = [r for r in jsonl(drsg("export", "--plane", "fc", "--nodes", "--edges", "CONTAINS")) if "labels" in r]
        edges = jsonl(drsg("export", "--plane", "fc", "--edges", "CALLS,INSTANTIATES"))
        defs = [n for n in nodes if set(n.get("labels", [])) & {"Function", "Method"} and n.get("file")]
        types = {n["key"] for n in nodes if set(n.get("labels", [])) & {"Struct", "Enum", "Trait", "Class", "Interface"}}
        defs = [n for n in defs if not generated(tree, n["file"])]
        by_name = collections.Counter(last_segment(n["key"]) for n in defs)
        unique = sorted(
            (n for n in defs if by_name[last_segment(n["key"])] == 1 and last_segment(n["key"]) not in SKIP_NAMES),
            key=lambda n: n["key"],
        )
        # A macro's body calls at its invocations, which the callers list: its own lines are not sites.
        macro_spans = collections.defaultdict(list)
        for n in nodes:
            if "Macro" in n.get("labels", []) and n.get("file") and n.get("line"):
                macro_spans[n["file"]].append((n["line"], n.get("end_line") or n["line"]))
        at_site = collections.defaultdict(list)
        for e in edges:
            if e.get("site_line") is not None and e["src"].get("file"):
                at_site[(e["src"]["file"], e["site_line"])].append(e)
        random.Random(a.seed).shuffle(unique)
        sample = unique[: a.sample]
        counts = collections.Counter()
        found = []
        elsewhere = []
        for node in sample:
            name = last_segment(node["key"])
            try:
                answer = json.loads(
                    drsg("context", node["key"], "--plane", "fc", "--json", "--limit", "5000", "--budget", "100000000")
                )
            except subprocess.CalledProcessError:
                counts["lookup failed"] += 1
                continue
            callers = answer.get("callers", {})
            if not callers.get("complete"):
                counts["lower bound"] += 1
                continue
            counts["complete"] += 1
            listed = {(c["file"], line) for c in callers["by_symbol"]["items"] for line in c.get("lines", [])}
            wrong = []
            # Lines where the tree defines something of the name (overloads, members of interfaces).
            defined = {(n["file"], n.get("line")) for n in nodes if n.get("file") and last_segment(n["key"]) == name}
            for site in call_sites(tree, name, macro_spans):
                if site in listed or site in defined:
                    continue
                # Edges of the site that name it: by their target, or as written (`z.undefined()` may bind
                # to `_undefined`, exported as `undefined`).
                there = [
                    e for e in at_site.get(site, [])
                    if name in (last_segment(e["dst"]["key"]), last_segment(e.get("ref") or ""))
                ]
                if not there:
                    wrong.append(("dropped", site, None))
                    continue
                if any(e["dst"]["key"] == node["key"] for e in there):
                    # Bound to it, yet not in the answer.
                    wrong.append(("bound but not listed", site, node["key"]))
                    continue
                ext_of_tree = [
                    e for e in there
                    if e["dst"]["key"].startswith("ext::")
                    and name not in DERIVABLE
                    and re.sub(r"::[^:]+$", "", e["dst"]["key"][5:].split("#", 1)[0]) in types
                ]
                if ext_of_tree:
                    wrong.append(("stand-in of the tree", site, ext_of_tree[0]["dst"]["key"]))
                else:
                    counts["sites bound elsewhere"] += 1
                    elsewhere.append((node["key"], site, there[0]["dst"]["key"]))
            if wrong:
                counts["false complete"] += 1
                found.append((node["key"], wrong))
        print(
            f"{os.path.basename(tree)}: {len(unique)} uniquely named functions, {len(sample)} sampled (seed {a.seed}): "
            f"{counts['complete']} complete, {counts['lower bound']} lower bounds, "
            f"false complete {counts['false complete']}; sites of the name bound elsewhere {counts['sites bound elsewhere']}"
            + (f"; lookups failed {counts['lookup failed']}" if counts["lookup failed"] else "")
        )
        for key, wrong in found[: a.show]:
            print(f"  {key}: {len(wrong)} sites missing, e.g.")
            for kind, (file, line), dst in wrong[:3]:
                print(f"    {kind}: {file}:{line}" + (f" → {dst}" if dst else ""))
        for key, (file, line), dst in elsewhere[: a.elsewhere]:
            print(f"  elsewhere: {key}: {file}:{line} → {dst}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
