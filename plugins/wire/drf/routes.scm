; router = routers.DefaultRouter(), SimpleRouter().
(assignment
  left: (identifier) @router.name
  right: (call
    function: [(identifier) (attribute)] @_ctor)
  (#match? @_ctor "(^|[.])(DefaultRouter|SimpleRouter)$")) @router

; router.register(r"users", views.UserViewSet): the collection.
(call
  function: (attribute
    object: (identifier) @route.router
    attribute: (identifier) @_r)
  arguments: (argument_list
    . (string) @route.path
    . [(identifier) (attribute)] @route.handler)
  (#eq? @_r "register")) @route

; path("api/", include(router.urls)).
(call
  function: (identifier) @_p
  arguments: (argument_list
    . (string) @mount.prefix
    . (call
      function: (identifier) @_i
      arguments: (argument_list
        . (attribute
          object: (identifier) @mount.target
          attribute: (identifier) @_u))))
  (#any-of? @_p "path" "re_path" "url")
  (#eq? @_i "include")
  (#eq? @_u "urls")) @mount
