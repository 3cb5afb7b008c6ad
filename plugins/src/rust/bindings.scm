; Typed names: `let` locals, named struct/union fields; function parameters are read in code (`signature`
; in mod.rs).
; Every `let`: the plugin keeps those binding a plain name, and reads the annotation as a type (see refs.scm).
(let_declaration) @binding.let
(struct_item body: (field_declaration_list (field_declaration) @binding.field))
(union_item body: (field_declaration_list (field_declaration) @binding.field))
