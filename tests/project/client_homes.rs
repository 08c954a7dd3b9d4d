//! A client lives in its home: everything handover knows of one client is its module in
//! handover-clients (`src/clients/src/<client>.rs`, a declaration and its behaviour) and, where
//! its files need more than the generic steps, its wiring (`installer/src/wiring/<client>.rs`
//! or `installer/src/wiring/<client>/`). This test reads the production code and its strings
//! (comments and tests left out) for each client of the registry and fails on any place
//! outside those homes that names it, unless the place is listed below with why. Adding a
//! client is then its module, an optional wiring folder and fixtures (docs/design.md).

use super::architecture::LAYERS;
use super::git_processes::production_code;
use std::collections::BTreeMap;

/// Every client of the registry, in an entry of [`ALLOWED`].
const EVERY: &str = "*";

/// The places outside a client's home that may name it: (file, the clients it names there,
/// why); `<clients>` is handover-clients' folder. Keep it short: a new line here is a rule
/// that did not find its client's home.
const ALLOWED: &[(&str, &[&str], &str)] = &[
    (
        "<clients>/src/lib.rs",
        &[EVERY],
        "the registry: each client's `pub mod` line and its line in `registry!`",
    ),
    (
        "installer/src/wiring.rs",
        &[EVERY],
        "the wiring registry: each client's wiring module, its line in `wiring::of`, and its \
         variant of `Facts` (status --json's closed, untagged enum of the clients' own facts)",
    ),
    (
        "<clients>/src/copilot.rs",
        &["claude", "gemini"],
        "GitHub Copilot CLI runs Claude Code's hook entries and reads CLAUDE.md and GEMINI.md",
    ),
    (
        "<clients>/src/kilo.rs",
        &["opencode"],
        "Kilo Code is OpenCode's fork and runs its plugin: its declaration and behaviour are \
         OpenCode's with its own places",
    ),
    (
        "<clients>/src/input.rs",
        &["claude"],
        "the hook input's `CLAUDE_ENV_FILE` key, which Droid sends under Claude Code's name",
    ),
    (
        "src/cli/mod.rs",
        &["codex"],
        "Codex's own switches of `handover install`: --enable-codex-hooks, --codex-bin",
    ),
    (
        "src/cli/install.rs",
        &["claude", "codex", "gemini"],
        "the same switches, `trust-plugin` and `status --check-trust`, which ask Codex itself; \
         the warning for an install in the home directory, which names two clients' project \
         settings as examples",
    ),
    (
        "installer/src/plan/flow.rs",
        &["codex"],
        "Codex's step after the files are written: trusting our hooks through `codex app-server`",
    ),
];

/// The words that name `client` in code, in lower case: its `--agent` name (also in its
/// display name, its executable, its `Agent` variant, its variables) and its user directory
/// where that does not hold the name (`.factory`).
fn words(client: &handover_clients::Client) -> Vec<String> {
    let name = client.name.to_ascii_lowercase();
    let dir = client.home.dir.to_ascii_lowercase();
    if dir.contains(&name) {
        vec![name]
    } else {
        vec![name, dir]
    }
}

/// Whether `rel` is `client`'s home.
fn home_of(client: &str, rel: &str) -> bool {
    rel == format!("{}/src/{client}.rs", clients_dir())
        || rel == format!("installer/src/wiring/{client}.rs")
        || rel.starts_with(&format!("installer/src/wiring/{client}/"))
}

/// Per (file, client): the lines of production code and strings outside the client's home
/// that name it.
fn names_outside_homes() -> BTreeMap<(String, String), Vec<String>> {
    let mut found: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
    for (rel, code) in production_code() {
        for client in handover_clients::ALL {
            if home_of(client.name, &rel) {
                continue;
            }
            let words = words(client);
            for line in code.lines() {
                let lower = line.to_ascii_lowercase();
                if words.iter().any(|w| lower.contains(w.as_str())) {
                    found
                        .entry((rel.clone(), client.name.to_string()))
                        .or_default()
                        .push(line.trim().to_string());
                }
            }
        }
    }
    found
}

/// handover-clients' folder, as the workspace's layers name it.
fn clients_dir() -> &'static str {
    LAYERS
        .iter()
        .find(|(_, name, _)| *name == "handover-clients")
        .map(|(dir, _, _)| *dir)
        .unwrap()
}

/// An [`ALLOWED`] path from the workspace root.
fn resolved(path: &str) -> String {
    path.replace("<clients>", clients_dir())
}

fn allowed(rel: &str, client: &str) -> bool {
    ALLOWED.iter().any(|(f, clients, _)| {
        resolved(f) == rel && clients.iter().any(|c| *c == EVERY || *c == client)
    })
}

#[test]
fn a_client_is_named_only_in_its_home() {
    let found = names_outside_homes();
    let stray: Vec<String> = found
        .iter()
        .filter(|((rel, client), _)| !allowed(rel, client))
        .map(|((rel, client), lines)| {
            format!("{client} in {rel}:\n      {}", lines.join("\n      "))
        })
        .collect();
    assert!(
        stray.is_empty(),
        "a client named outside its home (<clients crate>/src/<client>.rs, \
         installer/src/wiring/<client>[.rs|/]): move the rule into the client's declaration, \
         behaviour or wiring, or list the place in ALLOWED with why:\n  {}",
        stray.join("\n  ")
    );
    // The control: every listed place still names its clients, so the list does not outlive
    // what it allows, and the scan is not blind.
    for (rel, clients, why) in ALLOWED {
        let named: Vec<&str> = handover_clients::ALL
            .iter()
            .map(|c| c.name)
            .filter(|c| found.contains_key(&(resolved(rel), c.to_string())))
            .collect();
        let want: Vec<&str> = if clients.contains(&EVERY) {
            handover_clients::ALL.iter().map(|c| c.name).collect()
        } else {
            clients.to_vec()
        };
        assert_eq!(named, want, "{rel} ({why}) names other clients than listed");
    }
}
