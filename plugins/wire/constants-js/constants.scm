; const API = '/api' at module level, exported or not (patterns start at the module's statements).
(lexical_declaration
  (variable_declarator
    name: (identifier) @constant.name
    value: [(string) (template_string)] @constant.value) @constant)

(export_statement
  (lexical_declaration
    (variable_declarator
      name: (identifier) @constant.name
      value: [(string) (template_string)] @constant.value) @constant))
