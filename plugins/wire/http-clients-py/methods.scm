; requests.get(url), httpx.post(url), client.get(url) on an httpx client, self.client.get(url) on a client
; the class holds (see clients.scm). The object is matched by its text, not by a pattern with a node in it.
(call
  function: (_
    object: (_) @request.client
    attribute: (identifier) @request.method)
  arguments: (_ . (_) @request.url)
  (#match? @request.client "^(self\\.)?[A-Za-z_][A-Za-z0-9_]*$")
  (#any-of? @request.method "get" "post" "put" "delete" "patch" "head" "options")) @request

