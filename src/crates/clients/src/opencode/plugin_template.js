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
    sessions.set(id, { created: false, started: false, compacting: false, compacted: false, ended: false, texts: [] });
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

// Runs our hooks on `event` with the payload; their output, trimmed ("" when silent, failed or
// too slow: OpenCode never waits longer than the hook's timeout).
async function run(event, id, payload) {
  let text = "";
  for (const group of (HOOKS.hooks || {})[event] || []) {
    for (const hook of group.hooks || []) {
      try {
        const input = JSON.stringify({ session_id: id, transcript_path: transcript(id), cwd: directory, hook_event_name: event, ...payload });
        // The executable itself when install wrote its words (`argv`): no shell to start first.
        const child = Bun.spawn(hook.argv || ["sh", "-c", hook.command], { cwd: directory, stdin: new Blob([input]), stdout: "pipe", stderr: "ignore" });
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
        const said = answer(out);
        if (said) text += (text ? "\n" : "") + said;
      } catch {}
    }
  }
  return text;
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

async function end(id, reason) {
  const s = session(id);
  if (s.started && !s.ended) {
    s.ended = true;
    await run("SessionEnd", id, { reason });
  }
}

export const HandoverPlugin = async (ctx) => {
  directory = ctx.directory || directory;
  return {
    event: async ({ event }) => {
      const p = event.properties || {};
      const id = p.sessionID || (p.info && p.info.sessionID);
      if (!id) return;
      if (event.type === "session.created") session(id).created = true;
      else if (event.type === "session.compacted") {
        Object.assign(session(id), { compacted: true, compacting: false });
        note(id, { type: "compacted" });
      } else if (event.type === "session.idle") {
        const s = session(id);
        if (s.started) keep(s, await run("Stop", id, {}));
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
        keep(s, await run("SessionStart", id, { source: s.created ? "startup" : "resume", model: s.model }));
      } else if (s.compacted) {
        // The summary replaced the conversation, and our texts with it.
        s.compacted = false;
        s.texts = [];
        s.toolRan = null;
        keep(s, await run("PostCompact", id, { model: s.model }));
        keep(s, await run("SessionStart", id, { source: "compact", model: s.model }));
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
