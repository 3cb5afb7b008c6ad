; Typed bindings: `c = Client()`, `c: Client = …`, `self.c = make()`, typed parameters. Rust reads the
; rest of these nodes too: values on the right, annotations, the inner assignments of chains.
(assignment) @binding.assign
(typed_parameter) @binding.param
(typed_default_parameter) @binding.param
