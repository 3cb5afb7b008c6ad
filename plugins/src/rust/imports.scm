; `use` trees are flattened by the plugin (groups, `self`, globs, aliases).
(use_declaration) @import.use
(extern_crate_declaration) @import.extern_crate
