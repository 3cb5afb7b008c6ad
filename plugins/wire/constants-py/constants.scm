; NAME = "/api" at module level; `API_V1_STR: str = "/api/v1"` in a class body (a settings field).
(module
  (expression_statement
    (assignment
      left: (identifier) @constant.name
      right: (string) @constant.value) @constant))

(class_definition
  body: (block
    (expression_statement
      (assignment
        left: (identifier) @constant.name
        right: (string) @constant.value) @constant)))
