; requests.get(url), httpx.post(url), client.get(url) on an httpx client.
(_
  function: (_
    object: (identifier) @request.client
    attribute: (identifier) @request.method)
  arguments: (_ . (_) @request.url)
  (#any-of? @request.method "get" "post" "put" "delete" "patch" "head" "options")) @request

; client = httpx.Client(base_url="…") / httpx.AsyncClient(base_url=…).
(assignment
  left: (identifier) @client.name
  right: (_
    function: (_
      object: (identifier) @_h
      attribute: (identifier) @_c)
    arguments: (_
      (_
        name: (identifier) @_kw
        value: (_) @client.base)))
  (#eq? @_h "httpx")
  (#any-of? @_c "Client" "AsyncClient")
  (#eq? @_kw "base_url")) @client
