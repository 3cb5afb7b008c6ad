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
(call_expression
  function: (field_expression
    field: (field_identifier) @_r)
  arguments: (arguments
    . (string_literal) @route.path
    . (call_expression
      function: (field_expression
        value: (call_expression
          function: (scoped_identifier
            name: (identifier) @route.method))
        field: (field_identifier) @_to)
      arguments: (arguments . (_) @route.handler)))
  (#eq? @_r "route")
  (#eq? @_to "to")
  (#any-of? @route.method "get" "post" "put" "delete" "patch" "head")) @route

(call_expression
  function: (field_expression
    value: (call_expression
      function: (scoped_identifier
        name: (identifier) @_res)
      arguments: (arguments . (string_literal) @route.path))
    field: (field_identifier) @_r)
  arguments: (arguments
    . (call_expression
      function: (field_expression
        value: (call_expression
          function: (scoped_identifier
            name: (identifier) @route.method))
        field: (field_identifier) @_to)
      arguments: (arguments . (_) @route.handler)))
  (#eq? @_res "resource")
  (#eq? @_r "route")
  (#eq? @_to "to")
  (#any-of? @route.method "get" "post" "put" "delete" "patch" "head")) @route
