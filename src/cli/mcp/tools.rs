//! The tools of `handover mcp`: their names, short descriptions (every model request carries
//! them) and input schemas, and each call handed to the command it mirrors.

use super::super::{ack, boot, output, search, show, watchdog, write};
use super::schema;
use rmcp::model::{JsonObject, Tool as ToolDef};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::sync::Arc;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tool {
    Status,
    Save,
    Ack,
    Search,
    Show,
}

impl Tool {
    const ALL: [Tool; 5] = [
        Tool::Status,
        Tool::Save,
        Tool::Ack,
        Tool::Search,
        Tool::Show,
    ];

    fn name(self) -> &'static str {
        match self {
            Tool::Status => "handover_status",
            Tool::Save => "handover_save",
            Tool::Ack => "handover_ack",
            Tool::Search => "handover_search",
            Tool::Show => "handover_show",
        }
    }

    /// One sentence: the model reads it on every request.
    fn description(self) -> &'static str {
        match self {
            Tool::Status => {
                "The current handoff, verified against the repository (as `handover boot`)."
            }
            Tool::Save => {
                "Save the state of unfinished work for the next session; replaces the current handoff."
            }
            Tool::Ack => "Record that this session received the handoff (as `handover ack`).",
            Tool::Search => "Search every past handoff and session record of this repository.",
            Tool::Show => "One past handoff or session record in full, by its id (or -N).",
        }
    }

    fn input_schema(self) -> JsonObject {
        match self {
            Tool::Status => object_schema(json!({})),
            Tool::Save => schema::save_input(),
            Tool::Ack => object_schema(json!({
                "session_id": {"type": "string", "description": "This session's id, when known."}
            })),
            Tool::Search => required(
                object_schema(json!({
                    "query": {"type": "string", "description": "Words (all must match) and \"quoted phrases\"."},
                    "in": {"type": "array", "items": {"type": "string"}, "description": "Only these fields: goal, decisions, warnings, blockers, narrative, request, command, evidence, ..."},
                    "limit": {"type": "integer", "minimum": 1, "description": "At most this many hits (default 20)."}
                })),
                "query",
            ),
            Tool::Show => required(
                object_schema(json!({
                    "id": {"type": "string", "description": "An id from handover_search or `handover log` (a unique start will do), or -N: the N-th newest."}
                })),
                "id",
            ),
        }
    }

    pub fn named(name: &str) -> Option<Tool> {
        Tool::ALL.into_iter().find(|t| t.name() == name)
    }
}

/// Every tool, as `tools/list` shows it.
pub fn list() -> Vec<ToolDef> {
    Tool::ALL
        .into_iter()
        .map(|t| ToolDef::new(t.name(), t.description(), Arc::new(t.input_schema())))
        .collect()
}

pub fn names() -> Vec<&'static str> {
    Tool::ALL.into_iter().map(Tool::name).collect()
}

/// `{"type": "object", "properties": …}`.
fn object_schema(properties: Value) -> JsonObject {
    let mut schema = JsonObject::new();
    schema.insert("type".into(), json!("object"));
    schema.insert("properties".into(), properties);
    schema
}

/// `schema` with its one required property.
fn required(mut schema: JsonObject, name: &str) -> JsonObject {
    schema.insert("required".into(), json!([name]));
    schema
}

/// One call: Ok with the text the command prints, Err with why it failed (a tool error the
/// model reads: the field and the fix). The work runs on a blocking thread, bounded by the
/// commands' time limit (a hostile repository cannot hang the server).
pub async fn call(
    tool: Tool,
    dir: PathBuf,
    arguments: Option<JsonObject>,
) -> Result<String, String> {
    let work = tokio::task::spawn_blocking(move || run(tool, &dir, arguments.unwrap_or_default()));
    let joined = match watchdog::limit() {
        Some(limit) => match tokio::time::timeout(limit, work).await {
            Ok(joined) => joined,
            Err(_) => return Err(watchdog::too_long(tool.name(), limit)),
        },
        None => work.await,
    };
    match joined {
        Ok(Ok(text)) => Ok(text),
        Ok(Err(e)) => Err(error_text(&e)),
        Err(e) => Err(format!("handover: {} failed: {e}", tool.name())),
    }
}

fn run(tool: Tool, dir: &Path, arguments: JsonObject) -> anyhow::Result<String> {
    match tool {
        Tool::Status => {
            let (text, code) = boot::report_text(dir)?;
            // `boot` exits 1 on a refused store: its report is then the error.
            if code == std::process::ExitCode::SUCCESS {
                Ok(text.trim_end().to_string())
            } else {
                anyhow::bail!("{}", text.trim_end())
            }
        }
        Tool::Save => {
            // The JSON input form, exactly as `handover write --from -` reads it.
            let text = serde_json::to_string(&Value::Object(arguments))?;
            write::from_json(dir, &text)
        }
        Tool::Ack => {
            let session = text_argument(&arguments, "session_id")?;
            Ok(ack::acknowledge(dir, session)?.0)
        }
        Tool::Search => {
            let query = required_text(&arguments, "query")?;
            let fields = texts_argument(&arguments, "in")?;
            let limit = match arguments.get("limit") {
                None | Some(Value::Null) => search::DEFAULT_LIMIT,
                Some(n) => n
                    .as_u64()
                    .filter(|n| *n >= 1)
                    .and_then(|n| usize::try_from(n).ok())
                    .ok_or_else(|| {
                        anyhow::anyhow!("limit: expected a whole number of at least 1, got {n}")
                    })?,
            };
            let request = search::Request {
                query,
                fields: &fields,
                limit,
                json: false,
            };
            // What `search` prints on stdout; what it skipped is its stderr's (not an answer).
            let (rendered, _history) = search::rendered(dir, &request)?;
            Ok(rendered.text.trim_end().to_string())
        }
        Tool::Show => {
            let id = required_text(&arguments, "id")?;
            let store = handover_handoff::store::Store::discover(dir);
            Ok(show::text(&store, id)?.trim_end().to_string())
        }
    }
}

/// A text argument that must be given.
fn required_text<'a>(arguments: &'a JsonObject, name: &str) -> anyhow::Result<&'a str> {
    text_argument(arguments, name)?
        .ok_or_else(|| anyhow::anyhow!("{name} is missing: it is required (a string)"))
}

/// An optional list of texts: empty when left out, an error naming it otherwise.
fn texts_argument(arguments: &JsonObject, name: &str) -> anyhow::Result<Vec<String>> {
    match arguments.get(name) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .map(|item| match item {
                Value::String(s) => Ok(s.clone()),
                other => anyhow::bail!("{name}: expected strings, got {other}"),
            })
            .collect(),
        Some(other) => anyhow::bail!("{name}: expected a list of strings, got {other}"),
    }
}

/// An optional text argument: None when left out (or null), an error naming it when it is
/// not text.
fn text_argument<'a>(arguments: &'a JsonObject, name: &str) -> anyhow::Result<Option<&'a str>> {
    match arguments.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => {
            anyhow::bail!(
                "{name}: expected a string, got {other}: pass it as text, or leave it out"
            )
        }
    }
}

/// An error as the CLI says it on stderr (`handover: …`, then the hint for a permission
/// problem).
fn error_text(e: &anyhow::Error) -> String {
    let text = format!("{e:#}");
    let text = if text.starts_with("handover:") {
        text
    } else {
        format!("handover: {text}")
    };
    match output::permission_hint(e) {
        Some(hint) => format!("{text}\nhint: {hint}"),
        None => text,
    }
}
