//! Wiring our hooks into a sandbox's project, the way a user does.

use super::*;
use std::process::{Command, Stdio};

/// Wires our hooks into the sandbox's project for its agent: `handover install --scope project`
/// (with `--trust` for [`Trust::Installed`]), run like a user would. The ONE place that wires
/// hooks. Until the installer is merged (no `install` subcommand), it writes the same entries
/// itself and says so loudly; trust then cannot be installed and the test fails.
pub fn wire_hooks(sb: &Sandbox) {
    let has_installer = Command::new(&sb.bins.handover)
        .args(["install", "--help"])
        .stdin(Stdio::null())
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_installer {
        eprintln!("e2e: NOTE: `handover install` is not available in this build; the harness writes the hook entries itself");
        assert!(
            sb.trust == Trust::BypassFlag,
            "this scenario trusts Codex hooks with `handover install --trust`, which this build does not have"
        );
        return write_hooks_directly(sb);
    }
    let clients = clients("wire_hooks").expect("clients checked before building a sandbox");
    let mut args: Vec<String> = ["install", "--scope", "project"].map(String::from).to_vec();
    args.push(format!("--{}", sb.agent.name()));
    args.push("--hooks-dir".into());
    args.push(
        sb.bins
            .session_start
            .parent()
            .unwrap_or(Path::new("."))
            .to_string_lossy()
            .into_owned(),
    );
    if sb.agent == Agent::Codex {
        args.push("--codex-bin".into());
        args.push(clients.codex.to_string_lossy().into_owned());
        if sb.trust == Trust::Installed {
            args.push("--trust".into());
        }
    }
    // The installer may start `codex app-server`: keep it inside a loopback-only namespace too.
    let out = Command::new("timeout")
        .args(["-k", "5", "120", "unshare"])
        .args(clients.unshare)
        .args([
            "sh",
            "-c",
            "ip link set lo up && exec \"$@\"",
            "e2e-install",
        ])
        .arg(&sb.bins.handover)
        .args(&args)
        .current_dir(&sb.project)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env(
            "HOME",
            sb.home
                .join(if sb.agent == Agent::Codex { "user" } else { "" }),
        )
        .env("CODEX_HOME", sb.home.join("codex"))
        .env("LANG", "C.UTF-8")
        .stdin(Stdio::null())
        .output()
        .expect("run handover install");
    assert!(
        out.status.success(),
        "handover {} failed ({}):\n{}\n{}",
        args.join(" "),
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    eprintln!(
        "e2e: handover {}:\n{}",
        args.join(" "),
        String::from_utf8_lossy(&out.stdout)
    );
}

/// The entries `handover install` writes (issue 4), for builds without the installer.
fn write_hooks_directly(sb: &Sandbox) {
    let b = &sb.bins;
    let cmd = |exe: &Path, agent: &str| {
        format!("{} --agent {agent}", shell_quote(&exe.to_string_lossy()))
    };
    let group = |exe: &Path, agent: &str| serde_json::json!([{"hooks": [{"type": "command", "command": cmd(exe, agent), "timeout": 30}]}]);
    let agent = sb.agent.name();
    let hooks = serde_json::json!({"hooks": {
        "SessionStart": group(&b.session_start, agent),
        "PreCompact": group(&b.pre_compact, agent),
        "PostCompact": group(&b.pre_compact, agent),
        "UserPromptSubmit": group(&b.context_watch, agent),
        "PostToolUse": group(&b.context_watch, agent),
        "Stop": group(&b.context_watch, agent),
    }});
    let (dir, file) = match sb.agent {
        Agent::Claude => (sb.project.join(".claude"), "settings.json"),
        Agent::Codex => (sb.project.join(".codex"), "hooks.json"),
    };
    std::fs::create_dir_all(&dir).expect("create hooks dir");
    std::fs::write(
        dir.join(file),
        serde_json::to_string_pretty(&hooks).expect("hooks json"),
    )
    .expect("write hooks");
}
