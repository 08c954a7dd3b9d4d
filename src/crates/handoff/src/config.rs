//! `.handover/config.toml`: optional; every key has a default (docs/storage.md,
//! "Configuration"). Typos are errors, not silently ignored keys.
//!
//! ```toml
//! [policy]
//! facts_only = false
//! [startup]
//! budget_chars = 1500
//! [context_watch]
//! remind_percent = 60
//! insist_percent = 75
//! # context_window = 200000
//! [budget]
//! standard_tokens = 2000
//! heavy_tokens = 5000
//! [records]
//! startup = "unfinished"
//! keep = 20
//! [travel]
//! with_changes = false
//! [archive]
//! # keep = 200
//! # max_age_days = 90
//! ```

use anyhow::bail;
use handover_base::text::line_column;
use std::path::Path;
use toml_edit::{Document, Item};

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
    /// When the startup context shows the last session's record.
    pub records_startup: ShowRecord,
    /// Session records kept under `.handover/records/`.
    pub records_keep: usize,
    /// `handover push` carries the uncommitted work as if `--with-changes` were given.
    pub travel_with_changes: bool,
    /// How long `.handover/archive/` keeps handoffs (default: all).
    pub archive_retention: Retention,
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
            records_startup: ShowRecord::Unfinished,
            records_keep: 20,
            travel_with_changes: false,
            archive_retention: Retention::default(),
        }
    }
}

/// One configuration key, for documentation and error messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeyDoc {
    /// `section.key`, as written in the file.
    pub key: &'static str,
    /// The default, as TOML (or `(unset)`).
    pub default: &'static str,
    /// The values accepted.
    pub valid: &'static str,
    pub meaning: &'static str,
}

/// Every key, in file order. Keep in step with `Config::default()` (a unit test checks).
pub const KEYS: &[KeyDoc] = &[
    KeyDoc {
        key: "policy.facts_only",
        default: "false",
        valid: "true or false",
        meaning: "Reject `next_action` and `priorities` in handoffs: the next session plans from the spec, \
                  not from the previous session's plan.",
    },
    KeyDoc {
        key: "startup.budget_chars",
        default: "1500",
        valid: "an integer from 100 to 100000",
        meaning: "Maximum characters of the context the SessionStart hook injects into a new session.",
    },
    KeyDoc {
        key: "context_watch.remind_percent",
        default: "60",
        valid: "an integer from 1 to 99, below insist_percent",
        meaning: "Remind the agent to save progress with `handover write` when the context window is this full.",
    },
    KeyDoc {
        key: "context_watch.insist_percent",
        default: "75",
        valid: "an integer from 1 to 99, above remind_percent",
        meaning: "Insist on a handoff when the context window is this full.",
    },
    KeyDoc {
        key: "context_watch.context_window",
        default: "(unset)",
        valid: "an integer from 1000 to 100000000 (tokens)",
        meaning: "Context window size in tokens, used when neither the transcript nor the built-in model \
                  table tells. Unset: use those.",
    },
    KeyDoc {
        key: "budget.standard_tokens",
        default: "2000",
        valid: "an integer from 100 to 1000000",
        meaning: "Size budget of a `standard` handoff, in estimated tokens; `handover write` refuses larger ones.",
    },
    KeyDoc {
        key: "budget.heavy_tokens",
        default: "5000",
        valid: "an integer from 100 to 1000000",
        meaning: "Size budget of a `heavy` handoff (one with a plan), in estimated tokens.",
    },
    KeyDoc {
        key: "records.startup",
        default: "\"unfinished\"",
        valid: "\"always\", \"unfinished\" or \"never\"",
        meaning: "When the startup context shows the last session's record: after a handoff, whenever the record \
                  is newer; without one, `unfinished` only when its edited files are still uncommitted or its last \
                  test run failed, `always` every time; `never` not at all.",
    },
    KeyDoc {
        key: "records.keep",
        default: "20",
        valid: "an integer from 1 to 1000",
        meaning: "How many session records (newest first) are kept under .handover/records/.",
    },
    KeyDoc {
        key: "travel.with_changes",
        default: "false",
        valid: "true or false",
        meaning: "`handover push` also carries the uncommitted work, as with `--with-changes` (files that look like \
                  credentials or hold a secret refuse the push; `--without-changes` overrides this for one push).",
    },
    KeyDoc {
        key: "archive.keep",
        default: "(unset)",
        valid: "an integer from 1 to 1000000",
        meaning: "How many archived handoffs (newest first) .handover/archive/ keeps; older ones are removed when a \
                  handoff is written or finished. Unset: all.",
    },
    KeyDoc {
        key: "archive.max_age_days",
        default: "(unset)",
        valid: "an integer from 1 to 36500 (days)",
        meaning: "Archived handoffs older than this many days are removed when a handoff is written or finished. \
                  Unset: kept whatever their age.",
    },
];

