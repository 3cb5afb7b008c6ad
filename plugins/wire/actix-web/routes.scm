; .route("/users", web::get().to(list)), web::resource("/users").route(web::post().to(create)).
(call_expression
  function: (_
    field: (field_identifier) @_r)
  arguments: (_
    . (string_literal) @route.path
    . (_
      function: (_
        value: (_
          function: (scoped_identifier
            name: (identifier) @route.method))
        field: (field_identifier) @_to)
      arguments: (_ . (_) @route.handler)))
  (#eq? @_r "route")
  (#eq? @_to "to")
  (#any-of? @route.method "get" "post" "put" "delete" "patch" "head")) @route

(call_expression
  function: (_
    value: (_
      function: (scoped_identifier
        name: (identifier) @_res)
      arguments: (_ . (string_literal) @route.path))
    field: (field_identifier) @_r)
  arguments: (_
    . (_
      function: (_
        value: (_
          function: (scoped_identifier
            name: (identifier) @route.method))
        field: (field_identifier) @_to)
      arguments: (_ . (_) @route.handler)))
  (#eq? @_res "resource")
  (#eq? @_r "route")
  (#eq? @_to "to")
  (#any-of? @route.method "get" "post" "put" "delete" "patch" "head")) @route
