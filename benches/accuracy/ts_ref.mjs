// ts_ref.mjs TYPESCRIPT_DIR TREE [--sample N] [--seed S]: the TypeScript checker's bindings of a tree's
// call sites, one JSON line per site on stdout, in python_ref.py's format:
//
//   {"file": REL, "line": L, "col": C, "name": NAME, "targets": [[REL, LINE, NAME, KIND], ...]}
//
// TYPESCRIPT_DIR is a directory whose node_modules holds the pinned `typescript` (typescript.sh makes it).
// The program is every .ts, .tsx, .mts and .cts file of TREE (declaration files included, node_modules and
// hidden directories left out) with the compiler options of TREE/tsconfig.json when there is one (its
// `extends` and `paths` followed), else ESNext modules resolved as a bundler does; JavaScript is not read.
// Export conditions of TREE/package.json whose paths are TypeScript sources become custom conditions.
//
// A call site is a call, a `new`, a `super(...)` call or a decorator without arguments (`@d`; `@d(...)` is a
// call) whose callee is a name or a property access (`f(...)`, `a.b.f(...)`, `a?.f(...)`, `a.f!(...)`);
// its line and column are those of the callee's last name (NAME as written: `f`, `#f`, `super`), the line
// drsg records. Sites in declaration files are not asked about.
//
// The target is what `checker.getResolvedSignature` gives the site, as a definition drsg could hold: the
// file and the line of the definition's name, its name and kind, kept when the file is in TREE.
// - a function, method or method signature: itself; overloads bind to the implementation, or to the first
//   signature when there is none (interfaces, `declare`);
// - `new C(...)`: the class C names (the class, not its constructor, nor the base class whose constructor
//   C inherits); `super(...)`: the base class; another call resolved to a constructor: its class; the
//   class's own constructor, when it declares one, is a second target (an edge to either agrees);
// - an arrow function or function expression that initialises a variable, a class property or an object
//   literal's property: that variable or property (`const f = () => …`, `handler = (x) => …`);
// - a signature of a function type or call signature (a value typed `(x: T) => U`): the called name's
//   declaration when it is a variable, a class property or an interface property, nothing when it is a
//   parameter (a callback) or anything else.
// Calls through an interface-typed receiver bind to the interface's member, as the checker says.
// When the called name is a variable or a class property initialised by something other than a function
// literal (an alias of a function defined elsewhere: `const stringType = ZodString.create`, `spa =
// this.safeParseAsync`), that variable or property is a second target: an edge to either agrees.
//
// With `--sample N`, N sites drawn with a fixed seed (default 35, a small xorshift generator).

import { createRequire } from "node:module";
import fs from "node:fs";
import path from "node:path";

const args = process.argv.slice(2);
const ts = createRequire(path.join(path.resolve(args[0]), "package.json"))("typescript");
const tree = fs.realpathSync(args[1]);
const opt = (flag) => (args.includes(flag) ? Number(args[args.indexOf(flag) + 1]) : null);
const sample = opt("--sample");
const seed = opt("--seed") ?? 35;

function walk(dir, out) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (entry.name.startsWith(".") || entry.name === "node_modules") continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) walk(full, out);
    else if (/\.(ts|tsx|mts|cts)$/.test(entry.name)) out.push(full);
  }
  return out;
}

