; Typed names: `let` locals, function parameters, named struct/union fields.
; Every `let`: the plugin keeps those binding a plain name, and reads the annotation as a type (see refs.scm).
(let_declaration) @binding.let
(function_item parameters: (parameters (parameter pattern: (identifier)) @binding.param))
(function_signature_item parameters: (parameters (parameter pattern: (identifier)) @binding.param))
(struct_item body: (field_declaration_list (field_declaration) @binding.field))
(union_item body: (field_declaration_list (field_declaration) @binding.field))
