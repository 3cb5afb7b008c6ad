; requests.get(url), httpx.post(url), client.get(url) on an httpx client.
(call
  function: (_
    object: (identifier) @request.client
    attribute: (identifier) @request.method)
  arguments: (_ . (_) @request.url)
  (#any-of? @request.method "get" "post" "put" "delete" "patch" "head" "options")) @request
