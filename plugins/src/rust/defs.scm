; Named definitions. Parents come from byte-range nesting; kinds are refined by the container:
; a function in an `impl` or `trait` body is a Method, an `impl` const is kept, other `impl` members are skipped.
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

; An `impl` block. Its members (with the block as their container), `impl Trait for Type` and its generics'
; bounds are read in code, as a trait's are off its @def.trait match (`impl_item` and `trait_item` in
; mod.rs): patterns reaching into them would start the query cursor at every impl and trait.
(impl_item) @item.impl

; Attributes and comments: the doc and attributes of an item are those right before it.
(attribute_item) @trivia.attribute
(line_comment) @trivia.comment
(block_comment) @trivia.comment
