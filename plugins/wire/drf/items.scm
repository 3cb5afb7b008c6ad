; router.register(r"users", views.UserViewSet): one item of the collection (the manifest's suffix).
(call
  function: (attribute
    object: (identifier) @route.router
    attribute: (identifier) @_r)
  arguments: (argument_list
    . (string) @route.path
    . [(identifier) (attribute)] @route.handler)
  (#eq? @_r "register")) @route