/// A config file is a few lines; anything much larger is not one.
const MAX_CONFIG_BYTES: u64 = 1024 * 1024;

/// Reads `<root>/.handover/config.toml`. A missing file is the default config. A file that
/// does not parse, or a key with a wrong type or value, is an error naming file, key and fix.
pub fn load(root: &Path) -> anyhow::Result<Config> {
    let dir = root.join(".handover");
    let path = dir.join("config.toml");
    // Never through a link (of `.handover/` or of the file), never blocking on a FIFO.
    if let Err(refused) = crate::safe_fs::expect(&dir, crate::safe_fs::Kind::Dir) {
        bail!("{}: cannot be read: {refused}", path.display());
    }
    let bytes = match crate::safe_fs::read_limited(&path, MAX_CONFIG_BYTES) {
        Ok(Some(bytes)) => bytes,
        Ok(None) => return Ok(Config::default()),
        Err(e) => bail!("{}: cannot be read: {e}", path.display()),
    };
    let Ok(text) = String::from_utf8(bytes) else {
        bail!("{}: not UTF-8 text", path.display());
    };
    parse(&text, &path.display().to_string())
}

/// Parses config text; `file` names it in error messages.
pub fn parse(text: &str, file: &str) -> anyhow::Result<Config> {
    let doc = match Document::parse(text) {
        Ok(doc) => doc,
        Err(e) => {
            let (line, column) = e
                .span()
                .map(|s| line_column(text, s.start))
                .unwrap_or((1, 1));
            bail!(
                "{file}, line {line}, column {column}: not valid TOML: {}",
                e.message().trim()
            );
        }
    };
    let mut config = Config::default();
    let root = doc.as_table();
    for (section, item) in root.iter() {
        let at = at_line(
            text,
            root.key(section)
                .and_then(|k| k.span())
                .or_else(|| item.span()),
        );
        if !sections().contains(&section) {
            if item.is_table_like() {
                bail!(
                    "{file}{at}: unknown section [{section}]; valid sections: {}",
                    sections().join(", ")
                );
            }
            let home = KEYS
                .iter()
                .find(|d| d.key.split_once('.').map(|(_, k)| k) == Some(section));
            match home {
                Some(doc) => bail!(
                    "{file}{at}: `{section}` must go in its section: write it as `{}` or under [{}]",
                    doc.key,
                    doc.key.split_once('.').map_or("", |(s, _)| s)
                ),
                None => bail!(
                    "{file}{at}: unknown key `{section}` outside any section; valid sections: {}",
                    sections().join(", ")
                ),
            }
        }
        let Some(table) = item.as_table_like() else {
            bail!(
                "{file}{at}: `{section}` must be a section ([{section}]), found {}",
                item.type_name()
            );
        };
        for (key, value) in table.iter() {
            let full = format!("{section}.{key}");
            let at = at_line(
                text,
                table
                    .key(key)
                    .and_then(|k| k.span())
                    .or_else(|| value.span()),
            );
            let Some(doc) = KEYS.iter().find(|d| d.key == full) else {
                let valid: Vec<&str> = KEYS
                    .iter()
                    .filter_map(|d| d.key.strip_prefix(&format!("{section}.")))
                    .collect();
                bail!(
                    "{file}{at}: unknown key `{full}`; valid keys in [{section}]: {}",
                    valid.join(", ")
                );
            };
            let found = describe_found(value);
            let bad = || anyhow::anyhow!("{file}{at}: `{full}` is {found}; expected {}", doc.valid);
            let int = |min: i64, max: i64| match value.as_integer() {
                Some(n) if (min..=max).contains(&n) => Ok(n),
                _ => Err(bad()),
            };
            match full.as_str() {
                "policy.facts_only" => config.facts_only = value.as_bool().ok_or_else(bad)?,
                "startup.budget_chars" => config.startup_budget_chars = int(100, 100_000)? as usize,
                "context_watch.remind_percent" => config.remind_percent = int(1, 99)? as u8,
                "context_watch.insist_percent" => config.insist_percent = int(1, 99)? as u8,
                "context_watch.context_window" => {
                    config.context_window = Some(int(1_000, 100_000_000)? as u64)
                }
                "budget.standard_tokens" => {
                    config.standard_budget_tokens = int(100, 1_000_000)? as usize
                }
                "budget.heavy_tokens" => config.heavy_budget_tokens = int(100, 1_000_000)? as usize,
                "records.startup" => {
                    config.records_startup =
                        value.as_str().and_then(ShowRecord::parse).ok_or_else(bad)?
                }
                "records.keep" => config.records_keep = int(1, 1000)? as usize,
                "travel.with_changes" => {
                    config.travel_with_changes = value.as_bool().ok_or_else(bad)?
                }
                "archive.keep" => config.archive_retention.keep = Some(int(1, 1_000_000)? as usize),
                "archive.max_age_days" => {
                    config.archive_retention.max_age_days = Some(int(1, 36_500)? as u32)
                }
                _ => {
                    bail!("{file}{at}: `{full}` is documented but not handled (a bug in handover)")
                }
            }
        }
    }
    if config.remind_percent >= config.insist_percent {
        bail!(
            "{file}: `context_watch.remind_percent` ({}) must be below `context_watch.insist_percent` ({}): \
             the reminder comes first",
            config.remind_percent,
            config.insist_percent
        );
    }
    Ok(config)
}

