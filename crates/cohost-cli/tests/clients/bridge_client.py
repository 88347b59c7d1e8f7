"""An MCP client on the official Python SDK (PyPI `mcp`) driving
`cohost room-bridge` over stdio, as an agent in a room would: the bridge's
socket is in COHOST_ROOM_BRIDGE. Run by crates/cohost-cli/tests/it/room_bridge.rs;
prints one JSON object on stdout.

usage: bridge_client.py COHOST_BIN ASK_NAME ASK_PROMPT
"""

import json
import os
import sys

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


def structured(result):
    if result.structured_content is not None:
        return result.structured_content
    text = "".join(c.text for c in result.content if getattr(c, "type", "") == "text")
    return json.loads(text) if text else None


async def main():
    cohost, name, prompt = sys.argv[1], sys.argv[2], sys.argv[3]
    server = StdioServerParameters(command=cohost, args=["room-bridge"], env=dict(os.environ))
    out = {}
    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = await session.list_tools()
            out["tools"] = sorted(t.name for t in tools.tools)
            out["members"] = structured(await session.call_tool("list_members", {}))
            asked = await session.call_tool("ask_member", {"name": name, "prompt": prompt})
            out["asked"] = {"is_error": bool(asked.is_error), "result": structured(asked)}
            itself = await session.call_tool("ask_member", {"name": "alpha", "prompt": "hi"})
            out["itself"] = {"is_error": bool(itself.is_error), "result": structured(itself)}
            bad = await session.call_tool("ask_member", {"prompt": "no name"})
            out["bad"] = {"is_error": bool(bad.is_error), "result": structured(bad)}
            posted = await session.call_tool("post_to_room", {"text": "halfway there"})
            out["posted"] = structured(posted)
    print(json.dumps(out))


anyio.run(main)
