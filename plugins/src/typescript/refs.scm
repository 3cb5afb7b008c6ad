; References: calls, instantiations, decorators, values passed as arguments, types in annotations.
; Calls, instantiations and assignments are captured whole and their fields read in code: the walk matches a
; one-node pattern without starting the query cursor (see plugins::rooted), and these are the commonest nodes.

(call_expression) @call
(new_expression) @new
(decorator) @decorator

; Values: names among the arguments (picked in code) and on the right of an assignment.
(arguments) @value.arguments
(assignment_expression) @value.assignment

; A nested type's own name and a type parameter's name are read in code.
(type_identifier) @type
(nested_type_identifier) @type
(type_parameter) @type.param

; Annotations (parameters, returns, properties, variables) whose type names are references.
(type_annotation) @annotation
(asserts_annotation) @annotation
(type_predicate_annotation) @annotation
(function_type) @annotation
