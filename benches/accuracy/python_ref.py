#!/usr/bin/env python3
"""python_ref.py jedi|pyright TREE [--sample N] [--seed S]: the reference bindings of a Python tree's call sites.

Run with the interpreter of the tools' virtual environment (python.sh makes it, with the pinned
versions). Writes one JSON line per call site to stdout:

    {"file": REL, "line": L, "col": C, "name": NAME, "targets": [[REL, START, NAME, KIND], ...]}

A call site is a call whose callee is a name or an attribute (`f(...)`, `a.b.f(...)`), or a decorator
that is a name or an attribute without arguments (`@f`, `@a.f`: the decorator is called with the
function); `@f(...)` is a call like any other. The site's line and column are those of the callee's
last name (`f`), which is the line drsg records for a call; NAME is that identifier as written.

The targets are the tool's go-to-definition at that name, kept when they are a function, method or class
defined in a `.py` file inside TREE: the definition's file and start line (the line of its first
decorator when it has decorators, which is where drsg starts a definition), its name and kind. A call of
a class binds to the class, not to its `__init__`.

- jedi: `Script.goto(follow_imports=True)`, the project rooted at TREE with the source roots added to its
  path (TREE, each directory holding a pyproject.toml, setup.py or setup.cfg, and the `src/` beside it);
- pyright: `textDocument/definition` from `pyright-langserver --stdio`, the same source roots as
  `extraPaths`, the environment's interpreter as `pythonPath`; a class call answered with both the class
  and its `__init__` keeps the class.

With `--sample N`, N call sites drawn with a fixed seed (default 35) out of all of them; the same N and
seed draw the same sites for both tools.
"""

import ast
import json
import os
import random
import subprocess
import sys
import threading

SKIP_DIRS = {".git", ".hg", ".tox", ".nox", ".venv", "venv", "node_modules", "__pycache__", "build", "dist",
             ".mypy_cache", ".pytest_cache", "site-packages"}


def python_files(tree):
    out = []
    for root, dirs, files in os.walk(tree):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("."))
        for f in sorted(files):
            if f.endswith(".py"):
                out.append(os.path.relpath(os.path.join(root, f), tree))
    return out


def source_roots(tree):
    roots = [tree]
    for root, dirs, files in os.walk(tree):
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS and not d.startswith(".")]
        if {"pyproject.toml", "setup.py", "setup.cfg"} & set(files):
            for r in (root, os.path.join(root, "src")):
                if os.path.isdir(r) and r not in roots:
                    roots.append(r)
    return roots


def char_col(line_bytes, byte_col):
    return len(line_bytes[:byte_col].decode("utf-8", errors="replace"))


def call_sites(tree, rel):
    """[(line, col in characters, name)] of REL's call sites, in source order."""
    path = os.path.join(tree, rel)
    try:
        data = open(path, "rb").read()
        module = ast.parse(data, filename=path)
    except (SyntaxError, ValueError, OSError):
        return []
    lines = data.split(b"\n")

    def at(node):
        """The callee's last name: (line, column, identifier), or None."""
        if isinstance(node, ast.Name):
            return node.lineno, node.col_offset, node.id
        if isinstance(node, ast.Attribute):
            line, end = node.end_lineno, node.end_col_offset
            text = lines[line - 1] if line - 1 < len(lines) else b""
            start = end - len(node.attr.encode("utf-8"))
            if text[start:end].decode("utf-8", errors="replace") != node.attr:
                return None
            return line, start, node.attr
        return None

    sites = set()
    for node in ast.walk(module):
        callees = []
        if isinstance(node, ast.Call):
            callees.append(node.func)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            callees.extend(d for d in node.decorator_list if not isinstance(d, ast.Call))
        for callee in callees:
            found = at(callee)
            if found:
                line, col, name = found
                text = lines[line - 1] if line - 1 < len(lines) else b""
                sites.add((line, char_col(text, col), name))
    return sorted(sites)


