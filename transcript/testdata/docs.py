#!/usr/bin/env python3
"""docs.py: writes the mini-swe-agent, SWE-agent, OpenHands and aider
fixtures in mini-swe-agent/, swe-agent/, openhands/ and aider/.

The runs are written, not recorded: one small task (calc.py's add()
subtracts; fix it so the tests pass) worked through in the shapes those
harnesses write, with the fields, messages and harness texts of their
versions (mini-swe-agent 2.2.7 with tool calls, mini-swe-agent 1's list of
messages with ```bash actions, SWE-agent 0.x text actions with a
trajectory, SWE-agent 1.x function calling with only a history; OpenHands
V0 event lists, early resolver output and V1 SDK events; aider's
.aider.chat.history.md). Each run exercises what its reader must handle;
the tests say what they expect of each. Run from this folder: python3
docs.py. The output is deterministic.
"""

import json

TASK = ("calc.add returns the wrong result\n\nadd(2, 3) returns -1 instead of 5, and test_calc.py::test_add "
        "fails. Fix calc.py so that the tests pass.")

CALC = "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n"
TEST = ("from calc import add, mul\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\ndef test_mul():\n"
        "    assert mul(2, 3) == 6\n")
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
1 failed, 1 passed in 0.02s
"""
PYTEST_PASS = "..                                                                       [100%]\n2 passed in 0.01s\n"
DIFF = """diff --git a/calc.py b/calc.py
index 3b18e51..9f2c0d4 100644
--- a/calc.py
+++ b/calc.py
@@ -1,5 +1,5 @@
 def add(a, b):
-    return a - b
+    return a + b
 
 
 def mul(a, b):