fn sections() -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for doc in KEYS {
        let section = doc.key.split_once('.').map_or(doc.key, |(s, _)| s);
        if !out.contains(&section) {
            out.push(section);
        }
    }
    out
}

/// What the file holds, for messages: `150`, `"yes"`, `a table`.
fn describe_found(item: &Item) -> String {
    match item.as_value() {
        Some(v) => {
            let shown = v.to_string();
            format!("{} ({})", shown.trim(), v.type_name())
        }
        None => item.type_name().to_string(),
    }
}

fn at_line(text: &str, span: Option<std::ops::Range<usize>>) -> String {
    span.map(|s| format!(", line {}", line_column(text, s.start).0))
        .unwrap_or_default()
}

/// How long the archive keeps handoffs (`archive.keep`, `archive.max_age_days`); both unset:
/// everything, for ever.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Retention {
    /// The newest this many handoffs are kept.
    pub keep: Option<usize>,
    /// Handoffs archived more than this many days ago are removed.
    pub max_age_days: Option<u32>,
}

/// When the startup context shows the last session's record (`records.startup`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShowRecord {
    /// After a handoff: when the record is newer. Without one: always.
    Always,
    /// After a handoff: when the record is newer. Without one: only when the work looks
    /// unfinished (edited files still uncommitted, the last test run failed, or the last
    /// failing command was never run again with success). The default.
    Unfinished,
    Never,
}