const files = walk(tree, []);
let options = {
  target: ts.ScriptTarget.ESNext, module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler,
  strict: true, lib: ["lib.esnext.d.ts", "lib.dom.d.ts"], jsx: ts.JsxEmit.Preserve,
};
const config = path.join(tree, "tsconfig.json");
if (fs.existsSync(config)) {
  const parsed = ts.getParsedCommandLineOfConfigFile(config, {}, {
    ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {},
  });
  if (parsed) options = parsed.options;
}
// Export conditions of the tree's package.json that lead to TypeScript sources (zod's `@zod/source`) are
// set as custom conditions, so that the package's imports of itself reach its sources, not its build.
const conditions = new Set();
const collect = (value, key) => {
  if (typeof value === "string") {
    if (key && /\.(ts|tsx|mts|cts)$/.test(value) && !/\.d\.[cm]?ts$/.test(value) && !["types", "typings", "default", "import", "require"].includes(key)) conditions.add(key);
  } else if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) collect(v, k.startsWith(".") ? null : k);
  }
};
try {
  collect(JSON.parse(fs.readFileSync(path.join(tree, "package.json"), "utf8")).exports, null);
} catch {}
const bundlerLike = [ts.ModuleResolutionKind.Bundler, ts.ModuleResolutionKind.Node16, ts.ModuleResolutionKind.NodeNext];
if (conditions.size && bundlerLike.includes(options.moduleResolution)) {
  options = { ...options, customConditions: [...(options.customConditions || []), ...conditions] };
}
options = { ...options, noEmit: true, allowJs: false, checkJs: false, skipLibCheck: true, incremental: false,
  composite: false, declaration: false, types: [], tsBuildInfoFile: undefined };
const program = ts.createProgram(files, options);
const checker = program.getTypeChecker();

const inTree = (file) => file.startsWith(tree + path.sep) && !file.includes(`${path.sep}node_modules${path.sep}`);
const rel = (file) => path.relative(tree, file);

function calleeName(expr) {
  while (ts.isParenthesizedExpression(expr) || ts.isNonNullExpression(expr)) expr = expr.expression;
  if (ts.isIdentifier(expr)) return expr;
  if (ts.isPropertyAccessExpression(expr)) return expr.name;
  if (expr.kind === ts.SyntaxKind.SuperKeyword) return expr;
  return null;
}

function resolveAlias(sym) {
  return sym && sym.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(sym) : sym;
}

function target(decl, kind) {
  const name = decl.name;
  if (!name) return null;
  const sf = decl.getSourceFile();
  const file = path.resolve(sf.fileName);
  if (!inTree(file)) return null;
  const line = sf.getLineAndCharacterOfPosition(name.getStart(sf)).line + 1;
  return [rel(file), line, name.getText(sf), kind];
}

function classTarget(sym) {
  sym = resolveAlias(sym);
  const decl = sym && (sym.declarations || []).find((d) => ts.isClassDeclaration(d) || ts.isClassExpression(d));
  if (!decl) return null;
  if (ts.isClassExpression(decl) && !decl.name && ts.isVariableDeclaration(decl.parent)) return target(decl.parent, "class");
  return target(decl, "class");
}

function functionTarget(decl) {
  const sym = decl.symbol;
  const kindOf = (d) => (ts.isFunctionDeclaration(d) ? "function" : ts.isMethodSignature(d) ? "method signature" : "method");
  if (sym && sym.declarations && sym.declarations.length > 1) {
    const same = sym.declarations.filter((d) => d.kind === decl.kind);
    const impl = same.find((d) => d.body) || same[0];
    if (impl) return target(impl, kindOf(impl));
  }
  return target(decl, kindOf(decl));
}

function valueTarget(decl) {
  if (ts.isVariableDeclaration(decl) && ts.isIdentifier(decl.name)) return target(decl, "variable");
  if (ts.isPropertyDeclaration(decl) || ts.isPropertySignature(decl) || ts.isPropertyAssignment(decl)) return target(decl, "property");
  return null;
}