"""


def dump_doc(path, doc):
    with open(path, "w") as f:
        json.dump(doc, f, indent=2, ensure_ascii=False)
        f.write("\n")


# ---------------------------------------------------------------- mini-swe-agent 2.2.7, tool calls


def mini_dict():
    t = [1796119200.0]

    def now(by=1.7):
        t[0] += by
        return round(t[0], 4)

    instance = ("<pr_description>\nConsider the following PR description:\n" + TASK + "\n</pr_description>\n\n"
                "<instructions>\n# Task Instructions\n\nYour task is specifically to make changes to non-test files "
                "in the current directory in order to fix the issue described in the PR description.\n"
                "</instructions>")
    messages = [
        {"role": "system", "content": "You are a helpful assistant that can interact with a computer shell to solve "
                                      "programming tasks."},
        {"role": "user", "content": instance},
    ]
    n = [0]

    def reply(text, cmds, usage):
        n[0] += 1
        calls = []
        for k, cmd in enumerate(cmds):
            calls.append({"index": k, "function": {"arguments": json.dumps({"command": cmd}), "name": "bash"},
                          "id": "call_%02d_calc%02dq%s" % (k, n[0], "XYZW"[k]), "type": "function"})
        msg = {"content": text, "role": "assistant", "tool_calls": calls, "function_call": None,
               "provider_specific_fields": None,
               "extra": {"actions": [{"command": c["function"]["arguments"] and json.loads(c["function"]["arguments"])
                                      ["command"], "tool_call_id": c["id"]} for c in calls],
                         "response": {"id": "0c9e%04d-5a1b-4c2d-9e3f-7a8b9c0d1e2f" % n[0], "created": int(now(0)),
                                      "model": "deepseek-chat", "object": "chat.completion",
                                      "choices": [{"finish_reason": "tool_calls", "index": 0,
                                                   "message": {"content": text, "role": "assistant",
                                                               "tool_calls": calls, "function_call": None}}],
                                      "usage": usage},
                         "cost": 0.00031, "timestamp": now()}}
        messages.append(msg)
        return [c["id"] for c in calls]

    def usage(prompt, completion, cached):
        return {"completion_tokens": completion, "prompt_tokens": prompt, "total_tokens": prompt + completion,
                "completion_tokens_details": None, "prompt_tokens_details": {"cached_tokens": cached},
                "prompt_cache_hit_tokens": cached, "prompt_cache_miss_tokens": prompt - cached}

    def tool(cid, out, rc=0, exception=""):
        content = ""
        if exception:
            content += "<exception>%s</exception>\n" % exception
        content += "<returncode>%d</returncode>\n<output>\n%s</output>" % (rc, out)
        extra = {"raw_output": out, "returncode": rc, "timestamp": now(0.4)}
        if exception:
            extra["exception_info"] = exception
            extra["exception_type"] = "TimeoutExpired"
        else:
            extra["exception_info"] = ""
        messages.append({"content": content, "extra": extra, "tool_call_id": cid, "role": "tool"})

    [c] = reply("I'll start by looking at the files in the repository.", ["find /testbed -name \"*.py\" | sort"],
                usage(1450, 95, 256))
    tool(c, "/testbed/calc.py\n/testbed/test_calc.py\n")
    c1, c2 = reply("Let me read the module and its tests.", ["cat /testbed/calc.py", "cat /testbed/test_calc.py"],
                   usage(1620, 88, 1408))
    tool(c1, CALC)
    tool(c2, TEST)
    [c] = reply("`add` subtracts. Let me confirm with the tests.", ["cd /testbed && python -m pytest -q"],
                usage(1890, 70, 1600))
    tool(c, PYTEST_FAIL, 1)
    # A reply without a tool call: mini-swe-agent records only its complaint.
    messages.append({"role": "user", "content": "Tool call error:\n\n<error>\nNo tool calls found in the response. "
                                                "Every response MUST include at least one tool call.\n</error>\n\n"
                                                "Here is general guidance on how to submit correct toolcalls:\n\n"
                                                "Every response needs to use the 'bash' tool at least once to "
                                                "execute commands.",
                     "extra": {"interrupt_type": "FormatError"}})
    [c] = reply("I'll fix the operator in `add`.",
                ["cd /testbed && sed -i 's/return a - b/return a + b/' calc.py"], usage(2400, 81, 1856))
    tool(c, "")
    [c] = reply("Let me check the optional YAML support mentioned in the docs.", ["python -c \"import yaml\""],
                usage(2490, 60, 2368))
    tool(c, "Traceback (most recent call last):\n  File \"<string>\", line 1, in <module>\n"
            "ModuleNotFoundError: No module named 'yaml'\n", 1)
    [c] = reply("PyYAML is not needed for this fix. Let me try the docs server anyway.",
                ["cd /testbed && python -m http.server 8000"], usage(2610, 64, 2432))
    tool(c, "", -1, "An error occurred while executing the command: Command '['docker', 'exec', '-w', '/testbed', "
                    "'conformance', 'bash', '-c', 'cd /testbed && python -m http.server 8000']' timed out after 60 "
                    "seconds")
    [c] = reply("That blocks; not needed. Running the tests again.", ["cd /testbed && python -m pytest -q"],
                usage(2790, 58, 2560))
    tool(c, PYTEST_PASS)
    [c] = reply("The tests pass. Creating the patch.", ["cd /testbed && git diff -- calc.py > patch.txt"],
                usage(2880, 57, 2752))
    tool(c, "")
    [c] = reply("Submitting the patch.", ["echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && cat patch.txt"],
                usage(2960, 41, 2816))
    messages.append({"role": "exit", "content": DIFF, "extra": {"exit_status": "Submitted", "submission": DIFF}})
    doc = {"info": {"model_stats": {"instance_cost": 0.0028, "api_calls": n[0]},
                    "config": {"agent": {"step_limit": 250, "cost_limit": 3.0},
                               "agent_type": "minisweagent.run.benchmarks.swebench.ProgressTrackingAgent",
                               "model": {"model_name": "deepseek/deepseek-chat",
                                         "model_kwargs": {"drop_params": True, "temperature": 0.0,
                                                          "parallel_tool_calls": True}},
                               "model_type": "minisweagent.models.litellm_model.LitellmModel",
                               "environment": {"image": "docker.io/example/calc:latest", "cwd": "/testbed",
                                               "timeout": 60, "executable": "docker"},
                               "environment_type": "minisweagent.environments.docker.DockerEnvironment"},
                    "mini_version": "2.2.7", "exit_status": "Submitted", "submission": DIFF},
           "messages": messages, "trajectory_format": "mini-swe-agent-1", "instance_id": "example__calc-1"}
    dump_doc("mini-swe-agent/calc.traj.json", doc)


# ---------------------------------------------------------------- mini-swe-agent 1, a list of messages


def mini_list():
    def obs(out, rc=0):
        return {"role": "user", "content": "<returncode>%d</returncode>\n<output>\n%s</output>" % (rc, out)}

    def act(thought, *cmds):
        blocks = "".join("\n\n```bash\n%s\n```" % c for c in cmds)
        return {"role": "assistant", "content": "THOUGHT: " + thought + blocks}

    messages = [
        {"role": "system", "content": "You are a helpful assistant that can interact with a computer.\n\nYour "
                                      "response must contain exactly ONE bash code block with ONE command (or "
                                      "commands connected with && or ||)."},
        {"role": "user", "content": "<pr_description>\n" + TASK + "\n</pr_description>"},
        act("I'll start by listing the files in the repository.", "ls"),
        obs("calc.py\ntest_calc.py\n"),
        act("Let me read both files.", "cat calc.py", "cat test_calc.py"),
        {"role": "user", "content": "Please always provide EXACTLY ONE action in triple backticks, found 2 actions."},
        act("One at a time, then: the module first.", "cat calc.py"),
        obs(CALC),
        act("`add` subtracts. Let me run the tests to confirm.", "python -m pytest -q"),
        obs(PYTEST_FAIL, 1),
        act("I'll replace the operator.", "sed -i 's/return a - b/return a + b/' calc.py"),
        obs(""),
        act("Running the tests again.", "python -m pytest -q"),
        obs(PYTEST_PASS),
        act("The fix works. Submitting.", "echo MINI_SWE_AGENT_FINAL_OUTPUT && git diff"),
        {"role": "user", "content": DIFF},
    ]
    dump_doc("mini-swe-agent/calc.list.traj.json", messages)


# ---------------------------------------------------------------- SWE-agent 0.x, text actions


STATE = "\n(Open file: %s)\n(Current directory: /testbed)\nbash-$"


def swe_text():
    history = [
        {"role": "system", "content": "SETTING: You are an autonomous programmer, and you're working directly in the "
                                      "command line with a special interface.\n\nCOMMANDS:\nopen <path> [<line_number>]"
                                      "\nedit <start_line>:<end_line>\n<replacement_text>\nend_of_edit\nsubmit",
         "agent": "primary"},
        {"role": "user", "content": "Here is a demonstration of how to correctly accomplish this task.\nIt is included "
                                    "to show you how to correctly use the interface.\n--- DEMONSTRATION ---\n"
                                    "(a shortened demonstration)\n--- END OF DEMONSTRATION ---\n",
         "agent": "primary", "is_demo": True},
        {"role": "user", "content": "We're currently solving the following issue within our repository. Here's the "
                                    "issue text:\nISSUE:\n" + TASK + "\n\nINSTRUCTIONS:\nNow, you're going to solve "
                                    "this issue on your own." + STATE % "n/a", "agent": "primary"},
    ]
    trajectory = []

    def step(thought, action, out, open_file, in_history=True):
        content = "%s\n```\n%s\n```" % (thought, action) if thought else "```\n%s\n```" % action
        if in_history:
            history.append({"role": "assistant", "content": content, "thought": thought + "\n", "action": action + "\n",
                            "agent": "primary"})
            history.append({"role": "user", "content": out + STATE % open_file, "agent": "primary"})
        trajectory.append({"action": action + "\n", "observation": out, "response": content,
                           "state": json.dumps({"open_file": open_file, "working_dir": "/testbed"}),
                           "thought": thought + "\n"})

    window = "[File: /testbed/calc.py (6 lines total)]\n1:def add(a, b):\n2:    return a %s b\n3:\n4:\n" \
             "5:def mul(a, b):\n6:    return a * b"
    step("Let's first reproduce the failure by running the tests.", "python -m pytest -q test_calc.py",
         PYTEST_FAIL.rstrip("\n"), "n/a")
    step("", "open calc.py", window % "-", "/testbed/calc.py")
    lint = ("Your proposed edit has introduced new syntax error(s). Please read this error message carefully and "
            "then retry editing the file.\n\nERRORS:\n- E999 IndentationError: unexpected indent\n\n"
            "This is how your edit would have looked if applied\n-------------------------------------------------\n"
            "[File: /testbed/calc.py (6 lines total)]\n1:def add(a, b):\n2:        return a + b\n3:\n4:\n"
            "5:def mul(a, b):\n6:    return a * b\n-------------------------------------------------\n\n"
            "This is the original code before your edit\n-------------------------------------------------\n"
            + window % "-" + "\n-------------------------------------------------\n"
            "Your changes have NOT been applied. Please fix your edit command and try again.\n"
            "You either need to 1) Specify the correct start/end line arguments or 2) Correct your edit code.\n"
            "DO NOT re-run the same failed edit command. Running it again will lead to the same error.")
    step("Line 2 should add the numbers.", "edit 2:2\n        return a + b\nend_of_edit", lint, "/testbed/calc.py",
         in_history=False)
    step("The indentation was wrong. Line 2 needs four spaces.", "edit 2:2\n    return a + b\nend_of_edit",
         window % "+" + "\nFile updated. Please review the changes and make sure they are correct (correct "
                        "indentation, no duplicate lines, etc). Edit the file again if necessary.",
         "/testbed/calc.py")
    step("Let's check the docs server the README mentions still starts.", "python -m http.server 8000",
         "\nEXECUTION TIMED OUT", "/testbed/calc.py")
    step("It blocks, as a server does. Let's run the tests again.", "python -m pytest -q test_calc.py",
         PYTEST_PASS.rstrip("\n"), "/testbed/calc.py")
    thought, action = "The tests pass now. Let's submit the change.", "submit"
    content = "%s\n```\n%s\n```" % (thought, action)
    history.append({"role": "assistant", "content": content, "thought": thought + "\n", "action": action + "\n",
                    "agent": "primary"})
    trajectory.append({"action": action + "\n", "observation": "\n" + DIFF, "response": content,
                       "state": json.dumps({"open_file": "/testbed/calc.py", "working_dir": "/testbed"}),
                       "thought": thought + "\n"})
    doc = {"environment": "swe_main", "trajectory": trajectory, "history": history,
           "info": {"exit_status": "submitted", "submission": "\n" + DIFF,
                    "model_stats": {"total_cost": 0.41, "instance_cost": 0.06, "tokens_sent": 21500,
                                    "tokens_received": 640, "api_calls": len(trajectory)}}}
    dump_doc("swe-agent/calc-text.traj", doc)


# ---------------------------------------------------------------- SWE-agent 1.x, function calling, history only


def swe_fc():
    history = [
        {"role": "system", "content": "SETTING: You are an autonomous programmer, and you're working directly in the "
                                      "command line with a special interface.", "agent": "main",
         "message_type": "system_prompt"},
        {"role": "user", "content": "We're currently solving the following issue within our repository. Here's the "
                                    "issue text:\nISSUE:\n" + TASK + "\n\nINSTRUCTIONS:\nREMEMBER, YOU SHOULD ALWAYS "
                                    "INCLUDE EXACTLY ONE TOOL CALL/FUNCTION CALL PER RESPONSE." + STATE % "n/a",
         "agent": "main", "message_type": "observation"},
    ]
    n = [0]

    def step(thought, name, args, action, out, open_file):
        n[0] += 1
        cid = "call_calc%02dSweAgentFunctionCall" % n[0]
        history.append({"role": "assistant", "content": thought, "thought": thought, "action": action,
                        "agent": "main",
                        "tool_calls": [{"function": {"arguments": json.dumps(args, separators=(",", ":")),
                                                     "name": name}, "id": cid, "type": "function"}],
                        "message_type": "action"})
        history.append({"role": "tool", "content": out + STATE % open_file, "agent": "main",
                        "message_type": "observation", "tool_call_ids": [cid]})

    window = "[File: /testbed/calc.py (6 lines total)]\n1:def add(a, b):\n2:    return a %s b\n3:\n4:\n" \
             "5:def mul(a, b):\n6:    return a * b"
    step("Let's find calc.py first.", "find_file", {"file_name": "calc.py"}, "find_file calc.py",
         "Found 1 matches for \"calc.py\" in /testbed:\n/testbed/calc.py", "n/a")
    step("Let's open it.", "open", {"path": "calc.py"}, "open \"calc.py\"", window % "-", "/testbed/calc.py")
    step("`add` subtracts; it should add.", "edit", {"search": "return a - b", "replace": "return a + b"},
         "edit 'return a - b' 'return a + b'",
         "Text replaced. Please review the changes and make sure they are correct:\n\n1. The edited file is "
         "correctly indented\n2. The edited file does not contain duplicate lines\n3. The edit does not break "
         "existing functionality\n\nEdit the file again if necessary.\n" + window % "+", "/testbed/calc.py")
    step("Let's run the tests.", "bash", {"command": "python -m pytest -q test_calc.py"},
         "python -m pytest -q test_calc.py", PYTEST_PASS.rstrip("\n"), "/testbed/calc.py")
    step("The tests pass. Submitting.", "submit", {}, "submit", "\n" + DIFF, "/testbed/calc.py")
    dump_doc("swe-agent/calc-fc.traj", {"history": history})


# ---------------------------------------------------------------- OpenHands V0: an exported event list


def oh_stamp(t):
    """An OpenHands timestamp: local time without a zone, microseconds."""
    import datetime

    return datetime.datetime.fromtimestamp(t, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")


class OHEvents:
    """V0 events with ids and times, as the app's trajectory export lists them."""

    def __init__(self, start):
        self.events = []
        self.t = start
        self.next_id = 0

    def add(self, e, by=1.3, skip=0):
        self.next_id += skip
        self.t += by
        e = dict({"id": self.next_id, "timestamp": oh_stamp(self.t)}, **e)
        self.next_id += 1
        self.events.append(e)
        return e

    def user(self, text, skip=0):
        return self.add({"source": "user", "message": text, "action": "message",
                         "args": {"content": text, "image_urls": None, "wait_for_response": False},
                         "timeout": 120}, skip=skip)


