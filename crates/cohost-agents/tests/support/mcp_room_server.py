"""A stand-in for a room's bridge: a stdio MCP server with one tool,
`list_members`, whose result names the members and quotes $ROOM_MARKER
(so a test sees that the env cohost gave the server reached it). Started by
the agent CLI under test, from the McpServer cohost's driver passed it.

Plain newline-delimited JSON-RPC 2.0, as MCP's stdio transport is, so it
needs nothing but python3. Each request it answers is appended to the file
named by $ROOM_LOG, one method per line.
"""

import json
import os
import sys

TOOL = {
    "name": "list_members",
    "description": "The members of this room.",
    "inputSchema": {"type": "object", "properties": {}},
}


def log(method):
    path = os.environ.get("ROOM_LOG")
    if path:
        with open(path, "a", encoding="utf-8") as f:
            f.write(method + "\n")


def answer(msg):
    method = msg.get("method")
    if method == "initialize":
        version = msg.get("params", {}).get("protocolVersion", "2025-06-18")
        return {
            "protocolVersion": version,
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "room-test", "version": "1.0.0"},
        }
    if method == "tools/list":
        return {"tools": [TOOL]}
    if method == "tools/call":
        marker = os.environ.get("ROOM_MARKER", "unset")
        text = f"members: alpha, beta (room {marker})"
        return {"content": [{"type": "text", "text": text}], "isError": False}
    if method == "ping":
        return {}
    return None


def main():
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        if not isinstance(msg, dict) or "id" not in msg:
            continue  # notifications need no answer
        method = msg.get("method", "")
        log(method)
        result = answer(msg)
        if result is None:
            reply = {
                "jsonrpc": "2.0",
                "id": msg["id"],
                "error": {"code": -32601, "message": f"no method {method}"},
            }
        else:
            reply = {"jsonrpc": "2.0", "id": msg["id"], "result": result}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
