//! Against the REAL Codex: hooks that `handover install` wrote are skipped by `codex exec` until
//! trusted, and after `install --trust` the same `codex exec` (no bypass flag) runs them.
//!
//! The outer test re-runs this binary inside `unshare -n` (loopback only); the inner part serves
//! a fake Responses API on 127.0.0.1 and runs Codex with a temporary HOME / CODEX_HOME.

use handover_installer::flow::{self, InstallRequest};
use handover_installer::{Homes, HookPaths, InstallOptions, Scope, Targets};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

fn codex() -> Option<PathBuf> {
    let ws = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf();
    let out = Command::new("bash")
        .arg(ws.join("tests/clients/ensure.sh"))
        .output()
        .expect("run ensure.sh");
    if !out.status.success() {
        let msg = String::from_utf8_lossy(&out.stderr);
        if std::env::var("HANDOVER_SKIP_E2E").as_deref() == Ok("1") {
            eprintln!("\n*** SKIPPED: real codex exec trust test (HANDOVER_SKIP_E2E=1): {msg}");
            return None;
        }
        panic!("cannot install the pinned Codex: {msg}\nInstall Node.js and npm (Debian: apt-get install -y nodejs npm), or set HANDOVER_SKIP_E2E=1 to skip.");
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    stdout
        .lines()
        .find_map(|l| l.strip_prefix("codex="))
        .map(PathBuf::from)
}

#[test]
fn codex_exec_runs_our_hooks_only_after_install_trust() {
    let Some(codex) = codex() else { return };
    let me = std::env::current_exe().unwrap();
    let out = Command::new("timeout")
        .args([
            "180",
            "unshare",
            "-n",
            "sh",
            "-c",
            "ip link set lo up && exec \"$0\" --exact inner_codex_exec --ignored --nocapture",
        ])
        .arg(&me)
        .env("HANDOVER_INNER_CODEX", &codex)
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    println!("{text}");
    assert!(out.status.success(), "inner run failed:\n{text}");
    assert!(
        text.contains("1 passed") && text.contains("after trust:"),
        "{text}"
    );
}

/// A fake Responses API: every request gets one assistant message "done".
fn serve(listener: TcpListener, deadline: Instant) {
    listener.set_nonblocking(true).unwrap();
    let mut served = 0;
    while Instant::now() < deadline && served < 40 {
        let Ok((stream, _)) = listener.accept() else {
            std::thread::sleep(Duration::from_millis(10));
            continue;
        };
        served += 1;
        stream.set_nonblocking(false).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        let mut reader = BufReader::new(stream.try_clone().unwrap());
        let mut request_line = String::new();
        if reader.read_line(&mut request_line).is_err() {
            continue;
        }
        let mut len = 0usize;
        loop {
            let mut h = String::new();
            if reader.read_line(&mut h).unwrap_or(0) == 0 || h == "\r\n" {
                break;
            }
            if let Some(v) = h.to_ascii_lowercase().strip_prefix("content-length:") {
                len = v.trim().parse().unwrap_or(0);
            }
        }
        let mut body = vec![0; len];
        let _ = reader.read_exact(&mut body);
        let mut stream = stream;
        if !request_line.starts_with("POST") {
            let b = "{\"models\": []}";
            let _ = write!(stream, "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{b}", b.len());
            continue;
        }
        let id = format!("resp_{served}");
        let events: [(&str, Value); 3] = [
            (
                "response.created",
                json!({"type": "response.created", "response": {"id": id}}),
            ),
            (
                "response.output_item.done",
                json!({"type": "response.output_item.done", "output_index": 0, "item": {"type": "message", "role": "assistant", "id": format!("msg_{served}"), "content": [{"type": "output_text", "text": "done"}]}}),
            ),
            (
                "response.completed",
                json!({"type": "response.completed", "response": {"id": id, "usage": {"input_tokens": 50, "input_tokens_details": null, "output_tokens": 2, "output_tokens_details": null, "total_tokens": 52}}}),
            ),
        ];
        let sse: String = events
            .iter()
            .map(|(n, d)| format!("event: {n}\ndata: {d}\n\n"))
            .collect();
        let _ = write!(
            stream,
            "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n{sse}"
        );
    }
}

fn exec(codex: &Path, repo: &Path, home: &Path, port: u16) -> String {
    let out = Command::new("timeout")
        .arg("60")
        .arg(codex)
        .args(["exec", "--skip-git-repo-check", "say done"])
        .current_dir(repo)
        .env("HOME", home)
        .env("CODEX_HOME", home.join(".codex"))
        .env("FAKE_MODEL_KEY", "test-key")
        .env("HANDOVER_TEST_PORT", port.to_string())
        .output()
        .unwrap();
    format!(
        "exit {:?}\n{}\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
#[ignore]
fn inner_codex_exec() {
    let Some(codex) = std::env::var_os("HANDOVER_INNER_CODEX").map(PathBuf::from) else {
        eprintln!("inner_codex_exec: nothing to do outside codex_exec_runs_our_hooks_only_after_install_trust");
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    let repo = root.join("repo");
    let home = root.join("home");
    let bin = root.join("bin dir");
    let log = root.join("hooks.log");
    for d in [&repo, &home.join(".codex"), &bin] {
        std::fs::create_dir_all(d).unwrap();
    }
    assert!(Command::new("git")
        .args(["init", "-q"])
        .current_dir(&repo)
        .status()
        .unwrap()
        .success());
    for name in [
        "handover-session-start",
        "handover-pre-compact",
        "handover-context-watch",
    ] {
        let p = bin.join(name);
        std::fs::write(
            &p,
            format!(
                "#!/bin/sh\nin=$(cat)\nev=$(printf '%s' \"$in\" | grep -o '\"hook_event_name\":\"[A-Za-z]*\"')\necho \"{name} $* $ev\" >> '{}'\n",
                log.display()
            ),
        )
        .unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let deadline = Instant::now() + Duration::from_secs(150);
    std::thread::spawn(move || serve(listener, deadline));
    std::fs::write(
        home.join(".codex/config.toml"),
        format!(
            "# test config\nmodel = \"gpt-5\"\nmodel_provider = \"fake\"\n\n[model_providers.fake]\nname = \"fake\"\nbase_url = \"http://127.0.0.1:{port}/v1\"\nwire_api = \"responses\"\nenv_key = \"FAKE_MODEL_KEY\"\n\n[projects.\"{}\"]\ntrust_level = \"trusted\"\n",
            repo.display()
        ),
    )
    .unwrap();
    let homes = Homes {
        home: home.clone(),
        codex_home: home.join(".codex"),
    };
    let mut req = InstallRequest {
        repo: repo.clone(),
        homes,
        options: InstallOptions {
            targets: Targets {
                claude: false,
                codex: true,
            },
            scope: Scope::Project,
            watch: true,
            enable_codex_hooks: false,
            trust: false,
            hooks: HookPaths::in_dir(&bin),
        },
        dry_run: false,
        codex_bin: Some(codex.clone()),
        trust_timeout: Duration::from_secs(60),
    };
    assert!(flow::install(&req, &mut Vec::new()).unwrap().ok);

    // Installed but not trusted: Codex skips the hooks silently.
    let run1 = exec(&codex, &repo, &home, port);
    let before = std::fs::read_to_string(&log).unwrap_or_default();
    println!("before trust: {before:?}\n{run1}");
    assert!(run1.contains("exit Some(0)"), "{run1}");
    assert_eq!(before, "", "untrusted hooks must not run");

    req.options.trust = true;
    let mut out = Vec::new();
    let outcome = flow::install(&req, &mut out).unwrap();
    assert!(outcome.ok, "{}", String::from_utf8_lossy(&out));

    let run2 = exec(&codex, &repo, &home, port);
    let after = std::fs::read_to_string(&log).unwrap_or_default();
    println!("after trust:\n{after}\n{run2}");
    for want in [
        "handover-session-start --agent codex \"hook_event_name\":\"SessionStart\"",
        "handover-context-watch --agent codex \"hook_event_name\":\"UserPromptSubmit\"",
        "handover-context-watch --agent codex \"hook_event_name\":\"Stop\"",
    ] {
        assert!(
            after.contains(want),
            "missing `{want}` in:\n{after}\n{run2}"
        );
    }
}
