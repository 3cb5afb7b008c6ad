; Typed bindings: variables, typed parameters, class properties.

; Every declarator: a plain name is a binding, and a `require` call on the right an import (read in code).
(variable_declarator) @bind.variable
(required_parameter pattern: (identifier) @bind.name type: (type_annotation) @bind.type) @bind.parameter
(optional_parameter pattern: (identifier) @bind.name type: (type_annotation) @bind.type) @bind.parameter
(class_body (public_field_definition name: (_) @bind.name) @bind.field)
