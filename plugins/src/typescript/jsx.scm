; JSX (TSX and JavaScript only): component uses and attribute values.

(jsx_opening_element name: (_) @jsx.name) @jsx
(jsx_self_closing_element name: (_) @jsx.name) @jsx
(jsx_attribute (jsx_expression) @value.jsx)
