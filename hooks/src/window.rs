//! The size of the context window, in tokens: what the transcript states (Codex records
//! `model_context_window`), else this table by model name, else `context_window` from
//! `.handover/config.toml`, else 200,000. Keep the table in step with docs/hooks.md.

/// Model-name prefix → window. First match wins, so longer prefixes come first. Windows are
/// the smaller, conservative figure where a model comes in two sizes: a reminder that comes
/// early is a nuisance, one that comes after compaction is useless.
pub const MODEL_WINDOWS: &[(&str, u64)] = &[
    // Claude Code 2.1.330 reports a 1,000,000-token window for its default model,
    // `claude-opus-5-5` (the `modelUsage` of `claude -p --output-format json`).
    ("claude-opus-5", 1_000_000),
    ("claude-", 200_000),
    ("gpt-5", 272_000),
    ("gpt-4.1", 1_047_576),
    ("gpt-4o", 128_000),
    ("o3", 200_000),
    ("o4-mini", 200_000),
    ("codex-mini", 200_000),
    // Gemini CLI 0.61.0's own table (`tokenLimit` in its core): Gemma 4 models 256,000, every
    // other model 1,048,576; it compresses at a fraction of this (gemini.rs).
    ("gemma-4", 256_000),
    ("gemini-", 1_048_576),
];

/// Used when nothing else says.
pub const DEFAULT_WINDOW: u64 = 200_000;

/// Claude Code marks its 1M-token variants with a `[1m]` suffix on the model name.
const ONE_MILLION: u64 = 1_000_000;

pub fn from_model(model: &str) -> Option<u64> {
    let m = model.trim().to_ascii_lowercase();
    if m.ends_with("[1m]") {
        return Some(ONE_MILLION);
    }
    MODEL_WINDOWS
        .iter()
        .find(|(prefix, _)| m.starts_with(prefix))
        .map(|(_, w)| *w)
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
    // More tokens in use than the table allows: the session runs a larger variant of the model
    // (Claude's 1M window). Measure against that rather than report over 100 %.
    if stated.is_none() && used > window && used <= ONE_MILLION {
        ONE_MILLION
    } else {
        window
    }
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
        assert_eq!(resolve(None, Some("gpt-5-codex"), None, 10), 272_000);
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
    }

    #[test]
    fn usage_beyond_the_table_means_the_large_variant() {
        assert_eq!(
            resolve(None, Some("claude-sonnet-4-5"), None, 300_000),
            1_000_000
        );
        assert_eq!(percent(300_000, 1_000_000), 30);
    }

    #[test]
    fn percent_rounds_down_and_caps() {
        assert_eq!(percent(119_999, 200_000), 59);
        assert_eq!(percent(120_000, 200_000), 60);
        assert_eq!(percent(500_000, 200_000), 100);
        assert_eq!(percent(5, 0), 0);
    }
}
