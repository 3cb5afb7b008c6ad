; @app.route("/x", methods=["POST"]) / @bp.get("/x") on a function.
(decorated_definition
  (decorator
    (call
      function: (attribute
        object: (_) @route.router
        attribute: (identifier) @_verb)
      arguments: (argument_list . (_) @route.path)))
  definition: (function_definition) @route.handler
  (#eq? @_verb "route")) @route

(decorated_definition
  (decorator
    (call
      function: (attribute
        object: (_) @route.router
        attribute: (identifier) @_verb)
      arguments: (argument_list
        . (_) @route.path
        (keyword_argument
          name: (identifier) @_kw
          value: (_) @route.method))))
  definition: (function_definition) @route.handler
  (#eq? @_verb "route")
  (#eq? @_kw "methods")) @route

(decorated_definition
  (decorator
    (call
      function: (attribute
        object: (_) @route.router
        attribute: (identifier) @route.method)
      arguments: (argument_list . (_) @route.path)))
  definition: (function_definition) @route.handler
  (#any-of? @route.method "get" "post" "put" "delete" "patch")) @route

; app = Flask(__name__), bp = Blueprint("users", __name__, url_prefix="/users").
(assignment
  left: (identifier) @router.name
  right: (call
    function: [(identifier) (attribute)] @_ctor)
  (#match? @_ctor "(^|[.])(Flask|Blueprint)$")) @router

(assignment
  left: (identifier) @router.name
  right: (call
    function: [(identifier) (attribute)] @_ctor
    arguments: (argument_list
      (keyword_argument
        name: (identifier) @_kw
        value: (_) @router.prefix)))
  (#match? @_ctor "(^|[.])Blueprint$")
  (#eq? @_kw "url_prefix")) @router

; app.register_blueprint(bp, url_prefix="/api").
(call
  function: (attribute
    object: (_) @mount.router
    attribute: (identifier) @_m)
  arguments: (argument_list . (_) @mount.target)
  (#eq? @_m "register_blueprint")) @mount

(call
  function: (attribute
    object: (_) @mount.router
    attribute: (identifier) @_m)
  arguments: (argument_list
    . (_) @mount.target
    (keyword_argument
      name: (identifier) @_kw
      value: (_) @mount.prefix))
  (#eq? @_m "register_blueprint")
  (#eq? @_kw "url_prefix")) @mount
