; Typed bindings: variables, typed parameters, class properties.

(variable_declarator name: (identifier) @bind.name) @bind.variable
(required_parameter pattern: (identifier) @bind.name type: (type_annotation) @bind.type) @bind.parameter
(optional_parameter pattern: (identifier) @bind.name type: (type_annotation) @bind.type) @bind.parameter
(class_body (public_field_definition name: (_) @bind.name) @bind.field)
