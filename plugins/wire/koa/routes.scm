; router.get('/users/:id', handler) / router.post('/x', auth, async ctx => …), also chained on a router made
; inline: the last argument handles.
(call_expression
  function: (_
    object: (_) @route.router
    property: (property_identifier) @route.method)
  arguments: (_
    . [(string) (template_string) (identifier) (binary_expression) (member_expression)] @route.path
    (_) @route.handler .)
  (#any-of? @route.method "get" "post" "put" "delete" "del" "patch" "all" "head" "options")) @route

; const router = new Router(), new Router({ prefix: '/users' }).
(variable_declarator
  name: (identifier) @router.name
  value: (_
    constructor: (identifier) @_ctor)
  (#any-of? @_ctor "Router" "KoaRouter")) @router

(variable_declarator
  name: (identifier) @router.name
  value: (_
    constructor: (identifier) @_ctor
    arguments: (_
      (_
        (_
          key: (property_identifier) @_k
          value: (_) @router.prefix))))
  (#any-of? @_ctor "Router" "KoaRouter")
  (#eq? @_k "prefix")) @router

; new Router() wherever it stands (`export default new Router({ prefix: '/books' }).get(…)`): named by what
; its chain is bound to.
(new_expression
  constructor: (identifier) @_ctor
  (#any-of? @_ctor "Router" "KoaRouter")) @router

(new_expression
  constructor: (identifier) @_ctor
  arguments: (_
    (_
      (_
        key: (property_identifier) @_k
        value: (_) @router.prefix)))
  (#any-of? @_ctor "Router" "KoaRouter")
  (#eq? @_k "prefix")) @router

; router.use('/api', users.routes()), app.use(router.routes()).
(call_expression
  function: (_
    object: (_) @mount.router
    property: (property_identifier) @_m)
  arguments: (_
    . [(string) (template_string) (identifier)] @mount.prefix
    (_
      function: (_
        object: (identifier) @mount.target
        property: (property_identifier) @_r)) .)
  (#eq? @_m "use")
  (#eq? @_r "routes")) @mount

(call_expression
  function: (_
    object: (_) @mount.router
    property: (property_identifier) @_m)
  arguments: (_
    . (_
      function: (_
        object: (identifier) @mount.target
        property: (property_identifier) @_r)) .)
  (#eq? @_m "use")
  (#eq? @_r "routes")) @mount