def oh_meta(name, cid, resp, model, say, arguments, usage):
    """tool_call_metadata of a V0 action: the function the model called and
    the model's response, its arguments as the model wrote them."""
    return {"function_name": name, "tool_call_id": cid,
            "model_response": {"id": resp, "created": 1796119200, "model": model, "object": "chat.completion",
                               "system_fingerprint": None,
                               "choices": [{"finish_reason": "tool_calls", "index": 0, "message": {
                                   "content": say, "role": "assistant",
                                   "tool_calls": [{"index": 1, "function": {"arguments": arguments, "name": name},
                                                   "id": cid, "type": "function"}],
                                   "function_call": None}}],
                               "usage": usage, "service_tier": None},
            "total_calls_in_response": 1}


def oh_usage(prompt, completion, read, written):
    """LiteLLM's usage for an Anthropic model: the cache reads under
    prompt_tokens_details, the cache writes beside them."""
    return {"completion_tokens": completion, "prompt_tokens": prompt, "total_tokens": prompt + completion,
            "completion_tokens_details": None, "prompt_tokens_details": {"audio_tokens": None, "cached_tokens": read},
            "cache_creation_input_tokens": written, "cache_read_input_tokens": read}


def oh_shell_meta(code, cwd="/workspace"):
    return {"exit_code": code, "pid": -1, "username": "openhands", "hostname": "runtime-calc-7f3b2c",
            "working_dir": cwd, "py_interpreter_path": "/openhands/poetry/openhands-ai-py3.12/bin/python",
            "prefix": "", "suffix": "\n[The command completed with exit code %d.]" % code}


