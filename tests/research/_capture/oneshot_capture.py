#!/usr/bin/env python3
"""usage: oneshot_capture.py OUT.jsonl SCENARIO -- CMD ARGS...
Env: CAP_TOOL, CAP_VERSION, CAP_COMMAND (display), CAP_NOTE, CAP_SIGINT_ON (regex: send SIGINT to
the process group on the first stdout line matching it), CAP_TIMEOUT, CAP_STDIN (text fed on stdin, else /dev/null).
Writes the cohost fixture convention: a {"cohost_fixture": {...}} header line, then stdout verbatim."""
import datetime, json, os, re, signal, subprocess, sys, threading, time
out, scenario = sys.argv[1], sys.argv[2]
cmd = sys.argv[sys.argv.index("--") + 1:]
pat = os.environ.get("CAP_SIGINT_ON")
timeout = float(os.environ.get("CAP_TIMEOUT", "120"))
stdin_text = os.environ.get("CAP_STDIN")
p = subprocess.Popen(cmd, stdin=subprocess.PIPE if stdin_text is not None else subprocess.DEVNULL,
                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
if stdin_text is not None:
    p.stdin.write(stdin_text.encode()); p.stdin.close()
err = []
threading.Thread(target=lambda: err.append(p.stderr.read()), daemon=True).start()
lines, interrupted, t_int = [], False, None
def killer():
    time.sleep(timeout)
    if p.poll() is None:
        os.killpg(p.pid, signal.SIGKILL)
threading.Thread(target=killer, daemon=True).start()
sig_after = os.environ.get("CAP_SIGINT_AFTER")
sig_name = os.environ.get("CAP_SIGNAL", "SIGINT")
state = {"t": None}
def timed():
    time.sleep(float(sig_after))
    if p.poll() is None:
        state["t"] = time.time(); os.killpg(p.pid, getattr(signal, sig_name))
log_path = os.environ.get("CAP_SIGINT_ON_LOG")  # "PATH|SUBSTRING": signal once a fake-server request log line has it
def on_log():
    path, sub = log_path.split("|", 1)
    while p.poll() is None:
        try:
            if any(sub in l for l in open(path)):
                break
        except OSError:
            pass
        time.sleep(0.05)
    time.sleep(float(os.environ.get("CAP_SIGINT_DELAY", "0.3")))
    if p.poll() is None:
        state["t"] = time.time(); os.killpg(p.pid, getattr(signal, sig_name))
if sig_after:
    threading.Thread(target=timed, daemon=True).start()
if log_path:
    sig_after = "log"
    threading.Thread(target=on_log, daemon=True).start()
for raw in p.stdout:
    line = raw.decode("utf-8", "replace").rstrip("\n")
    lines.append(line)
    if pat and not interrupted and re.search(pat, line):
        interrupted = True; t_int = time.time()
        os.killpg(p.pid, getattr(signal, sig_name))
rc = p.wait()
time.sleep(0.2)
stderr = err[0].decode("utf-8", "replace") if err else ""
hdr = {"tool": os.environ["CAP_TOOL"], "version": os.environ["CAP_VERSION"],
       "command": os.environ.get("CAP_COMMAND", " ".join(cmd)), "date": datetime.date.today().isoformat(),
       "scenario": scenario, "note": os.environ.get("CAP_NOTE", ""), "exit_code": rc, "stderr": stderr}
if sig_after and state["t"]:
    interrupted, t_int = True, state["t"]
if pat or sig_after:
    hdr["interrupted"] = interrupted
    if t_int: hdr["note"] += f"; exited {time.time()-t_int:.2f}s after {sig_name} (measured incl. 0.2s drain)"
with open(out, "w") as f:
    f.write(json.dumps({"cohost_fixture": hdr}) + "\n")
    for l in lines: f.write(l + "\n")
print(out, len(lines), "lines, rc", rc, "interrupted", interrupted)
