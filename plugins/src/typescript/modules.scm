; Imports, re-exports and exports (ES modules and CommonJS).

; `import … from "m"` and `import x = require("m")`, read off the statement's children in code.
(import_statement) @import

; Every `export` statement, matched by the walk: the plugin reads what it wraps, re-exports (`export {a}
; from "m"`, `export * as ns from "m"`, `export * from "m"`) and exports (`export {a}`, `export default a`,
; `export = a`) off its children. Eight patterns rooted at the statement took half of each grammar's compile.
(export_statement) @export.statement

; `const x = require("m")`, `const {a, b: c} = require("m")`, `const x = require("m").y` are read in code
; from the declarators bindings.scm captures: as a pattern here they were a quarter of each grammar's compile.

; CommonJS exports (`exports.a = …`, `module.exports.a = …`, `module.exports = …`) are read in code off
; the assignments refs.scm captures: as patterns of their own they took about 13 of 68 ms of the
; TypeScript query's compile.