def openhands_state():
    """V0 with tools, where the workspace is not as the task says: the task
    names calc.py and test_calc.py at the top, the repository keeps them in
    src/ and tests/. The first test run fails (exit code 4), a listing shows
    where the files are, an edit fixes add(), the tests pass, finish."""
    ev = OHEvents(1796119200.0)
    model = "claude-sonnet-4-20250514"
    task = "Please fix add() in calc.py so that the tests in test_calc.py pass."
    ev.user(task)
    # The workspace context the app recalls for the first message.
    ev.add({"source": "user", "message": "Retrieving content for: " + task, "action": "recall",
            "args": {"recall_type": "workspace_context", "query": task, "thought": ""}}, by=0.01)
    ev.add({"source": "environment", "message": "Added workspace context", "cause": 1, "observation": "recall",
            "content": "Added workspace context",
            "extras": {"recall_type": "workspace_context", "repo_name": "", "repo_directory": "", "repo_instructions": "",
                       "runtime_hosts": {}, "additional_agent_instructions": "", "date": "2026-11-30",
                       "custom_secrets_descriptions": {}, "conversation_instructions": "", "microagent_knowledge": []}},
           by=0.02)
    n = [0]

    def call(name, action, args, arguments, say, usage, message):
        n[0] += 1
        cid = "toolu_01Calc%02dState%sOpenHands" % (n[0], "QRSTUVWXYZ"[n[0]])
        meta = oh_meta(name, cid, "chatcmpl-5e1c%04d-7a2b-4c3d-8e9f-0a1b2c3d4e5f" % n[0], model, say, arguments, usage)
        return ev.add({"source": "agent", "message": message, "action": action, "tool_call_metadata": meta,
                       "args": dict(args, thought=say), "timeout": 120}, by=2.6), meta

    def observe(a, meta, observation, message, content, extras, **more):
        return ev.add(dict({"source": "agent", "message": message, "cause": a["id"], "observation": observation,
                            "tool_call_metadata": meta, "content": content, "extras": extras}, **more), by=0.6)

    def run(cmd, say, usage, code, out):
        a, meta = call("execute_bash", "run", {"command": cmd, "is_input": False, "blocking": False, "is_static": False,
                                               "cwd": None, "hidden": False, "confirmation_state": "confirmed"},
                       json.dumps({"command": cmd, "is_input": "false"}), say, usage, "Running command: " + cmd)
        observe(a, meta, "run", "Command `%s` executed with exit code %d." % (cmd, code), out,
                {"command": cmd, "metadata": oh_shell_meta(code), "hidden": False}, success=code == 0)

    run("cd /workspace && python -m pytest -q test_calc.py",
        "I'll start by running the tests to see the failure.", oh_usage(3480, 102, 0, 3474), 4,
        "ERROR: file or directory not found: test_calc.py\n\n\nno tests ran in 0.01s")
    say = "There is no test_calc.py at the top of the workspace. Let me look at how the repository is laid out."
    a, meta = call("str_replace_editor", "read", {"path": "/workspace", "start": 0, "end": -1, "impl_source": "oh_aci",
                                                  "view_range": None,
                                                  "translated_ipython_code": "print(file_editor(**{'command': 'view', "
                                                                             "'path': '/workspace'}))"},
                   json.dumps({"command": "view", "path": "/workspace"}), say, oh_usage(3690, 96, 3474, 210),
                   "Reading file: /workspace")
    observe(a, meta, "read", "I read the file /workspace.",
            "Here's the files and directories up to 2 levels deep in /workspace, excluding hidden items:\n/workspace/\n"
            "/workspace/README.md\n/workspace/src/\n/workspace/src/calc.py\n/workspace/tests/\n"
            "/workspace/tests/test_calc.py", {"path": "/workspace", "impl_source": "oh_aci"})
    say = "The module is src/calc.py. add() subtracts; I'll make it add."
    path = "/workspace/src/calc.py"
    a, meta = call("str_replace_editor", "edit", {"path": path, "command": "str_replace", "file_text": None,
                                                  "old_str": "    return a - b", "new_str": "    return a + b",
                                                  "insert_line": None, "content": "", "start": 1, "end": -1,
                                                  "impl_source": "oh_aci"},
                   json.dumps({"command": "str_replace", "path": path, "old_str": "    return a - b",
                               "new_str": "    return a + b"}), say, oh_usage(3910, 188, 3684, 220),
                   "Editing file: " + path)
    observe(a, meta, "edit", "I edited the file %s." % path,
            "The file %s has been edited. Here's the result of running `cat -n` on a snippet of %s:\n"
            "     1\tdef add(a, b):\n     2\t    return a + b\n     3\t\n     4\t\n     5\tdef mul(a, b):\n"
            "Review the changes and make sure they are as expected. Edit the file again if necessary." % (path, path),
            {"path": path, "prev_exist": True, "old_content": None, "new_content": None, "impl_source": "oh_aci",
             "diff": "--- %s\n+++ %s\n@@ -2 +2 @@\n-    return a - b\n+    return a + b\n" % (path, path),
             "_diff_cache": None})
    run("cd /workspace && python -m pytest -q tests", "Now the tests, from where they are.",
        oh_usage(4260, 74, 3904, 350), 0, PYTEST_PASS.rstrip("\n"))
    done = "add() in src/calc.py subtracted; it now adds, and the tests in tests/ pass."
    n[0] += 1
    cid = "toolu_01Calc%02dStateFinishOpenHands" % n[0]
    meta = oh_meta("finish", cid, "chatcmpl-5e1c%04d-7a2b-4c3d-8e9f-0a1b2c3d4e5f" % n[0], model, done,
                   json.dumps({"message": done, "task_completed": "true"}), oh_usage(4420, 61, 4254, 160))
    ev.add({"source": "agent", "message": done, "action": "finish", "tool_call_metadata": meta,
            "args": {"final_thought": done, "task_completed": "true", "outputs": {}, "thought": ""}, "timeout": 120},
           by=2.1)
    dump_doc("openhands/calc-state.json", ev.events)


