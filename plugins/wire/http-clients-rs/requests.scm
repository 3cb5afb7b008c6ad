; reqwest::get(url).
(call_expression
  function: (scoped_identifier
    path: (identifier) @request.client
    name: (identifier) @request.method)
  arguments: (_ . (_) @request.url)
  (#eq? @request.client "reqwest")
  (#eq? @request.method "get")) @request

; client.get(url), client.post(format!("{}/users", base)) on a reqwest client.
(call_expression
  function: (_
    value: (identifier) @request.client
    field: (field_identifier) @request.method)
  arguments: (_ . (_) @request.url)
  (#any-of? @request.method "get" "post" "put" "delete" "patch" "head")) @request

; let client = reqwest::Client::new(), Client::builder()….build().
(let_declaration
  pattern: (identifier) @client.name
  value: (_) @_v
  (#match? @_v "^(reqwest::)?Client::(new|builder)")) @client
