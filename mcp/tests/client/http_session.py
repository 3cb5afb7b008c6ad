"""`drsg init`, `drsg serve` over HTTP and the `drsg-mcp` relay, driven by the official MCP Python
SDK (PyPI `mcp`) and by plain HTTP requests for what an SDK never sends.

usage: http_session.py DRSG DRSG_MCP TREE

TREE is a git checkout holding pkg/util.py (helper) and pkg/app.py (main calls helper), with a
previous commit where helper returned 40. The server is started with DRSG_SESSION_IDLE_SECS=3 so
reaping can be seen. Any failed check raises (non-zero exit); the last line is a JSON summary."""

import asyncio
import http.client
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time

import httpx2
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.client import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.types import Implementation

DRSG, DRSG_MCP, TREE = sys.argv[1:4]
IDLE = 3
ENV = {k: v for k, v in os.environ.items() if k not in ("DRSG_DB", "DRSG_TOKEN")}
ENV["DRSG_SESSION_IDLE_SECS"] = str(IDLE)


def text_of(result):
    return "".join(block.text for block in result.content if getattr(block, "type", "") == "text")


def run(*args, check=True):
    out = subprocess.run(list(args), cwd=TREE, env=ENV, capture_output=True, text=True, timeout=300)
    if check:
        assert out.returncode == 0, f"{args}: {out.returncode}\n{out.stdout}\n{out.stderr}"
    return out


def declared():
    path = os.path.join(TREE, ".mcp.json")
    assert os.stat(path).st_mode & 0o077 == 0, "the .mcp.json holds the token: private to its user"
    server = json.load(open(path))["mcpServers"]["drsg"]
    assert server["type"] == "http" and server["url"].startswith("http://127.0.0.1:"), server
    assert server["url"].endswith("/mcp"), server
    auth = server["headers"]["Authorization"]
    assert auth.startswith("Bearer ") and len(auth) == len("Bearer ") + 64, "a 64-hex-digit token"
    return server["url"], auth


def raw(method, path, body=b"", headers=None, host=None):
    """One plain HTTP request; (status, headers, body). A server may answer before reading a
    large body and close: that still yields its status."""
    url, _ = declared()
    authority = url.removeprefix("http://").removesuffix("/mcp")
    conn = http.client.HTTPConnection(authority, timeout=30)
    conn.putrequest(method, path, skip_host=True)
    conn.putheader("Host", host or authority)
    for k, v in (headers or {}).items():
        conn.putheader(k, v)
    conn.putheader("Content-Length", str(len(body)))
    conn.endheaders()
    try:
        conn.send(body)
    except (BrokenPipeError, ConnectionResetError):
        pass
    response = conn.getresponse()
    data = response.read()
    conn.close()
    return response.status, dict(response.getheaders()), data


INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}},
}
JSON = {"Content-Type": "application/json"}
MCP_HEADERS = {**JSON, "Accept": "application/json, text/event-stream"}


async def http_session(check):
    url, auth = declared()
    async with httpx2.AsyncClient(headers={"Authorization": auth}, timeout=60) as client:
        async with streamable_http_client(url, http_client=client) as (read, write):
            info = Implementation(name="HTTP Test Client", version="1")
            async with ClientSession(read, write, client_info=info) as s:
                return await check(s)


