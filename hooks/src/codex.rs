//! What is particular to Codex (checked against 0.169.0, see docs/compatibility.md): its own
//! compaction point. Codex compacts by itself when the tokens in use reach
//! `model_auto_compact_token_limit`, set in the user's `$CODEX_HOME/config.toml` (default
//! `~/.codex`), in a project's `.codex/config.toml`, or in the `[profiles.<name>]` table the
//! `profile` key selects; unset, it compacts at about 90 % of the window. A reminder that comes
//! after that point is useless, so the context watch's thresholds move below it.
//!
//! Where several layers set a limit, the lowest counts: a reminder a little early is a nuisance,
//! one after the compaction is lost. A profile chosen on the command line (`--profile`) is not
//! visible to a hook; only the `profile` key of a config file is.

use std::path::{Path, PathBuf};

/// Where Codex compacts when no limit is configured: about 90 % of the window.
pub const DEFAULT_COMPACT_PERCENT: u8 = 90;

/// Config files are small; a huge one is not read.
const CONFIG_MAX_BYTES: u64 = 1 << 20;

const KEY: &str = "model_auto_compact_token_limit";

/// The lowest `model_auto_compact_token_limit` of the project's and the user's config (None:
/// none set, or unreadable: a hook never fails over a config file).
pub fn auto_compact_limit(project: Option<&Path>) -> Option<u64> {
    let files = [
        project.map(|p| p.join(".codex").join("config.toml")),
        codex_home().map(|h| h.join("config.toml")),
    ];
    files
        .into_iter()
        .flatten()
        .filter_map(|f| read_small(&f))
        .filter_map(|text| limit_in(&text))
        .min()
}

/// Codex's compaction point as a whole percent of `window`: the configured limit when there is
/// one (never above the default), else the default.
pub fn compact_percent(limit: Option<u64>, window: u64) -> u8 {
    let configured = limit.filter(|_| window > 0).map(|l| {
        let p = (l as f64 * 100.0 / window as f64).floor();
        p.clamp(1.0, 100.0) as u8
    });
    configured
        .unwrap_or(DEFAULT_COMPACT_PERCENT)
        .min(DEFAULT_COMPACT_PERCENT)
}

/// `$CODEX_HOME`, else `$HOME/.codex`.
fn codex_home() -> Option<PathBuf> {
    let var = |n: &str| std::env::var_os(n).filter(|v| !v.is_empty());
    var("CODEX_HOME")
        .map(PathBuf::from)
        .or_else(|| var("HOME").map(|h| PathBuf::from(h).join(".codex")))
}

fn read_small(file: &Path) -> Option<String> {
    if std::fs::metadata(file).ok()?.len() > CONFIG_MAX_BYTES {
        return None;
    }
    std::fs::read_to_string(file).ok()
}

/// The limit a config file sets: top level, or in the profile its `profile` key selects; the
/// lower of the two. Text that does not mention the key is not parsed at all.
pub fn limit_in(text: &str) -> Option<u64> {
    if !text.contains(KEY) {
        return None;
    }
    let doc: toml_edit::DocumentMut = text.parse().ok()?;
    let positive = |item: Option<&toml_edit::Item>| {
        item.and_then(toml_edit::Item::as_integer)
            .and_then(|n| u64::try_from(n).ok())
            .filter(|n| *n > 0)
    };
    let top = positive(doc.get(KEY));
    let profile = doc
        .get("profile")
        .and_then(toml_edit::Item::as_str)
        .and_then(|name| doc.get("profiles")?.get(name)?.get(KEY))
        .and_then(|item| positive(Some(item)));
    top.into_iter().chain(profile).min()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limit_from_top_level_or_the_selected_profile_lowest_wins() {
        assert_eq!(limit_in("model = \"gpt-5.5\"\n"), None);
        assert_eq!(
            limit_in("model_auto_compact_token_limit = 60000\n"),
            Some(60_000)
        );
        let profiles = "profile = \"fast\"\nmodel_auto_compact_token_limit = 90000\n\n[profiles.fast]\nmodel_auto_compact_token_limit = 50000\n\n[profiles.slow]\nmodel_auto_compact_token_limit = 10000\n";
        assert_eq!(
            limit_in(profiles),
            Some(50_000),
            "the selected profile only"
        );
        let unselected = "[profiles.fast]\nmodel_auto_compact_token_limit = 50000\n";
        assert_eq!(limit_in(unselected), None);
        for bad in [
            "model_auto_compact_token_limit = \"60000\"\n",
            "model_auto_compact_token_limit = -5\n",
            "model_auto_compact_token_limit = 0\n",
            "model_auto_compact_token_limit = \n",
        ] {
            assert_eq!(limit_in(bad), None, "{bad}");
        }
    }

    #[test]
    fn compaction_point_as_a_percent_never_above_the_default() {
        assert_eq!(compact_percent(Some(60_000), 100_000), 60);
        assert_eq!(compact_percent(Some(55_999), 100_000), 55);
        assert_eq!(compact_percent(None, 258_400), DEFAULT_COMPACT_PERCENT);
        assert_eq!(
            compact_percent(Some(500_000), 258_400),
            DEFAULT_COMPACT_PERCENT
        );
        assert_eq!(compact_percent(Some(10), 1_000_000), 1);
        assert_eq!(compact_percent(Some(60_000), 0), DEFAULT_COMPACT_PERCENT);
    }

    #[test]
    fn the_project_layer_and_the_user_layer_lowest_wins() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join("p");
        std::fs::create_dir_all(project.join(".codex")).unwrap();
        std::fs::write(
            project.join(".codex/config.toml"),
            "model_auto_compact_token_limit = 70000\n",
        )
        .unwrap();
        // The user layer is whatever CODEX_HOME says in this process; only the project's is
        // controlled here, so compare with what the user layer alone gives.
        let user = codex_home()
            .and_then(|h| read_small(&h.join("config.toml")))
            .and_then(|t| limit_in(&t));
        let expected = user.into_iter().chain([70_000]).min();
        assert_eq!(auto_compact_limit(Some(&project)), expected);
    }
}
