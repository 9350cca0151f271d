# Drives a pi/omp --mode rpc process: sends each command after the previous one finished.
import json, subprocess, sys
cmds = [
    {"type": "prompt", "message": "Run echo hello, then ls /nonexistent and pwd, and tell me what happened."},
    {"type": "compact"},
    {"type": "prompt", "message": "Now run false."},
]
p = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
log = open("rpc-out.jsonl", "w")
def send(c):
    p.stdin.write(json.dumps(c) + "\n"); p.stdin.flush()
i = 0
send(cmds[0])
for line in p.stdout:
    log.write(line)
    try:
        ev = json.loads(line)
    except ValueError:
        continue
    t = ev.get("type")
    done = (t == "agent_end" and cmds[i]["type"] == "prompt") or (t == "response" and ev.get("command") == "compact")
    if t == "response" and not ev.get("success", True):
        print("failed:", line.strip()[:300], file=sys.stderr)
    if done:
        i += 1
        if i == len(cmds):
            break
        send(cmds[i])
p.stdin.close()
p.wait(timeout=30)
