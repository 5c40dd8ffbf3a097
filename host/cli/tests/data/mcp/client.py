"""Drives `ldp mcp` with the official Python MCP client (the `mcp` package from PyPI).

    python client.py LDP_BINARY CALLS.json -- ARGS_OF_LDP_MCP...

CALLS.json is a list of `[tool, arguments]`; the script starts the server over stdio,
initializes, lists the tools, makes each call in order and prints one JSON document on stdout:
`{"server": {name, title}, "tools": [names], "calls": [{tool, is_error, result, elapsed_s}]}`,
where `result` is the call's structured content and `elapsed_s` the call's round trip. The CLI test `mcp.rs` runs it.

Two calls are the script's own, not the server's: `["__server__", {}]` records the server
process's `cpu_s` (user and system time so far) and `vm_hwm_kb` (its peak resident memory) as
`server`, and `["__sleep__", {"seconds": S}]` waits.
"""

import asyncio
import json
import os
import sys
import time

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


async def main(ldp: str, calls_file: str, args: list[str]) -> None:
    with open(calls_file, encoding="utf-8") as f:
        calls = json.load(f)
    params = StdioServerParameters(command=ldp, args=["mcp", *args])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            tools = await session.list_tools()
            out = {
                "server": {"name": init.serverInfo.name, "title": init.serverInfo.title},
                "tools": [tool.name for tool in tools.tools],
                "read_only": all(t.annotations and t.annotations.readOnlyHint for t in tools.tools),
                "calls": [],
            }
            for tool, arguments in calls:
                if tool == "__server__":
                    out["calls"].append({"tool": tool, "server": server_status()})
                    continue
                if tool == "__sleep__":
                    await asyncio.sleep(arguments["seconds"])
                    out["calls"].append({"tool": tool})
                    continue
                began = time.perf_counter()
                result = await session.call_tool(tool, arguments)
                elapsed = time.perf_counter() - began
                structured = result.structuredContent
                if structured is None and result.content:
                    structured = json.loads(result.content[0].text)
                out["calls"].append({"tool": tool, "is_error": bool(result.isError), "result": structured,
                                     "elapsed_s": round(elapsed, 4)})
    print(json.dumps(out))


def server_status() -> dict:
    """CPU time and peak memory of the server: this process's child running `ldp mcp`."""
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat", encoding="utf-8") as f:
                stat = f.read()
            fields = stat[stat.rindex(")") + 2:].split()
            if int(fields[1]) != os.getpid():
                continue
            with open(f"/proc/{pid}/status", encoding="utf-8") as f:
                hwm = next(line for line in f if line.startswith("VmHWM:"))
        except (OSError, StopIteration, ValueError):
            continue
        ticks = os.sysconf("SC_CLK_TCK")
        return {"pid": int(pid), "cpu_s": (int(fields[11]) + int(fields[12])) / ticks,
                "vm_hwm_kb": int(hwm.split()[1])}
    raise RuntimeError("the server process is not a child of the client")


if __name__ == "__main__":
    split = sys.argv.index("--")
    asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[split + 1:]))
