; app.use('/api', createProxyMiddleware({ target, pathRewrite: { '^/api': '' } })) (http-proxy-middleware,
; a Create React App's src/setupProxy.js).
(pair
  key: (_) @_k
  value: (object
    (pair
      key: (string) @rewrite.from
      value: (string) @rewrite.to) @rewrite)
  (#match? @_k "^['\"]?pathRewrite['\"]?$"))

; server: { proxy: { '/api': { target, rewrite: (path) => path.replace(/^\/api/, '') } } } (Vite).
(pair
  key: (_) @_k
  value: (arrow_function
    body: (_
      function: (_ property: (property_identifier) @_r)
      arguments: (_ . [(regex) (string)] @rewrite.from . (string) @rewrite.to)))
  (#match? @_k "^['\"]?rewrite['\"]?$")
  (#eq? @_r "replace")) @rewrite
