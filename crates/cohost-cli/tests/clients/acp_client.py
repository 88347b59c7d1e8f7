"""An ACP client on the official Python SDK (PyPI `agent-client-protocol`,
pinned in scripts/test.sh) running the ACP registry's checks against
`cohost acp --agent AGENT`: initialize, session/new, a prompt with streamed
updates, a permission round trip (deny, then allow), cancel, session/list,
and session/load from a second connection. Run by
crates/cohost-cli/tests/it/acp_clients.rs; prints one JSON object on stdout.

usage: acp_client.py COHOST_BIN CONFIG_JSON
  CONFIG: {"agent", "cwd", "text", "tool", "slow", "model"} (prompts; tool,
          slow and model (a model to switch to) optional)
"""

import asyncio
import json
import os
import sys
import time

from acp import PROTOCOL_VERSION, RequestError, spawn_agent_process, text_block
from acp.schema import (
    AllowedOutcome,
    ClientCapabilities,
    DeniedOutcome,
    Implementation,
    RequestPermissionResponse,
)


class Recorder:
    """The client side: records every update, answers permissions by kind."""

    def __init__(self):
        self.updates = []
        self.permissions = []
        self.answer_kind = "reject_once"
        self.first_chunk = asyncio.Event()

    async def request_permission(self, session_id, tool_call, options, **kwargs):
        self.permissions.append(
            {
                "session_id": session_id,
                "tool_call_id": tool_call.tool_call_id,
                "options": [{"id": o.option_id, "kind": o.kind} for o in options],
                "answered": self.answer_kind,
            }
        )
        for o in options:
            if o.kind == self.answer_kind:
                return RequestPermissionResponse(
                    outcome=AllowedOutcome(option_id=o.option_id, outcome="selected")
                )
        return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))

    async def session_update(self, session_id, update, **kwargs):
        kind = update.session_update
        entry = {"session_id": session_id, "kind": kind}
        if kind in ("agent_message_chunk", "agent_thought_chunk"):
            entry["text"] = getattr(update.content, "text", "")
            if kind == "agent_message_chunk":
                self.first_chunk.set()
        if kind in ("tool_call", "tool_call_update"):
            entry["tool_call_id"] = update.tool_call_id
            entry["status"] = update.status
        self.updates.append(entry)

    def take(self):
        u, self.updates = self.updates, []
        return u

    async def ext_method(self, method, params):
        return {}

    async def ext_notification(self, method, params):
        return None


def text_of(updates, kind="agent_message_chunk"):
    return "".join(u.get("text", "") for u in updates if u["kind"] == kind)


async def connect(cohost, agent, client):
    return spawn_agent_process(
        lambda _agent: client, cohost, "acp", "--agent", agent, env=dict(os.environ)
    )


async def main():
    cohost, cfg = sys.argv[1], json.loads(sys.argv[2])
    agent, cwd = cfg["agent"], cfg["cwd"]
    out = {"agent": agent, "seconds": {}}
    clock = [time.monotonic()]

    def lap(step):
        now = time.monotonic()
        out["seconds"][step] = round(now - clock[0], 2)
        clock[0] = now
    rec = Recorder()
    async with await connect(cohost, agent, rec) as (conn, _proc):
        init = await asyncio.wait_for(
            conn.initialize(
                protocol_version=PROTOCOL_VERSION,
                client_capabilities=ClientCapabilities(),
                client_info=Implementation(name="acp-registry-checks", version="1"),
            ),
            60,
        )
        lap("initialize")
        out["initialize"] = {
            "protocol_version": init.protocol_version,
            "load_session": init.agent_capabilities.load_session,
            "agent_info": init.agent_info.name if init.agent_info else None,
        }
        new = await asyncio.wait_for(conn.new_session(cwd=cwd, mcp_servers=[]), 120)
        sid = new.session_id
        lap("session_new")
        out["new_session"] = {
            "session_id": sid,
            "modes": [m.id for m in new.modes.available_modes] if new.modes else [],
        }
        r = await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[text_block(cfg["text"])]), 180)
        ups = rec.take()
        lap("prompt")
        out["prompt"] = {
            "stop_reason": r.stop_reason,
            "text": text_of(ups),
            "chunks": sum(1 for u in ups if u["kind"] == "agent_message_chunk"),
            "kinds": sorted({u["kind"] for u in ups}),
            "all_for_session": all(u["session_id"] == sid for u in ups),
        }
        if cfg.get("model"):
            opts = new.config_options or []
            out["config_options"] = [
                {"id": o.id, "values": [c.value for c in o.options]} for o in opts
            ]
            await asyncio.wait_for(
                conn.set_config_option(config_id="model", session_id=sid, value=cfg["model"]), 120
            )
            r = await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[text_block("after")]), 180)
            ups = rec.take()
            out["after_model"] = {
                "stop_reason": r.stop_reason,
                "kinds": sorted({u["kind"] for u in ups}),
            }
        if cfg.get("tool"):
            for kind in ("reject_once", "allow_once"):
                rec.answer_kind = kind
                r = await asyncio.wait_for(
                    conn.prompt(session_id=sid, prompt=[text_block(cfg["tool"])]), 180
                )
                ups = rec.take()
                out[kind] = {
                    "stop_reason": r.stop_reason,
                    "permissions": rec.permissions,
                    "tool_statuses": [u["status"] for u in ups if u["kind"].startswith("tool_call")],
                }
                rec.permissions = []
                lap(kind)
                if cfg.get("file"):
                    out[kind]["file_exists"] = os.path.exists(os.path.join(cwd, cfg["file"]))
        if cfg.get("slow"):
            rec.first_chunk.clear()
            task = asyncio.ensure_future(
                conn.prompt(session_id=sid, prompt=[text_block(cfg["slow"])])
            )
            await asyncio.wait_for(rec.first_chunk.wait(), 120)
            await conn.cancel(session_id=sid)
            r = await asyncio.wait_for(task, 30)
            ups = rec.take()
            lap("cancel")
            out["cancel"] = {"stop_reason": r.stop_reason, "chunks": sum(1 for u in ups if u["kind"] == "agent_message_chunk")}
        if cfg.get("error"):
            try:
                await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[text_block(cfg["error"])]), 60)
                out["error"] = None
            except RequestError as e:
                out["error"] = {"code": e.code, "message": str(e), "data": e.data}
            rec.take()
        listed = await asyncio.wait_for(conn.list_sessions(), 30)
        out["list"] = [s.session_id for s in listed.sessions]
    # A second connection resumes the session by id.
    rec2 = Recorder()
    async with await connect(cohost, agent, rec2) as (conn, _proc):
        await conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=ClientCapabilities())
        await asyncio.wait_for(conn.load_session(cwd=cwd, session_id=sid, mcp_servers=[]), 120)
        r = await asyncio.wait_for(
            conn.prompt(session_id=sid, prompt=[text_block(cfg.get("again", cfg["text"]))]), 180
        )
        ups = rec2.take()
        out["load"] = {"stop_reason": r.stop_reason, "text": text_of(ups)}
        lap("load_and_prompt")
    print(json.dumps(out, default=str))


asyncio.run(main())