impl ShowRecord {
    pub fn parse(s: &str) -> Option<ShowRecord> {
        match s {
            "always" => Some(ShowRecord::Always),
            "unfinished" => Some(ShowRecord::Unfinished),
            "never" => Some(ShowRecord::Never),
            _ => None,
        }
    }
    pub fn as_str(self) -> &'static str {
        match self {
            ShowRecord::Always => "always",
            ShowRecord::Unfinished => "unfinished",
            ShowRecord::Never => "never",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> String {
        format!("{:#}", parse(text, "/r/.handover/config.toml").unwrap_err())
    }

    /// Each refused file and its error, for a snapshot: the file as a string literal, then the
    /// error on the next line.
    fn refusals<S: AsRef<str>>(files: &[S]) -> String {
        files
            .iter()
            .map(|text| format!("{:?}\n{}\n", text.as_ref(), err(text.as_ref())))
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn empty_file_is_the_default() {
        assert_eq!(parse("", "f").unwrap(), Config::default());
        assert_eq!(parse("# only a comment\n", "f").unwrap(), Config::default());
    }

    #[test]
    fn missing_file_is_the_default_and_a_present_one_is_read() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(load(dir.path()).unwrap(), Config::default());
        std::fs::create_dir(dir.path().join(".handover")).unwrap();
        std::fs::write(
            dir.path().join(".handover/config.toml"),
            "[policy]\nfacts_only = true\n",
        )
        .unwrap();
        assert!(load(dir.path()).unwrap().facts_only);
    }

    #[test]
    fn every_key_is_read() {
        let text = "[policy]\nfacts_only = true\n[startup]\nbudget_chars = 900\n\
                    [context_watch]\nremind_percent = 50\ninsist_percent = 80\ncontext_window = 400000\n\
                    [budget]\nstandard_tokens = 1500\nheavy_tokens = 6000\n\
                    [records]\nstartup = \"never\"\nkeep = 5\n\
                    [travel]\nwith_changes = true\n\
                    [archive]\nkeep = 200\nmax_age_days = 90\n";
        let c = parse(text, "f").unwrap();
        assert_eq!(
            c,
            Config {
                facts_only: true,
                startup_budget_chars: 900,
                remind_percent: 50,
                insist_percent: 80,
                context_window: Some(400_000),
                standard_budget_tokens: 1500,
                heavy_budget_tokens: 6000,
                records_startup: ShowRecord::Never,
                records_keep: 5,
                travel_with_changes: true,
                archive_retention: Retention {
                    keep: Some(200),
                    max_age_days: Some(90),
                },
            }
        );
    }

    #[test]
    fn a_wrong_records_startup_names_the_valid_values() {
        insta::assert_snapshot!(
            "records_startup_refused",
            refusals(&["[records]\nstartup = \"sometimes\"\n"])
        );
    }

    #[test]
    fn a_wrong_archive_retention_names_the_key_and_what_is_accepted() {
        // Each: the key, the value found, what is accepted (the known keys for an unknown
        // one), and the line.
        insta::assert_snapshot!(
            "archive_retention_refused",
            refusals(&[
                "[archive]\nkeep = 0\n",
                "[archive]\nkeep = \"all\"\n",
                "[archive]\nmax_age_days = -3\n",
                "[archive]\nmax_days = 3\n",
            ])
        );
    }

    #[test]
    fn dotted_keys_work_too() {
        assert!(parse("policy.facts_only = true\n", "f").unwrap().facts_only);
    }

    /// A config.toml holding every documented key at its documented default.
    fn sample_toml() -> String {
        let mut out = String::from(
            "# handover configuration: every key is optional; shown with its default.\n",
        );
        let mut section = "";
        for doc in KEYS {
            let (sect, key) = doc.key.split_once('.').unwrap_or(("", doc.key));
            if sect != section {
                out.push_str(&format!("\n[{sect}]\n"));
                section = sect;
            }
            out.push_str(&format!("# {} Valid: {}.\n", doc.meaning, doc.valid));
            if doc.default == "(unset)" {
                out.push_str(&format!("# {key} = 200000\n"));
            } else {
                out.push_str(&format!("{key} = {}\n", doc.default));
            }
        }
        out
    }

    #[test]
    fn the_sample_parses_to_the_default() {
        // The sample is built from the documented defaults, so this keeps docs and code in step.
        assert_eq!(parse(&sample_toml(), "f").unwrap(), Config::default());
        assert_eq!(
            KEYS.len(),
            12,
            "a new Config field needs a KeyDoc and a match arm in parse"
        );
    }

    #[test]
    fn a_parse_error_names_file_line_and_column() {
        let e = err("[policy]\nfacts_only = tru\n");
        assert!(
            e.starts_with("/r/.handover/config.toml, line 2, column 14: not valid TOML"),
            "{e}"
        );
    }

    /// Each refused file's error says where, what and what would do.
    #[test]
    fn each_refusal_names_the_key_the_value_and_what_is_valid() {
        insta::assert_snapshot!(
            "each_refusal",
            refusals(&[
                // A wrong type: the key, the value and the valid range.
                "[policy]\nfacts_only = \"yes\"\n",
                "[startup]\nbudget_chars = \"1500\"\n",
                // Remind must come before insist, relative to the defaults too: insist 50 is
                // below the default remind 60.
                "[context_watch]\nremind_percent = 80\ninsist_percent = 80\n",
                "[context_watch]\ninsist_percent = 50\n",
                // Zero budgets.
                "[budget]\nstandard_tokens = 0\n",
                "[budget]\nheavy_tokens = 0\n",
                "[context_watch]\ncontext_window = 0\n",
                // An unknown key, with the valid ones.
                "[context_watch]\nremind_percent = 50\nremind_pct = 50\n",
                // An unknown or misshapen section.
                "[polcy]\nfacts_only = true\n",
                "policy = true\n",
                "\n\nfacts_only = true\n",
                "colour = 1\n",
            ])
        );
    }

    #[test]
    fn percent_out_of_range_is_refused() {
        let files: Vec<String> = ["0", "100", "150", "-5"]
            .iter()
            .map(|bad| format!("[context_watch]\nremind_percent = {bad}\n"))
            .collect();
        // The key, the value and the range, 1 to 99.
        insta::assert_snapshot!("remind_percent_out_of_range", refusals(&files));
    }

    #[test]
    fn docs_list_every_key_with_its_default_and_meaning() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../docs/storage.md");
        let docs = std::fs::read_to_string(path).unwrap();
        for doc in KEYS {
            let default = if doc.default == "(unset)" {
                doc.default.to_string()
            } else {
                format!("`{}`", doc.default)
            };
            let row = docs
                .lines()
                .find(|l| l.starts_with(&format!("| `{}` |", doc.key)))
                .unwrap_or_else(|| panic!("docs/storage.md has no row for `{}`", doc.key));
            assert!(
                row.contains(&format!("| {default} |")),
                "default of {} in: {row}",
                doc.key
            );
            assert!(
                row.contains(&doc.meaning.split_whitespace().collect::<Vec<_>>().join(" ")),
                "meaning of {} in: {row}",
                doc.key
            );
        }
    }
}
