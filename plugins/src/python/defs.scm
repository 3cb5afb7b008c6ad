; Definitions, captured whole: Rust checks their names and reads return types, bases and class keywords
; from their fields. Rust decides which assignments are module- or class-level (others are locals, not defs).
(function_definition) @def.function
(class_definition) @def.class
(type_alias_statement) @def.type_alias

; A decorated definition starts at its first decorator.
(decorated_definition definition: (_) @def.decorated) @def.decorated_start

; Assignments to a plain name (the inner ones of chains, `a = b = 1`, come from `binding.assign` captures).
(expression_statement (assignment left: (identifier)) @def.var)

; PEP 257 attribute docstrings: a string statement right after the assignment. Statements are children of a
; module or a block only; the pattern is rooted at them so that the query can start at one node.
(module
  (expression_statement (assignment left: (identifier)) @def.var_documented)
  .
  (expression_statement . (string) @def.var_doc .))
(block
  (expression_statement (assignment left: (identifier)) @def.var_documented)
  .
  (expression_statement . (string) @def.var_doc .))
