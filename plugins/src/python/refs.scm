; References: call sites, decorators, names passed as values, names used in annotations.
(call) @ref.call

; A decorator is one Decorator ref; its own call is not a separate Call.
(decorator) @ref.decorator
(decorator (call) @ref.decorator_call)

; Function-as-value: `map(f, xs)`, `register(key=handler)` (read from each call's arguments in Rust: a pattern
; reaching from `call` into its arguments keeps a match state alive per enclosing call, quadratic on deeply
; nested calls), `callback = on_done`, `metaclass=M`, parameter defaults `_w=WHITESPACE.match`.
(class_definition
  superclasses: (argument_list (keyword_argument value: [(identifier) (attribute)] @ref.value)))
(assignment right: [(identifier) (attribute)] @ref.value)
(default_parameter value: [(identifier) (attribute)] @ref.value)
(typed_default_parameter value: [(identifier) (attribute)] @ref.value)

; Annotations: parameters, returns, variables, type aliases.
(typed_parameter type: (type) @ref.type)
(typed_default_parameter type: (type) @ref.type)
(function_definition return_type: (type) @ref.type)
(assignment type: (type) @ref.type)
(type_alias_statement right: (type) @ref.type)
