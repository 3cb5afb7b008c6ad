; fastify.get('/users/:id', opts, handler): the last argument handles.
(call_expression
  function: (_
    object: (identifier) @route.router
    property: (property_identifier) @route.method)
  arguments: (_
    . [(string) (template_string) (identifier) (binary_expression) (member_expression)] @route.path
    (_) @route.handler .)
  (#any-of? @route.method "get" "post" "put" "delete" "patch" "all" "head" "options")) @route

; fastify.route({ method: 'GET', url: '/x', handler }).
(call_expression
  function: (_
    object: (identifier) @route.router
    property: (property_identifier) @_r)
  arguments: (_
    (_
      (_ key: (property_identifier) @_m value: (_) @route.method)
      (_ key: (property_identifier) @_u value: (_) @route.path)))
  (#eq? @_r "route")
  (#eq? @_m "method")
  (#eq? @_u "url")) @route

(call_expression
  function: (_
    object: (identifier) @route.router
    property: (property_identifier) @_r)
  arguments: (_
    (_
      (_ key: (property_identifier) @_m value: (_) @route.method)
      (_ key: (property_identifier) @_u value: (_) @route.path)
      (_ key: (property_identifier) @_h value: (_) @route.handler)))
  (#eq? @_r "route")
  (#eq? @_m "method")
  (#eq? @_u "url")
  (#eq? @_h "handler")) @route

; const app = Fastify({ logger: true }).
(variable_declarator
  name: (identifier) @router.name
  value: (_
    function: (identifier) @_ctor)
  (#any-of? @_ctor "Fastify" "fastify")) @router

; A plugin: a function whose first parameter is the instance its routes are declared on, mounted by
; its name (`export default async function (fastify) { … }` as `default`).
[(function_declaration
   parameters: (formal_parameters . (required_parameter pattern: (identifier) @router.name)))
 (function_expression
   parameters: (formal_parameters . (required_parameter pattern: (identifier) @router.name)))
 (arrow_function
   parameters: (formal_parameters . (required_parameter pattern: (identifier) @router.name)))] @router.scope @router

; app.register(routes, { prefix: '/v1' }), app.register(async (api) => { … }, { prefix }), app.register(routes).
(call_expression
  function: (_
    object: (identifier) @mount.router
    property: (property_identifier) @_m)
  arguments: (_
    . [(identifier) (arrow_function) (function_expression)] @mount.target
    (_
      (_
        key: (property_identifier) @_k
        value: (_) @mount.prefix)))
  (#eq? @_m "register")
  (#eq? @_k "prefix")) @mount

(call_expression
  function: (_
    object: (identifier) @mount.router
    property: (property_identifier) @_m)
  arguments: (_ . [(identifier) (arrow_function) (function_expression)] @mount.target)
  (#eq? @_m "register")) @mount
