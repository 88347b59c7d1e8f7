"""An MCP client on the official Python SDK (PyPI `mcp`, pinned in
scripts/test.sh) driving `cohost mcp` over stdio. Run by
crates/cohost-cli/tests/it/mcp_clients.rs; prints one JSON object on stdout.

usage: mcp_client.py COHOST_BIN SCENARIO [ARGS_JSON]
  (with COHOST_MCP_URL set: streamable HTTP to that URL instead of stdio)
  tools                       list the tools
  ask {provider,prompt,...}   ask_agent, collecting progress notifications
  room {agents,prompt,...}    ask_room
  cancel {provider,prompt}    ask_agent, cancelled after the first progress
  changes {provider,prompt,...}
                              ask_agent, then session_changes and undo_turn
  approve {provider,prompt,decision,via}
                              ask_agent whose tool call is answered through
                              resolve_approval (via=tools) or elicitation (via=elicit)
"""

import json
import os
import sys

import anyio
from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client


def structured(result):
    if result.structured_content is not None:
        return result.structured_content
    text = "".join(c.text for c in result.content if getattr(c, "type", "") == "text")
    return json.loads(text) if text else None


async def main():
    cohost, scenario = sys.argv[1], sys.argv[2]
    args = json.loads(sys.argv[3]) if len(sys.argv) > 3 else {}
    out = {"scenario": scenario}
    decision = args.pop("decision", None)
    via = args.pop("via", None)
    elicited = []

    async def on_elicit(context, params):
        elicited.append(params.message)
        return types.ElicitResult(action="accept", content={"decision": decision})

    # The SDK passes only a few variables by default; the test gives the
    # server its scratch HOME, XDG dirs and the fake model server.
    # COHOST_MCP_ARGS: extra flags for `cohost mcp` (e.g. --approval-timeout 1).
    extra = os.environ.get("COHOST_MCP_ARGS", "").split()
    server = StdioServerParameters(command=cohost, args=["mcp", *extra], env=dict(os.environ))
    kwargs = {"elicitation_callback": on_elicit} if via == "elicit" else {}
    # COHOST_MCP_URL: a running `cohost mcp --http` instead of a stdio child.
    url = os.environ.get("COHOST_MCP_URL")
    if url:
        # COHOST_MCP_TOKEN: the user's bearer token (the file `cohost mcp --http` names).
        headers = {"Authorization": "Bearer " + os.environ.get("COHOST_MCP_TOKEN", "")}
        transport = streamable_http_client(url, http_client=create_mcp_http_client(headers=headers))
    else:
        transport = stdio_client(server)
    async with transport as (read, write):
        async with ClientSession(read, write, **kwargs) as session:
            await session.initialize()
            if scenario == "tools":
                tools = await session.list_tools()
                out["tools"] = sorted(t.name for t in tools.tools)
                out["ask_agent_schema"] = next(
                    t.input_schema for t in tools.tools if t.name == "ask_agent"
                )
                agents = await session.call_tool("list_agents", {})
                out["agents"] = [a["id"] for a in structured(agents)["agents"]]
            elif scenario == "ask":
                progress = []

                async def on_progress(p, total, message):
                    progress.append(message)

                r = await session.call_tool("ask_agent", args, progress_callback=on_progress)
                out["is_error"] = bool(r.is_error)
                out["result"] = structured(r)
                out["progress"] = progress
                if not r.is_error and args.get("follow_up"):
                    r2 = await session.call_tool(
                        "continue_session",
                        {"session_id": out["result"]["session_id"], "prompt": args["follow_up"]},
                    )
                    out["follow_up"] = structured(r2)
            elif scenario == "room":
                r = await session.call_tool("ask_room", args)
                out["is_error"] = bool(r.is_error)
                out["result"] = structured(r)
            elif scenario == "changes":
                # ask_agent, then what its turn changed, then undo it twice
                # (the second has nothing left to undo).
                r = structured(await session.call_tool("ask_agent", args))
                sid = r["session_id"]
                out["answer"] = r
                out["changes"] = structured(
                    await session.call_tool("session_changes", {"session_id": sid})
                )
                out["undone"] = structured(
                    await session.call_tool("undo_turn", {"session_id": sid})
                )
                again = await session.call_tool("undo_turn", {"session_id": sid})
                out["again_is_error"] = bool(again.is_error)
                out["again"] = structured(again)
            elif scenario == "background":
                # ask_agent without waiting, then the session tools.
                started = structured(await session.call_tool("ask_agent", {**args, "wait": False}))
                sid = started["session_id"]
                out["started"] = started
                out["early"] = structured(
                    await session.call_tool("wait", {"session_id": sid, "timeout_secs": 1})
                )
                busy = await session.call_tool("continue_session", {"session_id": sid, "prompt": "x"})
                out["busy_is_error"] = bool(busy.is_error)
                out["busy"] = structured(busy)
                # The mock takes text mid-turn: it lands in this turn.
                out["steer"] = structured(
                    await session.call_tool("steer", {"session_id": sid, "text": "also-this"})
                )
                out["interrupt"] = structured(await session.call_tool("interrupt", {"session_id": sid}))
                out["final"] = structured(
                    await session.call_tool("wait", {"session_id": sid, "timeout_secs": 30})
                )
                out["status"] = structured(await session.call_tool("session_status", {"session_id": sid}))
            elif scenario == "evict":
                # Run with --max-sessions 1: the second session ends the idle
                # first one, which continue_session then reopens from the store.
                a = structured(await session.call_tool("ask_agent", args))
                b = structured(await session.call_tool("ask_agent", args))
                st = structured(await session.call_tool("session_status", {}))
                out["open_after_two"] = [x["session_id"] for x in st["sessions"]]
                c = await session.call_tool(
                    "continue_session", {"session_id": a["session_id"], "prompt": "back again"}
                )
                out["first"], out["second"] = a["session_id"], b["session_id"]
                out["continued"] = structured(c)
            elif scenario == "cancel":
                first = anyio.Event()
                progress = []

                async def on_progress(p, total, message):
                    progress.append(message)
                    first.set()

                with anyio.CancelScope() as scope:

                    async def call():
                        await session.call_tool("ask_agent", args, progress_callback=on_progress)

                    async with anyio.create_task_group() as tg:
                        tg.start_soon(call)
                        with anyio.fail_after(60):
                            await first.wait()
                        scope.cancel()
                out["progress_before_cancel"] = len(progress)
                # The cancelled call's session: its turn must end interrupted.
                with anyio.fail_after(30):
                    while True:
                        st = structured(await session.call_tool("session_status", {}))
                        sessions = st["sessions"]
                        if sessions and not sessions[0]["running"]:
                            break
                        await anyio.sleep(0.1)
                out["status"] = sessions[0]
            elif scenario == "approve":
                result = {}

                async def call():
                    r = await session.call_tool("ask_agent", args)
                    result["r"] = r

                async with anyio.create_task_group() as tg:
                    tg.start_soon(call)
                    if via == "tools":
                        with anyio.fail_after(120):
                            while True:
                                a = structured(await session.call_tool("list_approvals", {}))
                                if a["approvals"]:
                                    break
                                await anyio.sleep(0.1)
                        p = a["approvals"][0]
                        out["approval"] = p
                        res = await session.call_tool(
                            "resolve_approval",
                            {"session_id": p["session_id"], "tool_id": p["tool_id"], "decision": decision},
                        )
                        out["resolved"] = structured(res)
                r = result["r"]
                out["is_error"] = bool(r.is_error)
                out["result"] = structured(r)
                out["elicited"] = elicited
            else:
                raise SystemExit(f"unknown scenario {scenario}")
    print(json.dumps(out))


anyio.run(main)
