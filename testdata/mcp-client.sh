#!/usr/bin/env bash
# Installs the official MCP Python SDK (PyPI `mcp`) into .venv-mcp at the workspace root, for the
# end-to-end tests that drive drsg-mcp and drsg serve with a real client. Quick when already there.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! .venv-mcp/bin/python -c 'import mcp' 2>/dev/null; then
  python3 -m venv .venv-mcp
  .venv-mcp/bin/pip install -q 'mcp>=2.3,<3'
fi
