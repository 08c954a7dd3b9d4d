//! Trusting exactly our hooks through Codex's own JSON-RPC server (`codex app-server`, JSON
//! lines on stdin/stdout), so the hash Codex checks is the one Codex computed.
//!
//! Sequence (seen with Codex 0.169.0, documented in docs/install.md): `initialize` (with
//! `clientInfo`) → `initialized` notification → `hooks/list {"cwds": [project]}` → for our
//! untrusted hooks `config/batchWrite` upserting `hooks.state` `{key: {"trusted_hash": hash}}`
//! → `hooks/list` again to verify. Everything is bounded by one deadline; the server is killed
//! when we are done or out of time.

use crate::edit::json_doc;
use crate::files::canonical;
use handover_base::hook_command::our_exe;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

#[derive(Clone, Debug)]
pub struct TrustRequest {
    pub codex_bin: PathBuf,
    pub codex_home: PathBuf,
    pub home: PathBuf,
    pub project: PathBuf,
    /// The hooks.json our handlers are in (project or user layer).
    pub hooks_json: PathBuf,
    /// The exact commands install wrote there: only handlers running one of these are trusted
    /// (a copy with a user's prefix, or a user's wrapper, is the user's to approve in Codex).
    pub commands: Vec<String>,
    pub timeout: Duration,
}

#[derive(Clone, Debug, PartialEq)]
pub struct HookInfo {
    pub key: String,
    pub event_name: String,
    pub command: String,
    pub current_hash: String,
    pub trust_status: TrustStatus,
    pub source_path: PathBuf,
    /// `<plugin>@<marketplace>` when the hook comes from an installed plugin.
    pub plugin_id: Option<String>,
}

impl TrustStatus {
    pub fn parse(s: &str) -> TrustStatus {
        match s {
            "trusted" => TrustStatus::Trusted,
            "untrusted" => TrustStatus::Untrusted,
            "modified" => TrustStatus::Modified,
            "managed" => TrustStatus::Managed,
            other => TrustStatus::Other(other.to_string()),
        }
    }

    /// As Codex spells it.
    pub fn as_str(&self) -> &str {
        match self {
            TrustStatus::Trusted => "trusted",
            TrustStatus::Untrusted => "untrusted",
            TrustStatus::Modified => "modified",
            TrustStatus::Managed => "managed",
            TrustStatus::Other(s) => s,
        }
    }
}

impl std::fmt::Display for TrustStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl serde::Serialize for TrustStatus {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct TrustOutcome {
    /// Our hooks that were trusted by this run (key and hash written).
    pub newly_trusted: Vec<HookInfo>,
    /// Our hooks that were already trusted with their current hash.
    pub already_trusted: Vec<HookInfo>,
    /// Our hooks as `hooks/list` reported them after the write.
    pub after: Vec<HookInfo>,
    /// Handlers in our file that run one of ours but are not exactly what install wrote (a
    /// prefix of the user's): not trusted by us.
    pub not_ours_to_trust: Vec<HookInfo>,
}

impl TrustOutcome {
    pub fn all_trusted(&self) -> bool {
        !self.after.is_empty()
            && self
                .after
                .iter()
                .all(|h| h.trust_status == TrustStatus::Trusted)
    }
}

struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    deadline: Instant,
    next_id: u64,
}

impl Drop for Server {
    /// Closing stdin ends the server; after a short grace period the whole process group is
    /// killed: `codex` is a Node launcher whose native server (and anything that one started)
    /// would outlive a kill of the launcher alone.
    // kill(2) on a process group: the standard library only kills the one child.
    #[allow(unsafe_code)]
    fn drop(&mut self) {
        drop(self.stdin.take());
        let until = Instant::now() + Duration::from_secs(2);
        while Instant::now() < until && !self.exited() {
            std::thread::sleep(Duration::from_millis(20));
        }
        // The group leader is not reaped yet (a zombie at most), so its id still names our group.
        if let Ok(pgid) = i32::try_from(self.child.id()) {
            // SAFETY: kill(2) with a negative id signals the group we created at spawn.
            unsafe {
                libc::kill(-pgid, libc::SIGKILL);
            }
        }
        let _ = self.child.wait();
    }
}

