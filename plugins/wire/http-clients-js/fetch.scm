; fetch(url), ky(url) and fetch(url, { method: 'POST' }).
(call_expression
  function: (identifier) @request.client
  arguments: (_ . (_) @request.url)
  (#any-of? @request.client "fetch" "ky")) @request

(call_expression
  function: (identifier) @request.client
  arguments: (_
    . (_) @request.url
    (_
      (_
        key: (property_identifier) @_k
        value: (_) @request.method)))
  (#any-of? @request.client "fetch" "ky")
  (#eq? @_k "method")) @request
