; .route("/users/:id", get(show)), and the methods chained after it: get(list).post(create).
(call_expression
  function: (_
    value: (_) @route.router
    field: (field_identifier) @_r)
  arguments: (_
    . (string_literal) @route.path
    . (_
      function: [(identifier) (scoped_identifier name: (identifier))] @route.method
      arguments: (_ . (_) @route.handler)))
  (#eq? @_r "route")
  (#match? @route.method "(^|::)(get|post|put|delete|patch|head|options|any)$")) @route

(call_expression
  function: (_
    value: (_) @route.router
    field: (field_identifier) @_r)
  arguments: (_
    . (string_literal) @route.path
    . (_
      function: (_
        field: (field_identifier) @route.method)
      arguments: (_ . (_) @route.handler)))
  (#eq? @_r "route")
  (#any-of? @route.method "get" "post" "put" "delete" "patch" "head" "options")) @route

(call_expression
  function: (_
    value: (_) @route.router
    field: (field_identifier) @_r)
  arguments: (_
    . (string_literal) @route.path
    . (_
      function: (_
        value: (_
          function: (identifier) @route.method
          arguments: (_ . (_) @route.handler)))))
  (#eq? @_r "route")
  (#any-of? @route.method "get" "post" "put" "delete" "patch" "head" "options" "any")) @route

; fn routes() -> Router { … }: a router over the function, mounted by its name.
(function_item
  return_type: (_) @_t
  (#match? @_t "^(axum::)?Router")) @router.scope @router

; let app = Router::new()…, and a router built inline (`.nest("/api", Router::new().route(…))`): a router over
; the method chain it starts.
(call_expression
  function: (scoped_identifier) @_new
  (#match? @_new "^(axum::)?Router::new$")) @router.scope @router

; .nest("/api", api::routes()), .nest("/api", api), .merge(users::routes()).
(call_expression
  function: (_
    value: (_) @mount.router
    field: (field_identifier) @_n)
  arguments: (_
    . (string_literal) @mount.prefix
    . (_
      function: [(identifier) (scoped_identifier)] @mount.target))
  (#eq? @_n "nest")) @mount

(call_expression
  function: (_
    value: (_) @mount.router
    field: (field_identifier) @_n)
  arguments: (_
    . (string_literal) @mount.prefix
    . (identifier) @mount.target)
  (#eq? @_n "nest")) @mount

(call_expression
  function: (_
    value: (_) @mount.router
    field: (field_identifier) @_n)
  arguments: (_
    . (_
      function: [(identifier) (scoped_identifier)] @mount.target))
  (#eq? @_n "merge")) @mount

; .nest("/api", Router::new().route(…)): the router built there, matched by its text.
(call_expression
  function: (_
    value: (_) @mount.router
    field: (field_identifier) @_n)
  arguments: (_
    . (string_literal) @mount.prefix
    . (_) @mount.target)
  (#eq? @_n "nest")
  (#match? @mount.target "^(axum::)?Router::new\\(\\)")) @mount
