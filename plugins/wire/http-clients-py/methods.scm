; requests.get(url), httpx.post(url), client.get(url) on an httpx client.
(call
  function: (_
    object: (identifier) @request.client
    attribute: (identifier) @request.method)
  arguments: (_ . (_) @request.url)
  (#any-of? @request.method "get" "post" "put" "delete" "patch" "head" "options")) @request

; self.client.get(url) on a client the class holds (see clients.scm).
(call
  function: (_
    object: (attribute
      object: (identifier) @_s
      attribute: (identifier)) @request.client
    attribute: (identifier) @request.method)
  arguments: (_ . (_) @request.url)
  (#eq? @_s "self")
  (#any-of? @request.method "get" "post" "put" "delete" "patch" "head" "options")) @request
