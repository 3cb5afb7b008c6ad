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
