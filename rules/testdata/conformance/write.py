#!/usr/bin/env python3
"""write.py: writes the reader conformance fixtures in this folder.

Every file holds the same session, the scenarios of rules/conformance_test.go
as consecutive steps, in the shape one harness writes: the tool names and
arguments it offers, the words it answers failures with, the lines and
fields of its session file. The wordings come from each harness's source
and from our own recordings (transcript/testdata/<format>/,
testdata/devset/<agent>/); README.md says which. A scenario the harness
cannot express is left out, and the test says why.

Run from this folder: python3 write.py. The output is deterministic.
"""

import json

CALC = "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n"

PYTEST_FAIL = """F.                                                                       [100%]
=================================== FAILURES ===================================
___________________________________ test_add ___________________________________

    def test_add():
>       assert add(2, 3) == 5
E       assert -1 == 5
E        +  where -1 = add(2, 3)

test_calc.py:5: AssertionError
=========================== short test summary info ============================
FAILED test_calc.py::test_add - assert -1 == 5
1 failed, 1 passed in 0.02s"""

PYTEST_PASS = """..                                                                       [100%]
2 passed in 0.01s"""

YAML_FAIL = """Traceback (most recent call last):
  File "<string>", line 1, in <module>
ModuleNotFoundError: No module named 'yaml'"""

REVERTED = "Updated 1 path from the index"

TASK = "The tests fail. Find the bug in calc.py and fix it."

# The shell commands of the scenarios, as the model writes them.
CMD = {
    "tests": "python3 -m pytest -q",
    "yaml": "python3 -c \"import yaml\"",
    "revert": "git checkout -- calc.py",
    "server": "python3 -m http.server 8000 > /dev/null 2>&1 &",
    "mkdir": "mkdir -p build",
    "install": "mkdir -p /opt/calc",
}

# What the model says before each scenario's call.
SAY = {
    "tests-fail": "Running the tests first.",
    "command-fails": "Checking whether PyYAML is installed.",
    "edit-not-found": "add() subtracts. Fixing it.",
    "edit-not-unique": "Trying a shorter match.",
    "edit-rejected": "Changing the return line.",
    "refused-unknown-tool": "Running the tests with the test tool.",
    "refused-bad-arguments": "Editing calc.py again.",
    "edit-applies": "Now with the exact line.",
    "tests-pass": "Running the tests again.",
    "revert": "Putting calc.py back as it was, to compare.",
    "background": "Starting a file server for the docs.",
    "empty-output": "Making the build folder.",
    "sandbox-denied": "Making the install folder.",
}

FINAL = "add() in calc.py subtracted; it now adds and the tests pass."


def dump(path, lines):
    with open(path, "w") as f:
        for line in lines:
            f.write(json.dumps(line, separators=(",", ":"), ensure_ascii=False) + "\n")


def dump_doc(path, doc):
    with open(path, "w") as f:
        json.dump(doc, f, indent=2, ensure_ascii=False)
        f.write("\n")


