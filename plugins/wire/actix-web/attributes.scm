; #[get("/users/{id}")] async fn show(…), up to two other attributes between.
((attribute_item
  (attribute
    (identifier) @route.method
    arguments: (token_tree . (string_literal) @route.path))) @route
  .
  (attribute_item)?
  .
  (attribute_item)?
  .
  (function_item) @route.handler
  (#any-of? @route.method "get" "post" "put" "delete" "patch" "head" "options"))
