// handover's plugin for OpenCode, written by `handover install`. It runs handover's hook
// executables at OpenCode's moments and passes their answers on; every decision is theirs.
// Do not edit it: `handover status` reports a changed copy, `handover install` writes it
// again and `handover uninstall` removes it.
const HOOKS = __HOOKS__;

const fs = require("node:fs");
// Each session's payloads, which the executables read as its transcript.
const SESSIONS = `${process.env.HOME || ""}/__HOME__/handover-sessions`;
// OpenCode's own requests, which run the same transform as the agent's: not a moment.
const OWN_REQUESTS = ["You are a title generator", "You are a context summarization agent"];

let directory = ".";
const sessions = new Map();

function session(id) {
  if (!sessions.has(id)) {
    sessions.set(id, { created: false, started: false, compacting: false, compacted: null, ended: false, texts: [] });
  }
  return sessions.get(id);
}

function transcript(id) {
  return `${SESSIONS}/${String(id).replace(/[^A-Za-z0-9_-]/g, "_")}.jsonl`;
}

function note(id, line) {
  try {
    const path = transcript(id);
    if (!fs.existsSync(path)) {
      fs.mkdirSync(SESSIONS, { recursive: true });
      fs.appendFileSync(path, JSON.stringify({ type: "session", timestamp: new Date().toISOString(), directory }) + "\n");
    }
    fs.appendFileSync(path, JSON.stringify({ ...line, timestamp: new Date().toISOString() }) + "\n");
  } catch {}
}

// Each handler of ours for `event`.
function handlers(event) {
  return ((HOOKS.hooks || {})[event] || []).flatMap((group) => group.hooks || []);
}

function input(event, id, payload) {
  return JSON.stringify({ session_id: id, transcript_path: transcript(id), cwd: directory, hook_event_name: event, ...payload });
}

// Runs our hooks on `event` with the payload; their output, trimmed ("" when silent, failed or
// too slow: OpenCode never waits longer than the hook's timeout).
async function run(event, id, payload) {
  let text = "";
  for (const hook of handlers(event)) {
    const said = answer(await output(hook, input(event, id, payload)));
    if (said) text += (text ? "\n" : "") + said;
  }
  return text;
}

async function output(hook, stdin) {
  try {
    // The executable itself when install wrote its words (`argv`): no shell to start first.
    const child = Bun.spawn(hook.argv || ["sh", "-c", hook.command], { cwd: directory, stdin: new Blob([stdin]), stdout: "pipe", stderr: "ignore" });
    // At the timeout: stop waiting (a process it started may still hold the pipe) and kill it.
    let timer;
    const late = new Promise((resolve) => {
      timer = setTimeout(() => {
        try { child.kill(9); } catch {}
        resolve("");
      }, (hook.timeout || 10) * 1000);
    });
    const out = (await Promise.race([new Response(child.stdout).text(), late])).trim();
    clearTimeout(timer);
    return out;
  } catch {
    return "";
  }
}

// Starts our hooks on `event` whose answer nothing reads (SessionEnd) without waiting for them,
// each in a process group of its own: it outlives OpenCode's exit and is not sent its signals.
// Only an executable install wrote the words of (`argv`), which its own watchdog ends; any other
// command is waited for, up to its timeout, as `run` does.
async function start(event, id, payload) {
  for (const hook of handlers(event)) {
    if (!hook.argv) {
      await output(hook, input(event, id, payload));
      continue;
    }
    try {
      Bun.spawn(hook.argv, { cwd: directory, stdin: new Blob([input(event, id, payload)]), stdout: "ignore", stderr: "ignore", detached: true }).unref();
    } catch {}
  }
}

// Our executables answer OpenCode in plain text. The one JSON line is the portable launcher's
// when handover is not installed, `{"systemMessage": ...}` (a note other clients show the
// user): its text, not the JSON.
function answer(out) {
  if (!out.startsWith("{")) return out;
  try {
    return String(JSON.parse(out).systemMessage || "");
  } catch {
    return "";
  }
}

function keep(s, text) {
  if (text) s.texts.push(text);
}

// SessionStart's answer, once per session: begun as soon as OpenCode creates the session, so
// that its first agent request, which waits for it, finds it done (or nearly).
function opening(s, id) {
  if (!s.opening) s.opening = run("SessionStart", id, { source: s.created ? "startup" : "resume", model: s.model });
  return s.opening;
}

