; axios.get(url), api.post(url, body) on an axios or ky instance, superagent.get(url), requests.del(url)
; on an object of request helpers, this.http.get(url) on a client the class holds (see clients.scm); the
; indexer keeps those on a client it knows. The object is matched by its text: a pattern with a node
; inside it would cost its compilation a few milliseconds more.
(call_expression
  function: (_
    object: (_) @request.client
    property: (property_identifier) @request.method)
  arguments: (_ . (_) @request.url)
  (#match? @request.client "^(this\\.)?[A-Za-z_$][A-Za-z0-9_$]*$")
  (#any-of? @request.method "get" "post" "put" "delete" "del" "patch" "head" "options")) @request

; openapi-fetch's client.GET('/users/{id}').
(call_expression
  function: (_
    object: (identifier) @request.client
    property: (property_identifier) @request.method)
  arguments: (_ . (_) @request.url)
  (#any-of? @request.method "GET" "POST" "PUT" "DELETE" "PATCH")) @request

