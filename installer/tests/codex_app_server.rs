//! Against the REAL Codex (pinned in tests/clients, installed by tests/clients/ensure.sh):
//! `install --trust` marks the project trusted, trusts exactly our hooks through
//! `codex app-server`, and a fresh `hooks/list` then reports them as trusted while another
//! tool's hook in the same file stays untrusted. Runs inside `unshare -n` (loopback only) with
//! a temporary HOME and CODEX_HOME; every server conversation is bounded.

use handover_installer::codex_trust::{self, TrustRequest};
use handover_installer::flow::{self, InstallRequest, UninstallRequest};
use handover_installer::{Homes, HookPaths, InstallOptions, Scope, Targets};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// The pinned codex binary, or None when skipping is allowed (loud line printed).
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
            eprintln!("\n*** SKIPPED: real Codex app-server test (HANDOVER_SKIP_E2E=1): {msg}");
            return None;
        }
        panic!("cannot install the pinned Codex: {msg}\nInstall Node.js and npm (Debian: apt-get install -y nodejs npm), or set HANDOVER_SKIP_E2E=1 to skip.");
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    let path = stdout
        .lines()
        .find_map(|l| l.strip_prefix("codex="))
        .expect("ensure.sh prints codex=");
    Some(PathBuf::from(path))
}

/// A `codex` that runs the real one inside a loopback-only network namespace.
fn netless_codex(dir: &Path, real: &Path) -> PathBuf {
    let w = dir.join("codex-netless");
    std::fs::write(
        &w,
        format!("#!/bin/sh\nexec unshare -n sh -c 'ip link set lo up; exec \"$0\" \"$@\"' '{}' \"$@\"\n", real.display()),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&w, std::fs::Permissions::from_mode(0o755)).unwrap();
    w
}

#[test]
fn install_trust_makes_codex_report_exactly_our_hooks_as_trusted() {
    let Some(real) = codex() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    let repo = root.join("my project");
    let home = root.join("home");
    let codex_home = home.join(".codex");
    std::fs::create_dir_all(repo.join(".codex")).unwrap();
    std::fs::create_dir_all(&codex_home).unwrap();
    assert!(Command::new("git")
        .args(["init", "-q"])
        .current_dir(&repo)
        .status()
        .unwrap()
        .success());
    // Someone else's hook already in the project file, and a user config with a comment.
    std::fs::write(
        repo.join(".codex/hooks.json"),
        "{\n  \"hooks\": {\n    \"Stop\": [\n      {\n        \"hooks\": [\n          {\n            \"type\": \"command\",\n            \"command\": \"/usr/bin/true\"\n          }\n        ]\n      }\n    ]\n  }\n}\n",
    )
    .unwrap();
    let config = "# my codex settings\nmodel = \"gpt-5\"\n";
    std::fs::write(codex_home.join("config.toml"), config).unwrap();
    let bin_dir = root.join("bin dir");
    std::fs::create_dir_all(&bin_dir).unwrap();
    let codex_bin = netless_codex(&root, &real);

    let homes = Homes {
        home: home.clone(),
        codex_home: codex_home.clone(),
    };
    let req = InstallRequest {
        repo: repo.clone(),
        homes: homes.clone(),
        options: InstallOptions {
            targets: Targets {
                claude: false,
                codex: true,
            },
            scope: Scope::Project,
            watch: true,
            enable_codex_hooks: false,
            trust: true,
            hooks: HookPaths::in_dir(&bin_dir),
        },
        dry_run: false,
        codex_bin: Some(codex_bin.clone()),
        trust_timeout: Duration::from_secs(60),
    };
    let started = Instant::now();
    let mut out = Vec::new();
    let outcome = flow::install(&req, &mut out).unwrap();
    let out = String::from_utf8_lossy(&out);
    println!("{out}\n(install --trust took {:?})", started.elapsed());
    assert!(outcome.ok, "{out}");
    assert_eq!(
        out.matches("trusted: ").count() - out.matches("already trusted: ").count(),
        6,
        "{out}"
    );
    assert!(out.contains("verified with hooks/list: all 6"), "{out}");

    // A fresh server agrees: our six handlers trusted, the other tool's Stop hook not.
    let listed = codex_trust::list_hooks(&TrustRequest {
        codex_bin: codex_bin.clone(),
        codex_home: codex_home.clone(),
        home: home.clone(),
        project: repo.clone(),
        hooks_json: repo.join(".codex/hooks.json"),
        timeout: Duration::from_secs(60),
    })
    .unwrap();
    let ours: Vec<_> = listed
        .iter()
        .filter(|h| h.command.contains("handover-"))
        .collect();
    assert_eq!(ours.len(), 6, "{listed:#?}");
    assert!(
        ours.iter().all(|h| h.trust_status == "trusted"),
        "{listed:#?}"
    );
    let other = listed
        .iter()
        .find(|h| h.command == "/usr/bin/true")
        .expect("the other tool's hook is listed");
    assert_eq!(
        other.trust_status, "untrusted",
        "we trust only our own hooks"
    );
    let cfg = std::fs::read_to_string(codex_home.join("config.toml")).unwrap();
    assert!(cfg.starts_with(config), "user's config kept:\n{cfg}");
    assert!(
        cfg.contains(&format!("[projects.\"{}\"]", repo.display())),
        "{cfg}"
    );

    // The opt-in live status asks Codex and agrees.
    let mut st =
        handover_installer::status::status(&repo, &req.homes, Some(&HookPaths::in_dir(&bin_dir)));
    handover_installer::status::add_live_codex_trust(
        &mut st,
        &repo,
        &req.homes,
        Some(&codex_bin),
        Duration::from_secs(60),
    );
    assert!(
        st.lines
            .iter()
            .any(|l| l == "codex project: Codex reports 6 of 6 of our hooks trusted"),
        "{:?}",
        st.lines
    );
    assert_eq!(st.json["codex"]["project"]["hook_trust"]["recorded"], 6);
    assert!(st.problems.is_empty(), "{:?}", st.problems);

    // Running install --trust again changes nothing and still verifies.
    let mut out2 = Vec::new();
    let again = flow::install(&req, &mut out2).unwrap();
    let out2 = String::from_utf8_lossy(&out2);
    assert!(again.ok && again.wrote.is_empty(), "{out2}");
    assert_eq!(out2.matches("already trusted: ").count(), 6, "{out2}");
    assert_eq!(
        std::fs::read_to_string(codex_home.join("config.toml")).unwrap(),
        cfg
    );

    // Uninstall removes our handlers and our trust entries; the user's hook and comment stay.
    let mut out3 = Vec::new();
    let un = UninstallRequest {
        repo: repo.clone(),
        homes,
        targets: Targets {
            claude: false,
            codex: true,
        },
        scope: Scope::Project,
        dry_run: false,
    };
    assert!(flow::uninstall(&un, &mut out3).unwrap().ok);
    let hooks = std::fs::read_to_string(repo.join(".codex/hooks.json")).unwrap();
    assert!(
        !hooks.contains("handover-") && hooks.contains("/usr/bin/true"),
        "{hooks}"
    );
    let cfg = std::fs::read_to_string(codex_home.join("config.toml")).unwrap();
    assert!(!cfg.contains("hooks.json:"), "{cfg}");
    assert!(cfg.starts_with(config), "{cfg}");
}
