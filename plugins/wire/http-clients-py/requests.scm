; requests.get(url), httpx.post(url), client.get(url) on an httpx client.
(call
  function: (attribute
    object: (identifier) @request.client
    attribute: (identifier) @request.method)
  arguments: (argument_list . (_) @request.url)
  (#any-of? @request.method "get" "post" "put" "delete" "patch" "head" "options")) @request

; client = httpx.Client(base_url="…") / httpx.AsyncClient(base_url=…).
(assignment
  left: (identifier) @client.name
  right: (call
    function: (attribute
      object: (identifier) @_h
      attribute: (identifier) @_c)
    arguments: (argument_list
      (keyword_argument
        name: (identifier) @_kw
        value: (_) @client.base)))
  (#eq? @_h "httpx")
  (#any-of? @_c "Client" "AsyncClient")
  (#eq? @_kw "base_url")) @client
