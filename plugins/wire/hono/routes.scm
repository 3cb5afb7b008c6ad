; app.get('/users/:id', handler) / app.post('/x', validator, (c) => …): the last argument handles.
(call_expression
  function: (_
    object: (_) @route.router
    property: (property_identifier) @route.method)
  arguments: (_
    . [(string) (template_string) (identifier) (binary_expression) (member_expression)] @route.path
    (_) @route.handler .)
  (#any-of? @route.method "get" "post" "put" "delete" "patch" "all" "head" "options")) @route

; const app = new Hono(), new Hono().basePath('/api').
(variable_declarator
  name: (identifier) @router.name
  value: (_
    constructor: (identifier) @_ctor)
  (#eq? @_ctor "Hono")) @router

(variable_declarator
  name: (identifier) @router.name
  value: (_
    function: (_
      object: (_
        constructor: (identifier) @_ctor)
      property: (property_identifier) @_b)
    arguments: (_ . (_) @router.prefix))
  (#eq? @_ctor "Hono")
  (#eq? @_b "basePath")) @router

; new Hono() wherever it stands: named by what its chain is bound to (`const users = new Hono().get(…)`,
; `export default new Hono().get(…)`), so that another module can mount it.
(new_expression
  constructor: (identifier) @_ctor
  (#eq? @_ctor "Hono")) @router

; app.route('/books', books).
(call_expression
  function: (_
    object: (_) @mount.router
    property: (property_identifier) @_m)
  arguments: (_
    . [(string) (template_string) (identifier)] @mount.prefix
    (identifier) @mount.target .)
  (#eq? @_m "route")) @mount
