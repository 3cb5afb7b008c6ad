; app/**/route.ts: export async function GET(request) { … }, export const POST = async () => …
(export_statement
  declaration: (function_declaration
    name: (identifier) @route.method) @route.handler
  (#any-of? @route.method "GET" "POST" "PUT" "DELETE" "PATCH" "HEAD" "OPTIONS")) @route

(export_statement
  declaration: (lexical_declaration
    (variable_declarator
      name: (identifier) @route.method
      value: [(arrow_function) (function_expression)] @route.handler))
  (#any-of? @route.method "GET" "POST" "PUT" "DELETE" "PATCH" "HEAD" "OPTIONS")) @route

; pages/api/**: export default function handler(req, res) { … }, export default handler.
(export_statement
  "default"
  declaration: (function_declaration) @route.handler) @route

(export_statement
  "default"
  value: [(identifier) (arrow_function) (function_expression)] @route.handler) @route
