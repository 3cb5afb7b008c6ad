; `import a.b`, `import a.b as m` (one match per name; `__future__` imports are a separate node and skipped).
(import_statement name: [(dotted_name) (aliased_import)] @import.module)

; `from .m import f`, `from . import x as y`, `from a import *`.
(import_from_statement
  module_name: [(dotted_name) (relative_import)] @import.source
  name: [(dotted_name) (aliased_import)] @import.name)
(import_from_statement
  module_name: [(dotted_name) (relative_import)] @import.source
  (wildcard_import) @import.glob)
