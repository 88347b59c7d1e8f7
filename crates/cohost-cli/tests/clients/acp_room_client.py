"""An ACP client on the official Python SDK (PyPI `agent-client-protocol`)
driving `cohost acp --agent A --agent B`: one session is a room, its
`agent` config option picks the member prompts go to. Run by
crates/cohost-cli/tests/it/acp_clients.rs; prints one JSON object on stdout.

usage: acp_room_client.py COHOST_BIN CWD AGENT AGENT...
"""

import asyncio
import json
import os
import sys

from acp import PROTOCOL_VERSION, spawn_agent_process, text_block
from acp.schema import ClientCapabilities, Implementation


class Recorder:
    def __init__(self):
        self.text = []

    async def request_permission(self, session_id, tool_call, options, **kwargs):
        raise RuntimeError("no permission is asked in this check")

    async def session_update(self, session_id, update, **kwargs):
        if update.session_update == "agent_message_chunk":
            self.text.append(getattr(update.content, "text", ""))

    def take(self):
        t, self.text = "".join(self.text), []
        return t

    async def ext_method(self, method, params):
        return {}

    async def ext_notification(self, method, params):
        return None


async def main():
    cohost, cwd, agents = sys.argv[1], sys.argv[2], sys.argv[3:]
    args = ["acp"]
    for a in agents:
        args += ["--agent", a]
    rec = Recorder()
    out = {}
    async with spawn_agent_process(lambda _a: rec, cohost, *args, env=dict(os.environ)) as (conn, _p):
        await asyncio.wait_for(
            conn.initialize(
                protocol_version=PROTOCOL_VERSION,
                client_capabilities=ClientCapabilities(),
                client_info=Implementation(name="room-check", version="1"),
            ),
            60,
        )
        new = await asyncio.wait_for(conn.new_session(cwd=cwd, mcp_servers=[]), 120)
        sid = new.session_id
        out["options"] = [
            {"id": o.id, "current": o.current_value, "values": [c.value for c in o.options]}
            for o in (new.config_options or [])
        ]
        r = await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[text_block("[mock:say] first")]), 120)
        out["first"] = {"stop": r.stop_reason, "text": rec.take()}
        changed = await asyncio.wait_for(
            conn.set_config_option(config_id="agent", session_id=sid, value="mock#2"), 60
        )
        out["after_switch"] = [o.current_value for o in changed.config_options]
        r = await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[text_block("[mock:say] second")]), 120)
        out["second"] = {"stop": r.stop_reason, "text": rec.take()}
        try:
            await conn.set_config_option(config_id="agent", session_id=sid, value="nobody")
            out["unknown"] = "accepted"
        except Exception as e:  # the SDK raises the JSON-RPC error
            out["unknown"] = str(e)
    print(json.dumps(out))


asyncio.run(main())
