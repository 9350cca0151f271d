// vigil: this file is vigil's extension, written by `vigil attach`; `vigil detach` removes it.
//
// It forwards the agent's events to the sidecar that watches this session
// (the vigil process that follows the session file and runs the advisor)
// and delivers the advisor's notes through the agent's own API
// (docs/attach.md in vigil):
//
//   - the notes due at a tool boundary (the step just ended included)
//     reach the model in its next call, right after this turn's tool
//     results, and stay there in every later call;
//   - a note about the final answer becomes a follow-up turn;
//   - the notes kept for the user come with the next prompt.
//
// It fails open: whatever goes wrong (no vigil, no sidecar, a slow one),
// the agent goes on as if nothing were attached, and no event waits longer
// than the sidecar says it may take (its record in the sidecars' folder).
// It talks to the sidecar over its unix socket, and only when none
// answers runs the hook command below, which starts one.
import * as childProcess from "node:child_process";
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as net from "node:net";
import * as path from "node:path";

// The line below is vigil's: attach rewrites it, status reads it.
const VIGIL: { agent: string; command: string[]; created: string[] } = /*vigil:config*/ {"agent":"pi","command":["vigil-hook","pi"],"created":[]} /*vigil:end*/;

type Reply = { decision?: string; reason?: string; hookSpecificOutput?: { additionalContext?: string } } | null;

// runtimeDir is the sidecars' folder, as vigil finds it.
function runtimeDir(): string {
  const env = process.env;
  if (env.VIGIL_RUNTIME_DIR) return env.VIGIL_RUNTIME_DIR;
  if (env.XDG_RUNTIME_DIR) return path.join(env.XDG_RUNTIME_DIR, "vigil");
  const uid = typeof process.getuid === "function" ? process.getuid() : 0;
  return path.join(env.TMPDIR || "/tmp", "vigil-" + uid);
}

// keyName is the file name stem of a session's socket and record.
function keyName(session: string): string {
  return crypto.createHash("sha256").update(VIGIL.agent + "\u0000" + session).digest("hex").slice(0, 16);
}

// waitFor is how long an event may wait for its answer: vigil-hook's
// default, or less when the live sidecar promises less.
function waitFor(dir: string, name: string, event: string): number {
  let ms = event === "Stop" || event === "PostToolUse" || event === "PostToolUseFailure" ? 40000 : 5000;
  try {
    const info = JSON.parse(fs.readFileSync(path.join(dir, name + ".json"), "utf8"));
    const w = info?.waits_ms?.[event];
    if (typeof w === "number" && w > 0) ms = Math.min(ms, w);
  } catch {}
  return ms;
}

function log(dir: string, msg: string) {
  try {
    const line = new Date().toISOString() + " vigil extension " + VIGIL.agent + ": " + msg.replace(/[\u0000-\u001f\u007f]/g, " ") + " (failed open: the agent goes on)\n";
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    fs.appendFileSync(path.join(dir, "hook.log"), line, { mode: 0o600 });
  } catch {}
}

// parseHTTP reads the sidecar's answer: its status and body (chunked or not).
function parseHTTP(raw: Buffer): { status: number; body: string } {
  const end = raw.indexOf("\r\n\r\n");
  if (end < 0) throw new Error("the sidecar's answer has no end of headers");
  const head = raw.subarray(0, end).toString("latin1").split("\r\n");
  const status = parseInt(head[0].split(" ")[1] ?? "", 10);
  let body = raw.subarray(end + 4);
  if (head.some((h) => /^transfer-encoding:.*chunked/i.test(h))) {
    const parts: Buffer[] = [];
    let i = 0;
    for (;;) {
      const eol = body.indexOf("\r\n", i);
      if (eol < 0) throw new Error("a chunk of the answer is cut short");
      const n = parseInt(body.subarray(i, eol).toString("latin1"), 16);
      if (!(n >= 0)) throw new Error("bad chunk size");
      if (n === 0) break;
      parts.push(body.subarray(eol + 2, eol + 2 + n));
      i = eol + 2 + n + 2;
    }
    body = Buffer.concat(parts);
  }
  return { status, body: body.toString("utf8") };
}