def openhands_chat():
    """V0 chat: the user asks, the agent answers without calls, twice, then
    finishes when told to (gpt-4o: a finish call with no content)."""
    ev = OHEvents(1796122800.0)

    def reply(text, skip=2):
        ev.add({"source": "agent", "message": text, "action": "message",
                "args": {"content": text, "image_urls": None, "wait_for_response": True}, "timeout": 120},
               by=1.9, skip=skip)

    ev.user("what does add(2, 3) return in calc.py?")
    reply("add(2, 3) returns -1: add() in calc.py computes a - b instead of a + b.")
    ev.user("And mul(2, 3)?", skip=2)
    reply("mul(2, 3) returns 6, as it should: mul() computes a * b.")
    ev.user("Finish please", skip=2)
    cid = "call_Calc7xQe2Lr9FinishNoContent"
    meta = oh_meta("finish", cid, "chatcmpl-CalcChat5d2WkqV8r0N3a", "gpt-4o-2024-08-06", None, "{}",
                   {"completion_tokens": 10, "prompt_tokens": 2471, "total_tokens": 2481,
                    "completion_tokens_details": {"accepted_prediction_tokens": 0, "audio_tokens": 0,
                                                  "reasoning_tokens": 0, "rejected_prediction_tokens": 0},
                    "prompt_tokens_details": {"audio_tokens": 0, "cached_tokens": 2304}})
    meta["model_response"]["system_fingerprint"] = "fp_7c2f1a9b3e"
    meta["model_response"]["service_tier"] = "default"
    ev.add({"source": "agent", "message": "All done! Anything else about calc.py?", "action": "finish",
            "tool_call_metadata": meta, "args": {"outputs": {}, "thought": ""}, "timeout": 120}, by=1.3, skip=2)
    dump_doc("openhands/calc-chat.json", ev.events)


