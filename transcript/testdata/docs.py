#!/usr/bin/env python3
"""docs.py: writes the mini-swe-agent and SWE-agent fixtures in
mini-swe-agent/ and swe-agent/.

The runs are written, not recorded: one small task (calc.py's add()
subtracts; fix it so the tests pass) worked through in the shapes those
harnesses write, with the fields, messages and harness texts of their
versions (mini-swe-agent 2.2.7 with tool calls, mini-swe-agent 1's list of
messages with ```bash actions, SWE-agent 0.x text actions with a
trajectory, SWE-agent 1.x function calling with only a history). Each run
exercises what its reader must handle; the tests say what they expect of
each. Run from this folder: python3 docs.py. The output is deterministic.
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


if __name__ == "__main__":
    mini_dict()
    mini_list()
    swe_text()
    swe_fc()
