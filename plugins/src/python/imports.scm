; `import a.b`, `import a.b as m`, `from .m import f`, `from . import x as y`, `from a import *`: the names,
; module and star are read off the statement in code (`Captures::imports` in mod.rs); patterns reaching
; into them started the query cursor at every import. `__future__` imports are a separate node and skipped.
(import_statement) @import.statement
(import_from_statement) @import.from
