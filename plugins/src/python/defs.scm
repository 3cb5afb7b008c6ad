; Definitions, captured whole: Rust checks their names and reads return types, bases and class keywords
; from their fields. Rust decides which assignments are module- or class-level (others are locals, not defs).
(function_definition) @def.function
(class_definition) @def.class
(type_alias_statement) @def.type_alias

; A decorated definition starts at its first decorator.
(decorated_definition definition: (_) @def.decorated) @def.decorated_start

; Module- and class-level variables are read off the `binding.assign` matches: an assignment to a plain name
; whose parent (the walk gives it) is a statement or, in a chain `a = b = 1`, the outer assignment.

; PEP 257 attribute docstrings: a statement that is one string, right after a variable's statement in a
; module or a block. The walk gives the statement's parent and the named sibling before it: a pattern rooted
; at the module or block would keep a match state alive across all of its statements.
(expression_statement . (string) @def.var_doc .)
