; @app.get("/items/{id}") / @router.post(...) on a function.
(decorated_definition
  (decorator
    (call
      function: (attribute
        object: (_) @route.router
        attribute: (identifier) @route.method)
      arguments: (argument_list . (_) @route.path)))
  definition: (function_definition) @route.handler
  (#any-of? @route.method "get" "post" "put" "delete" "patch" "head" "options" "trace")) @route

; app = FastAPI(), router = APIRouter(prefix="/users").
(assignment
  left: (identifier) @router.name
  right: (call
    function: [(identifier) (attribute)] @_ctor
    arguments: (argument_list))
  (#match? @_ctor "(^|[.])(APIRouter|FastAPI)$")) @router

(assignment
  left: (identifier) @router.name
  right: (call
    function: [(identifier) (attribute)] @_ctor
    arguments: (argument_list
      (keyword_argument
        name: (identifier) @_kw
        value: (_) @router.prefix)))
  (#match? @_ctor "(^|[.])(APIRouter|FastAPI)$")
  (#any-of? @_kw "prefix" "root_path")) @router

; app.include_router(users.router, prefix="/users").
(call
  function: (attribute
    object: (_) @mount.router
    attribute: (identifier) @_m)
  arguments: (argument_list . (_) @mount.target)
  (#eq? @_m "include_router")) @mount

(call
  function: (attribute
    object: (_) @mount.router
    attribute: (identifier) @_m)
  arguments: (argument_list
    . (_) @mount.target
    (keyword_argument
      name: (identifier) @_kw
      value: (_) @mount.prefix))
  (#eq? @_m "include_router")
  (#eq? @_kw "prefix")) @mount
