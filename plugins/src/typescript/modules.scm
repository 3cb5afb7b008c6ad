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

; `exports.a = …`, `module.exports.a = …`
(assignment_expression
  left: (member_expression object: (identifier) @_exports property: (property_identifier) @cjs.name)
  right: (_) @cjs.value
  (#eq? @_exports "exports")) @cjs.member
(assignment_expression
  left: (member_expression
    object: (member_expression object: (identifier) @_module property: (property_identifier) @_exports)
    property: (property_identifier) @cjs.name)
  right: (_) @cjs.value
  (#eq? @_module "module")
  (#eq? @_exports "exports")) @cjs.member
; `module.exports = …`
(assignment_expression
  left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports)
  right: (_) @cjs.value
  (#eq? @_module "module")
  (#eq? @_exports "exports")) @cjs.module
