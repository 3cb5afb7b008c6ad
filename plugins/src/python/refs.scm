; References: call sites, decorators, names passed as values, names used in annotations.
(call) @ref.call

; A decorator is one Decorator ref; its own call (a call among its children, read in Rust) is not a
; separate Call.
(decorator) @ref.decorator

; Function-as-value: `map(f, xs)`, `register(key=handler)`, `callback = on_done`, `metaclass=M`, parameter
; defaults `_w=WHITESPACE.match`; annotations of parameters, returns, variables and type aliases. All are read
; in Rust from the fields of a node captured once (calls, assignments, classes, parameters, functions, aliases):
; a pattern reaching from a node into its children keeps a match state alive across the node's subtree, and
; each extra pattern on a common node costs a state per occurrence.
(default_parameter) @ref.default