class Clock:
    """Timestamps a second apart from a fixed start."""

    def __init__(self, start=1796119200):  # 2026-12-01T10:00:00Z
        self.t = start

    def tick(self, by=1):
        self.t += by
        return self.t

    def iso(self, by=1):
        import datetime

        t = self.tick(by)
        return datetime.datetime.fromtimestamp(t, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.000Z")


def hexid(n, width=8):
    return ("%0" + str(width) + "x") % (0x3f1c0000 + n * 7919)


def uuid(n):
    h = "%032x" % (0x6a1f0c2e5b7d4e21 * 1000003 + n * 2654435761)
    h = h[-32:]
    return "%s-%s-4%s-a%s-%s" % (h[:8], h[8:12], h[13:16], h[17:20], h[20:32])


# ---------------------------------------------------------------- vigil


def vigil():
    cwd = "/tmp/conformance/vigil/work"
    c = Clock()
    lines = [{"type": "session", "version": 1, "id": "c0f3a7e91b2d4c58", "cwd": cwd, "created": c.iso(0)}]
    last = [None]
    n = [0]

    def entry(msg, **extra):
        n[0] += 1
        e = {"type": "message", "id": hexid(n[0]), "parentId": last[0], "timestamp": c.iso(), "message": msg}
        e.update(extra)
        last[0] = e["id"]
        lines.append(e)

    entry({"role": "user", "content": [{"type": "text", "text": TASK}]})
    calls = [0]

    def step(scenario, name, args, text, is_error=False):
        calls[0] += 1
        cid = "toolu_conf_%d" % calls[0]
        entry(
            {"role": "assistant", "content": [{"type": "text", "text": SAY[scenario]},
                                              {"type": "tool_call", "id": cid, "name": name, "arguments": args}]},
            model="fake/m", usage={"input": 0, "output": 30, "cache_read": 2000 + 100 * calls[0]}, stopReason="tool_use")
        res = {"type": "tool_result", "id": cid, "content": [{"type": "text", "text": text}]}
        if is_error:
            res["is_error"] = True
        entry({"role": "user", "content": [res]})

    step("tests-fail", "bash", {"command": CMD["tests"]}, PYTEST_FAIL + "\n[exit code 1]", True)
    step("command-fails", "bash", {"command": CMD["yaml"]}, YAML_FAIL + "\n[exit code 1]", True)
    step("edit-not-found", "edit", {"path": "calc.py", "old_text": "return a-b", "new_text": "return a+b"},
         "edit calc.py: old_text not found; the closest line to its first line is line 2:\n2\t    return a - b", True)
    step("edit-not-unique", "edit", {"path": "calc.py", "old_text": "(a, b):", "new_text": "(a, b=0):"},
         "edit calc.py: old_text occurs 2 times, at lines 1, 5; include more surrounding lines to make it unique, "
         "or set replace_all to replace every occurrence", True)
    step("refused-unknown-tool", "run_tests", {"path": "test_calc.py"},
         "unknown tool \"run_tests\"; the tools are: read, write, edit, bash, grep, find", True)
    step("refused-bad-arguments", "edit", {"path": "calc.py", "old_text": "return a - b"},
         "edit: missing required argument \"new_text\" (string)", True)
    step("edit-applies", "edit", {"path": "calc.py", "old_text": "return a - b", "new_text": "return a + b"},
         "Edited calc.py: replaced 1 occurrence at line 2")
    step("tests-pass", "bash", {"command": CMD["tests"]}, PYTEST_PASS)
    step("revert", "bash", {"command": CMD["revert"]}, REVERTED)
    step("background", "bash", {"command": CMD["server"]}, "(no output)")
    step("empty-output", "bash", {"command": CMD["mkdir"]}, "(no output)")
    entry({"role": "assistant", "content": [{"type": "text", "text": FINAL}]},
          model="fake/m", usage={"input": 0, "output": 16, "cache_read": 3300}, stopReason="end_turn")
    dump("vigil.jsonl", lines)


# ---------------------------------------------------------------- Claude Code


def claude_code(split=False):
    """Claude Code's session file. With split, a system line (the turn's
    duration) comes between each reply's text line and its tool_use line,
    as Claude Code writes it at times: the reply is still one step."""
    cwd = "/tmp/conformance/claude-code/work"
    sid = "5b0d6c1e-8f43-4a2b-9e71-0c3d5a6f8b92"
    c = Clock()
    lines = []
    last = [None]
    n = [0]
    common = {"userType": "external", "entrypoint": "sdk-cli", "cwd": cwd, "sessionId": sid,
              "version": "2.1.332", "gitBranch": "master"}

    def line(kind, msg, **extra):
        n[0] += 1
        e = {"parentUuid": last[0], "isSidechain": False, "type": kind, "message": msg, "uuid": uuid(n[0]),
             "timestamp": c.iso()}
        e.update(extra)
        e.update(common)
        last[0] = e["uuid"]
        lines.append(e)
        return e

    line("user", {"role": "user", "content": TASK}, promptId="9c2e4b71-0a5d-4f3e-8b6c-2d1f7e9a0c34")
    calls = [0]

    def usage(k):
        return {"input_tokens": 0, "cache_creation_input_tokens": 120, "cache_read_input_tokens": 12000 + 150 * k,
                "output_tokens": 40, "service_tier": "standard"}

    def step(scenario, name, args, content, result, is_error=False):
        calls[0] += 1
        k = calls[0]
        mid, tid = "msg_conf_%d" % k, "toolu_conf_%d_0" % k
        base = {"id": mid, "type": "message", "role": "assistant", "model": "claude-fake-1",
                "stop_reason": "tool_use", "stop_sequence": None, "usage": usage(k)}
        line("assistant", dict(base, content=[{"type": "text", "text": SAY[scenario]}]), requestId="req_conf_%d" % k)
        if split:
            n[0] += 1
            e = {"parentUuid": last[0], "isSidechain": False, "type": "system", "subtype": "turn_duration",
                 "durationMs": 1200 + k, "isMeta": False, "uuid": uuid(n[0]), "timestamp": c.iso()}
            e.update(common)
            last[0] = e["uuid"]
            lines.append(e)
        call = line("assistant", dict(base, content=[{"type": "tool_use", "id": tid, "name": name, "input": args}]),
                    requestId="req_conf_%d" % k)
        block = {"tool_use_id": tid, "type": "tool_result", "content": content}
        if is_error:
            block["is_error"] = True
        line("user", {"role": "user", "content": [block]}, toolUseResult=result,
             sourceToolAssistantUUID=call["uuid"], promptId="9c2e4b71-0a5d-4f3e-8b6c-2d1f7e9a0c34")

    def bash(out, err="", bg=None):
        r = {"stdout": out, "stderr": err, "interrupted": False, "isImage": False, "noOutputExpected": False}
        if bg:
            r["backgroundTaskId"] = bg
        return r

    path = cwd + "/calc.py"
    step("tests-fail", "Bash", {"command": CMD["tests"], "description": "Run the tests"},
         "Exit code 1\n" + PYTEST_FAIL, "Error: Exit code 1\n" + PYTEST_FAIL, True)
    step("command-fails", "Bash", {"command": CMD["yaml"], "description": "Check for PyYAML"},
         "Exit code 1\n" + YAML_FAIL, "Error: Exit code 1\n" + YAML_FAIL, True)
    step("edit-not-found", "Edit", {"replace_all": False, "file_path": path, "old_string": "return a-b",
                                    "new_string": "return a+b"},
         "<tool_use_error>String to replace not found in file.\nString: return a-b</tool_use_error>",
         "Error: String to replace not found in file.\nString: return a-b", True)
    not_unique = ("Found 2 matches of the string to replace, but replace_all is false. To replace all occurrences, "
                  "set replace_all to true. To replace only one occurrence, please provide more context to uniquely "
                  "identify the instance.\nString: (a, b):")
    step("edit-not-unique", "Edit", {"replace_all": False, "file_path": path, "old_string": "(a, b):",
                                     "new_string": "(a, b=0):"},
         "<tool_use_error>" + not_unique + "</tool_use_error>", "Error: " + not_unique, True)
    step("refused-unknown-tool", "run_tests", {"path": "test_calc.py"},
         "<tool_use_error>Error: No such tool available: run_tests</tool_use_error>",
         "Error: No such tool available: run_tests", True)
    bad = "InputValidationError: Edit failed due to the following issue:\nThe required parameter `new_string` is missing"
    step("refused-bad-arguments", "Edit", {"replace_all": False, "file_path": path, "old_string": "return a - b"},
         "<tool_use_error>" + bad + "</tool_use_error>", "Error: " + bad, True)
    step("edit-applies", "Edit", {"replace_all": False, "file_path": path, "old_string": "return a - b",
                                  "new_string": "return a + b"},
         "The file %s has been updated successfully. (file state is current in your context \u2014 no need to Read "
         "it back)" % path,
         {"filePath": path, "oldString": "return a - b", "newString": "return a + b", "originalFile": CALC,
          "structuredPatch": [{"oldStart": 1, "oldLines": 5, "newStart": 1, "newLines": 5,
                               "lines": [" def add(a, b):", "-    return a - b", "+    return a + b", " ", " ",
                                         " def mul(a, b):"]}],
          "userModified": False, "replaceAll": False})
    step("tests-pass", "Bash", {"command": CMD["tests"], "description": "Run the tests"}, PYTEST_PASS,
         bash(PYTEST_PASS))
    step("revert", "Bash", {"command": CMD["revert"], "description": "Restore calc.py"}, REVERTED,
         bash("", REVERTED))
    step("background", "Bash", {"command": "python3 -m http.server 8000", "description": "Serve the docs",
                                "run_in_background": True},
         "Command running in background with ID: bq7x2k9. Output is being written to: "
         "/tmp/claude-0/-tmp-conformance-claude-code-work/tasks/bq7x2k9.output", bash("", "", "bq7x2k9"))
    step("empty-output", "Bash", {"command": CMD["mkdir"], "description": "Make the build folder"},
         "(Bash completed with no output)", bash(""))
    denied = "Claude requested permissions to use Bash, but you haven't granted it yet."
    step("sandbox-denied", "Bash", {"command": CMD["install"], "description": "Make the install folder"},
         denied, "Error: " + denied, True)
    k = calls[0] + 1
    line("assistant", {"id": "msg_conf_%d" % k, "type": "message", "role": "assistant", "model": "claude-fake-1",
                       "content": [{"type": "text", "text": FINAL}], "stop_reason": "end_turn",
                       "stop_sequence": None, "usage": usage(k)}, requestId="req_conf_%d" % k)
    dump("claude-code-split.jsonl" if split else "claude-code.jsonl", lines)
    return lines


# ---------------------------------------------------------------- Codex


def codex():
    cwd = "/tmp/conformance/codex/work"
    sid = "01a22f00-5c3e-7a10-9d2b-4e6f8a1c3b57"
    turn = "01a22f00-5d10-7c22-8e4a-1b3c5d7e9f02"
    c = Clock()
    lines = []
    ordinal = [0]

    def line(kind, payload):
        lines.append({"timestamp": c.iso(), "ordinal": ordinal[0],
                      "type": kind, "payload": payload})
        ordinal[0] += 1

    line("session_meta", {"session_id": sid, "id": sid, "timestamp": c.iso(0), "cwd": cwd, "originator": "codex_exec",
                          "cli_version": "0.171.0", "source": "exec", "model_provider": "fake",
                          "base_instructions": {"text": "You are a coding agent running in the Codex CLI."}})
    line("turn_context", {"turn_id": turn, "cwd": cwd, "approval_policy": "never", "model": "gpt-fake-1",
                          "summary": "none", "sandbox_policy": {"type": "danger-full-access"}})
    line("response_item", {"type": "message", "role": "user", "content": [
        {"type": "input_text", "text": "<environment_context>\n  <cwd>%s</cwd>\n  <shell>bash</shell>\n"
                                       "</environment_context>" % cwd}]})
    line("response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": TASK}]})
    calls = [0]

    def step(scenario, name, args, output, exec_item=None):
        calls[0] += 1
        k = calls[0]
        line("response_item", {"type": "message", "status": "completed", "id": "msg_conf_%d" % k, "role": "assistant",
                               "content": [{"type": "output_text", "text": SAY[scenario], "annotations": []}]})
        cid = "call_conf_%d_0" % k
        line("response_item", {"type": "function_call", "status": "completed", "id": "fc_conf_%d_0" % k, "name": name,
                               "arguments": json.dumps(args, separators=(",", ":")), "call_id": cid})
        if exec_item is not None:
            item = dict(exec_item, id=cid)
            line("event_msg", {"type": "item_completed", "thread_id": sid, "turn_id": turn, "item": item})
        line("response_item", {"type": "function_call_output", "call_id": cid, "output": output})

    def exec_out(code, out, chunk, wall="0.0000"):
        return ("Chunk ID: %s\nWall time: %s seconds\nProcess exited with code %d\nOriginal token count: %d\n"
                "Output:\n%s" % (chunk, wall, code, len(out) // 4, out + "\n" if out else ""))

    def done(cmd, code, out):
        return {"type": "CommandExecution", "process_id": "4%04d" % (calls[0] + 1),
                "command": ["/bin/bash", "-lc", cmd], "cwd": "file://" + cwd,
                "parsed_cmd": [{"type": "unknown", "cmd": cmd}], "source": "unified_exec_startup",
                "status": "failed" if code else "completed", "aggregated_output": out + ("\n" if out else ""),
                "exit_code": code}

    def patch(old, new):
        return ("apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: calc.py\n@@\n def add(a, b):\n-    %s\n+    %s\n"
                "*** End Patch\nEOF\n" % (old, new))

    step("tests-fail", "exec_command", {"cmd": CMD["tests"]}, exec_out(1, PYTEST_FAIL, "8c1d2e", "0.4121"),
         done(CMD["tests"], 1, PYTEST_FAIL))
    step("command-fails", "exec_command", {"cmd": CMD["yaml"]}, exec_out(1, YAML_FAIL, "3fa9b0", "0.0311"),
         done(CMD["yaml"], 1, YAML_FAIL))
    step("edit-not-found", "exec_command", {"cmd": patch("return a-b", "return a+b")},
         "apply_patch verification failed: Failed to find expected lines in %s/calc.py:\ndef add(a, b):\n"
         "    return a-b" % cwd)
    step("refused-unknown-tool", "run_tests", {"path": "test_calc.py"}, "unsupported call: run_tests")
    step("refused-bad-arguments", "exec_command", {"command": CMD["tests"]},
         "failed to parse function arguments: missing field `cmd` at line 1 column 34")
    step("edit-applies", "exec_command", {"cmd": patch("return a - b", "return a + b")},
         "Wall time: 0.0000 seconds\nOutput:\nExit code: 0\nWall time: 0 seconds\nOutput:\n"
         "Success. Updated the following files:\nM calc.py\n")
    step("tests-pass", "exec_command", {"cmd": CMD["tests"]}, exec_out(0, PYTEST_PASS, "d7e210", "0.3907"),
         done(CMD["tests"], 0, PYTEST_PASS))
    step("revert", "exec_command", {"cmd": CMD["revert"]}, exec_out(0, REVERTED, "51ab7c"),
         done(CMD["revert"], 0, REVERTED))
    step("background", "exec_command", {"cmd": "python3 -m http.server 8000", "yield_time_ms": 1000},
         "Chunk ID: 0e4c88\nWall time: 1.0012 seconds\nProcess running with session ID 71234\n"
         "Original token count: 0\nOutput:\n")
    step("empty-output", "exec_command", {"cmd": CMD["mkdir"]}, exec_out(0, "", "a2f613"),
         done(CMD["mkdir"], 0, ""))
    step("sandbox-denied", "exec_command", {"cmd": CMD["install"]},
         "failed in sandbox LinuxSeccomp with execution error: sandbox denied exec error, exit code: 1, stdout: , "
         "stderr: mkdir: cannot create directory '/opt/calc': Permission denied\n")
    line("response_item", {"type": "message", "status": "completed", "id": "msg_conf_%d" % (calls[0] + 1),
                           "role": "assistant", "content": [{"type": "output_text", "text": FINAL, "annotations": []}]})
    line("event_msg", {"type": "task_complete", "turn_id": turn, "last_agent_message": FINAL})
    dump("codex.jsonl", lines)


# ---------------------------------------------------------------- pi and omp


def pi_family(name):
    omp = name == "omp"
    cwd = "/tmp/conformance/%s/work" % name
    c = Clock()
    lines = []
    if omp:
        lines.append({"type": "title", "v": 1, "title": "", "updatedAt": c.iso(0), "pad": " " * 120})
    lines.append({"type": "session", "version": 3, "id": "01a22f10-2b3c-7d4e-8f5a-6b7c8d9e0f1%d" % omp,
                  "timestamp": c.iso(0), "cwd": cwd})
    last = [None]
    n = [0]

    def entry(e):
        n[0] += 1
        e = dict(e, id=hexid(n[0] + 100 * omp), parentId=last[0], timestamp=c.iso())
        last[0] = e["id"]
        lines.append(e)
        return e

    if omp:
        entry({"type": "model_change", "model": "fake/claude-fake-1"})
    else:
        entry({"type": "model_change", "provider": "fake", "modelId": "gpt-fake-1"})
    entry({"type": "thinking_level_change", "thinkingLevel": "off"})
    entry({"type": "message", "message": {"role": "user", "content": [{"type": "text", "text": TASK}],
                                          "timestamp": c.t * 1000}})
    calls = [0]

    def step(scenario, tool, args, text, is_error=False, details=None):
        calls[0] += 1
        k = calls[0]
        cid = ("toolu_conf_%d" if omp else "call_conf_%d_0") % k
        msg = {"role": "assistant", "content": [{"type": "text", "text": SAY[scenario]},
                                                {"type": "toolCall", "id": cid, "name": tool, "arguments": args}],
               "api": "anthropic-messages" if omp else "openai-completions", "provider": "fake",
               "model": "claude-fake-1" if omp else "gpt-fake-1",
               "usage": {"input": 80, "output": 40, "cacheRead": 1600 + 50 * k, "cacheWrite": 0,
                         "totalTokens": 1720 + 50 * k},
               "stopReason": "toolUse", "timestamp": c.t * 1000, "responseId": "resp_conf_%d" % k}
        entry({"type": "message", "message": msg})
        if omp:
            entry({"type": "custom", "customType": "tool_execution_start",
                   "data": {"toolCallId": cid, "toolName": tool, "startedAt": c.iso(0), "args": args}})
        res = {"role": "toolResult", "toolCallId": cid, "toolName": tool, "content": [{"type": "text", "text": text}],
               "isError": is_error, "timestamp": c.t * 1000}
        if details is not None:
            res["details"] = details
        entry({"type": "message", "message": res})

    def bash(out, code=0, wall="0.41"):
        # pi: the output, or "(no output)", then "Command exited with code N"
        # when it failed. omp also reports the wall time.
        text = out or "(no output)"
        if omp:
            text += "\n\n\nWall time: %s seconds" % wall if out else "\n\nWall time: %s seconds" % wall
            details = {"timeoutSeconds": 300, "wallTimeMs": float(wall) * 1000}
            if code:
                details["exitCode"] = code
        else:
            details = {}
        if code:
            text += "\n\nCommand exited with code %d" % code
        return text, code != 0, details

    def sh(scenario, cmd, out, code=0, wall="0.41"):
        text, err, details = bash(out, code, wall)
        step(scenario, "bash", {"command": cmd}, text, err, details)

    sh("tests-fail", CMD["tests"], PYTEST_FAIL, 1)
    sh("command-fails", CMD["yaml"], YAML_FAIL, 1, "0.03")
    if omp:
        # omp's edit tool in its replace mode (edit.mode: replace).
        step("edit-not-found", "edit", {"path": "calc.py", "old_text": "return a-b", "new_text": "return a+b"},
             "Failed to find expected lines in calc.py:\nreturn a-b", True, {})
        step("edit-not-unique", "edit", {"path": "calc.py", "old_text": "(a, b):", "new_text": "(a, b=0):"},
             "Found 2 occurrences of the text in calc.py. The text must be unique. Please provide more context "
             "to make it unique.", True, {})
    else:
        step("edit-not-found", "edit", {"path": "calc.py", "edits": [{"oldText": "return a-b", "newText": "return a+b"}]},
             "Could not find the exact text in calc.py. The old text must match exactly including all whitespace "
             "and newlines.", True, {})
        step("edit-not-unique", "edit",
             {"path": "calc.py", "edits": [{"oldText": "(a, b):", "newText": "(a, b=0):"}]},
             "Found 2 occurrences of the text in calc.py. The text must be unique. Please provide more context to "
             "make it unique.", True, {})
    step("refused-unknown-tool", "run_tests", {"path": "test_calc.py"}, "Tool run_tests not found", True, {})
    if omp:
        step("refused-bad-arguments", "edit", {"path": "calc.py", "old_text": "return a - b"},
             "Validation failed for tool \"edit\":\n  - new_text: must have required property 'new_text'\n\n"
             "Received arguments:\n{\n  \"path\": \"calc.py\",\n  \"old_text\": \"return a - b\"\n}", True, {})
        step("edit-applies", "edit", {"path": "calc.py", "old_text": "return a - b", "new_text": "return a + b"},
             "Successfully replaced text in calc.py.", False, {"diff": "-2     return a - b\n+2     return a + b"})
    else:
        step("refused-bad-arguments", "edit", {"path": "calc.py", "edits": [{"oldText": "return a - b"}]},
             "Validation failed for tool \"edit\":\n  - edits/0: must have required properties newText\n\n"
             "Received arguments:\n{\n  \"path\": \"calc.py\",\n  \"edits\": [\n    {\n      \"oldText\": "
             "\"return a - b\"\n    }\n  ]\n}", True, {})
        step("edit-applies", "edit",
             {"path": "calc.py", "edits": [{"oldText": "return a - b", "newText": "return a + b"}]},
             "Successfully replaced 1 block(s) in calc.py.", False,
             {"diff": " 1 def add(a, b):\n-2     return a - b\n+2     return a + b\n 3 ", "firstChangedLine": 2})
    sh("tests-pass", CMD["tests"], PYTEST_PASS, 0, "0.39")
    sh("revert", CMD["revert"], REVERTED, 0, "0.02")
    sh("background", CMD["server"], "", 0, "0.01")
    sh("empty-output", CMD["mkdir"], "", 0, "0.01")
    entry({"type": "message", "message": {
        "role": "assistant", "content": [{"type": "text", "text": FINAL}],
        "api": "anthropic-messages" if omp else "openai-completions", "provider": "fake",
        "model": "claude-fake-1" if omp else "gpt-fake-1",
        "usage": {"input": 60, "output": 16, "cacheRead": 2300, "cacheWrite": 0, "totalTokens": 2376},
        "stopReason": "stop", "timestamp": c.t * 1000, "responseId": "resp_conf_final"}})
    if omp:
        entry({"type": "custom", "customType": "session_exit",
               "data": {"reason": "dispose", "kind": "normal", "recordedAt": c.iso(0)}})
    dump(name + ".jsonl", lines)


# ---------------------------------------------------------------- omp, hashline edits


def omp_hashline():
    """omp's edit tool in its hashline mode (edit.mode: hashline): a read
    that shows line 1 of calc.py with its tag, an edit anchored on line 2,
    which that read never showed (omp rejects it and shows the line), the
    same edit again, which applies. The other scenarios are omp.jsonl's."""
    cwd = "/tmp/conformance/omp-hashline/work"
    c = Clock()
    lines = [{"type": "title", "v": 1, "title": "", "updatedAt": c.iso(0), "pad": " " * 120},
             {"type": "session", "version": 3, "id": "01a22f10-2b3c-7d4e-8f5a-6b7c8d9e0f12", "timestamp": c.iso(0),
              "cwd": cwd}]
    last = [None]
    n = [0]

    def entry(e):
        n[0] += 1
        e = dict(e, id=hexid(n[0] + 200), parentId=last[0], timestamp=c.iso())
        last[0] = e["id"]
        lines.append(e)

    entry({"type": "model_change", "model": "fake/claude-fake-1"})
    entry({"type": "thinking_level_change", "thinkingLevel": "off"})
    entry({"type": "message", "message": {"role": "user", "content": [{"type": "text", "text": TASK}],
                                          "timestamp": c.t * 1000}})
    calls = [0]

    def step(say, tool, args, text, is_error=False, details=None):
        calls[0] += 1
        cid = "toolu_hl_%d" % calls[0]
        entry({"type": "message", "message": {
            "role": "assistant", "content": [{"type": "text", "text": say},
                                             {"type": "toolCall", "id": cid, "name": tool, "arguments": args}],
            "api": "anthropic-messages", "provider": "fake", "model": "claude-fake-1",
            "usage": {"input": 80, "output": 40, "cacheRead": 1600 + 50 * calls[0], "cacheWrite": 0,
                      "totalTokens": 1720 + 50 * calls[0]},
            "stopReason": "toolUse", "timestamp": c.t * 1000, "responseId": "resp_hl_%d" % calls[0]}})
        entry({"type": "custom", "customType": "tool_execution_start",
               "data": {"toolCallId": cid, "toolName": tool, "startedAt": c.iso(0), "args": args}})
        res = {"role": "toolResult", "toolCallId": cid, "toolName": tool, "content": [{"type": "text", "text": text}],
               "isError": is_error, "timestamp": c.t * 1000}
        if details is not None:
            res["details"] = details
        entry({"type": "message", "message": res})

    step("Reading the start of calc.py.", "read", {"path": "calc.py", "limit": 1}, "[calc.py#3F2A]\n1:def add(a, b):")
    patch = "[calc.py#3F2A]\nPUT 2.=2:\n+    return a + b\n"
    step(SAY["edit-not-found"], "edit", {"input": patch},
         "This edit anchors to lines 2 of calc.py that [calc.py#3F2A] never displayed (it showed a partial range, a "
         "search hit, or a folded summary). Preview of the actual file content at the unseen line(s):\n"
         "  2:    return a - b\nThose lines are now part of the snapshot: retry the same edit to apply it.", True, {})
    step(SAY["edit-applies"], "edit", {"input": patch},
         "Updated calc.py\n[calc.py#9C1D]\n2:    return a + b", False,
         {"diff": " 1 def add(a, b):\n-2     return a - b\n+2     return a + b\n 3 ", "firstChangedLine": 2})
    entry({"type": "message", "message": {
        "role": "assistant", "content": [{"type": "text", "text": FINAL}],
        "api": "anthropic-messages", "provider": "fake", "model": "claude-fake-1",
        "usage": {"input": 60, "output": 16, "cacheRead": 2300, "cacheWrite": 0, "totalTokens": 2376},
        "stopReason": "stop", "timestamp": c.t * 1000, "responseId": "resp_hl_final"}})
    entry({"type": "custom", "customType": "session_exit",
           "data": {"reason": "dispose", "kind": "normal", "recordedAt": c.iso(0)}})
    dump("omp-hashline.jsonl", lines)


# ---------------------------------------------------------------- mini-swe-agent


def mini_swe_agent():
    c = Clock()
    messages = [
        {"role": "system", "content": "You are a helpful assistant that can interact with a computer shell to solve "
                                      "programming tasks."},
        {"role": "user", "content": "<pr_description>\nConsider the following PR description:\n" + TASK +
                                    "\n</pr_description>"},
    ]
    calls = [0]

    def step(scenario, cmd, code, out):
        calls[0] += 1
        k = calls[0]
        cid = "call_00_conf%04dMiniSweAgent" % k
        tc = {"index": 0, "function": {"arguments": json.dumps({"command": cmd}), "name": "bash"}, "id": cid,
              "type": "function"}
        say = SAY[scenario]
        messages.append({
            "content": say, "role": "assistant", "tool_calls": [tc], "function_call": None,
            "provider_specific_fields": None,
            "extra": {
                "actions": [{"command": cmd, "tool_call_id": cid}],
                "response": {"id": "resp-conf-%d" % k, "created": c.tick(), "model": "deepseek-chat",
                             "object": "chat.completion",
                             "choices": [{"finish_reason": "tool_calls", "index": 0,
                                          "message": {"content": say, "role": "assistant", "tool_calls": [tc],
                                                      "function_call": None}}],
                             "usage": {"completion_tokens": 60, "prompt_tokens": 1600 + 200 * k,
                                       "total_tokens": 1660 + 200 * k,
                                       "prompt_tokens_details": {"cached_tokens": 1536 + 192 * (k - 1)}}},
                "cost": 0.0004, "timestamp": c.t + 0.25}})
        content = "<returncode>%d</returncode>\n<output>\n%s</output>" % (code, out + "\n" if out else "")
        messages.append({"content": content,
                         "extra": {"raw_output": out + ("\n" if out else ""), "returncode": code,
                                   "timestamp": c.tick() + 0.5, "exception_info": ""},
                         "tool_call_id": cid, "role": "tool"})

    step("tests-fail", "cd /testbed && " + CMD["tests"], 1, PYTEST_FAIL)
    step("command-fails", CMD["yaml"], 1, YAML_FAIL)
    step("edit-applies", "cd /testbed && sed -i 's/return a - b/return a + b/' calc.py", 0, "")
    step("tests-pass", "cd /testbed && " + CMD["tests"], 0, PYTEST_PASS)
    step("revert", "cd /testbed && " + CMD["revert"], 0, REVERTED)
    step("background", "cd /testbed && " + CMD["server"], 0, "")
    step("empty-output", "cd /testbed && " + CMD["mkdir"], 0, "")
    # The submission: mini-swe-agent answers it with an exit message.
    calls[0] += 1
    cid = "call_00_conf%04dMiniSweAgent" % calls[0]
    cmd = "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git diff -- calc.py"
    tc = {"index": 0, "function": {"arguments": json.dumps({"command": cmd}), "name": "bash"}, "id": cid,
          "type": "function"}
    messages.append({"content": FINAL, "role": "assistant", "tool_calls": [tc], "function_call": None,
                     "provider_specific_fields": None,
                     "extra": {"actions": [{"command": cmd, "tool_call_id": cid}], "cost": 0.0003,
                               "timestamp": c.tick() + 0.25}})
    messages.append({"role": "exit", "content": "", "extra": {"exit_status": "Submitted", "submission": ""}})
    doc = {"info": {"model_stats": {"instance_cost": 0.0031, "api_calls": calls[0]},
                    "config": {"model": {"model_name": "deepseek/deepseek-chat"},
                               "environment": {"cwd": "/testbed", "timeout": 60}},
                    "mini_version": "2.2.7", "exit_status": "Submitted", "submission": ""},
           "messages": messages, "trajectory_format": "mini-swe-agent-1", "instance_id": "conformance__calc-1"}
    dump_doc("mini-swe-agent.traj.json", doc)


# ---------------------------------------------------------------- SWE-agent


SWE_STATE = "\n(Open file: %s)\n(Current directory: /testbed)\nbash-$"


def swe_agent_fc():
    """SWE-agent 1.x with function calling and the edit_anthropic tools
    (bash, str_replace_editor, submit): history, trajectory, info."""
    history = [
        {"role": "system", "content": "You are a helpful assistant that can interact with a computer to solve tasks.",
         "agent": "main", "message_type": "system_prompt"},
        {"role": "user", "content": [{"type": "text", "text": "<uploaded_files>\n/testbed\n</uploaded_files>\n" + TASK}],
         "agent": "main", "message_type": "observation"},
    ]
    trajectory = []
    calls = [0]

    def step(scenario, tool, args, action, observation):
        calls[0] += 1
        cid = "call_conf%02dSweAgentFc" % calls[0]
        say = SAY[scenario]
        history.append({"role": "assistant", "content": say, "thought": say, "action": action, "agent": "main",
                        "tool_calls": [{"function": {"arguments": json.dumps(args), "name": tool}, "id": cid,
                                        "type": "function"}],
                        "message_type": "action"})
        text = "OBSERVATION:\n" + observation if observation else \
            "Your command ran successfully and did not produce any output."
        history.append({"role": "tool", "content": [{"type": "text", "text": text}], "agent": "main",
                        "message_type": "observation", "tool_call_ids": [cid]})
        trajectory.append({"action": action, "observation": observation, "response": say, "thought": say,
                           "execution_time": 0.2, "state": {"working_dir": "/testbed"}, "query": [{"role": "system"}],
                           "extra_info": {}})

    def sh(scenario, cmd, out):
        step(scenario, "bash", {"command": cmd}, cmd, out)

    def ed(scenario, args, out):
        action = "str_replace_editor " + " ".join(
            [args["command"], args["path"]] + ["--%s %s" % (k, json.dumps(args[k])) for k in ("old_str", "new_str")
                                               if k in args])
        step(scenario, "str_replace_editor", args, action, out)

    sh("tests-fail", CMD["tests"], PYTEST_FAIL)
    sh("command-fails", CMD["yaml"], YAML_FAIL)
    ed("edit-not-found", {"command": "str_replace", "path": "/testbed/calc.py", "old_str": "return a-b",
                          "new_str": "return a+b"},
       "No replacement was performed, old_str `return a-b` did not appear verbatim in /testbed/calc.py.")
    ed("edit-not-unique", {"command": "str_replace", "path": "/testbed/calc.py", "old_str": "(a, b):",
                           "new_str": "(a, b=0):"},
       "No replacement was performed. Multiple occurrences of old_str `(a, b):` in lines [1, 5]. Please ensure it "
       "is unique.")
    ed("edit-applies", {"command": "str_replace", "path": "/testbed/calc.py", "old_str": "return a - b",
                        "new_str": "return a + b"},
       "The file /testbed/calc.py has been edited. Here's the result of running `cat -n` on a snippet of "
       "/testbed/calc.py:\n     1\tdef add(a, b):\n     2\t    return a + b\n     3\t\n     4\t\n"
       "Review the changes and make sure they are as expected. Edit the file again if necessary.")
    sh("tests-pass", CMD["tests"], PYTEST_PASS)
    sh("revert", CMD["revert"], REVERTED)
    sh("background", CMD["server"], "")
    sh("empty-output", CMD["mkdir"], "")
    sh("sandbox-denied", CMD["install"], "mkdir: cannot create directory '/opt/calc': Permission denied")
    step_submit(history, trajectory, "call_conf%02dSweAgentFc" % (calls[0] + 1))
    doc = {"trajectory": trajectory, "history": history,
           "info": {"swe_agent_hash": "conformance", "swe_agent_version": "1.1.0", "exit_status": "submitted",
                    "submission": "diff --git a/calc.py b/calc.py\n",
                    "model_stats": {"instance_cost": 0.02, "tokens_sent": 41000, "tokens_received": 900,
                                    "api_calls": len(trajectory)}},
           "replay_config": json.dumps({"agent": {"model": {"name": "claude-sonnet-4-20250514"}},
                                        "problem_statement": {"id": "conformance__calc-1"}}),
           "environment": "main"}
    dump_doc("swe-agent.traj", doc)


def step_submit(history, trajectory, cid):
    say = FINAL
    history.append({"role": "assistant", "content": say, "thought": say, "action": "submit", "agent": "main",
                    "tool_calls": [{"function": {"arguments": "{}", "name": "submit"}, "id": cid, "type": "function"}],
                    "message_type": "action"})
    history.append({"role": "tool", "content": [{"type": "text", "text": "OBSERVATION:\ndiff --git a/calc.py b/calc.py\n"}],
                    "agent": "main", "message_type": "observation", "tool_call_ids": [cid]})
    trajectory.append({"action": "submit", "observation": "diff --git a/calc.py b/calc.py\n", "response": say,
                       "thought": say, "execution_time": 0.1, "state": {"working_dir": "/testbed"},
                       "query": [{"role": "system"}], "extra_info": {}})


def swe_agent_windowed():
    """SWE-agent with text actions and the windowed edit tool with linting
    (edit N:M ... end_of_edit), as 0.x wrote it: an edit the linter
    rejects is re-queried and kept in the trajectory only."""
    history = [
        {"role": "system", "content": "SETTING: You are an autonomous programmer, and you're working directly in "
                                      "the command line with a special interface.", "agent": "primary"},
        {"role": "user", "content": "We're currently solving the following issue within our repository. Here's the "
                                    "issue text:\nISSUE:\n" + TASK + "\n\n(Open file: n/a)\n(Current directory: "
                                    "/testbed)\nbash-$", "agent": "primary"},
    ]
    trajectory = []

    def step(scenario, action, out, open_file="/testbed/calc.py", in_history=True):
        say = SAY[scenario]
        response = "DISCUSSION\n%s\n\n```\n%s\n```" % (say, action)
        obs = out + SWE_STATE % open_file
        if in_history:
            history.append({"role": "assistant", "content": response, "thought": "DISCUSSION\n" + say,
                            "action": action + "\n", "agent": "primary"})
            history.append({"role": "user", "content": obs, "agent": "primary"})
        trajectory.append({"action": action + "\n", "observation": obs.rsplit("\n(Open file:", 1)[0],
                           "response": response, "state": "{\"open_file\": \"%s\", \"working_dir\": \"/testbed\"}"
                                                           % open_file,
                           "thought": "DISCUSSION\n" + say})

    window = ("[File: /testbed/calc.py (6 lines total)]\n1:def add(a, b):\n2:    return a %s b\n3:\n4:\n"
              "5:def mul(a, b):\n6:    return a * b")
    step("tests-fail", CMD["tests"], PYTEST_FAIL, "n/a")
    step("command-fails", CMD["yaml"], YAML_FAIL, "n/a")
    lint = ("Your proposed edit has introduced new syntax error(s). Please read this error message carefully and "
            "then retry editing the file.\n\nERRORS:\n- E999 IndentationError: unexpected indent\n\nThis is how your "
            "edit would have looked if applied\n-------------------------------------------------\n"
            "[File: /testbed/calc.py (6 lines total)]\n1:def add(a, b):\n2:        return a + b\n3:\n4:\n"
            "5:def mul(a, b):\n6:    return a * b\n-------------------------------------------------\n\n"
            "This is the original code before your edit\n-------------------------------------------------\n"
            + window % "-" + "\n-------------------------------------------------\n"
            "Your changes have NOT been applied. Please fix your edit command and try again.\n"
            "You either need to 1) Specify the correct start/end line arguments or 2) Correct your edit code.\n"
            "DO NOT re-run the same failed edit command. Running it again will lead to the same error.")
    step("edit-rejected", "edit 2:2\n        return a + b\nend_of_edit", lint, in_history=False)
    step("edit-applies", "edit 2:2\n    return a + b\nend_of_edit",
         window % "+" + "\nFile updated. Please review the changes and make sure they are correct (correct "
                        "indentation, no duplicate lines, etc). Edit the file again if necessary.")
    step("tests-pass", CMD["tests"], PYTEST_PASS)
    say = "The tests pass. Submitting."
    history.append({"role": "assistant", "content": "DISCUSSION\n%s\n\n```\nsubmit\n```" % say,
                    "thought": "DISCUSSION\n" + say, "action": "submit\n", "agent": "primary"})
    trajectory.append({"action": "submit\n", "observation": "\ndiff --git a/calc.py b/calc.py\n",
                       "response": "DISCUSSION\n%s\n\n```\nsubmit\n```" % say,
                       "state": "{\"open_file\": \"/testbed/calc.py\", \"working_dir\": \"/testbed\"}",
                       "thought": "DISCUSSION\n" + say})
    doc = {"environment": "swe_main", "trajectory": trajectory, "history": history,
           "info": {"exit_status": "submitted", "submission": "\ndiff --git a/calc.py b/calc.py\n",
                    "model_stats": {"total_cost": 0.31, "instance_cost": 0.05, "tokens_sent": 14000,
                                    "tokens_received": 420, "api_calls": len(trajectory)}}}
    dump_doc("swe-agent-windowed.traj", doc)


# ---------------------------------------------------------------- OpenHands


def openhands_v1():
    """OpenHands V1 (the software agent SDK): one event per line, the
    terminal and file_editor tools."""
    c = Clock()
    lines = []
    n = [0]

    def event(e):
        n[0] += 1
        e = dict({"id": "%08x-0c1d-4e2f-8a3b-%012x" % (0x7e21a000 + n[0], 0x5c6d7e8f9000 + n[0]),
                  "timestamp": c.iso()[:-1].replace(".000", ".%06d" % (123456 + n[0]))}, **e)
        lines.append(e)
        return e

    event({"source": "user", "llm_message": {"role": "user", "content": [{"cache_prompt": False, "type": "text",
                                                                          "text": TASK}], "thinking_blocks": []},
           "activated_skills": [], "extended_content": [], "kind": "MessageEvent"})
    calls = [0]

    def act(scenario, tool, action, arguments):
        calls[0] += 1
        cid = "call_conf%02dOpenHandsV1" % calls[0]
        a = event({"source": "agent", "thought": [{"type": "text", "text": SAY[scenario]}], "thinking_blocks": [],
                   "action": action, "tool_name": tool, "tool_call_id": cid,
                   "tool_call": {"id": cid, "name": tool, "arguments": json.dumps(arguments, separators=(",", ":")),
                                 "origin": "completion"},
                   "llm_response_id": "chatcmpl-conf%02d" % calls[0], "security_risk": "LOW", "kind": "ActionEvent"})
        return cid, a

    def terminal(scenario, cmd, code, out):
        cid, a = act(scenario, "terminal", {"command": cmd, "is_input": False, "reset": False,
                                            "kind": "TerminalAction"},
                     {"command": cmd, "security_risk": "LOW"})
        event({"source": "environment", "tool_name": "terminal", "tool_call_id": cid,
               "observation": {"content": [{"cache_prompt": False, "type": "text", "text": out}],
                               "is_error": False, "command": cmd, "exit_code": code, "timeout": False,
                               "metadata": {"exit_code": code, "pid": -1, "username": "openhands",
                                            "hostname": "runtime-conformance", "working_dir": "/workspace",
                                            "py_interpreter_path": "/usr/bin/python3", "prefix": "",
                                            "suffix": "\n[The command completed with exit code %d.]" % code},
                               "kind": "TerminalObservation"},
               "action_id": a["id"], "kind": "ObservationEvent"})

    def editor(scenario, args, out, is_error):
        action = {"command": args["command"], "path": args["path"], "file_text": None,
                  "old_str": args.get("old_str"), "new_str": args.get("new_str"), "insert_line": None,
                  "view_range": None, "kind": "FileEditorAction"}
        cid, a = act(scenario, "file_editor", action, dict(args, security_risk="LOW"))
        event({"source": "environment", "tool_name": "file_editor", "tool_call_id": cid,
               "observation": {"content": [{"cache_prompt": False, "type": "text", "text": out}],
                               "is_error": is_error, "command": args["command"], "path": args["path"],
                               "prev_exist": True, "old_content": None, "new_content": None,
                               "kind": "FileEditorObservation"},
               "action_id": a["id"], "kind": "ObservationEvent"})

    def refused(scenario, tool, arguments, error):
        calls[0] += 1
        cid = "call_conf%02dOpenHandsV1" % calls[0]
        event({"source": "agent", "thought": [{"type": "text", "text": SAY[scenario]}], "thinking_blocks": [],
               "action": None, "tool_name": tool, "tool_call_id": cid,
               "tool_call": {"id": cid, "name": tool, "arguments": json.dumps(arguments, separators=(",", ":")),
                             "origin": "completion"},
               "llm_response_id": "chatcmpl-conf%02d" % calls[0], "security_risk": "UNKNOWN", "kind": "ActionEvent"})
        event({"source": "agent", "tool_name": tool, "tool_call_id": cid, "error": error, "kind": "AgentErrorEvent"})

    path = "/workspace/calc.py"
    terminal("tests-fail", CMD["tests"], 1, PYTEST_FAIL)
    terminal("command-fails", CMD["yaml"], 1, YAML_FAIL)
    editor("edit-not-found", {"command": "str_replace", "path": path, "old_str": "return a-b", "new_str": "return a+b"},
           "No replacement was performed, old_str `return a-b` did not appear verbatim in %s." % path, True)
    editor("edit-not-unique", {"command": "str_replace", "path": path, "old_str": "(a, b):", "new_str": "(a, b=0):"},
           "No replacement was performed. Multiple occurrences of old_str `(a, b):` in lines [1, 5]. Please ensure "
           "it is unique.", True)
    refused("refused-unknown-tool", "run_tests", {"path": "test_calc.py"},
            "Tool 'run_tests' not found. Available: ['terminal', 'file_editor', 'task_tracker', 'finish']")
    bad = {"command": "str_replace", "path": path, "old_str": "return a - b", "new_str": 7}
    refused("refused-bad-arguments", "file_editor", bad,
            "Error validating args %s for tool 'file_editor': 1 validation error for FileEditorAction\nnew_str\n"
            "  Input should be a valid string [type=string_type, input_value=7, input_type=int]"
            % json.dumps(bad, separators=(",", ":")))
    editor("edit-applies", {"command": "str_replace", "path": path, "old_str": "return a - b",
                            "new_str": "return a + b"},
           "The file %s has been edited. Here's the result of running `cat -n` on a snippet of %s:\n"
           "     1\tdef add(a, b):\n     2\t    return a + b\n     3\t\n     4\t\nReview the changes and make sure "
           "they are as expected. Edit the file again if necessary." % (path, path), False)
    terminal("tests-pass", CMD["tests"], 0, PYTEST_PASS)
    terminal("revert", CMD["revert"], 0, REVERTED)
    terminal("background", CMD["server"], 0, "[1] 4242")
    terminal("empty-output", CMD["mkdir"], 0, "")
    calls[0] += 1
    cid = "call_conf%02dOpenHandsV1" % calls[0]
    a = event({"source": "agent", "thought": [], "thinking_blocks": [], "action": {"message": FINAL,
                                                                                   "kind": "FinishAction"},
               "tool_name": "finish", "tool_call_id": cid,
               "tool_call": {"id": cid, "name": "finish", "arguments": json.dumps({"message": FINAL}),
                             "origin": "completion"},
               "llm_response_id": "chatcmpl-conf%02d" % calls[0], "security_risk": "UNKNOWN", "kind": "ActionEvent"})
    event({"source": "environment", "tool_name": "finish", "tool_call_id": cid,
           "observation": {"content": [{"cache_prompt": False, "type": "text", "text": FINAL}], "is_error": False,
                           "kind": "FinishObservation"}, "action_id": a["id"], "kind": "ObservationEvent"})
    dump("openhands-v1.jsonl", lines)


def openhands_v0():
    """OpenHands V0 (the app): a JSON list of events; execute_bash and
    str_replace_editor calls in tool_call_metadata, with the model's
    response."""
    c = Clock()
    events = []
    n = [0]

    def event(e):
        n[0] += 1
        e = dict({"id": n[0], "timestamp": c.iso()[:-1].replace(".000", ".%06d" % (200000 + n[0]))}, **e)
        events.append(e)
        return e

    event({"source": "user", "message": TASK, "action": "message",
           "args": {"content": TASK, "image_urls": None, "wait_for_response": False}, "timeout": 120})
    calls = [0]

    def meta(name, arguments, say):
        calls[0] += 1
        cid = "toolu_conf%02dOpenHandsV0" % calls[0]
        return cid, {"function_name": name, "tool_call_id": cid,
                     "model_response": {"id": "chatcmpl-conf-v0-%02d" % calls[0], "created": c.t,
                                        "model": "claude-3-5-sonnet-20241022", "object": "chat.completion",
                                        "choices": [{"finish_reason": "tool_calls", "index": 0, "message": {
                                            "content": say, "role": "assistant",
                                            "tool_calls": [{"index": 1, "function": {
                                                "arguments": json.dumps(arguments), "name": name},
                                                "id": cid, "type": "function"}]}}],
                                        "usage": {"completion_tokens": 90, "prompt_tokens": 3500 + 150 * calls[0],
                                                  "total_tokens": 3590 + 150 * calls[0],
                                                  "prompt_tokens_details": {"cached_tokens": 3400 + 140 * calls[0]}}},
                     "total_calls_in_response": 1}

    def run(scenario, cmd, code, out):
        m = meta("execute_bash", {"command": cmd, "is_input": "false"}, SAY[scenario])[1]
        a = event({"source": "agent", "message": "Running command: " + cmd, "action": "run", "tool_call_metadata": m,
                   "args": {"command": cmd, "is_input": False, "thought": SAY[scenario], "blocking": False,
                            "hidden": False, "confirmation_state": "confirmed"}, "timeout": 120})
        event({"source": "agent", "message": "Command `%s` executed with exit code %d." % (cmd, code), "cause": a["id"],
               "observation": "run", "tool_call_metadata": m, "content": out,
               "extras": {"command": cmd, "metadata": {
                   "exit_code": code, "pid": -1, "username": "openhands", "hostname": "runtime-conformance",
                   "working_dir": "/workspace", "py_interpreter_path": "/usr/bin/python3", "prefix": "",
                   "suffix": "\n[The command completed with exit code %d.]" % code}, "hidden": False},
               "success": code == 0})

    def edit(scenario, old, new, out):
        path = "/workspace/calc.py"
        m = meta("str_replace_editor", {"command": "str_replace", "path": path, "old_str": old, "new_str": new},
                 SAY[scenario])[1]
        a = event({"source": "agent", "message": "Editing file: " + path, "action": "edit", "tool_call_metadata": m,
                   "args": {"path": path, "command": "str_replace", "file_text": None, "old_str": old, "new_str": new,
                            "insert_line": None, "content": "", "start": 1, "end": -1, "thought": SAY[scenario],
                            "impl_source": "oh_aci"}, "timeout": 120})
        event({"source": "agent", "message": "I edited the file %s." % path, "cause": a["id"], "observation": "edit",
               "tool_call_metadata": m, "content": out,
               "extras": {"path": path, "prev_exist": False, "old_content": None, "new_content": None,
                          "impl_source": "oh_aci", "diff": "", "_diff_cache": None}})

    run("tests-fail", CMD["tests"], 1, PYTEST_FAIL)
    run("command-fails", CMD["yaml"], 1, YAML_FAIL)
    edit("edit-not-found", "return a-b", "return a+b",
         "ERROR:\nNo replacement was performed, old_str `return a-b` did not appear verbatim in /workspace/calc.py.")
    edit("edit-not-unique", "(a, b):", "(a, b=0):",
         "ERROR:\nNo replacement was performed. Multiple occurrences of old_str `(a, b):` in lines [1, 5]. Please "
         "ensure it is unique.")
    edit("edit-applies", "return a - b", "return a + b",
         "The file /workspace/calc.py has been edited. Here's the result of running `cat -n` on a snippet of "
         "/workspace/calc.py:\n     1\tdef add(a, b):\n     2\t    return a + b\n     3\t\n     4\t\nReview the "
         "changes and make sure they are as expected. Edit the file again if necessary.")
    run("tests-pass", CMD["tests"], 0, PYTEST_PASS)
    run("revert", CMD["revert"], 0, REVERTED)
    run("background", CMD["server"], 0, "[1] 4242")
    run("empty-output", CMD["mkdir"], 0, "")
    m = meta("finish", {}, FINAL)[1]
    event({"source": "agent", "message": FINAL, "action": "finish", "tool_call_metadata": m,
           "args": {"outputs": {}, "thought": FINAL}, "timeout": 120})
    with open("openhands-v0.json", "w") as f:
        json.dump(events, f, indent=2)
        f.write("\n")


# ---------------------------------------------------------------- aider


# The tag aider writes a reasoning model's thinking in.
AIDER_THINKING = "thinking-content-7bbeb8e1441453ad999a0bbba8a46d4b"


def aider(message=False):
    """aider's chat history: only its edits are calls (SEARCH/REPLACE blocks);
    a failure message carries "> " on its first line only. With message,
    the task comes from a --message of two lines on the launch line (whose
    second line has no "> "), and the first reply opens with a reasoning
    model's thinking that sketches a block of its own: neither is a step."""
    launch = "> /usr/local/bin/aider calc.py test_calc.py  "
    task = "#### %s  " % TASK
    thinking = ""
    if message:
        first, second = TASK.split(". ", 1)
        launch = "> /usr/local/bin/aider calc.py test_calc.py --message %s.\n%s  " % (first, second)
        task = "#### %s.  \n#### %s  " % (first, second)
        thinking = ("<%s>\n\nThe test says add(2, 3) is -1. Perhaps:\n\ncalc.py\n```python\n<<<<<<< SEARCH\n"
                    "    return a-b\n=======\n    return a+b\n>>>>>>> REPLACE\n```\n\n</%s>\n\n"
                    % (AIDER_THINKING, AIDER_THINKING))
    text = """# aider chat started at 2026-12-01 10:00:00

%(launch)s
> Aider v0.86.1  
> Main model: anthropic/claude-sonnet-4-20250514 with diff edit format, infinite output  
> Weak model: anthropic/claude-3-5-haiku-20241022  
> Git repo: .git with 2 files  
> Repo-map: using 4096 tokens, auto refresh  
> Added calc.py to the chat.  
> Added test_calc.py to the chat.  

%(task)s

%(thinking)s%(not_found)s

calc.py
```python
<<<<<<< SEARCH
    return a-b
=======
    return a+b
>>>>>>> REPLACE
```

> Tokens: 2.4k sent, 61 received. Cost: $0.0081 message, $0.0081 session.  
> The LLM did not conform to the edit format.  
> https://aider.chat/docs/troubleshooting/edit-errors.html  
> # 1 SEARCH/REPLACE block failed to match!

## SearchReplaceNoExactMatch: This SEARCH block failed to exactly match lines in calc.py
<<<<<<< SEARCH
    return a-b
=======
    return a+b
>>>>>>> REPLACE

Did you mean to match some of these actual lines from calc.py?

```
    return a - b
```

The SEARCH section must exactly match an existing block of lines including all white space, comments, indentation, docstrings, etc  

%(applies)s

calc.py
```python
<<<<<<< SEARCH
    return a - b
=======
    return a + b
>>>>>>> REPLACE
```

> Tokens: 2.7k sent, 58 received. Cost: $0.0090 message, $0.017 session.  
> Applied edit to calc.py  
> Commit 3b9e1c2 fix: Add instead of subtract in add()  
> You can use /undo to undo and discard each aider commit.  

#### /test python3 -m pytest -q  

> ..                                                                       [100%%]  
> 2 passed in 0.01s  
""" % {"launch": launch, "task": task, "thinking": thinking, "not_found": SAY["edit-not-found"],
       "applies": SAY["edit-applies"]}
    with open("aider-message.chat.history.md" if message else "aider.chat.history.md", "w") as f:
        f.write(text)


def aider_whole():
    """aider in the whole edit format: the reply gives calc.py whole, and
    aider writes it."""
    fixed = CALC.replace("return a - b", "return a + b")
    text = """# aider chat started at 2026-12-01 10:30:00

> /usr/local/bin/aider --model gpt-4o-mini --edit-format whole calc.py  
> Aider v0.86.1  
> Model: gpt-4o-mini with whole edit format  
> Git repo: .git with 2 files  
> Repo-map: using 1024 tokens, auto refresh  
> Added calc.py to the chat.  

#### %(task)s  

%(applies)s

calc.py
```
%(fixed)s```

> Tokens: 1.2k sent, 64 received. Cost: $0.00022 message, $0.00022 session.  
> Applied edit to calc.py  
> Commit 7a1b2c3 fix: Add instead of subtract in add()  
> You can use /undo to undo and discard each aider commit.  
""" % {"task": TASK, "applies": "add() subtracts. Here is calc.py with the fix:", "fixed": fixed}
    with open("aider-whole.chat.history.md", "w") as f:
        f.write(text)


def pi_headerless():
    """pi.jsonl without its session header line: a file cut at the front."""
    with open("pi.jsonl") as f:
        lines = f.readlines()
    with open("pi-headerless.jsonl", "w") as f:
        f.writelines(lines[1:])


def claude_stream(session):
    """What claude -p --output-format stream-json --verbose prints for the
    Claude Code session: the init line, the conversation's lines with
    session_id and parent_tool_use_id (the task itself is not printed),
    and the result line."""
    sid = session[0]["sessionId"]
    out = [{"type": "system", "subtype": "init", "cwd": session[0]["cwd"], "session_id": sid,
            "tools": ["Bash", "Edit", "Read"], "mcp_servers": [], "model": "claude-fake-1",
            "permissionMode": "default", "slash_commands": [], "apiKeySource": "none",
            "claude_code_version": "2.1.332", "output_style": "default", "agents": [], "skills": [], "plugins": [],
            "uuid": uuid(900)}]
    denials = []
    for e in session[1:]:
        if e["type"] not in ("assistant", "user"):
            continue
        line = {"type": e["type"], "message": e["message"], "parent_tool_use_id": None, "session_id": sid,
                "uuid": e["uuid"]}
        if "toolUseResult" in e:
            line["tool_use_result"] = e["toolUseResult"]
        for b in e["message"]["content"] if isinstance(e["message"]["content"], list) else []:
            if b.get("type") == "tool_result" and "haven't granted" in str(b.get("content")):
                denials.append({"tool_name": "Bash", "tool_use_id": b["tool_use_id"],
                                "tool_input": {"command": CMD["install"]}})
        out.append(line)
    out.append({"type": "result", "subtype": "success", "is_error": False, "duration_ms": 41200,
                "duration_api_ms": 39800, "num_turns": 14, "result": FINAL, "stop_reason": "end_turn",
                "session_id": sid, "total_cost_usd": 0.0871,
                "usage": {"input_tokens": 24, "cache_creation_input_tokens": 1440, "cache_read_input_tokens": 170000,
                          "output_tokens": 560}, "permission_denials": denials, "uuid": uuid(901)})
    dump("claude-stream.jsonl", out)


def openhands_resolver():
    """The OpenHands resolver's early output (one run per line, events
    without ids at the top of their arguments): commands through run, edits
    through run_ipython cells that call the agentskills helpers, whose
    failure is a traceback ("No exact match found", "appears more than
    once"), and finish."""
    cwd = "/workspace"
    history = [{"content": "Please fix the following issue for the repository in /workspace.\n\n# Problem Statement\n"
                           + TASK, "images_urls": None, "wait_for_response": False, "action": "message",
                "security_risk": None}]

    def run(scenario, cmd, code, out):
        history.append({"command": cmd, "thought": SAY[scenario], "keep_prompt": True, "action": "run",
                        "is_confirmed": "confirmed", "security_risk": None})
        history.append({"content": (out + "\r\n" if out else "") + "root@4f3a9c2b1d0e:/workspace # ",
                        "command_id": -1, "command": cmd, "exit_code": code, "observation": "run"})

    def ipython(scenario, code, out):
        history.append({"code": code, "thought": SAY[scenario], "include_extra": True, "action": "run_ipython",
                        "is_confirmed": "confirmed", "kernel_init_code": "", "security_risk": None})
        history.append({"content": out + "\n[Jupyter current working directory: %s]" % cwd, "code": code,
                        "observation": "run_ipython"})

    def traceback(err):
        return ("---------------------------------------------------------------------------\n"
                "ValueError                                Traceback (most recent call last)\n"
                "Cell In[1], line 1\n----> 1 edit_file_by_replace(\n\nValueError: " + err)

    run("tests-fail", CMD["tests"], 1, PYTEST_FAIL.replace("\n", "\r\n"))
    run("command-fails", CMD["yaml"], 1, YAML_FAIL.replace("\n", "\r\n"))
    ipython("edit-not-found", "edit_file_by_replace(\n    '/workspace/calc.py',\n    to_replace=\"    return a-b\",\n"
                              "    new_content=\"    return a+b\",\n)",
            traceback("No exact match found in /workspace/calc.py for\n```\n    return a-b\n```"))
    ipython("edit-not-unique", "edit_file_by_replace(\n    '/workspace/calc.py',\n    to_replace='(a, b):',\n"
                               "    new_content='(a, b=0):',\n)",
            traceback("`to_replace` appears more than once, please include enough lines to make code in "
                      "`to_replace` unique."))
    ipython("edit-applies", "edit_file_by_replace(\n    '/workspace/calc.py',\n    to_replace='    return a - b',\n"
                            "    new_content='    return a + b',\n)",
            "[File: /workspace/calc.py (5 lines total after edit)]\n(this is the beginning of the file)\n"
            "1|def add(a, b):\n2|    return a + b\n3|\n4|\n5|def mul(a, b):\n(this is the end of the file)\n"
            "[File updated (edited at line 2). Please review the changes and make sure they are correct (correct "
            "indentation, no duplicate lines, etc). Edit the file again if necessary.]")
    run("tests-pass", CMD["tests"], 0, PYTEST_PASS.replace("\n", "\r\n"))
    run("revert", CMD["revert"], 0, REVERTED)
    run("background", CMD["server"], 0, "[1] 4242")
    run("empty-output", CMD["mkdir"], 0, "")
    history.append({"outputs": {}, "thought": FINAL, "action": "finish"})
    doc = {"issue": {"owner": "example", "repo": "calc", "number": 7, "title": "add subtracts",
                     "body": "add(2, 3) returns -1 instead of 5."}, "issue_type": "issue",
           "instruction": history[0]["content"], "base_commit": "", "git_patch": "", "history": history,
           "metrics": {"accumulated_cost": 0.05}, "success": True, "comment_success": None,
           "result_explanation": "add() now adds.", "error": None}
    dump("openhands-resolver.jsonl", [doc])


if __name__ == "__main__":
    vigil()
    session = claude_code()
    claude_code(split=True)
    claude_stream(session)
    codex()
    pi_family("pi")
    pi_headerless()
    pi_family("omp")
    omp_hashline()
    mini_swe_agent()
    swe_agent_fc()
    swe_agent_windowed()
    openhands_v1()
    openhands_v0()
    aider()
    aider(message=True)
    aider_whole()
    openhands_resolver()
