; Bindings: `c = Client()`, `c: Client = …`, `self.c = make()`, typed parameters. Rust reads the rest of these
; nodes too: values on the right, annotations, the inner assignments of chains.
(assignment) @binding.assign
(typed_parameter) @binding.param
(typed_default_parameter) @binding.param
; Names a function binds without a type: the other parameters (of `def` and `lambda`), loop and
; comprehension variables, `with … as x`, `except E as e`, `(x := …)`. Each shadows the name's outer meaning
; in the function. Their targets are read in code.
(parameters) @binding.params
(lambda_parameters) @binding.params
(for_statement) @binding.for
(for_in_clause) @binding.for
(as_pattern) @binding.as
(except_clause) @binding.as
(named_expression) @binding.walrus