class Definitions:
    """Start lines of definitions (the first decorator's line when decorated), by file and `def` line."""

    def __init__(self, tree):
        self.tree = tree
        self.files = {}
        self.texts = {}

    def line(self, rel, line):
        if rel not in self.texts:
            try:
                self.texts[rel] = open(os.path.join(self.tree, rel), encoding="utf-8", errors="replace").read().split("\n")
            except OSError:
                self.texts[rel] = []
        lines = self.texts[rel]
        return lines[line - 1] if 0 < line <= len(lines) else ""

    def start(self, rel, line, name):
        """(start line, name, kind) of the definition NAME whose `def` or `class` is on LINE, else None."""
        if rel not in self.files:
            starts = {}
            try:
                module = ast.parse(open(os.path.join(self.tree, rel), "rb").read())
                for node in ast.walk(module):
                    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                        first = min([node.lineno] + [d.lineno for d in node.decorator_list])
                        starts[node.lineno] = (first, node.name,
                                               "class" if isinstance(node, ast.ClassDef) else "function")
            except (SyntaxError, ValueError, OSError):
                pass
            self.files[rel] = starts
        found = self.files[rel].get(line)
        return found if found and found[1] == name else None


def inside(tree, path):
    if not path:
        return None
    path = os.path.realpath(str(path))
    if not path.startswith(tree + os.sep) or not path.endswith(".py"):
        return None
    return os.path.relpath(path, tree)


def run_jedi(tree, sites_by_file, defs, emit):
    import jedi

    project = jedi.Project(path=tree, added_sys_path=source_roots(tree)[1:], smart_sys_path=True,
                           load_unsafe_extensions=False)
    for rel, sites in sites_by_file.items():
        path = os.path.join(tree, rel)
        code = open(path, encoding="utf-8", errors="replace").read()
        script = jedi.Script(code, path=path, project=project)
        for line, col, name in sites:
            targets = []
            try:
                names = script.goto(line, col, follow_imports=True)
            except Exception:  # a crash of the tool at one site leaves the site unbound
                names = []
            for n in names:
                if n.type not in ("function", "class"):
                    continue
                trel = inside(tree, n.module_path)
                if trel is None or n.line is None:
                    continue
                d = defs.start(trel, n.line, n.name)
                if d:
                    targets.append([trel, d[0], d[1], d[2]])
            emit(rel, line, col, name, targets)


class Lsp:
    def __init__(self, argv, env, settings):
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, env=env)
        self.settings = settings
        self.next_id = 0
        self.responses = {}
        self.cond = threading.Condition()
        threading.Thread(target=self.reader, daemon=True).start()

    def send(self, msg):
        body = json.dumps(msg).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def reader(self):
        out = self.proc.stdout
        while True:
            length = None
            while True:
                header = out.readline()
                if not header:
                    with self.cond:
                        self.responses[None] = True
                        self.cond.notify_all()
                    return
                header = header.strip()
                if not header:
                    break
                if header.lower().startswith(b"content-length:"):
                    length = int(header.split(b":")[1])
            msg = json.loads(out.read(length))
            if "method" in msg and "id" in msg:  # a request from the server
                result = None
                if msg["method"] == "workspace/configuration":
                    result = [self.settings.get(item.get("section", ""), self.settings.get("", {}))
                              for item in msg["params"]["items"]]
                self.send({"jsonrpc": "2.0", "id": msg["id"], "result": result})
            elif "id" in msg:
                with self.cond:
                    self.responses[msg["id"]] = msg
                    self.cond.notify_all()

    def request(self, method, params):
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        return self.next_id

    def wait(self, rid):
        with self.cond:
            while rid not in self.responses:
                if None in self.responses:
                    raise RuntimeError("the language server exited")
                self.cond.wait()
            return self.responses.pop(rid)

    def notify(self, method, params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})


def utf16_col(text, col):
    return len(text[:col].encode("utf-16-le")) // 2