# ---------------------------------------------------------------- OpenHands: early resolver output


def openhands_resolver():
    """One resolver run per line: the issue, the instruction, and a history
    of events without ids, times or sources, their arguments at the top;
    success and error close the run."""
    instruction = ("Please fix the following issue for the repository in /workspace.\nEnvironment has been set up "
                   "for you to start working. You may assume all necessary tools are installed.\n\n# Problem "
                   "Statement\nadd(2, 3) returns -1 instead of 5.\n\nIMPORTANT: You should ONLY interact with the "
                   "environment provided to you AND NEVER ASK FOR HUMAN HELP.\nYou should NOT modify any existing "
                   "test case files. If needed, you can add new test cases in a NEW file to reproduce the issue.\n"
                   "When you think you have fixed the issue through code changes, please run the following command: "
                   "<execute_bash> exit </execute_bash>.")
    prompt = "\r\nroot@4f3a9c2b1d0e:/workspace # "
    code = ("import re\n\nsrc = open('calc.py').read()\nsrc = src.replace('return a - b', 'return a + b')\n"
            "with open('calc.py', 'w') as f:\n    f.write(src)\nprint('Replaced the operator in add.')")
    history = [
        {"content": instruction, "images_urls": None, "wait_for_response": False, "action": "message",
         "security_risk": None},
        {"command": "cat calc.py", "thought": "Let me look at calc.py first.", "keep_prompt": True, "action": "run",
         "is_confirmed": "confirmed", "security_risk": None},
        {"content": CALC.replace("\n", "\r\n") + prompt.lstrip("\r\n"), "command_id": -1, "command": "cat calc.py",
         "exit_code": 0, "observation": "run"},
        {"code": code, "thought": "add() subtracts. I'll replace the operator with a short Python script.",
         "include_extra": True, "action": "run_ipython", "is_confirmed": "confirmed", "kernel_init_code": "",
         "security_risk": None},
        {"content": "Replaced the operator in add.\n[Jupyter current working directory: /workspace]", "code": code,
         "observation": "run_ipython"},
        {"command": "python -m pytest -q", "thought": "Now let's run the tests to check the fix.", "keep_prompt": True,
         "action": "run", "is_confirmed": "confirmed", "security_risk": None},
        {"content": PYTEST_PASS.replace("\n", "\r\n") + prompt.lstrip("\r\n"), "command_id": -1,
         "command": "python -m pytest -q", "exit_code": 0, "observation": "run"},
        {"outputs": {}, "thought": "add() now returns the sum of its arguments and the tests pass. The issue is "
                                   "fixed.", "action": "finish"},
    ]
    run = {"issue": {"owner": "example", "repo": "calc", "number": 7, "title": "add subtracts",
                     "body": "add(2, 3) returns -1 instead of 5."},
           "issue_type": "issue", "instruction": instruction, "base_commit": "", "git_patch": DIFF,
           "history": history, "metrics": {"accumulated_cost": 0.0412, "costs": [0.0121, 0.0133, 0.0158]},
           "success": True, "comment_success": None,
           "result_explanation": "The agent changed add() in calc.py to return a + b and the tests pass.",
           "error": None}
    with open("openhands/calc-resolver.jsonl", "w") as f:
        f.write(json.dumps(run, ensure_ascii=False) + "\n")