impl Server {
    /// True once the server process has exited, without reaping it (see drop).
    // waitid(2) with WNOWAIT: the standard library's try_wait reaps, which would free the
    // group id before the group is killed.
    #[allow(unsafe_code)]
    fn exited(&self) -> bool {
        // SAFETY: a zeroed siginfo_t is a valid out-parameter for waitid(2).
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        // SAFETY: WNOWAIT leaves the child waitable for Child::wait; `info` outlives the call.
        let r = unsafe {
            libc::waitid(
                libc::P_PID,
                self.child.id(),
                &mut info,
                libc::WEXITED | libc::WNOHANG | libc::WNOWAIT,
            )
        };
        // SAFETY: reading si_pid of a siginfo_t filled by waitid.
        r != 0 || unsafe { info.si_pid() } != 0
    }

    fn start(req: &TrustRequest) -> Result<Server, String> {
        use std::os::unix::process::CommandExt;
        let mut child = Command::new(&req.codex_bin)
            .arg("app-server")
            // Its own process group, so the whole tree can be killed (see drop).
            .process_group(0)
            .current_dir(&req.project)
            .env("CODEX_HOME", &req.codex_home)
            .env("HOME", &req.home)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start `{} app-server`: {e}", req.codex_bin.display()))?;
        let stdin = child.stdin.take().ok_or("no stdin for codex app-server")?;
        let stdout = child
            .stdout
            .take()
            .ok_or("no stdout for codex app-server")?;
        let (tx, rx) = mpsc::channel();
        // The reader ends when the server's stdout closes (we kill it on drop).
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Ok(Server {
            child,
            stdin: Some(stdin),
            lines: rx,
            deadline: Instant::now() + req.timeout,
            next_id: 1,
        })
    }

    fn send(&mut self, msg: &impl serde::Serialize) -> Result<(), String> {
        let mut line = serde_json::to_string(msg)
            .map_err(|e| format!("cannot write a message for codex app-server: {e}"))?;
        line.push('\n');
        let stdin = self
            .stdin
            .as_mut()
            .ok_or("codex app-server input already closed")?;
        stdin
            .write_all(line.as_bytes())
            .and_then(|_| stdin.flush())
            .map_err(|e| format!("codex app-server closed its input: {e}"))
    }

    /// Sends a request and waits (until the deadline) for the response with its id;
    /// notifications in between are skipped.
    fn call(&mut self, method: &str, params: impl serde::Serialize) -> Result<Value, String> {
        #[derive(serde::Serialize)]
        struct Request<'a, P> {
            id: u64,
            method: &'a str,
            params: P,
        }
        let id = self.next_id;
        self.next_id += 1;
        self.send(&Request { id, method, params })?;
        loop {
            let left = self.deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(format!(
                    "codex app-server did not answer `{method}` in time"
                ));
            }
            let line = self.lines.recv_timeout(left).map_err(|e| match e {
                mpsc::RecvTimeoutError::Timeout => {
                    format!("codex app-server did not answer `{method}` in time")
                }
                mpsc::RecvTimeoutError::Disconnected => {
                    format!("codex app-server exited before answering `{method}`")
                }
            })?;
            let Ok(msg) = serde_json::from_str::<Value>(&line) else {
                continue;
            };
            if msg.get("id").and_then(Value::as_u64) != Some(id) || msg.get("method").is_some() {
                continue;
            }
            if let Some(err) = msg.get("error") {
                return Err(format!("codex app-server refused `{method}`: {err}"));
            }
            return Ok(msg.get("result").cloned().unwrap_or(Value::Null));
        }
    }

    fn initialize(&mut self) -> Result<(), String> {
        self.call(
            "initialize",
            json!({"clientInfo": {"name": "handover", "title": "handover install", "version": env!("CARGO_PKG_VERSION")}}),
        )?;
        self.send(&json!({"method": "initialized"}))
    }

    fn hooks_list(&mut self, project: &Path) -> Result<Vec<HookInfo>, String> {
        let result = self.call("hooks/list", json!({"cwds": [project.to_string_lossy()]}))?;
        let mut out = Vec::new();
        for entry in result
            .get("data")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            for h in entry
                .get("hooks")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let s = |k: &str| {
                    h.get(k)
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_string()
                };
                out.push(HookInfo {
                    key: s("key"),
                    event_name: s("eventName"),
                    command: s("command"),
                    current_hash: s("currentHash"),
                    trust_status: TrustStatus::parse(&s("trustStatus")),
                    source_path: PathBuf::from(s("sourcePath")),
                    plugin_id: h
                        .get("pluginId")
                        .and_then(Value::as_str)
                        .filter(|_| s("source") == "plugin")
                        .map(str::to_string),
                });
            }
        }
        Ok(out)
    }
}

