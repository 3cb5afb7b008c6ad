; axios.get(url), api.post(url, body) on an axios or ky instance, superagent.get(url), requests.del(url)
; on an object of request helpers (the indexer keeps those on a client it knows).
(call_expression
  function: (_
    object: (identifier) @request.client
    property: (property_identifier) @request.method)
  arguments: (_ . (_) @request.url)
  (#any-of? @request.method "get" "post" "put" "delete" "del" "patch" "head" "options")) @request

; openapi-fetch's client.GET('/users/{id}').
(call_expression
  function: (_
    object: (identifier) @request.client
    property: (property_identifier) @request.method)
  arguments: (_ . (_) @request.url)
  (#any-of? @request.method "GET" "POST" "PUT" "DELETE" "PATCH")) @request

; this.http.get(url) on a client the class holds (see clients.scm).
(call_expression
  function: (_
    object: (_
      object: (this)
      property: (property_identifier)) @request.client
    property: (property_identifier) @request.method)
  arguments: (_ . (_) @request.url)
  (#any-of? @request.method "get" "post" "put" "delete" "patch" "head" "options")) @request
