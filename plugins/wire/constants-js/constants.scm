; const API = '/api' at module level (exported or not).
(program
  (lexical_declaration
    (variable_declarator
      name: (identifier) @constant.name
      value: [(string) (template_string)] @constant.value) @constant))

(program
  (export_statement
    (lexical_declaration
      (variable_declarator
        name: (identifier) @constant.name
        value: [(string) (template_string)] @constant.value) @constant)))