# ---------------------------------------------------------------- OpenHands V1: software agent SDK events


def openhands_v1():
    """The events of one V1 conversation, one event file per line (the
    system prompt's event left out): the user's message, a terminal call
    and its observation, a finish call and its observation, another
    message, and the agent's answer without tools."""
    t = [1796126400.0]
    k = [0]

    def event(e, by=1.4):
        k[0] += 1
        t[0] += by
        return dict({"id": "7c0f%04d-3e5a-4b6c-9d8e-1f2a3b4c5d6e" % k[0], "timestamp": oh_stamp(t[0])}, **e)

    def text(s):
        return [{"cache_prompt": False, "type": "text", "text": s}]

    def message(source, role, s, resp=None):
        e = {"source": source, "llm_message": {"role": role, "content": text(s), "thinking_blocks": []}}
        if resp:
            e["llm_response_id"] = resp
        e.update({"activated_skills": [], "extended_content": [], "kind": "MessageEvent"})
        return event(e)

    def action(tool, act, args, resp, summary, risk):
        cid = "call_Calc%dV1" % k[0] + "aQ3mZ8kLw2"
        arguments = json.dumps(dict(args, security_risk=risk, summary=summary), separators=(",", ":"))
        return event({"source": "agent", "thought": [], "thinking_blocks": [], "action": act, "tool_name": tool,
                      "tool_call_id": cid, "tool_call": {"id": cid, "name": tool, "arguments": arguments,
                                                         "origin": "completion"},
                      "llm_response_id": resp, "security_risk": risk, "summary": summary, "kind": "ActionEvent"},
                     by=1.8)

    def observation(a, obs):
        return event({"source": "environment", "tool_name": a["tool_name"], "tool_call_id": a["tool_call_id"],
                      "observation": obs, "action_id": a["id"], "kind": "ObservationEvent"}, by=0.2)

    cmd = "sed -i 's/return a - b/return a + b/' /workspace/calc.py"
    events = [message("user", "user", "add() in /workspace/calc.py subtracts. Use the terminal tool to make it add, "
                                      "then reply with a short confirmation once done.")]
    a = action("terminal", {"command": cmd, "is_input": False, "reset": False, "kind": "TerminalAction"},
               {"command": cmd}, "chatcmpl-CalcV1a7Kq2mN4pR6sT8u", "Replace the operator in add()", "LOW")
    events += [a, observation(a, {"content": text(""), "is_error": False, "command": cmd, "exit_code": 0,
                                  "timeout": False, "metadata": oh_shell_meta(0, "/workspace"),
                                  "kind": "TerminalObservation"})]
    done = "add() in calc.py now returns a + b."
    a = action("finish", {"message": done, "kind": "FinishAction"}, {"message": done}, "chatcmpl-CalcV1b9Lr3nP5qS7tV0w",
               "add() fixed", "UNKNOWN")
    events += [a, observation(a, {"content": text(done), "is_error": False, "kind": "FinishObservation"})]
    events.append(message("user", "user", "Without using any tools, say in one sentence what you changed."))
    events.append(message("agent", "assistant", "I changed the operator in add() from - to +, so add(2, 3) now "
                                                "returns 5.", "chatcmpl-CalcV1c2Ms4oQ6rU8wX1y"))
    with open("openhands/calc-v1.jsonl", "w") as f:
        for e in events:
            f.write(json.dumps(e, separators=(",", ":"), ensure_ascii=False) + "\n")


