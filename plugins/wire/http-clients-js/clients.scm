; axios.defaults.baseURL = '…': the base of every `axios` call.
(assignment_expression
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

; Angular's HttpClient held by a class: constructor(private http: HttpClient), http: HttpClient,
; http = inject(HttpClient); and an axios or ky instance in a field. The class reads it as this.http.
(required_parameter
  pattern: (identifier) @client.name
  type: (_ (type_identifier) @_t)
  (#eq? @_t "HttpClient")) @client

(public_field_definition
  name: (property_identifier) @client.name
  type: (_ (type_identifier) @_t)
  (#eq? @_t "HttpClient")) @client

(public_field_definition
  name: (property_identifier) @client.name
  value: (_
    function: (identifier) @_i
    arguments: (_ . (identifier) @_t))
  (#eq? @_i "inject")
  (#eq? @_t "HttpClient")) @client

(public_field_definition
  name: (property_identifier) @client.name
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
