"""Load on `drsg serve`: SESSIONS concurrent MCP sessions over Streamable HTTP (the official Python
SDK) share CALLS mixed tool calls against a served Django plane. Prints throughput, latency
percentiles (overall and per tool), misses and errors as one JSON object.

usage: mcp_load.py URL TOKEN SESSIONS CALLS   ($SKIP: tools left out of the mix, comma-separated)"""

import asyncio
import json
import os
import statistics
import sys
import time

import httpx2
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

URL, TOKEN, SESSIONS, CALLS = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])

# What an agent asks of a Django checkout: symbols by name and key part, text, files, paths.
MIX = [
    ("context", {"name": "get_object_or_404"}),
    ("context", {"name": "QuerySet.filter"}),
    ("impact", {"name": "get_object_or_404"}),
    ("search", {"query": "cache middleware"}),
    ("grep", {"pattern": "def get_absolute_url", "max_results": 20}),
    ("snippet", {"name": "get_object_or_404"}),
    ("describe", {"name": "HttpResponseRedirect"}),
    ("file", {"path": "django/shortcuts.py"}),
    ("trace", {"from": "redirect", "to": "resolve_url"}),
    ("fathom", {"name": "QuerySet.filter", "depth": 1}),
]
MIX = [(tool, args) for tool, args in MIX if tool not in os.environ.get("SKIP", "").split(",")]


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


async def worker(index, jobs, results):
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"}, timeout=300) as client:
        async with streamable_http_client(URL, http_client=client) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                while True:
                    try:
                        n = jobs.get_nowait()
                    except asyncio.QueueEmpty:
                        return
                    tool, args = MIX[n % len(MIX)]
                    started = time.perf_counter()
                    try:
                        result = await session.call_tool(tool, args)
                        error = result.is_error
                        text = "".join(getattr(b, "text", "") for b in result.content)
                        miss = not error and ("no symbol" in text or "not found" in text)
                        detail = text[:200] if error else None
                    except Exception as exc:  # a broken call counts as an error, with its cause
                        error, miss, detail = True, False, repr(exc)[:200]
                    results.append((tool, time.perf_counter() - started, error, miss, detail))


async def main():
    jobs = asyncio.Queue()
    for n in range(CALLS):
        jobs.put_nowait(n)
    results = []
    started = time.perf_counter()
    await asyncio.gather(*(worker(i, jobs, results) for i in range(SESSIONS)))
    wall = time.perf_counter() - started
    latencies = [r[1] * 1000 for r in results]
    by_tool = {}
    for tool, seconds, *_ in results:
        by_tool.setdefault(tool, []).append(seconds * 1000)
    errors = [r for r in results if r[2]]
    print(
        json.dumps(
            {
                "sessions": SESSIONS,
                "calls": len(results),
                "seconds": round(wall, 2),
                "calls_per_second": round(len(results) / wall, 1),
                "p50_ms": round(percentile(latencies, 50), 1),
                "p99_ms": round(percentile(latencies, 99), 1),
                "max_ms": round(max(latencies), 1),
                "errors": len(errors),
                "error_examples": [e[4] for e in errors[:3]],
                "misses": sum(1 for r in results if r[3]),
                "median_ms_by_tool": {t: round(statistics.median(v), 1) for t, v in sorted(by_tool.items())},
            },
            indent=1,
        )
    )


asyncio.run(main())