async def first_session(s):
    init = await s.initialize()
    assert init.server_info.name == "drsg", init
    names = {t.name for t in (await s.list_tools()).tools}
    assert {"context", "impact", "grep", "recall", "rebuild"} <= names, names

    context = await s.call_tool("context", {"name": "util.helper"})
    assert not context.is_error and "pkg.app.main" in text_of(context), text_of(context)
    impact = await s.call_tool("impact", {"name": "helper"})
    assert not impact.is_error and "pkg.app.main" in text_of(impact), text_of(impact)
    grep = await s.call_tool("grep", {"pattern": "return 41"})
    assert not grep.is_error and "pkg/util.py" in text_of(grep), text_of(grep)
    recall = await s.call_tool("recall", {"at": "HEAD~1", "path": "pkg/util.py"})
    assert not recall.is_error and "return 40" in text_of(recall), text_of(recall)

    resources = await s.list_resources()
    assert [r.uri for r in resources.resources] == ["drsg://guide"], resources
    templates = await s.list_resource_templates()
    assert [t.uri_template for t in templates.resource_templates] == ["drsg://planes/{plane}/schema"], templates
    guide = (await s.read_resource("drsg://guide")).contents[0].text
    assert "`context(name, depth?, limit?, offset?, unresolved?)`" in guide and "`rebuild(" in guide, guide
    planes = json.loads(text_of(await s.call_tool("planes", {"format": "json"})))
    plane = next(p["name"] for p in planes["planes"] if p["kind"] == "code")
    schema = (await s.read_resource(f"drsg://planes/{plane}/schema")).contents[0].text
    assert "Function" in schema and "CALLS" in schema, schema

    # A commit made while the session is open is in a following answer (the server folds it).
    with open(os.path.join(TREE, "pkg", "extra.py"), "w") as f:
        f.write("from pkg.util import helper\n\n\ndef extra():\n    return helper() + 1\n")
    run("git", "add", "-A")
    run("git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "extra")
    started = time.monotonic()
    while True:
        answer = json.loads(text_of(await s.call_tool("context", {"name": "extra.extra", "format": "json"})))
        if answer.get("status") == "found":
            break
        assert time.monotonic() - started < 30, f"the commit never showed: {answer}"
        await asyncio.sleep(0.2)
    commit_seen_ms = round((time.monotonic() - started) * 1000)

    rebuilt = await s.call_tool("rebuild", {})
    assert not rebuilt.is_error and "rebuilt plane" in text_of(rebuilt), text_of(rebuilt)
    return commit_seen_ms


def http_refusals():
    _, auth = declared()
    body = json.dumps(INIT).encode()
    status, headers, _ = raw("POST", "/mcp", body, MCP_HEADERS)
    assert status == 401 and headers.get("www-authenticate", headers.get("WWW-Authenticate")) == "Bearer", status
    status, _, _ = raw("POST", "/rpc", b'{"jsonrpc":"2.0","id":1,"method":"planes"}', JSON)
    assert status == 401, status
    # What a web page could send to loopback: no JSON content type, or a foreign Origin.
    status, _, _ = raw("POST", "/rpc", b'{"jsonrpc":"2.0","id":1,"method":"planes"}', {"Authorization": auth})
    assert status == 415, status
    status, _, _ = raw("POST", "/shutdown", b"", {"Authorization": auth, "Content-Type": "text/plain"})
    assert status == 415, status
    status, _, _ = raw("POST", "/rpc", b"{}", {**JSON, "Authorization": auth, "Origin": "https://evil.example"})
    assert status == 403, status
    status, _, _ = raw("POST", "/mcp", body, {**MCP_HEADERS, "Authorization": "Bearer " + "0" * 64})
    assert status == 401, status
    status, _, _ = raw("POST", "/mcp", body, {**MCP_HEADERS, "Authorization": auth}, host="evil.example")
    assert status == 403, status
    status, _, _ = raw("POST", "/rpc", body, {**JSON, "Authorization": auth}, host="127.0.0.1.evil.example:80")
    assert status == 403, status
    listing = json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}).encode()
    status, _, _ = raw("POST", "/mcp", listing, {**MCP_HEADERS, "Authorization": auth, "Mcp-Session-Id": "no-such-session"})
    assert status == 404, status
    big = b'{"jsonrpc":"2.0","id":1,"method":"grep","params":{"pattern":"' + b"x" * (5 * 1024 * 1024) + b'"}}'
    for path in ["/mcp", "/rpc"]:
        status, _, _ = raw("POST", path, big, {**MCP_HEADERS, "Authorization": auth})
        assert status == 413, (path, status)
    request = b'{"jsonrpc":"2.0","id":7,"method":"deployed","params":{"name":"app","format":"json"}}'
    status, _, data = raw("POST", "/rpc", request, {**JSON, "Authorization": auth})
    answer = json.loads(data)["result"]["answer"]
    assert status == 200 and answer["workloads"][0]["images"][0]["status"] == "floating", data
    status, _, data = raw("POST", "/rpc", b"{not json", {**JSON, "Authorization": auth})
    assert status == 200 and json.loads(data)["error"]["code"] == -32700, data
    status, _, data = raw("POST", "/mcp", b"{not json", {**MCP_HEADERS, "Authorization": auth})
    assert status == 400 and json.loads(data)["error"]["code"] == -32700, (status, data)
    # JSON that is no request rmcp takes (a batch, an id out of range): an invalid request, not a 415.
    for message in [b'[{"jsonrpc":"2.0","id":1,"method":"ping"}]', b'{"jsonrpc":"2.0","id":1e400,"method":"ping"}']:
        status, _, data = raw("POST", "/mcp", message, {**MCP_HEADERS, "Authorization": auth})
        assert status == 400 and json.loads(data)["error"]["code"] in (-32600, -32700), (message, status, data)
    # Ending a session that never began, or twice, is a 404.
    status, _, _ = raw("DELETE", "/mcp", b"", {"Authorization": auth, "Mcp-Session-Id": "no-such-session"})
    assert status == 404, status
    status, _, data = raw("POST", "/rpc", b'{"jsonrpc":"2.0","id":7,"method":"context","params":{"name":"helper"}}', {**JSON, "Authorization": auth})
    answer = json.loads(data)
    assert status == 200 and answer["id"] == 7 and answer["result"]["found"], answer
    status, _, data = raw("POST", "/rpc", b'{"jsonrpc":"2.0","id":8,"method":"context","params":{}}', {**JSON, "Authorization": auth})
    assert json.loads(data)["error"]["code"] == -32602 and "needs `name`" in json.loads(data)["error"]["message"], data
    status, _, data = raw("POST", "/rpc", b'{"jsonrpc":"2.0","id":9,"method":"nope"}', {**JSON, "Authorization": auth})
    assert json.loads(data)["error"]["code"] == -32601, data
    # An id beyond 64 bits comes back as it was sent, in an answer and in an error.
    big_id = 18446744073709551616
    for method, params in [("context", '{"name":"helper"}'), ("nope", "{}")]:
        message = '{"jsonrpc":"2.0","id":%d,"method":"%s","params":%s}' % (big_id, method, params)
        status, _, data = raw("POST", "/rpc", message.encode(), {**JSON, "Authorization": auth})
        assert status == 200 and b'"id":18446744073709551616' in data and json.loads(data)["id"] == big_id, data
    status, _, data = raw("POST", "/rpc", b'[{"jsonrpc":"2.0","id":18446744073709551617,"method":"planes"}]', {**JSON, "Authorization": auth})
    assert json.loads(data)[0]["id"] == 18446744073709551617, data
    status, _, data = raw("GET", "/health")
    assert status == 200 and json.loads(data)["name"] == "drsg", data

    # A session that idles past the limit is reaped: its id then gets 404, so clients start again.
    status, headers, _ = raw("POST", "/mcp", body, {**MCP_HEADERS, "Authorization": auth})
    session = {k.lower(): v for k, v in headers.items()}["mcp-session-id"]
    assert status == 200 and session, headers
    time.sleep(IDLE + 2)
    status, _, _ = raw("POST", "/mcp", listing, {**MCP_HEADERS, "Authorization": auth, "Mcp-Session-Id": session})
    assert status == 404, status
    status, headers, _ = raw("POST", "/mcp", body, {**MCP_HEADERS, "Authorization": auth})
    session = {k.lower(): v for k, v in headers.items()}["mcp-session-id"]
    for expected in [200, 404]:
        status, _, _ = raw("DELETE", "/mcp", b"", {"Authorization": auth, "Mcp-Session-Id": session})
        assert status == expected, (expected, status)


