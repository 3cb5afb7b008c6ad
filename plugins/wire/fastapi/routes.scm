; @app.get("/items/{id}") / @router.post(...) on a function.
(decorated_definition
  (decorator
    (_
      function: (_
        object: (_) @route.router
        attribute: (identifier) @route.method)
      arguments: (_ . (_) @route.path)))
  definition: (function_definition) @route.handler
  (#any-of? @route.method "get" "post" "put" "delete" "patch" "head" "options" "trace")) @route

; app = FastAPI(), router = APIRouter(prefix="/users").
(assignment
  left: (identifier) @router.name
  right: (_
    function: [(identifier) (attribute)] @_ctor
    arguments: (_))
  (#match? @_ctor "(^|[.])(APIRouter|FastAPI)$")) @router

(assignment
  left: (identifier) @router.name
  right: (_
    function: [(identifier) (attribute)] @_ctor
    arguments: (_
      (_
        name: (identifier) @_kw
        value: (_) @router.prefix)))
  (#match? @_ctor "(^|[.])(APIRouter|FastAPI)$")
  (#any-of? @_kw "prefix" "root_path")) @router

; app.include_router(users.router, prefix="/users").
(call
  function: (_
    object: (_) @mount.router
    attribute: (identifier) @_m)
  arguments: (_ . (_) @mount.target)
  (#eq? @_m "include_router")) @mount

(call
  function: (_
    object: (_) @mount.router
    attribute: (identifier) @_m)
  arguments: (_
    . (_) @mount.target
    (_
      name: (identifier) @_kw
      value: (_) @mount.prefix))
  (#eq? @_m "include_router")
  (#eq? @_kw "prefix")) @mount
