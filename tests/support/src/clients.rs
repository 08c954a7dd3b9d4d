//! The pinned real clients (installed by tests/clients/ensure.sh) and the executables under test.

use super::*;
use std::process::{Command, Stdio};
use std::sync::OnceLock;

/// Set to 1 to skip the real-client tests (printed loudly; they never pass silently).
pub const SKIP_ENV: &str = "HANDOVER_SKIP_E2E";
/// The workspace's top: this crate is tests/support/ in it.
const WORKSPACE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

/// Writes to the real stderr, past the test harness's output capture: the client versions and a
/// skip must show in every test run, not only in failures.
pub fn loud(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "{line}");
}

/// The pinned real clients.
#[derive(Debug)]
pub struct Clients {
    pub claude: PathBuf,
    pub codex: PathBuf,
    pub gemini: PathBuf,
    pub qwen: PathBuf,
    pub copilot: PathBuf,
    pub droid: PathBuf,
    pub opencode: PathBuf,
    /// OpenCode's plugin SDK, installed once (ensure.sh): a test copies it into OpenCode's
    /// config folders, which it would otherwise install into at start and hang offline.
    pub opencode_sdk: PathBuf,
    /// Kilo Code's CLI (the binary of its platform package).
    pub kilo: PathBuf,
    pub claude_version: String,
    pub codex_version: String,
    pub gemini_version: String,
    pub qwen_version: String,
    pub copilot_version: String,
    pub droid_version: String,
    pub opencode_version: String,
    pub kilo_version: String,
    /// `unshare` flags that give a loopback-only network namespace here: `-n` as root, else
    /// `-rn` (a user namespace mapping the caller to root) where the kernel allows it.
    pub unshare: &'static [&'static str],
}

impl Clients {
    /// Writes an executable script `<dir>/<name>` that runs `program` with its arguments inside a
    /// fresh loopback-only network namespace: for code under test that starts a client itself
    /// (e.g. the installer's `codex app-server` conversation), so that client can not reach the
    /// network either.
    pub fn netless(&self, dir: &Path, name: &str, program: &Path) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let path = dir.join(name);
        let script = format!(
            "#!/bin/sh\nexec unshare {} sh -c 'ip link set lo up && exec \"$0\" \"$@\"' {} \"$@\"\n",
            self.unshare.join(" "),
            shell_quote(&program.to_string_lossy())
        );
        std::fs::write(&path, script).expect("write the netless wrapper");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
            .expect("make the netless wrapper executable");
        path
    }
}

/// `HANDOVER_SKIP_E2E=1`: the real clients are not to run.
pub fn skipped() -> bool {
    std::env::var(SKIP_ENV).is_ok_and(|v| v == "1")
}

/// The real clients, installed once per test binary by tests/clients/ensure.sh. None (after a
/// loud SKIPPED line) only when HANDOVER_SKIP_E2E=1; otherwise a missing prerequisite fails the
/// test with instructions.
pub fn clients(test: &str) -> Option<&'static Clients> {
    if skipped() {
        loud(&format!(
            "\n*** SKIPPED: {test}: {SKIP_ENV}=1 is set, the end-to-end tests with the real Claude Code, Codex and Gemini CLI did NOT run ***\n"
        ));
        return None;
    }
    static CLIENTS: OnceLock<Result<Clients, String>> = OnceLock::new();
    match CLIENTS.get_or_init(install_clients) {
        Ok(c) => Some(c),
        Err(e) => panic!("{e}"),
    }
}

