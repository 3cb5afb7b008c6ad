; NAME = "/api" at module level (patterns start no deeper than the module's statements: start_depth).
(expression_statement
  (assignment
    left: (identifier) @constant.name
    right: (string) @constant.value)) @constant
