; Bound names: `let` locals, named struct/union fields; function parameters are read in code (`signature`
; in mod.rs).
; Every `let`: the plugin reads the names its pattern binds, and the annotation as a type (see refs.scm).
(let_declaration) @binding.let
(struct_item body: (field_declaration_list (field_declaration) @binding.field))
(union_item body: (field_declaration_list (field_declaration) @binding.field))
; Patterns binding names, with no type: `for` loops, `if let`/`while let` conditions, match arms. The plugin
; reads the pattern's names in code; closure parameters come from `@ref.closure_parameters` (refs.scm).
(for_expression) @binding.pattern
(let_condition) @binding.pattern
(match_arm) @binding.pattern
