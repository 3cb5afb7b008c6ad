; Definitions. The `@def.*` capture is the definition node; the plugin reads its name in code (a pattern
; reaching into the `name` field would start the query cursor at every class, interface and function).

(function_declaration) @def.function
(generator_function_declaration) @def.function
(function_signature) @def.function_signature
(class_declaration) @def.class
(abstract_class_declaration) @def.class
; Methods and method signatures: definitions in a class or an interface body, which the plugin tells by
; the parent the walk hands it (an object literal's method is none), with the name read in code. One
; single-node pattern, matched by the walk, in place of four with a parent each: with the class property
; pattern made single-node too, the compile fell from 16 to 12 ms for TypeScript, 17 to 13 ms for TSX.
; An interface's property typed as a function (`next: (value: T) => void`) is a method of it too.
[(method_definition) (method_signature) (abstract_method_signature) (property_signature)] @def.member
; A class property holding a function (`handler = () => {}`) is a method too; the plugin picks those
; out of the `@bind.field` matches (bindings.scm) by their value's kind, which compiles much faster than
; a pattern of its own with an alternation on the value (12 of 68 ms for the TypeScript grammar).
(interface_declaration) @def.interface
(type_alias_declaration) @def.type_alias
(enum_declaration) @def.enum
(internal_module) @def.module
(module) @def.module

; Variable declarations; each declarator of one at module level (file or namespace body, also under
; `export` or `declare`) is a definition. The plugin tells the level by the ancestors the walk hands it: one
; single-node pattern in place of eight rooted at the file or namespace, which cut the compile from 12.0 to
; 6.6 ms for TypeScript and 13.3 to 7.8 ms for TSX, and zod's whole index from 422 to 406 ms.
[(lexical_declaration) (variable_declaration)] @def.vars

; What wraps a declaration: `declare` (`export` and `export default` are read off the `@export.statement`
; matches, modules.scm).
(ambient_declaration) @wrap.ambient

; Calls of test-framework functions (`describe`, `it.only`, `test.each(…)(…)`): definitions inside their
; callbacks are tests. The plugin picks them out of the call matches (refs.scm) in code: as a pattern of
; its own, with its alternations and predicate, this took about 6.5 of 68 ms of the query's compile.

; Doc comments are matched to the declaration they precede.
(comment) @comment
