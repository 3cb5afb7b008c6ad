; fetch(url), ky(url) and fetch(url, { method: 'POST' }).
(_
  function: (identifier) @request.client
  arguments: (_ . (_) @request.url)
  (#any-of? @request.client "fetch" "ky")) @request

(_
  function: (identifier) @request.client
  arguments: (_
    . (_) @request.url
    (_
      (_
        key: (property_identifier) @_k
        value: (_) @request.method)))
  (#any-of? @request.client "fetch" "ky")
  (#eq? @_k "method")) @request

; axios.get(url), api.post(url, body) on an axios or ky instance, superagent.get(url), requests.del(url)
; on an object of request helpers (the indexer keeps those on a client it knows).
(_
  function: (_
    object: (identifier) @request.client
    property: (property_identifier) @request.method)
  arguments: (_ . (_) @request.url)
  (#any-of? @request.method "get" "post" "put" "delete" "del" "patch" "head" "options")) @request

; openapi-fetch's client.GET('/users/{id}').
(_
  function: (_
    object: (identifier) @request.client
    property: (property_identifier) @request.method)
  arguments: (_ . (_) @request.url)
  (#any-of? @request.method "GET" "POST" "PUT" "DELETE" "PATCH")) @request

; A generated client's call: __request(OpenAPI, { method: 'GET', url: '/users/{id}' }) and
; this.httpRequest.request({ method, url }), proven by its callee's name and its options' shape.
(_
  function: [(identifier) (member_expression)] @_f
  arguments: (_
    (_
      (_
        key: (property_identifier) @_m
        value: (string) @request.method)
      (_
        key: (property_identifier) @_u
        value: [(string) (template_string)] @request.url)))
  (#match? @_f "(^|[.])_*request$")
  (#eq? @_m "method")
  (#eq? @_u "url")) @request

(_
  function: [(identifier) (member_expression)] @_f
  arguments: (_
    (_
      (_
        key: (property_identifier) @_u
        value: [(string) (template_string)] @request.url)
      (_
        key: (property_identifier) @_m
        value: (string) @request.method)))
  (#match? @_f "(^|[.])_*request$")
  (#eq? @_m "method")
  (#eq? @_u "url")) @request

; axios.defaults.baseURL = '…': the base of every `axios` call.
(_
  left: (_
    object: (_
      object: (identifier) @client.name
      property: (property_identifier) @_d)
    property: (property_identifier) @_b)
  right: (_) @client.base
  (#eq? @client.name "axios")
  (#eq? @_d "defaults")
  (#eq? @_b "baseURL")) @client

; const client = createClient({ baseUrl: '…' }) (openapi-fetch).
(variable_declarator
  name: (identifier) @client.name
  value: (_
    function: (identifier) @_c
    arguments: (_
      (_
        (_
          key: (property_identifier) @_k
          value: (_) @client.base))))
  (#eq? @_c "createClient")
  (#eq? @_k "baseUrl")) @client

; const api = axios.create({ baseURL: '…' }), ky.create({ prefixUrl: '…' }), ky.extend(…).
(variable_declarator
  name: (identifier) @client.name
  value: (_
    function: (_
      object: (identifier) @_a
      property: (property_identifier) @_c)
    arguments: (_
      (_
        (_
          key: (property_identifier) @_k
          value: (_) @client.base))))
  (#any-of? @_a "axios" "ky")
  (#any-of? @_c "create" "extend")
  (#any-of? @_k "baseURL" "prefixUrl")) @client
