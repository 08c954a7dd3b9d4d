//! The crate layout's promises (docs/design.md), checked on the manifests and on the built
//! executables, so a new `use` or dependency that breaks them fails here rather than in review.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeSet;
use std::path::Path;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// (package directory, package name, the handover crates it may depend on).
const LAYERS: &[(&str, &str, &[&str])] = &[
    ("src/base", "handover-base", &[]),
    ("src/clients", "handover-clients", &["handover-base"]),
    (
        "src/core",
        "handover-core",
        &["handover-base", "handover-clients"],
    ),
    (
        "installer",
        "handover-installer",
        &["handover-base", "handover-clients"],
    ),
    (
        "hooks",
        "handover-hooks",
        &["handover-base", "handover-clients", "handover-core"],
    ),
    (
        ".",
        "handover",
        &[
            "handover-base",
            "handover-core",
            "handover-hooks",
            "handover-installer",
        ],
    ),
];

fn manifest(dir: &str) -> toml_edit::DocumentMut {
    let path = Path::new(ROOT).join(dir).join("Cargo.toml");
    std::fs::read_to_string(&path)
        .unwrap()
        .parse()
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Names of a manifest's normal (not dev) dependencies.
fn dependencies(doc: &toml_edit::DocumentMut) -> BTreeSet<String> {
    doc.get("dependencies")
        .and_then(|d| d.as_table_like())
        .map(|t| t.iter().map(|(k, _)| k.to_string()).collect())
        .unwrap_or_default()
}

#[test]
fn dependencies_point_one_way() {
    for (dir, name, allowed) in LAYERS {
        let doc = manifest(dir);
        assert_eq!(doc["package"]["name"].as_str(), Some(*name), "{dir}");
        let ours: BTreeSet<String> = dependencies(&doc)
            .into_iter()
            .filter(|d| d.starts_with("handover"))
            .collect();
        let allowed: BTreeSet<String> = allowed.iter().map(|s| s.to_string()).collect();
        assert_eq!(ours, allowed, "{name} depends on the wrong handover crates");
    }
}

#[test]
fn heavy_or_edge_dependencies_stay_where_they_belong() {
    // clap is the CLI's; dirs (finding the user's home) and toml_edit's editing are the
    // installer's and the core's; the base crate is the standard library only (and libc).
    for (dir, name, _) in LAYERS {
        let deps = dependencies(&manifest(dir));
        assert_eq!(deps.contains("clap"), *name == "handover", "clap in {name}");
        assert_eq!(
            deps.contains("dirs"),
            *name == "handover-installer",
            "dirs in {name}"
        );
        if *name == "handover-base" {
            assert!(
                deps.is_empty(),
                "handover-base must stay std-only: {deps:?}"
            );
            // Its one exception: libc's open flags for the read gate, on Unix only.
            let doc = manifest(dir);
            let targets: BTreeSet<String> = doc
                .get("target")
                .and_then(|t| t.as_table_like())
                .into_iter()
                .flat_map(|t| t.iter())
                .flat_map(|(_, target)| {
                    target
                        .get("dependencies")
                        .and_then(|d| d.as_table_like())
                        .map(|d| d.iter().map(|(k, _)| k.to_string()).collect::<Vec<_>>())
                        .unwrap_or_default()
                })
                .collect();
            assert!(
                targets.iter().all(|d| d == "libc"),
                "handover-base may add only libc, for Unix: {targets:?}"
            );
        }
    }
}

/// Whether an executable carries code of `krate`: debug builds keep symbol names, and every
/// function of a crate is named `<crate>::...` in them.
fn links(exe: &str, krate: &str) -> bool {
    // Through str::contains: the standard library's search is compiled optimised even in a
    // debug test build, a hand loop over 50 MB is not.
    String::from_utf8_lossy(&std::fs::read(exe).unwrap()).contains(krate)
}

#[test]
fn hook_executables_link_neither_clap_nor_the_installer() {
    let cli = env!("CARGO_BIN_EXE_handover");
    // The control: the scan does find both in the CLI, which uses them.
    assert!(
        links(cli, "clap_builder"),
        "symbol scan found no clap in the CLI"
    );
    assert!(links(cli, "handover_installer"));
    for exe in [
        env!("CARGO_BIN_EXE_handover-session-start"),
        env!("CARGO_BIN_EXE_handover-pre-compact"),
        env!("CARGO_BIN_EXE_handover-context-watch"),
    ] {
        assert!(
            links(exe, "handover_hooks"),
            "{exe}: scan found no hook code"
        );
        assert!(!links(exe, "clap_builder"), "{exe} links clap");
        assert!(
            !links(exe, "handover_installer"),
            "{exe} links the installer"
        );
    }
}

/// serde_json's `preserve_order` feature would switch every `serde_json::Map` in the build to an
/// IndexMap, the core's and the hooks' too (cargo unifies features): no crate enables it (the
/// installer keeps users' key order with its own json_doc). Legacy-mangled debug symbols name
/// the map's instances; indexmap itself is linked anyway, through toml_edit.
#[test]
fn serde_json_maps_are_not_indexmaps_anywhere() {
    let indexmap = "IndexMap$LT$alloc..string..String$C$serde_json..value..Value";
    let btreemap = "BTreeMap$LT$alloc..string..String$C$serde_json..value..Value";
    for exe in [
        env!("CARGO_BIN_EXE_handover"),
        env!("CARGO_BIN_EXE_handover-session-start"),
        env!("CARGO_BIN_EXE_handover-pre-compact"),
        env!("CARGO_BIN_EXE_handover-context-watch"),
    ] {
        // The control: the scan finds serde_json's map as it is built.
        assert!(links(exe, btreemap), "{exe}: scan found no serde_json map");
        assert!(
            !links(exe, indexmap),
            "{exe}: serde_json's map is an IndexMap (preserve_order enabled somewhere)"
        );
    }
}
