; app.get('/users/:id', handler) / router.post('/x', auth, (req, res) => …): the last argument handles.
(call_expression
  function: (_
    object: (identifier) @route.router
    property: (property_identifier) @route.method)
  arguments: (_
    . [(string) (template_string) (identifier) (binary_expression) (member_expression)] @route.path
    (_) @route.handler .)
  (#any-of? @route.method "get" "post" "put" "delete" "patch" "all" "head" "options")) @route

; const app = express(), const router = express.Router() / Router().
(variable_declarator
  name: (identifier) @router.name
  value: (_
    function: [(identifier) (member_expression)] @_ctor)
  (#match? @_ctor "^(express|express[.]Router|Router)$")) @router

; app.use('/api', router), Router().use('/api', api) (the chain named by what it is bound to).
(call_expression
  function: (_
    object: (_) @mount.router
    property: (property_identifier) @_m)
  arguments: (_
    . [(string) (template_string) (identifier) (binary_expression)] @mount.prefix
    (identifier) @mount.target .)
  (#eq? @_m "use")) @mount

; app.use(routes), Router().use(tags).use(articles): a router mounted without a prefix.
(call_expression
  function: (_
    object: (_) @mount.router
    property: (property_identifier) @_m)
  arguments: (_ . (identifier) @mount.target .)
  (#eq? @_m "use")) @mount
