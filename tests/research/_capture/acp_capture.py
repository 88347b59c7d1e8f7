#!/usr/bin/env python3
"""Capture a golden ACP transcript from a real agent (run inside a bench env).

usage: capture.py OUT.jsonl SCENARIO -- COMMAND [ARGS...]
  SCENARIO: text | reasoning | tool_allow | tool_deny | interrupt | error_401
Run with the environment printed by
  cargo run -p cohost-testbench --example bench_env -- CLI
and cwd = $BENCH_CWD. Lines the client wrote are prefixed `>> `, agent stdout
lines are verbatim, `# ` lines are headers (tool, version, command, date).
The client side mirrors cohost's ACP driver: ids 0,1,2... in the same order.
"""
import datetime, json, os, subprocess, sys, threading, queue, time

out_path, scenario = sys.argv[1], sys.argv[2]
cmd = sys.argv[sys.argv.index("--") + 1:]
cwd = os.getcwd()
prompts = {
    "text": "say hello",
    "reasoning": "[[reasoning]] think first",
    "tool_allow": "[[tool]] run the tool",
    "tool_deny": "[[tool]] run the tool",
    "write_allow": "[[scenario:write]] create the file",
    "write_deny": "[[scenario:write]] create the file",
    "interrupt": "[[slow]] take your time",
    "error_401": "[[401]] fail please",
}
proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                        stderr=open(os.environ.get("CAPTURE_STDERR", os.devnull), "w"), text=True, bufsize=1,
                        start_new_session=True)
lines = []
q = queue.Queue()

def reader():
    for line in proc.stdout:
        q.put(line.rstrip("\n"))
    q.put(None)

threading.Thread(target=reader, daemon=True).start()
next_id = [0]

def send(msg):
    s = json.dumps(msg, separators=(",", ":"))
    lines.append(">> " + s)
    proc.stdin.write(s + "\n")
    proc.stdin.flush()

def request(method, params):
    i = next_id[0]
    next_id[0] += 1
    send({"jsonrpc": "2.0", "id": i, "method": method, "params": params})
    return i

def pump(want_id, deadline, on_update=None):
    while time.time() < deadline:
        try:
            line = q.get(timeout=0.2)
        except queue.Empty:
            continue
        if line is None:
            raise SystemExit("agent exited")
        lines.append(line)
        try:
            m = json.loads(line)
        except ValueError:
            continue
        if "method" in m and "id" in m:
            answer(m)
        elif m.get("method") == "session/update" and on_update:
            on_update(m)
        elif m.get("id") == want_id and "method" not in m:
            return m
    raise SystemExit("timeout")

def answer(m):
    method, p = m["method"], m.get("params", {})
    if method == "session/request_permission":
        want = "reject" if scenario.endswith("_deny") else "allow"
        opts = p.get("options", [])
        pick = next((o for o in opts if o.get("kind", "").startswith(want + "_once")), None) \
            or next((o for o in opts if o.get("kind", "").startswith(want)), None)
        send({"jsonrpc": "2.0", "id": m["id"], "result": {"outcome": {"outcome": "selected", "optionId": pick["optionId"]}}})
    elif method == "fs/read_text_file":
        try:
            with open(p["path"]) as f:
                send({"jsonrpc": "2.0", "id": m["id"], "result": {"content": f.read()}})
        except OSError as e:
            send({"jsonrpc": "2.0", "id": m["id"], "error": {"code": -32603, "message": str(e)}})
    elif method == "fs/write_text_file":
        with open(p["path"], "w") as f:
            f.write(p["content"])
        send({"jsonrpc": "2.0", "id": m["id"], "result": None})
    else:
        send({"jsonrpc": "2.0", "id": m["id"], "error": {"code": -32601, "message": "method not found: " + method}})

deadline = time.time() + float(os.environ.get("CAPTURE_TIMEOUT", "120"))
init = pump(request("initialize", {"protocolVersion": 1, "clientCapabilities": {
    "fs": {"readTextFile": True, "writeTextFile": True}, "terminal": False}}), deadline)
info = init.get("result", {}).get("agentInfo", {})
new = pump(request("session/new", {"cwd": cwd, "mcpServers": []}), deadline)
sid = new["result"]["sessionId"]
if os.environ.get("CAPTURE_SET_MODE"):
    pump(request("session/set_mode", {"sessionId": sid, "modeId": os.environ["CAPTURE_SET_MODE"]}), deadline)
cancelled = [False]

def on_update(m):
    if scenario == "interrupt" and not cancelled[0] and \
            m["params"]["update"].get("sessionUpdate") == "agent_message_chunk":
        cancelled[0] = True
        send({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": sid}})

text = prompts[scenario]
if "[[tool]]" in text or "write]]" in text:
    text += " in " + cwd
pump(request("session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": text}]}),
     deadline, on_update)
if scenario == "interrupt":
    pump(request("session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "say hello again"}]}), deadline)
# Drain late notifications briefly.
end = time.time() + 0.5
while time.time() < end:
    try:
        l = q.get(timeout=0.1)
    except queue.Empty:
        continue
    if l is None:
        break
    lines.append(l)
os.killpg(proc.pid, 9)
header = {"tool": info.get("name"), "version": info.get("version"), "command": " ".join(os.path.basename(c) if i == 0 else c for i, c in enumerate(cmd)),
          "scenario": scenario, "date": datetime.date.today().isoformat(),
          "note": os.environ.get("CAPTURE_NOTE", "captured by tests/fixtures/acp/capture.py against cohost-fakellm; paths are the bench's scratch dirs")}
with open(out_path, "w") as f:
    f.write("# " + json.dumps(header) + "\n")
    for l in lines:
        f.write(l + "\n")
print(out_path, len(lines), "lines")