async def relay():
    """drsg-mcp with no database named relays to the server .mcp.json declares; meanwhile a
    drsg-mcp opening the database itself fails cleanly, since the server holds it."""
    env = {k: v for k, v in ENV.items() if k != "DRSG_SESSION_IDLE_SECS"}
    params = StdioServerParameters(command=DRSG_MCP, args=[], cwd=TREE, env=env)
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as s:
            await s.initialize()
            context = await s.call_tool("context", {"name": "util.helper"})
            assert not context.is_error and "pkg.app.main" in text_of(context), text_of(context)
            second = subprocess.run(
                [DRSG_MCP, "--db", os.path.join(TREE, "graph.drsg")],
                cwd=TREE, env=env, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
            )
            assert second.returncode == 2 and "drsg serve" in second.stderr, second
            assert second.stdout == "", "stdout is for JSON-RPC only"
            # The server reaps the relay's idle session; the relay opens a new one unseen.
            await asyncio.sleep(IDLE + 2)
            again = await s.call_tool("context", {"name": "extra.extra"})
            assert not again.is_error and "pkg.extra.extra" in text_of(again), text_of(again)


async def newest_revision():
    """The 2026-07-28 revision (no `initialize`: `server/discover`, then requests that carry their
    protocol version in `_meta`), and the legacy handshake, each straight to `/mcp` and through the
    relay. Returns the versions negotiated, by path."""
    url, auth = declared()
    env = {k: v for k, v in ENV.items() if k != "DRSG_SESSION_IDLE_SECS"}
    negotiated = {}
    for mode in ("2026-07-28", "auto", "legacy"):
        for path in ("direct", "relay"):
            if path == "direct":
                http = httpx2.AsyncClient(headers={"Authorization": auth}, timeout=60)
                server = streamable_http_client(url, http_client=http)
            else:
                http = None
                server = StdioServerParameters(command=DRSG_MCP, args=[], cwd=TREE, env=env)
            async with Client(server, mode=mode) as client:
                tools = await client.list_tools()
                assert "context" in {t.name for t in tools.tools}, (mode, path)
                context = await client.call_tool("context", {"name": "util.helper"})
                assert not context.is_error and "pkg.app.main" in text_of(context), (mode, path, text_of(context))
                guide = await client.read_resource("drsg://guide")
                assert "`context(name, depth?, limit?, offset?, unresolved?)`" in guide.contents[0].text, (mode, path)
                negotiated[f"{mode}/{path}"] = client.protocol_version
            if http is not None:
                await http.aclose()
    assert negotiated["2026-07-28/direct"] == negotiated["2026-07-28/relay"] == "2026-07-28", negotiated
    assert negotiated["auto/direct"] == negotiated["auto/relay"], negotiated
    assert negotiated["legacy/direct"] == negotiated["legacy/relay"] != "2026-07-28", negotiated
    return negotiated


