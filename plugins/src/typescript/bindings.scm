; Bindings: variables, parameters, class properties; typed where an annotation, `new` or a call says.

; Every declarator: its names are bindings, and a `require` call on the right an import (read in code).
(variable_declarator) @bind.variable
; Every parameter: its names are bindings, a plain name typed by its annotation (read in code).
[(required_parameter) (optional_parameter)] @bind.parameter
; Every class property: those in a class body with a name are bindings (read in code).
(public_field_definition) @bind.field
; Names bound untyped: an arrow function's lone parameter, `for (const x of …)`, `catch (e)` (read in code).
(arrow_function) @bind.target
(for_in_statement) @bind.target
(catch_clause) @bind.target
