; Definitions, captured whole: Rust checks their names and reads return types, bases and class keywords
; from their fields. Rust decides which assignments are module- or class-level (others are locals, not defs).
(function_definition) @def.function
(class_definition) @def.class
(type_alias_statement) @def.type_alias

; A decorated definition starts at its first decorator (Rust reads the definition from its field).
(decorated_definition) @def.decorated

; Module- and class-level variables are read off the `binding.assign` matches: an assignment to a plain name
; whose parent (the walk gives it) is a statement or, in a chain `a = b = 1`, the outer assignment.

; PEP 257 attribute docstrings: a statement that is one string, right after a variable's statement in a
; module or a block. The walk gives the statement's parent and the named sibling before it: a pattern rooted
; at the module or block would keep a match state alive across all of its statements.
; Rust keeps the statements that are one string.
(expression_statement) @def.var_doc
