; Typed names: `let` locals, function parameters, named struct/union fields.
(let_declaration pattern: (identifier)) @binding.let
(function_item parameters: (parameters (parameter pattern: (identifier)) @binding.param))
(function_signature_item parameters: (parameters (parameter pattern: (identifier)) @binding.param))
(struct_item body: (field_declaration_list (field_declaration) @binding.field))
(union_item body: (field_declaration_list (field_declaration) @binding.field))
