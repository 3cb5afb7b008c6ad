; References: calls, instantiations, decorators, values passed as arguments, types in annotations.

(call_expression function: (_) @call.callee) @call
(new_expression constructor: (_) @new.callee) @new
(decorator) @decorator

; Values: names among the arguments (picked in code) and on the right of an assignment.
(arguments) @value.arguments
(assignment_expression left: (_) @value.target right: (_) @value.assigned) @value.assignment

(type_identifier) @type
(nested_type_identifier) @type
(nested_type_identifier name: (type_identifier) @type.inner)
(type_parameter name: (type_identifier) @type.param)

; Annotations (parameters, returns, properties, variables) whose type names are references.
(type_annotation) @annotation
(asserts_annotation) @annotation
(type_predicate_annotation) @annotation
(function_type) @annotation
