#!/usr/bin/env python3
"""ACP resume transcript: process 1: initialize, session/new, prompt "first turn", kill;
process 2: initialize, session/load (or session/resume with ACP_RESUME_METHOD), prompt "say hello again".
usage: acp_resume.py OUT.jsonl -- CMD...   (same line conventions as capture.py; a '# restart' comment line
marks the second process)"""
import datetime, json, os, subprocess, sys, threading, queue, time
out_path = sys.argv[1]
cmd = sys.argv[sys.argv.index("--") + 1:]
cwd = os.getcwd()
lines = []
method_load = os.environ.get("ACP_RESUME_METHOD", "session/load")
class Agent:
    def __init__(self):
        self.p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=open(os.environ.get("CAPTURE_STDERR", os.devnull), "a"), text=True, bufsize=1, start_new_session=True)
        self.q = queue.Queue(); self.next = 0
        threading.Thread(target=self.read, daemon=True).start()
    def read(self):
        for l in self.p.stdout: self.q.put(l.rstrip("\n"))
        self.q.put(None)
    def send(self, m):
        s = json.dumps(m, separators=(",", ":")); lines.append(">> " + s)
        self.p.stdin.write(s + "\n"); self.p.stdin.flush()
    def req(self, method, params):
        i = self.next; self.next += 1
        self.send({"jsonrpc": "2.0", "id": i, "method": method, "params": params})
        deadline = time.time() + 90
        while time.time() < deadline:
            try: l = self.q.get(timeout=0.2)
            except queue.Empty: continue
            if l is None: raise SystemExit("agent exited")
            lines.append(l)
            try: m = json.loads(l)
            except ValueError: continue
            if "method" in m and "id" in m:
                self.send({"jsonrpc": "2.0", "id": m["id"], "error": {"code": -32601, "message": "method not found: " + m["method"]}})
            elif m.get("id") == i and "method" not in m:
                return m
        raise SystemExit("timeout")
    def kill(self):
        os.killpg(self.p.pid, 9)
caps = {"protocolVersion": 1, "clientCapabilities": {"fs": {"readTextFile": True, "writeTextFile": True}, "terminal": False}}
a = Agent()
info = a.req("initialize", caps).get("result", {}).get("agentInfo", {})
sid = a.req("session/new", {"cwd": cwd, "mcpServers": []})["result"]["sessionId"]
a.req("session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "first turn"}]})
time.sleep(0.5)
a.kill()
lines.append("# restart: the first process was killed (SIGKILL to its group); a new one loads the session")
b = Agent()
b.req("initialize", caps)
b.req(method_load, {"sessionId": sid, "cwd": cwd, "mcpServers": []})
b.req("session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "say hello again"}]})
time.sleep(0.5)
while True:
    try: l = b.q.get_nowait()
    except queue.Empty: break
    if l is None: break
    lines.append(l)
b.kill()
header = {"tool": info.get("name"), "version": info.get("version"), "command": " ".join(os.path.basename(c) if i == 0 else c for i, c in enumerate(cmd)),
          "scenario": "resume", "date": datetime.date.today().isoformat(), "note": os.environ.get("CAPTURE_NOTE", "")}
with open(out_path, "w") as f:
    f.write("# " + json.dumps(header) + "\n")
    for l in lines: f.write(l + "\n")
print(out_path, len(lines), "lines")
