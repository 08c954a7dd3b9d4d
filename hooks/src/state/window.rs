//! The size of the context window, in tokens: what the transcript states (Codex records
//! `model_context_window`), else the model tables of the client modules by model name
//! ([`handover_clients::Client::model_windows`], docs/hooks.md shows them), else
//! `context_window` from `.handover/config.toml`, else 200,000.

use handover_clients::ALL;

/// Used when nothing else says.
pub const DEFAULT_WINDOW: u64 = 200_000;

/// The window of `model` by name: a larger variant's mark first (Claude Code's `[1m]`), then
/// the first prefix that matches, every client's table in registry order.
pub fn from_model(model: &str) -> Option<u64> {
    let m = model.trim().to_ascii_lowercase();
    if let Some(v) = ALL
        .iter()
        .filter_map(|c| c.large_variant)
        .find(|v| m.ends_with(v.suffix))
    {
        return Some(v.window);
    }
    ALL.iter()
        .flat_map(|c| c.model_windows)
        .find(|w| m.starts_with(w.prefix))
        .map(|w| w.window)
}

/// The window to measure `used` against. `stated` comes from the transcript, `model` from the
/// transcript or the hook input, `configured` from the config file.
pub fn resolve(
    stated: Option<u64>,
    model: Option<&str>,
    configured: Option<u64>,
    used: u64,
) -> u64 {
    let window = stated
        .or_else(|| model.and_then(from_model))
        .or(configured.filter(|w| *w > 0))
        .unwrap_or(DEFAULT_WINDOW);
    if stated.is_some() || used <= window {
        return window;
    }
    // More tokens in use than the table allows: the session runs a larger variant of the model
    // (Claude's 1M window). Measure against that rather than report over 100 %.
    ALL.iter()
        .filter_map(|c| c.large_variant)
        .map(|v| v.window)
        .filter(|w| used <= *w)
        .min()
        .unwrap_or(window)
}

/// Whole percent used, at most 100.
pub fn percent(used: u64, window: u64) -> u8 {
    if window == 0 {
        return 0;
    }
    (used.saturating_mul(100) / window).min(100) as u8
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transcript_then_table_then_config_then_default() {
        assert_eq!(
            resolve(Some(400_000), Some("claude-x"), Some(5), 10),
            400_000
        );
        assert_eq!(resolve(None, Some("claude-opus-4-1"), Some(5), 10), 200_000);
        assert_eq!(resolve(None, Some("claude-opus-5-5"), None, 10), 1_000_000);
        assert_eq!(resolve(None, Some("gpt-5-codex"), None, 10), 272_000);
        assert_eq!(resolve(None, Some("GPT-4.1-mini"), None, 10), 1_047_576);
        assert_eq!(resolve(None, Some("gpt-4o"), None, 10), 128_000);
        assert_eq!(resolve(None, Some("o4-mini"), None, 10), 200_000);
        assert_eq!(resolve(None, Some("gemini-2.5-pro"), None, 10), 1_048_576);
        assert_eq!(resolve(None, Some("gemma-4-31b-it"), None, 10), 256_000);
        assert_eq!(
            resolve(None, Some("my-local-model"), Some(32_000), 10),
            32_000
        );
        assert_eq!(resolve(None, None, None, 10), DEFAULT_WINDOW);
        assert_eq!(
            resolve(None, Some("claude-sonnet-4-5[1m]"), None, 10),
            1_000_000
        );
        assert_eq!(resolve(None, Some("gpt-5[1M]"), None, 10), 1_000_000);
    }

    #[test]
    fn usage_beyond_the_table_means_the_large_variant() {
        assert_eq!(
            resolve(None, Some("claude-sonnet-4-5"), None, 300_000),
            1_000_000
        );
        assert_eq!(percent(300_000, 1_000_000), 30);
        // Beyond the large variant too: the table's window (the percentage caps at 100).
        assert_eq!(resolve(None, Some("gpt-4o"), None, 1_000_001), 128_000);
        assert_eq!(resolve(Some(100), None, None, 300_000), 100);
    }

    #[test]
    fn percent_rounds_down_and_caps() {
        assert_eq!(percent(119_999, 200_000), 59);
        assert_eq!(percent(120_000, 200_000), 60);
        assert_eq!(percent(500_000, 200_000), 100);
        assert_eq!(percent(5, 0), 0);
    }
}
