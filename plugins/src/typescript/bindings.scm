; Typed bindings: variables, typed parameters, class properties.

; Every declarator: a plain name is a binding, and a `require` call on the right an import (read in code).
(variable_declarator) @bind.variable
; Every parameter: those with a plain name and a type annotation are bindings (read in code).
[(required_parameter) (optional_parameter)] @bind.parameter
; Every class property: those in a class body with a name are bindings (read in code).
(public_field_definition) @bind.field
