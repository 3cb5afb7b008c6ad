"""drsg-mcp driven over stdio by the official MCP Python SDK (PyPI `mcp`).

usage: stdio_session.py DRSG_MCP DB TREE

Runs a full-tool session and a compact one against the plane of TREE in DB; prints one JSON line
with the sizes of both `tools/list` answers. Any failed check raises (non-zero exit)."""

import asyncio
import json
import sys

from mcp import ClientSession, StdioServerParameters, stdio_client


def text_of(result):
    return "".join(block.text for block in result.content if getattr(block, "type", "") == "text")


async def full(command, db, tree):
    params = StdioServerParameters(command=command, args=["--db", db], cwd=tree)
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as s:
            init = await s.initialize()
            assert init.server_info.name == "drsg", init.server_info
            assert "context" in (init.instructions or ""), init.instructions
            tools = await s.list_tools()
            names = {t.name for t in tools.tools}
            for verb in ["context", "impact", "trace", "grep", "recall", "search", "snippet"]:
                assert verb in names, names
            for t in tools.tools:
                writes = t.name == "rebuild"
                assert t.annotations is not None and t.annotations.read_only_hint is (not writes), t
                assert t.annotations.destructive_hint is (False if writes else None), t
            guide = (await s.read_resource("drsg://guide")).contents[0].text
            assert "`impact(name, depth?, across?, limit?, offset?, unresolved?)`" in guide, guide
            templates = await s.list_resource_templates()
            assert [t.uri_template for t in templates.resource_templates] == ["drsg://planes/{plane}/schema"]
            size = len(json.dumps(tools.model_dump(by_alias=True, mode="json", exclude_none=True), separators=(",", ":")))

            context = await s.call_tool("context", {"name": "util.helper"})
            assert not context.is_error, text_of(context)
            body = text_of(context)
            assert "pkg.util.helper" in body and "pkg.app.main" in body, body

            impact = await s.call_tool("impact", {"name": "helper"})
            assert not impact.is_error, text_of(impact)
            assert "pkg.app.main" in text_of(impact), text_of(impact)

            grep = await s.call_tool("grep", {"pattern": "return 41"})
            assert not grep.is_error, text_of(grep)
            assert "pkg/util.py" in text_of(grep), text_of(grep)

            recall = await s.call_tool("recall", {"at": "HEAD~1", "path": "pkg/util.py"})
            assert not recall.is_error, text_of(recall)
            assert "return 40" in text_of(recall), text_of(recall)

            deployed = await s.call_tool("deployed", {"name": "app"})
            assert not deployed.is_error, text_of(deployed)
            assert "ghcr.io/acme/pkg:latest → floating" in text_of(deployed), text_of(deployed)

            as_json = await s.call_tool("describe", {"name": "helper", "format": "json"})
            assert not as_json.is_error, text_of(as_json)
            assert json.loads(text_of(as_json)), text_of(as_json)

            # A miss is an answer; bad arguments are tool errors with a sentence to act on.
            miss = await s.call_tool("context", {"name": "no_such_symbol_anywhere"})
            assert not miss.is_error, text_of(miss)
            missing = await s.call_tool("context", {})
            assert missing.is_error and "needs `name`" in text_of(missing), text_of(missing)
            unknown = await s.call_tool("context", {"name": "helper", "nme": 1})
            assert unknown.is_error and "no argument `nme`" in text_of(unknown), text_of(unknown)
            bad_tool = await s.call_tool("no_such_verb", {})
            assert bad_tool.is_error and "unknown verb" in text_of(bad_tool), text_of(bad_tool)
            return size


async def compact(command, db, tree):
    params = StdioServerParameters(command=command, args=["--db", db, "--tools", "compact"], cwd=tree)
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as s:
            await s.initialize()
            tools = await s.list_tools()
            assert [t.name for t in tools.tools] == ["drsg"], tools
            size = len(json.dumps(tools.model_dump(by_alias=True, mode="json", exclude_none=True), separators=(",", ":")))
            answer = await s.call_tool("drsg", {"verb": "context", "args": {"name": "helper"}})
            assert not answer.is_error and "pkg.app.main" in text_of(answer), text_of(answer)
            helped = await s.call_tool("drsg", {"help": "grep"})
            assert not helped.is_error and "ignore_case" in text_of(helped), text_of(helped)
            write = await s.call_tool("drsg", {"verb": "rebuild"})
            assert write.is_error and "only reads" in text_of(write), text_of(write)
            wrong = await s.call_tool("drsg", {"args": {}})
            assert wrong.is_error and "pass `verb`" in text_of(wrong), text_of(wrong)
            return size


async def main():
    command, db, tree = sys.argv[1:4]
    full_size = await full(command, db, tree)
    compact_size = await compact(command, db, tree)
    print(json.dumps({"tools_list_bytes": full_size, "compact_tools_list_bytes": compact_size}))


asyncio.run(main())