# ---------------------------------------------------------------- aider: .aider.chat.history.md


def aider_out(*lines):
    """aider's own output as its history writes it: "> " before each line
    and a Markdown line break after it; an empty line is ">" and the break."""
    return "".join(("> " + l if l else ">") + "  \n" for l in lines)


def aider_in(*lines):
    """What the user typed, one "#### " line each."""
    return "".join("#### " + l + "  \n" for l in lines)


def aider_history():
    """Four sessions as aider appends them: the file cut inside a session
    (a reply's tail, a lint failure sent back, ^C); a launch that only
    committed; a fix with a SEARCH/REPLACE block in the diff edit format,
    then /diff and /ex; a session in the whole edit format whose reply is
    the whole new file, interrupted with ^C."""
    sonnet = "claude-sonnet-4-20250514"
    launch = ["Aider v0.86.1", "Main model: %s with diff edit format, infinite output" % sonnet,
              "Weak model: claude-3-5-haiku-20241022", "Git repo: .git with 3 files",
              "Repo-map: using 4096 tokens, auto refresh"]
    lint = ["# Fix any errors below, if possible.", "", "## Running: flake8 --select=E9,E999,F821,F823,F831,F406,F407,"
            "F701,F702,F704,F706 --show-source --isolated calc.py", "", "calc.py:6:16: F821 undefined name 'c'",
            "    return a * c", "               ^", "", "## See relevant line below marked with █.", "", "calc.py:",
            "...⋮...", "  5│def mul(a, b):", "  6█    return a * c"]
    text = ("The tests call `mul` with two arguments, so it keeps its signature.\n\n"
            + aider_out("Tokens: 3.1k sent, 97 received. Cost: $0.01 message, $0.03 session.",
                        "Applied edit to calc.py",
                        "Commit 8c1d2e3 refactor: Rename the operands of mul",
                        "You can use /undo to undo and discard each aider commit.")
            + "\n" + aider_in(*lint)
            + aider_out("", "", "^C KeyboardInterrupt")
            + "\n# aider chat started at 2026-11-30 10:02:11\n\n"
            + aider_out("/usr/local/bin/aider --lint --commit", *launch,
                        "Commit 5d6e7f8 fix: Use the operand mul is given")
            + "\n# aider chat started at 2026-11-30 10:02:40\n\n"
            + aider_out("/usr/local/bin/aider calc.py", *launch, "Added calc.py to the chat.",
                        "Use /help <question> for help, run \"aider --help\" to see cmd line args")
            + "\n" + aider_in("add returns the wrong result: add(2, 3) is -1. Fix it.")
            + "\nThe `add` function subtracts its second argument instead of adding it. Here is the fix:\n\n"
              "calc.py\n```python\n<<<<<<< SEARCH\ndef add(a, b):\n    return a - b\n=======\ndef add(a, b):\n"
              "    return a + b\n>>>>>>> REPLACE\n```\n\nNow `add(2, 3)` returns 5.\n\n"
            + aider_out("Tokens: 2.7k sent, 88 received. Cost: $0.0094 message, $0.0094 session.",
                        "Applied edit to calc.py", "Commit 9e8d7c6 fix: Make add return the sum of its arguments",
                        "You can use /undo to undo and discard each aider commit.")
            + "\n" + aider_in("/diff") + "\n" + aider_in("/ex")
            + "\n# aider chat started at 2026-11-30 10:15:03\n\n"
            + aider_out("/usr/local/bin/aider --model gpt-4o-mini --edit-format whole calc.py", "Aider v0.86.1",
                        "Model: gpt-4o-mini with whole edit format", "Git repo: .git with 3 files",
                        "Repo-map: using 1024 tokens, auto refresh", "Added calc.py to the chat.",
                        "Use /help <question> for help, run \"aider --help\" to see cmd line args")
            + "\n" + aider_in("add a docstring to mul")
            + "\nHere is the updated file:\n\ncalc.py\n```\ndef add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n"
              "    \"\"\"Return the product of a and b.\"\"\"\n    return a * b\n```\n\n"
            + aider_out("Tokens: 1.1k sent, 61 received. Cost: $0.00020 message, $0.00020 session.",
                        "Applied edit to calc.py", "Commit 3f4e5d6 docs: Add a docstring to mul",
                        "You can use /undo to undo and discard each aider commit.")
            + "\n" + aider_in("thanks, that's all")
            + aider_out("", "", "^C KeyboardInterrupt"))
    with open("aider/calc.aider.chat.history.md", "w") as f:
        f.write(text)


if __name__ == "__main__":
    mini_dict()
    mini_list()
    swe_text()
    swe_fc()
    openhands_state()
    openhands_chat()
    openhands_resolver()
    openhands_v1()
    aider_history()
