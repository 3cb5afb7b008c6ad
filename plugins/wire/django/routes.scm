; urlpatterns = [ … ]: the module's router, which include("app.urls") mounts.
(expression_statement
  (assignment
    left: (identifier) @_u
    right: (list) @router.scope)
  (#eq? @_u "urlpatterns")) @router

; path("users/<int:id>/", views.user), re_path(r"^users/$", views.users), url(…).
(call
  function: (identifier) @_p
  arguments: (_
    . (string) @route.path
    . [(identifier) (attribute)] @route.handler)
  (#any-of? @_p "path" "re_path" "url")) @route

; path("users/", views.UserList.as_view()).
(call
  function: (identifier) @_p
  arguments: (_
    . (string) @route.path
    . (_
      function: (_
        object: (_) @route.handler
        attribute: (identifier) @_a)))
  (#any-of? @_p "path" "re_path" "url")
  (#eq? @_a "as_view")) @route

; path("api/", include("app.urls")).
(call
  function: (identifier) @_p
  arguments: (_
    . (string) @mount.prefix
    . (_
      function: (identifier) @_i
      arguments: (_ . (string) @mount.target)))
  (#any-of? @_p "path" "re_path" "url")
  (#eq? @_i "include")) @mount