function resolve(node, nameNode) {
  const sig = (() => {
    try {
      return checker.getResolvedSignature(node);
    } catch {
      return undefined;
    }
  })();
  const decl = sig && sig.declaration;
  const isNew = ts.isNewExpression(node);
  if (nameNode.kind === ts.SyntaxKind.SuperKeyword) {
    const t = checker.getTypeAtLocation(nameNode);
    return classTarget(t && t.symbol);
  }
  if (isNew) {
    const named = classTarget(checker.getSymbolAtLocation(nameNode));
    if (named) return named;
  }
  if (decl && ts.isConstructorDeclaration(decl)) return classTarget(decl.parent.symbol);
  if (isNew) return null;
  if (!decl || ts.isJSDocSignature(decl)) return null;
  if (ts.isFunctionDeclaration(decl) || ts.isMethodDeclaration(decl) || ts.isMethodSignature(decl)) return functionTarget(decl);
  if (ts.isArrowFunction(decl) || ts.isFunctionExpression(decl)) {
    const parent = decl.parent;
    if (parent && (ts.isVariableDeclaration(parent) || ts.isPropertyDeclaration(parent) || ts.isPropertyAssignment(parent)) && parent.initializer === decl) {
      return valueTarget(parent);
    }
    if (ts.isFunctionExpression(decl) && decl.name) return target(decl, "function");
    return null;
  }
  // A function type or call signature: the called name's declaration, when it is a value one can hold.
  const sym = resolveAlias(checker.getSymbolAtLocation(nameNode));
  const vdecl = sym && (sym.declarations || [])[0];
  return vdecl ? valueTarget(vdecl) : null;
}

let sites = [];
for (const sf of program.getSourceFiles()) {
  const file = path.resolve(sf.fileName);
  if (!inTree(file) || sf.isDeclarationFile) continue;
  const visit = (node) => {
    let callee = null;
    if (ts.isCallExpression(node) || ts.isNewExpression(node)) callee = node.expression;
    else if (ts.isDecorator(node) && !ts.isCallExpression(node.expression)) callee = node.expression;
    const nameNode = callee && callee.kind !== ts.SyntaxKind.ImportKeyword ? calleeName(callee) : null;
    if (nameNode) sites.push({ sf, node, nameNode });
    ts.forEachChild(node, visit);
  };
  visit(sf);
}

if (sample !== null && sample < sites.length) {
  let state = seed >>> 0 || 1;
  const next = () => {
    state ^= state << 13; state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5; state >>>= 0;
    return state / 4294967296;
  };
  for (let i = sites.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [sites[i], sites[j]] = [sites[j], sites[i]];
  }
  sites = sites.slice(0, sample);
}

const out = [];
for (const { sf, node, nameNode } of sites) {
  const pos = sf.getLineAndCharacterOfPosition(nameNode.getStart(sf));
  const found = [resolve(node, nameNode)];
  // `new C(...)` and `super(...)`: the class's own constructor, when it declares one, is a target too.
  if (found[0] && found[0][3] === "class") {
    let sig;
    try {
      sig = checker.getResolvedSignature(node);
    } catch {}
    const ctor = sig && sig.declaration;
    if (ctor && ts.isConstructorDeclaration(ctor) && ctor.parent.name && ctor.parent.name.getText() === found[0][2]) {
      const sf = ctor.getSourceFile();
      const file = path.resolve(sf.fileName);
      if (inTree(file)) found.push([rel(file), sf.getLineAndCharacterOfPosition(ctor.getStart(sf)).line + 1, "constructor", "constructor"]);
    }
  }
  // A call through a variable or class property that holds a function defined elsewhere (`const
  // stringType = ZodString.create`, re-exported as `string`; `spa = this.safeParseAsync`): the variable
  // or property is a target too.
  if (found[0] && !ts.isNewExpression(node) && nameNode.kind !== ts.SyntaxKind.SuperKeyword) {
    const sym = resolveAlias(checker.getSymbolAtLocation(nameNode));
    const vdecl = sym && (sym.declarations || [])[0];
    const alt = vdecl && (ts.isVariableDeclaration(vdecl) || ts.isPropertyDeclaration(vdecl)) && vdecl.initializer
      && !ts.isArrowFunction(vdecl.initializer) && !ts.isFunctionExpression(vdecl.initializer) ? valueTarget(vdecl) : null;
    if (alt && (alt[0] !== found[0][0] || alt[1] !== found[0][1])) found.push(alt);
  }
  out.push(JSON.stringify({
    file: rel(path.resolve(sf.fileName)), line: pos.line + 1, col: pos.character,
    name: nameNode.kind === ts.SyntaxKind.SuperKeyword ? "super" : nameNode.getText(sf),
    targets: found[0] ? found : [],
  }));
}
process.stdout.write(out.join("\n") + (out.length ? "\n" : ""));