/// Our handlers among the listed hooks: recognised as ours (command::recognise) and from our file.
pub fn ours<'a>(hooks: &'a [HookInfo], hooks_json: &Path) -> Vec<&'a HookInfo> {
    let file = canonical(hooks_json);
    hooks
        .iter()
        .filter(|h| our_exe(&h.command).is_some() && canonical(&h.source_path) == file)
        .collect()
}

/// The handlers we may trust: from our file and running exactly a command install wrote.
fn exactly_written<'a>(hooks: &'a [HookInfo], req: &TrustRequest) -> Vec<&'a HookInfo> {
    ours(hooks, &req.hooks_json)
        .into_iter()
        .filter(|h| req.commands.contains(&h.command))
        .collect()
}

/// Lists the hooks Codex sees for the project (read-only).
pub fn list_hooks(req: &TrustRequest) -> Result<Vec<HookInfo>, String> {
    let mut server = Server::start(req)?;
    server.initialize()?;
    server.hooks_list(&req.project)
}

/// Trusts exactly our hooks (those not yet trusted with their current hash), then verifies.
pub fn trust_our_hooks(req: &TrustRequest) -> Result<TrustOutcome, String> {
    let (mut outcome, listed) = trust_selected(
        req,
        |listed| exactly_written(listed, req).into_iter().cloned().collect(),
        |listed| {
            format!(
                "codex app-server lists none of our hooks from {} (listed {listed} hook(s)); is the project trusted and the hooks feature on in {}?",
                req.hooks_json.display(),
                req.codex_home.join("config.toml").display()
            )
        },
    )?;
    outcome.not_ours_to_trust = ours(&listed, &req.hooks_json)
        .into_iter()
        .filter(|h| !req.commands.contains(&h.command))
        .cloned()
        .collect();
    Ok(outcome)
}

/// The handover plugin's hooks among the listed ones: from an installed plugin named
/// `handover` (any marketplace), running one of our executables the plugin's way (`--via
/// plugin`). Another plugin that happens to run our executables is its author's to approve.
pub fn plugin_hooks(hooks: &[HookInfo]) -> Vec<&HookInfo> {
    hooks
        .iter()
        .filter(|h| {
            h.plugin_id
                .as_deref()
                .is_some_and(|id| id.starts_with("handover@"))
                && h.command.contains("--via plugin")
                && matches!(
                    handover_base::hook_command::recognise(&h.command),
                    handover_base::hook_command::Recognised::Mentions(_)
                )
        })
        .collect()
}

/// Trusts exactly the handover plugin's hooks (see [`plugin_hooks`]; `req.hooks_json` and
/// `req.commands` are not used), then verifies.
pub fn trust_plugin_hooks(req: &TrustRequest) -> Result<TrustOutcome, String> {
    let (outcome, _) = trust_selected(
        req,
        |listed| plugin_hooks(listed).into_iter().cloned().collect(),
        |listed| {
            format!(
                "codex app-server lists no hooks of the handover plugin (listed {listed} hook(s)); install it first: `codex plugin marketplace add <handover checkout or repository>` then `codex plugin add handover@handover`"
            )
        },
    )?;
    Ok(outcome)
}

