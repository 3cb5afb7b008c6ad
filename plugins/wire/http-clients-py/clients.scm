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

; self.client = httpx.Client(base_url="…") in a class: the class's methods read it as self.client.
(assignment
  left: (attribute
    object: (identifier) @_s
    attribute: (identifier)) @client.name
  right: (_
    function: (_
      object: (identifier) @_h
      attribute: (identifier) @_c)
    arguments: (_
      (_
        name: (identifier) @_kw
        value: (_) @client.base)))
  (#eq? @_s "self")
  (#eq? @_h "httpx")
  (#any-of? @_c "Client" "AsyncClient")
  (#eq? @_kw "base_url")) @client

; client = httpx.Client(), self.session = requests.Session(): a client with no base URL.
(assignment
  left: [(identifier) (attribute object: (identifier) attribute: (identifier))] @client.name
  right: (call
    function: (_
      object: (identifier) @_h
      attribute: (identifier) @_c))
  (#any-of? @_h "httpx" "requests")
  (#any-of? @_c "Client" "AsyncClient" "Session")) @client
