; Imports, re-exports and exports (ES modules and CommonJS).

(import_statement (import_clause) @import.clause source: (string) @import.source) @import
(import_statement (import_require_clause (identifier) @import.alias source: (string) @import.source)) @import.require

(export_statement (export_clause) @import.clause source: (string) @import.source) @reexport
(export_statement (namespace_export (identifier) @import.alias) source: (string) @import.source) @reexport.namespace
(export_statement "*" source: (string) @import.source) @reexport.glob

; `const x = require("m")`, `const {a, b: c} = require("m")`, `const x = require("m").y` are read in code
; from the declarators bindings.scm captures: as a pattern here they were a quarter of each grammar's compile.

(export_statement !source (export_clause) @export.clause) @export
(export_statement value: (identifier) @export.default)
(export_statement "=" (identifier) @export.default)

; CommonJS exports (`exports.a = …`, `module.exports.a = …`, `module.exports = …`) are read in code off
; the assignments refs.scm captures: as patterns of their own they took about 13 of 68 ms of the
; TypeScript query's compile.
