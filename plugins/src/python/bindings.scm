; Typed bindings: `c = Client()`, `c: Client = …`, `self.c = make()`, typed parameters.
(assignment left: [(identifier) (attribute)]) @binding.assign
(typed_parameter (identifier) type: (type)) @binding.param
(typed_default_parameter name: (identifier) type: (type)) @binding.param
