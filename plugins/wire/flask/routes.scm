; @app.route("/x", methods=["POST"]) / @bp.get("/x") on a function.
(decorated_definition
  (decorator
    (_
      function: (_
        object: (_) @route.router
        attribute: (identifier) @_verb)
      arguments: (_ . (_) @route.path)))
  definition: (function_definition) @route.handler
  (#eq? @_verb "route")) @route

(decorated_definition
  (decorator
    (_
      function: (_
        object: (_) @route.router
        attribute: (identifier) @_verb)
      arguments: (_
        . (_) @route.path
        (_
          name: (identifier) @_kw
          value: (_) @route.method))))
  definition: (function_definition) @route.handler
  (#eq? @_verb "route")
  (#eq? @_kw "methods")) @route

(decorated_definition
  (decorator
    (_
      function: (_
        object: (_) @route.router
        attribute: (identifier) @route.method)
      arguments: (_ . (_) @route.path)))
  definition: (function_definition) @route.handler
  (#any-of? @route.method "get" "post" "put" "delete" "patch")) @route

; app = Flask(__name__), bp = Blueprint("users", __name__, url_prefix="/users").
(assignment
  left: (identifier) @router.name
  right: (_
    function: [(identifier) (attribute)] @_ctor)
  (#match? @_ctor "(^|[.])(Flask|Blueprint)$")) @router

(assignment
  left: (identifier) @router.name
  right: (_
    function: [(identifier) (attribute)] @_ctor
    arguments: (_
      (_
        name: (identifier) @_kw
        value: (_) @router.prefix)))
  (#match? @_ctor "(^|[.])Blueprint$")
  (#eq? @_kw "url_prefix")) @router

; app.register_blueprint(bp, url_prefix="/api").
(call
  function: (_
    object: (_) @mount.router
    attribute: (identifier) @_m)
  arguments: (_ . (_) @mount.target)
  (#eq? @_m "register_blueprint")) @mount

(call
  function: (_
    object: (_) @mount.router
    attribute: (identifier) @_m)
  arguments: (_
    . (_) @mount.target
    (_
      name: (identifier) @_kw
      value: (_) @mount.prefix))
  (#eq? @_m "register_blueprint")
  (#eq? @_kw "url_prefix")) @mount
