; Call sites: one capture per site; the plugin reads the callee shape (path, method, receiver).
(call_expression) @ref.call
(macro_invocation) @ref.macro
(struct_expression) @ref.instantiate

; Functions and paths passed as values: `map(Self::helper)`, `spawn(worker)`. The plugin reads the names and
; paths among the arguments: a pattern reaching into the list would start the query cursor at every call.
(arguments) @ref.arguments

; Types named in signatures, fields, bounds and annotations; the plugin walks each type for names.
; @ctx.owner is the item whose generic parameters the type may name (those are not refs). A function's
; (`fn` item or signature), an impl's and a trait's are read in code (`signature`, `impl_item` and
; `trait_item` in mod.rs), so that the query cursor never starts at the commonest items.
(struct_item body: (field_declaration_list (field_declaration type: (_) @ref.type))) @ctx.owner
(struct_item body: (ordered_field_declaration_list type: (_) @ref.type)) @ctx.owner
(union_item body: (field_declaration_list (field_declaration type: (_) @ref.type))) @ctx.owner
(enum_item body: (enum_variant_list (enum_variant body: (field_declaration_list (field_declaration type: (_) @ref.type))))) @ctx.owner
(enum_item body: (enum_variant_list (enum_variant body: (ordered_field_declaration_list type: (_) @ref.type)))) @ctx.owner
(associated_type bounds: (trait_bounds) @ref.type)
; Bounds in generics and where clauses, spelled out per item kind that has them (tree-sitter-rust
; 0.24's node types) so that every pattern starts at a named kind (see plugins::rooted); functions',
; impls' and traits' are read in code.
[
  (associated_type type_parameters: (type_parameters (type_parameter bounds: (trait_bounds) @ref.type)))
  (enum_item type_parameters: (type_parameters (type_parameter bounds: (trait_bounds) @ref.type)))
  (higher_ranked_trait_bound type_parameters: (type_parameters (type_parameter bounds: (trait_bounds) @ref.type)))
  (struct_item type_parameters: (type_parameters (type_parameter bounds: (trait_bounds) @ref.type)))
  (type_item type_parameters: (type_parameters (type_parameter bounds: (trait_bounds) @ref.type)))
  (union_item type_parameters: (type_parameters (type_parameter bounds: (trait_bounds) @ref.type)))
] @ctx.owner
[
  (associated_type (where_clause (where_predicate bounds: (trait_bounds) @ref.type)))
  (enum_item (where_clause (where_predicate bounds: (trait_bounds) @ref.type)))
  (struct_item (where_clause (where_predicate bounds: (trait_bounds) @ref.type)))
  (type_item (where_clause (where_predicate bounds: (trait_bounds) @ref.type)))
  (union_item (where_clause (where_predicate bounds: (trait_bounds) @ref.type)))
] @ctx.owner
(type_item type: (_) @ref.type) @ctx.owner
; The annotations of `let` and of closure parameters are read from the `@binding.let` and
; `@ref.closure_parameters` captures: both nodes are common, and a pattern reaching into them would start the
; query cursor at each.
(closure_parameters) @ref.closure_parameters
(const_item type: (_) @ref.type)
(static_item type: (_) @ref.type)