def run_pyright(tree, sites_by_file, defs, emit):
    bindir = os.path.dirname(sys.executable)
    env = dict(os.environ, PATH=bindir + os.pathsep + os.environ.get("PATH", ""))
    roots = source_roots(tree)
    analysis = {"extraPaths": roots[1:], "diagnosticMode": "openFilesOnly", "typeCheckingMode": "basic",
                "autoSearchPaths": True, "useLibraryCodeForTypes": True}
    settings = {"python": {"pythonPath": sys.executable, "analysis": analysis},
                "python.analysis": analysis, "pyright": {}, "": {}}
    lsp = Lsp([os.path.join(bindir, "pyright-langserver"), "--stdio"], env, settings)
    uri = lambda p: "file://" + p
    lsp.wait(lsp.request("initialize", {
        "processId": os.getpid(), "rootUri": uri(tree),
        "workspaceFolders": [{"uri": uri(tree), "name": os.path.basename(tree)}],
        "capabilities": {"workspace": {"configuration": True},
                         "textDocument": {"definition": {"linkSupport": False}}}}))
    lsp.notify("initialized", {})
    lsp.notify("workspace/didChangeConfiguration", {"settings": settings})
    for rel, sites in sites_by_file.items():
        path = os.path.join(tree, rel)
        code = open(path, encoding="utf-8", errors="replace").read()
        lines = code.split("\n")
        lsp.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri(path), "languageId": "python", "version": 1, "text": code}})
        pending = []
        for line, col, name in sites:
            text = lines[line - 1] if line - 1 < len(lines) else ""
            pending.append((line, col, name, lsp.request("textDocument/definition", {
                "textDocument": {"uri": uri(path)},
                "position": {"line": line - 1, "character": utf16_col(text, col)}})))
        for line, col, name, rid in pending:
            result = lsp.wait(rid).get("result") or []
            if isinstance(result, dict):
                result = [result]
            found = []
            for loc in result:
                target = loc.get("uri") or loc.get("targetUri") or ""
                rng = loc.get("range") or loc.get("targetSelectionRange") or {}
                trel = inside(tree, target[len("file://"):] if target.startswith("file://") else None)
                if trel is None:
                    continue
                start, end = rng.get("start", {}), rng.get("end", {})
                if start.get("line") != end.get("line"):
                    continue
                text = defs.line(trel, start["line"] + 1)
                name_there = text.encode("utf-16-le")[2 * start["character"]:2 * end["character"]]
                d = defs.start(trel, start["line"] + 1, name_there.decode("utf-16-le", errors="replace"))
                if d:
                    found.append([trel, d[0], d[1], d[2]])
            if any(t[3] == "class" for t in found):  # `C(...)`: the class, not its `__init__` too
                found = [t for t in found if t[3] == "class"]
            emit(rel, line, col, name, found)
        lsp.notify("textDocument/didClose", {"textDocument": {"uri": uri(path)}})
    lsp.wait(lsp.request("shutdown", None))
    lsp.notify("exit", None)
    lsp.proc.wait(timeout=30)


def main():
    args = sys.argv[1:]
    tool, tree = args[0], os.path.realpath(args[1])
    sample = int(args[args.index("--sample") + 1]) if "--sample" in args else None
    seed = int(args[args.index("--seed") + 1]) if "--seed" in args else 35
    all_sites = [(rel, *site) for rel in python_files(tree) for site in call_sites(tree, rel)]
    if sample is not None and sample < len(all_sites):
        all_sites = sorted(random.Random(seed).sample(all_sites, sample))
    sites_by_file = {}
    for rel, line, col, name in all_sites:
        sites_by_file.setdefault(rel, []).append((line, col, name))
    defs = Definitions(tree)
    out = sys.stdout

    def emit(rel, line, col, name, targets):
        unique = []
        for t in targets:
            if t not in unique:
                unique.append(t)
        out.write(json.dumps({"file": rel, "line": line, "col": col, "name": name, "targets": unique}) + "\n")

    {"jedi": run_jedi, "pyright": run_pyright}[tool](tree, sites_by_file, defs, emit)


if __name__ == "__main__":
    main()
