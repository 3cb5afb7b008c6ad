; @Controller('users') class UsersController { … }, exported or not: a router over the class.
(export_statement
  decorator: (decorator
    (_
      function: (identifier) @_c
      arguments: (_ . (string) @router.prefix)))
  declaration: (class_declaration) @router.scope
  (#eq? @_c "Controller")) @router

(export_statement
  decorator: (decorator
    (_
      function: (identifier) @_c))
  declaration: (class_declaration) @router.scope
  (#eq? @_c "Controller")) @router

(class_declaration
  decorator: (decorator
    (_
      function: (identifier) @_c
      arguments: (_ . (string) @router.prefix)))
  (#eq? @_c "Controller")) @router.scope @router

(class_declaration
  decorator: (decorator
    (_
      function: (identifier) @_c))
  (#eq? @_c "Controller")) @router.scope @router

; @Get(':id') find() { … }, other decorators between.
(class_body
  (decorator
    (_
      function: (identifier) @route.method
      arguments: (_ . (string)? @route.path))) @route
  .
  (decorator)?
  .
  (decorator)?
  .
  (method_definition) @route.handler
  (#any-of? @route.method "Get" "Post" "Put" "Delete" "Patch" "All" "Head" "Options"))

; app.setGlobalPrefix('api'): every controller's routes sit under it (its `exclude` option is not read).
(call_expression
  function: (member_expression
    property: (property_identifier) @_m)
  arguments: (arguments . (string) @prefix.path)
  (#eq? @_m "setGlobalPrefix")) @prefix
