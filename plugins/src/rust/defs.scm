; Named definitions. Parents come from byte-range nesting; kinds are refined by the container:
; a function in an `impl` or `trait` body is a Method, other `impl` members are skipped.
(mod_item) @def.module
(function_item) @def.function
(function_signature_item) @def.function
(struct_item) @def.struct
(enum_item) @def.enum
(union_item) @def.union
(trait_item) @def.trait
(type_item) @def.type_alias
(const_item) @def.const
(static_item) @def.static
(macro_definition) @def.macro

; Members of impl and trait bodies, with their container.
(impl_item body: (declaration_list (_) @def.member)) @ctx.impl
(trait_item body: (declaration_list (_) @def.member)) @ctx.trait

; Attributes and comments: the doc and attributes of an item are those right before it.
(attribute_item) @trivia.attribute
(line_comment) @trivia.comment
(block_comment) @trivia.comment
