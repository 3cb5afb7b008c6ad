; `API_V1_STR: str = "/api/v1"` in a top-level class body: a settings field with a literal default.
(class_definition
  body: (block
    (expression_statement
      (assignment
        left: (identifier) @constant.name
        right: (string) @constant.value) @constant)))