// PostCompact's then SessionStart `compact`'s answers: begun at `session.compacted`, waited for
// by the first agent request after it.
async function reopening(s, id) {
  const texts = [await run("PostCompact", id, { model: s.model })];
  texts.push(await run("SessionStart", id, { source: "compact", model: s.model }));
  return texts;
}

async function end(id, reason) {
  const s = session(id);
  if (s.started && !s.ended) {
    s.ended = true;
    // A Stop still running would rewrite the session's record after SessionEnd: it goes first.
    if (s.stopping) await s.stopping;
    await start("SessionEnd", id, { reason });
  }
}

export const HandoverPlugin = async (ctx) => {
  directory = ctx.directory || directory;
  return {
    event: async ({ event }) => {
      const p = event.properties || {};
      const id = p.sessionID || (p.info && p.info.sessionID);
      if (!id) return;
      if (event.type === "session.created") {
        const s = session(id);
        s.created = true;
        opening(s, id);
      } else if (event.type === "session.compacted") {
        const s = Object.assign(session(id), { compacting: false });
        note(id, { type: "compacted" });
        // One for the next agent request; a compaction again before it adds none.
        if (!s.compacted) s.compacted = reopening(s, id);
      } else if (event.type === "session.idle") {
        const s = session(id);
        if (s.started) {
          s.stopping = run("Stop", id, {});
          keep(s, await s.stopping);
        }
      } else if (event.type === "session.deleted") await end(id, "deleted");
      else if (event.type === "message.updated") {
        // An agent's step is done (OpenCode sends it twice): its usage.
        const m = p.info || {};
        const s = session(id);
        if (m.role !== "assistant" || !m.finish || m.summary || !m.tokens || s.step === m.id) return;
        s.step = m.id;
        note(id, { type: "usage", tokens: m.tokens, model: m.modelID, limit: s.limit });
      }
    },
    "experimental.chat.system.transform": async (input, output) => {
      const id = input.sessionID;
      const first = (output.system || [])[0] || "";
      if (!id || OWN_REQUESTS.some((own) => first.startsWith(own))) return;
      const s = session(id);
      if (input.model) {
        s.model = input.model.id;
        s.limit = input.model.limit;
      }
      if (!s.started) {
        s.started = true;
        keep(s, await opening(s, id));
      } else if (s.compacted) {
        const compacted = s.compacted;
        // The summary replaced the conversation, and our texts with it.
        s.compacted = null;
        s.texts = [];
        s.toolRan = null;
        for (const text of await compacted) keep(s, text);
      } else if (s.toolRan) {
        // After the step's tools ran: the watch, whose answer must reach this request.
        const { tool, call } = s.toolRan;
        s.toolRan = null;
        keep(s, await run("PostToolUse", id, { tool_name: tool, tool_call_id: call }));
      }
      output.system.push(...s.texts);
    },
    "chat.message": async (input, output) => {
      const id = input.sessionID;
      const prompt = (output.parts || []).filter((part) => part.type === "text" && !part.synthetic).map((part) => part.text).join("\n");
      note(id, { type: "user", text: prompt });
      const s = session(id);
      if (s.started) keep(s, await run("UserPromptSubmit", id, { prompt }));
    },
    "tool.execute.after": async (input, output) => {
      const id = input.sessionID;
      const args = input.args || {};
      const exit = output && output.metadata ? output.metadata.exit : undefined;
      note(id, { type: "tool", tool: input.tool, callID: input.callID, args: { filePath: args.filePath, command: args.command }, exit });
      const s = session(id);
      s.toolRan = { tool: input.tool, call: input.callID };
    },
    "experimental.text.complete": async (input, output) => {
      // Not the summarizer's text.
      if (!session(input.sessionID).compacting) note(input.sessionID, { type: "text", text: output.text });
    },
    "experimental.session.compacting": async (input, output) => {
      session(input.sessionID).compacting = true;
      const text = await run("PreCompact", input.sessionID, {});
      if (text) output.context.push(text);
    },
    "shell.env": async (input, output) => {
      if (input.sessionID) output.env.__SESSION_VAR__ = input.sessionID;
    },
    dispose: async () => {
      for (const id of sessions.keys()) await end(id, "exit");
    },
  };
};
