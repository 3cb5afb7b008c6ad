; #[get("/users/{id}")] async fn show(…), up to two other attributes between.
((attribute_item
  (attribute
    (identifier) @route.method
    arguments: (token_tree . (string_literal) @route.path))) @route
  .
  (attribute_item)?
  .
  (attribute_item)?
  .
  (function_item) @route.handler
  (#any-of? @route.method "get" "post" "put" "delete" "patch" "head" "options"))

; .route("/users", web::get().to(list)), web::resource("/users").route(web::post().to(create)).
(_
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

(_
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
