; Imports, re-exports and exports (ES modules and CommonJS).

(import_statement (import_clause) @import.clause source: (string) @import.source) @import
(import_statement (import_require_clause (identifier) @import.alias source: (string) @import.source)) @import.require

(export_statement (export_clause) @import.clause source: (string) @import.source) @reexport
(export_statement (namespace_export (identifier) @import.alias) source: (string) @import.source) @reexport.namespace
(export_statement "*" source: (string) @import.source) @reexport.glob

; `const x = require("m")`, `const {a, b: c} = require("m")`, `const x = require("m").y`
(variable_declarator
  name: [(identifier) (object_pattern)] @import.alias
  value: [
    (call_expression function: (identifier) @_require arguments: (arguments . (string) @import.source .))
    (member_expression
      object: (call_expression function: (identifier) @_require arguments: (arguments . (string) @import.source .))
      property: (property_identifier) @import.member)
  ]
  (#eq? @_require "require")) @require

(export_statement !source (export_clause) @export.clause) @export
(export_statement value: (identifier) @export.default)
(export_statement "=" (identifier) @export.default)

; CommonJS exports (`exports.a = …`, `module.exports.a = …`, `module.exports = …`) are read in code off
; the assignments refs.scm captures: as patterns of their own they took about 13 of 68 ms of the
; TypeScript query's compile.
