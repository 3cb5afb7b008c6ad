; .route("/users", web::get().to(list)).
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

; web::resource("/users").route(web::post().to(create)), and each .route(…) chained after it: a route of
; the resource around (below); .to(h) on the resource itself serves every method.
(call_expression
  function: (_
    field: (field_identifier) @_r)
  arguments: (_
    . (_
      function: (_
        value: (_
          function: (scoped_identifier
            name: (identifier) @route.method))
        field: (field_identifier) @_to)
      arguments: (_ . (_) @route.handler))
    .)
  (#eq? @_r "route")
  (#eq? @_to "to")
  (#any-of? @route.method "get" "post" "put" "delete" "patch" "head")) @route

(call_expression
  function: (_
    value: (call_expression
      function: [(identifier) (scoped_identifier name: (identifier))] @_res)
    field: (field_identifier) @_to)
  arguments: (_ . (_) @route.handler)
  (#match? @_res "(^|::)resource$")
  (#eq? @_to "to")) @route

; web::resource("/users"): a router over its method chain, as a scope is.
(call_expression
  function: [(identifier) (scoped_identifier name: (identifier))] @_s
  arguments: (_ . (string_literal) @router.prefix)
  (#match? @_s "(^|::)resource$")) @router.scope @router

; web::scope("/api"): a router over the method chain it starts; a scope inside it is mounted on it.
(call_expression
  function: [(identifier) (scoped_identifier name: (identifier))] @_s
  arguments: (_ . (string_literal) @router.prefix)
  (#match? @_s "(^|::)scope$")) @router.scope @router

; fn config(cfg: &mut web::ServiceConfig) { … }: a router over the function, mounted by `.configure(config)`.
(function_item
  parameters: (_) @_p
  (#match? @_p "ServiceConfig")) @router.scope @router

; .configure(users::config), and .service(show) of a function an attribute macro routes.
(call_expression
  function: (_
    field: (field_identifier) @_c)
  arguments: (_ . [(identifier) (scoped_identifier)] @mount.target)
  (#any-of? @_c "configure" "service")) @mount