/// Lists the hooks, trusts those `select` picks that are not trusted with their current hash
/// (one `config/batchWrite`), lists again and reports what `select` picks then; also returns
/// the first listing.
fn trust_selected(
    req: &TrustRequest,
    select: impl Fn(&[HookInfo]) -> Vec<HookInfo>,
    none_found: impl Fn(usize) -> String,
) -> Result<(TrustOutcome, Vec<HookInfo>), String> {
    let mut server = Server::start(req)?;
    server.initialize()?;
    let listed = server.hooks_list(&req.project)?;
    let mine = select(&listed);
    if mine.is_empty() {
        return Err(none_found(listed.len()));
    }
    let mut outcome = TrustOutcome::default();
    // In hooks/list order, as the request always had them (an ordered map).
    let mut state = json_doc::Map::new();
    for h in mine {
        if h.trust_status == TrustStatus::Trusted {
            outcome.already_trusted.push(h);
        } else {
            let entry = json_doc::Value::object([("trusted_hash", h.current_hash.as_str().into())]);
            state.insert(h.key.clone(), entry);
            outcome.newly_trusted.push(h);
        }
    }
    if !state.is_empty() {
        let edit = json_doc::Value::object([
            ("keyPath", "hooks.state".into()),
            ("mergeStrategy", "upsert".into()),
            ("value", json_doc::Value::Object(state)),
        ]);
        server.call(
            "config/batchWrite",
            json_doc::Value::object([("edits", json_doc::Value::Array(vec![edit]))]),
        )?;
    }
    let after = server.hooks_list(&req.project)?;
    outcome.after = select(&after);
    Ok((outcome, listed))
}

/// Finds `codex` on a PATH value.
pub fn find_codex(path_var: Option<&std::ffi::OsStr>) -> Option<PathBuf> {
    crate::locate::on_path(handover_clients::codex::CLIENT.executable, path_var)
}

/// The steps a user takes by hand when we do not trust for them.
pub fn manual_steps(codex_config: &Path, project: Option<&Path>, hooks_json: &Path) -> String {
    let mut s = String::from("Codex runs a hook only when you trusted it:\n");
    let mut n = 1;
    if let Some(p) = project {
        s.push_str(&format!(
            "  {n}. Trust the project: add to {}\n       [projects.\"{}\"]\n       trust_level = \"trusted\"\n",
            codex_config.display(),
            p.display()
        ));
        n += 1;
    }
    // No project: the user-scope install, whose fix must name that scope (a plain `install`
    // would wire the project instead).
    let scope = if project.is_none() {
        " --scope user"
    } else {
        ""
    };
    s.push_str(&format!(
        "  {n}. Trust the hooks in {}: start `codex` there and approve them when it asks to review new hooks,\n     \
         or run `handover install --codex{scope} --trust`, which records exactly our hooks' current hashes\n     \
         under [hooks.state] in {} through `codex app-server`.\n",
        hooks_json.display(),
        codex_config.display()
    ));
    s
}

/// What Codex says about one hook: `trustStatus` in `hooks/list` (Codex 0.169.0). Read
/// leniently: a value this version does not know is kept as [`TrustStatus::Other`], never an
/// error, and never counts as trusted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TrustStatus {
    /// Trusted with the hash it has now: Codex runs it.
    Trusted,
    /// Never approved: Codex skips it.
    Untrusted,
    /// Approved once, changed since (the recorded hash no longer matches): Codex skips it.
    Modified,
    /// Set by managed (administrator) configuration.
    Managed,
    /// Anything else, as Codex wrote it (empty when the field was missing).
    Other(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_manual_steps_name_the_scope_that_was_installed() {
        let cfg = Path::new("/h/.codex/config.toml");
        let project = manual_steps(
            cfg,
            Some(Path::new("/r")),
            Path::new("/r/.codex/hooks.json"),
        );
        assert!(
            project.contains("`handover install --codex --trust`"),
            "{project}"
        );
        let user = manual_steps(cfg, None, Path::new("/h/.codex/hooks.json"));
        assert!(
            user.contains("`handover install --codex --scope user --trust`"),
            "{user}"
        );
    }

    #[test]
    fn trust_status_is_read_leniently_and_written_back_as_codex_spelt_it() {
        for s in [
            "trusted",
            "untrusted",
            "modified",
            "managed",
            "",
            "Trusted",
            "new-state",
        ] {
            let t = TrustStatus::parse(s);
            assert_eq!(t.as_str(), s);
            assert_eq!(serde_json::to_string(&t).unwrap(), format!("\"{s}\""));
            assert_eq!(t == TrustStatus::Trusted, s == "trusted", "{s:?}");
        }
        assert_eq!(
            TrustStatus::parse("new-state"),
            TrustStatus::Other("new-state".into())
        );
    }
}
