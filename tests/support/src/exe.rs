//! The executables of this build, the `handover` command and the three hooks, found beside the
//! running test binary: cargo builds a package's executables for its tests and benches and
//! puts them in `target/<profile>/`, one level above the test binaries in `deps/`.
//! (`env!("CARGO_BIN_EXE_…")` names them only to the package's own test targets, not to a
//! library they use.)

use std::path::Path;
use std::sync::OnceLock;

/// The `handover` command.
pub fn handover_exe() -> &'static str {
    static PATH: OnceLock<String> = OnceLock::new();
    beside_the_tests(&PATH, "handover")
}

/// The SessionStart hook (`handover-session-start`).
pub fn session_start_exe() -> &'static str {
    static PATH: OnceLock<String> = OnceLock::new();
    beside_the_tests(&PATH, "handover-session-start")
}

/// The PreCompact hook (`handover-pre-compact`).
pub fn pre_compact_exe() -> &'static str {
    static PATH: OnceLock<String> = OnceLock::new();
    beside_the_tests(&PATH, "handover-pre-compact")
}

/// The context watch hook (`handover-context-watch`).
pub fn context_watch_exe() -> &'static str {
    static PATH: OnceLock<String> = OnceLock::new();
    beside_the_tests(&PATH, "handover-context-watch")
}

fn beside_the_tests(path: &'static OnceLock<String>, name: &str) -> &'static str {
    path.get_or_init(|| {
        let test_binary = std::env::current_exe().expect("the test binary's path");
        let mut dir = test_binary.parent().expect("its directory");
        if dir.ends_with("deps") {
            dir = dir.parent().expect("target/<profile>");
        }
        let exe = dir.join(name);
        assert!(
            exe.is_file(),
            "{} is not built: run the tests through cargo (cargo test -p handover)",
            exe.display()
        );
        path_text(&exe)
    })
}

fn path_text(path: &Path) -> String {
    path.to_str().expect("a UTF-8 target directory").to_string()
}