fn install_clients() -> Result<Clients, String> {
    let hint = format!(
        "The end-to-end tests run the real Claude Code, Codex and Gemini CLI from the npm registry. Install Node.js and npm \
         (Debian/Ubuntu: `apt-get install -y nodejs npm`), run as root with `unshare` and `ip` available \
         (util-linux, iproute2), or set {SKIP_ENV}=1 to skip them explicitly."
    );
    let out = Command::new("bash")
        .arg(Path::new(WORKSPACE).join("tests/clients/ensure.sh"))
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run bash tests/clients/ensure.sh: {e}\n{hint}"))?;
    if !out.status.success() {
        return Err(format!(
            "tests/clients/ensure.sh failed ({}):\n{}\n{hint}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let find = |key: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(&format!("{key}=")))
            .map(PathBuf::from)
            .ok_or_else(|| format!("ensure.sh printed no {key}= line:\n{text}"))
    };
    let claude = find("claude")?;
    let codex = find("codex")?;
    let gemini = find("gemini")?;
    let qwen = find("qwen")?;
    let copilot = find("copilot")?;
    let droid = find("droid")?;
    let opencode = find("opencode")?;
    let opencode_sdk = find("opencode_sdk")?;
    let kilo = find("kilo")?;
    // Namespaces need root or user namespaces; fail with the reason rather than mid-test.
    let mut unshare: Option<&'static [&'static str]> = None;
    let mut ns_errors = String::new();
    for flags in [&["-n"][..], &["-rn"][..]] {
        let ns = Command::new("unshare")
            .args(flags)
            .args(["sh", "-c", "ip link set lo up"])
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("cannot run unshare: {e}\n{hint}"))?;
        if ns.status.success() {
            unshare = Some(flags);
            break;
        }
        ns_errors.push_str(&format!(
            "unshare {} sh -c 'ip link set lo up': {}\n",
            flags.join(" "),
            String::from_utf8_lossy(&ns.stderr).trim()
        ));
    }
    let Some(unshare) = unshare else {
        return Err(format!(
            "no loopback-only network namespace available:\n{ns_errors}{hint}"
        ));
    };
    // `--version` like every other client command: in the loopback-only namespace, with a HOME
    // of its own (Gemini CLI writes `~/.gemini/projects.json`, Codex `~/.codex/tmp`) and Copilot
    // CLI's unpacked copy where the runs keep it, so the real HOME is never written.
    let version_home = tempfile::tempdir().map_err(|e| format!("a temporary HOME: {e}"))?;
    let version = |bin: &Path| -> Result<String, String> {
        let o = Command::new("unshare")
            .args(unshare)
            .args(["sh", "-c", "ip link set lo up && exec \"$0\" --version"])
            .arg(bin)
            .env("HOME", version_home.path())
            .env("XDG_CONFIG_HOME", version_home.path().join(".config"))
            .env("XDG_CACHE_HOME", version_home.path().join(".cache"))
            .env("XDG_DATA_HOME", version_home.path().join(".local/share"))
            .env("XDG_STATE_HOME", version_home.path().join(".local/state"))
            .env(
                "COPILOT_CACHE_HOME",
                super::client_run::copilot_cache(&copilot),
            )
            .env_remove("CODEX_HOME")
            .env_remove("CLAUDE_CONFIG_DIR")
            .env_remove("GEMINI_CLI_HOME")
            .env_remove("COPILOT_HOME")
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("{} --version: {e}", bin.display()))?;
        // Copilot CLI adds an update hint after its version line: keep the first line.
        let text = String::from_utf8_lossy(&o.stdout);
        Ok(text.lines().next().unwrap_or_default().trim().to_string())
    };
    // All at once: the node and bun clients take seconds of CPU each to start, and every test
    // waits for this (the first caller runs it, the others block on it).
    let [claude_version, codex_version, gemini_version, qwen_version, copilot_version, droid_version, opencode_version, kilo_version] =
        std::thread::scope(|scope| {
            [
                &claude, &codex, &gemini, &qwen, &copilot, &droid, &opencode, &kilo,
            ]
            .map(|bin| {
                let version = &version;
                scope.spawn(move || version(bin))
            })
            .map(|probe| {
                probe
                    .join()
                    .unwrap_or_else(|_| Err("a --version probe panicked".to_string()))
            })
        });
    let clients = Clients {
        claude_version: claude_version?,
        codex_version: codex_version?,
        gemini_version: gemini_version?,
        qwen_version: qwen_version?,
        copilot_version: copilot_version?,
        droid_version: droid_version?,
        opencode_version: opencode_version?,
        kilo_version: kilo_version?,
        claude,
        codex,
        gemini,
        qwen,
        copilot,
        droid,
        opencode,
        opencode_sdk,
        kilo,
        unshare,
    };
    loud(&format!(
        "e2e clients: Claude Code {} ({}), Codex {} ({}), Gemini CLI {} ({}), Qwen Code {} ({}), Copilot CLI {} ({}), Factory Droid {} ({}), OpenCode {} ({}), Kilo Code {} ({})",
        clients.claude_version,
        clients.claude.display(),
        clients.codex_version,
        clients.codex.display(),
        clients.gemini_version,
        clients.gemini.display(),
        clients.qwen_version,
        clients.qwen.display(),
        clients.copilot_version,
        clients.copilot.display(),
        clients.droid_version,
        clients.droid.display(),
        clients.opencode_version,
        clients.opencode.display(),
        clients.kilo_version,
        clients.kilo.display()
    ));
    Ok(clients)
}

/// The executables under test: the CLI and, beside it, the hook executables.
#[derive(Debug, Clone)]
pub struct Bins {
    pub handover: PathBuf,
    pub session_start: PathBuf,
    pub pre_compact: PathBuf,
    pub context_watch: PathBuf,
}

pub fn bins() -> Bins {
    let handover = PathBuf::from(crate::exe::handover_exe());
    let dir = handover.parent().map(Path::to_path_buf).unwrap_or_default();
    let beside = |name: &str| {
        let p = dir.join(name);
        assert!(
            p.is_file(),
            "{} is missing: the hook executables are built by the workspace, run the tests via `cargo test --workspace`",
            p.display()
        );
        p
    };
    Bins {
        session_start: beside("handover-session-start"),
        pre_compact: beside("handover-pre-compact"),
        context_watch: beside("handover-context-watch"),
        handover,
    }
}
