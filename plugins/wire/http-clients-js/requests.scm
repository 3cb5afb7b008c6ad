; fetch(url) and fetch(url, { method: 'POST' }).
(call_expression
  function: (identifier) @request.client
  arguments: (arguments . (_) @request.url)
  (#eq? @request.client "fetch")) @request

(call_expression
  function: (identifier) @request.client
  arguments: (arguments
    . (_) @request.url
    (object
      (pair
        key: (property_identifier) @_k
        value: (_) @request.method)))
  (#eq? @request.client "fetch")
  (#eq? @_k "method")) @request

; axios.get(url), api.post(url, body) on an axios instance.
(call_expression
  function: (member_expression
    object: (identifier) @request.client
    property: (property_identifier) @request.method)
  arguments: (arguments . (_) @request.url)
  (#any-of? @request.method "get" "post" "put" "delete" "patch" "head" "options")) @request

; const api = axios.create({ baseURL: '…' }).
(variable_declarator
  name: (identifier) @client.name
  value: (call_expression
    function: (member_expression
      object: (identifier) @_a
      property: (property_identifier) @_c)
    arguments: (arguments
      (object
        (pair
          key: (property_identifier) @_k
          value: (_) @client.base))))
  (#eq? @_a "axios")
  (#eq? @_c "create")
  (#eq? @_k "baseURL")) @client