// post sends one event to the socket: the sidecar's answer, "absent" when
// nothing listens there, null on any other failure (logged).
function post(dir: string, sock: string, body: string, ms: number): Promise<Reply | "absent"> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let done = false;
    const finish = (r: Reply | "absent", why?: string) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      conn.destroy();
      if (why) log(dir, why);
      resolve(r);
    };
    const conn = net.createConnection({ path: sock });
    const timer = setTimeout(() => finish(null, "the sidecar did not answer within " + ms + " ms"), ms);
    conn.on("connect", () => {
      conn.write("POST /hook HTTP/1.1\r\nHost: sidecar\r\nContent-Type: application/json\r\nVigil-Deadline-Ms: " + ms +
        "\r\nContent-Length: " + Buffer.byteLength(body) + "\r\nConnection: close\r\n\r\n" + body);
    });
    conn.on("data", (b: Buffer) => chunks.push(b));
    conn.on("end", () => {
      try {
        const { status, body } = parseHTTP(Buffer.concat(chunks));
        if (status === 204) return finish(null);
        if (status !== 200) return finish(null, "the sidecar answered " + status + ": " + body.slice(0, 200));
        finish(JSON.parse(body));
      } catch (e) {
        finish(null, "read the sidecar's answer: " + e);
      }
    });
    conn.on("error", (e: any) => {
      if (e?.code === "ENOENT" || e?.code === "ECONNREFUSED") return finish("absent");
      finish(null, "talk to the sidecar: " + e);
    });
  });
}

// runHook runs the hook command with the event on stdin: it starts the
// session's sidecar (which ends with this agent's process) and forwards
// the event. Its answer, or null.
function runHook(dir: string, body: string, ms: number): Promise<Reply> {
  return new Promise((resolve) => {
    let out = "";
    let done = false;
    const finish = (r: Reply, why?: string) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (why) log(dir, why);
      resolve(r);
    };
    let child: childProcess.ChildProcess;
    try {
      child = childProcess.spawn(VIGIL.command[0], VIGIL.command.slice(1), { stdio: ["pipe", "pipe", "ignore"] });
    } catch (e) {
      return finish(null, "run " + VIGIL.command.join(" ") + ": " + e);
    }
    // The hook gives up on its own; this is for one that hangs anyway.
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      finish(null, VIGIL.command.join(" ") + " did not answer within " + ms + " ms");
    }, ms);
    child.on("error", (e) => finish(null, "run " + VIGIL.command.join(" ") + ": " + e));
    child.stdout?.on("data", (b: Buffer) => (out += b.toString("utf8")));
    child.on("close", () => {
      try {
        finish(out.trim() ? JSON.parse(out) : null);
      } catch (e) {
        finish(null, "read the hook's answer: " + e);
      }
    });
    child.stdin?.on("error", () => {});
    child.stdin?.end(body);
  });
}

// Two copies of this file may load in one agent: the user's and a
// project's (pi before 0.79, a project pi trusts, omp). The first copy to
// send a session's event speaks for that session until it ends; the other
// stays quiet, so that the sidecar hears each event once.
const owners: Map<string, object> = ((globalThis as any)[Symbol.for("vigil.extension.owners")] ??= new Map());
const self = {};

// mine claims session for this copy: false when another copy has.
function mine(session: string): boolean {
  const owner = owners.get(session);
  if (owner === undefined) owners.set(session, self);
  return owner === undefined || owner === self;
}

// release gives up session when this copy speaks for it.
function release(ctx: any) {
  const session = ctx?.sessionManager?.getSessionId?.();
  if (session && owners.get(session) === self) owners.delete(session);
}

// send hands one event, in Claude Code's shape, to the session's sidecar.
async function send(ctx: any, event: string, fields: Record<string, unknown>): Promise<Reply> {
  let dir = "";
  try {
    dir = runtimeDir();
    const sm = ctx?.sessionManager;
    const session = sm?.getSessionId?.();
    if (!session || !mine(session)) return null;
    const input = {
      session_id: session,
      transcript_path: sm.getSessionFile?.() ?? null,
      cwd: ctx.cwd ?? process.cwd(),
      hook_event_name: event,
      ...fields,
    };
    const body = JSON.stringify(input);
    const name = keyName(session);
    const ms = waitFor(dir, name, event);
    const r = await post(dir, path.join(dir, name + ".sock"), body, ms);
    if (r !== "absent") return r;
    if (event === "SessionEnd") return null;
    // Starting a sidecar takes at most 3 s more.
    return await runHook(dir, body, ms + 4000);
  } catch (e) {
    log(dir, event + ": " + e);
    return null;
  }
}

function contextOf(r: Reply): string {
  const t = r?.hookSpecificOutput?.additionalContext;
  return typeof t === "string" ? t : "";
}

function textOf(message: any): string {
  const c = message?.content;
  if (typeof c === "string") return c;
  if (!Array.isArray(c)) return "";
  return c.filter((b: any) => b?.type === "text" && typeof b.text === "string").map((b: any) => b.text).join("\n");
}

const sourceOf: Record<string, string> = { startup: "startup", reload: "resume", resume: "resume", fork: "resume", new: "clear" };