def main():
    out = run(DRSG, "init")
    assert "started" in out.stdout, out.stdout
    url, auth = declared()
    ignored = open(os.path.join(TREE, ".gitignore")).read().split()
    assert "*.drsg" in ignored and ".mcp.json" in ignored, ignored
    out = run(DRSG, "init")
    assert "reused" in out.stdout and declared() == (url, auth), out.stdout

    commit_seen_ms = asyncio.run(http_session(first_session))
    http_refusals()
    asyncio.run(relay())
    negotiated = asyncio.run(newest_revision())

    # A dead server is restarted on the same address and token.
    record = json.load(open(os.path.join(TREE, "graph.drsg", "serve.json")))
    os.kill(record["pid"], signal.SIGKILL)
    time.sleep(0.3)
    out = run(DRSG, "init")
    assert "started" in out.stdout and declared() == (url, auth), out.stdout

    async def still_answers(s):
        await s.initialize()
        context = await s.call_tool("context", {"name": "extra.extra"})
        assert not context.is_error and "pkg.extra.extra" in text_of(context), text_of(context)

    asyncio.run(http_session(still_answers))
    logs = os.path.join(TREE, "graph.drsg", "logs")
    logged = "".join(open(os.path.join(logs, f)).read() for f in os.listdir(logs))
    assert 'source="mcp:http-test-client"' in logged and 'tool="rebuild"' in logged, "calls are logged with their source"
    assert auth.removeprefix("Bearer ") not in logged, "the token is never logged"

    out = run(DRSG, "stop")
    assert "stopped" in out.stdout, out.stdout
    try:
        raw("GET", "/health")
        raise AssertionError("the server still answers after drsg stop")
    except ConnectionRefusedError:
        pass
    out = run(DRSG, "stop", check=False)
    assert out.returncode == 1 and "no server" in out.stdout, out
    # What wrote the plane last is in its ledger: the MCP rebuild, then no fold since.
    db = sqlite3.connect(os.path.join(TREE, "graph.drsg", "graph.sqlite"))
    sources = {name: json.loads(ledger).get("source") for name, ledger in db.execute("select name, ledger from planes where kind = 'code'")}
    assert set(sources.values()) == {"mcp:http-test-client"}, sources
    print(json.dumps({"commit_seen_ms": commit_seen_ms, "negotiated": negotiated}))


main()
