//! Wiring our hooks into a sandbox's project, the way a user does.

use super::*;
use std::process::{Command, Stdio};

/// Wires our hooks into the sandbox's project for its agent: `handover install --scope project`
/// (with `--trust` for [`Trust::Installed`]), run like a user would. The ONE place that wires
/// hooks, so every scenario also tests what the installer writes.
pub fn wire_hooks(sb: &Sandbox) {
    install_hooks(
        sb,
        sb.bins.session_start.parent().unwrap_or(Path::new(".")),
        sb.trust == Trust::Installed,
    );
}

/// `handover install --scope project --<agent> --hooks-dir <hooks_dir>` in the sandbox's
/// project, plus `--trust` (Codex, Gemini CLI, Copilot CLI, Factory Droid) when `trust` is set:
/// for tests that choose the hook executables or run the trust step later than the install.
pub fn install_hooks(sb: &Sandbox, hooks_dir: &Path, trust: bool) {
    install_hooks_with(sb, hooks_dir, trust, &[]);
}

/// [`install_hooks`] with more of install's options (`--mcp`).
pub fn install_hooks_with(sb: &Sandbox, hooks_dir: &Path, trust: bool, more: &[&str]) {
    let clients = clients("install_hooks").expect("clients checked before building a sandbox");
    let mut args: Vec<String> = ["install", "--scope", "project"].map(String::from).to_vec();
    args.extend(more.iter().map(|a| a.to_string()));
    args.push(format!("--{}", sb.agent.name()));
    args.push("--hooks-dir".into());
    args.push(hooks_dir.to_string_lossy().into_owned());
    // `--codex-bin` is for the trust step only (install refuses it without `--trust`).
    if sb.agent == Agent::Codex && trust {
        args.push("--trust".into());
        args.push("--codex-bin".into());
        args.push(clients.codex.to_string_lossy().into_owned());
    }
    if matches!(sb.agent, Agent::Gemini | Agent::Copilot | Agent::Droid) && trust {
        args.push("--trust".into());
    }
    // The installer may start `codex app-server`: keep it inside a loopback-only namespace too.
    let out = run_offline(sb, &sb.bins.handover, &args);
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

/// Runs `program args` in the sandbox's project the way a user would, with the sandbox's homes
/// (HOME, CODEX_HOME), inside a loopback-only network namespace, bounded by `timeout`.
pub fn run_offline(sb: &Sandbox, program: &Path, args: &[String]) -> std::process::Output {
    let clients = clients("run_offline").expect("clients checked before building a sandbox");
    Command::new("timeout")
        .args(["-k", "5", "120", "unshare"])
        .args(clients.unshare)
        .args([
            "sh",
            "-c",
            "ip link set lo up && exec \"$@\"",
            "e2e-offline",
        ])
        .arg(program)
        .args(args)
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
        .expect("run a command in a network namespace")
}

/// [`run_offline`] that must succeed; returns its stdout. Panics with both outputs otherwise.
pub fn run_offline_ok(sb: &Sandbox, program: &Path, args: &[String]) -> String {
    let out = run_offline(sb, program, args);
    assert!(
        out.status.success(),
        "{} {} failed ({}):\n{}\n{}",
        program.display(),
        args.join(" "),
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}