export default function vigil(pi: any) {
  // stopActive: the last Stop was answered with a follow-up turn, so the
  // next one must not be (the agent would loop).
  let stopActive = false;
  // stopping is the Stop exchange in flight, so that the end of the
  // session waits for its follow-up.
  let stopping: Promise<void> | null = null;
  // followedUp: a follow-up turn was asked for.
  let followedUp = false;
  const note = (content: string, deliverAs: string) => {
    try {
      pi.sendMessage({ customType: "vigil", content, display: true }, { deliverAs, triggerTurn: deliverAs === "followUp" });
    } catch {}
  };

  pi.on("session_start", async (event: any, ctx: any) => {
    stopActive = false;
    boundary = null;
    carried.length = 0;
    await send(ctx, "SessionStart", { source: sourceOf[event?.reason] ?? "startup" });
  });

  pi.on("before_agent_start", async (_event: any, ctx: any) => {
    stopActive = false;
    const text = contextOf(await send(ctx, "UserPromptSubmit", {}));
    if (text) return { message: { customType: "vigil", content: text, display: true } };
  });

  // The tool boundary. A step's result reaches the session file only
  // after the tool_result event, and the agent takes the steers for its
  // next model call right after turn_end without waiting for turn_end's
  // handlers; so a note sent at either would come one step late. The
  // boundary is sent at turn_end, whose handlers run once the turn's
  // results are written (so the sidecar reviews that step as well), and
  // the next model call's context event, which the agent awaits, waits
  // for the answer (bounded as every event is) and carries the notes:
  // each stays in every later request, right after the tool results it
  // came at, as a steer would (carried holds them, by the call id of the
  // last result of their turn).
  let boundary: Promise<string> | null = null;
  const carried: { after: string; message: any }[] = [];

  pi.on("turn_end", async (event: any, ctx: any) => {
    const results: any[] = Array.isArray(event?.toolResults) ? event.toolResults : [];
    const last = results[results.length - 1];
    if (!last?.toolCallId) return;
    const failed = results.some((r: any) => r?.isError);
    const run = send(ctx, failed ? "PostToolUseFailure" : "PostToolUse", {
      tool_name: String(last.toolName ?? ""),
      tool_use_id: String(last.toolCallId),
    }).then((r) => {
      const text = contextOf(r);
      if (text) {
        carried.push({ after: String(last.toolCallId), message: { role: "custom", customType: "vigil", content: text, display: true, timestamp: Date.now() } });
        if (carried.length > 64) carried.shift();
      }
      return text;
    });
    boundary = run;
    await run;
  });

  pi.on("context", async (event: any) => {
    if (boundary) {
      const b = boundary;
      boundary = null;
      await b;
    }
    const messages: any[] = Array.isArray(event?.messages) ? event.messages : [];
    if (carried.length === 0 || messages.length === 0) return;
    const out: any[] = [];
    let added = false;
    for (const m of messages) {
      out.push(m);
      if (m?.role !== "toolResult") continue;
      for (const c of carried) {
        if (c.after === m.toolCallId) {
          out.push(c.message);
          added = true;
        }
      }
    }
    if (added) return { messages: out };
  });

  pi.on("turn_end", async (event: any, ctx: any) => {
    const m = event?.message;
    if (m?.role !== "assistant" || m.stopReason === "error" || m.stopReason === "aborted") return;
    if (Array.isArray(m.content) && m.content.some((b: any) => b?.type === "toolCall")) return;
    // The final answer: the agent is about to finish.
    const run = (async () => {
      const r = await send(ctx, "Stop", { stop_hook_active: stopActive, last_assistant_message: textOf(m) });
      stopActive = r?.decision === "block" && typeof r.reason === "string" && r.reason !== "";
      if (stopActive) {
        followedUp = true;
        note(r!.reason!, "followUp");
      }
    })();
    stopping = run;
    await run;
  });

  pi.on("session_before_compact", async (_event: any, ctx: any) => {
    await send(ctx, "PreCompact", {});
  });

  pi.on("session_compact", async (_event: any, ctx: any) => {
    await send(ctx, "SessionStart", { source: "compact" });
  });

  pi.on("session_shutdown", async (event: any, ctx: any) => {
    // In print mode the agent ends right after its answer: a follow-up
    // turn the Stop asked for runs before it does.
    if (stopping) await stopping;
    if (followedUp && typeof ctx?.isIdle === "function") {
      // Up to a second for the turn to start, then until it ends.
      let busy = false;
      for (let i = 0; i < 1200; i++) {
        if (!ctx.isIdle()) busy = true;
        else if (busy || i >= 20) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      if (stopping) await stopping;
    }
    await send(ctx, "SessionEnd", { reason: String(event?.reason ?? "quit") });
    release(ctx);
  });
}
