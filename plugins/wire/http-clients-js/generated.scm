; A generated client's call: __request(OpenAPI, { method: 'GET', url: '/users/{id}' }) and
; this.httpRequest.request({ method, url }), proven by its callee's name and its options' shape.
(call_expression
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

(call_expression
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
