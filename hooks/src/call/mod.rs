//! Everything one hook call works from, gathered once: the agent (and its client module), the input, the repository's
//! store, the command to print, the time.

pub mod agent;
pub mod budget;
pub mod debug;
pub mod detach;
pub mod input;
pub mod locate;
pub mod never_fail;
pub mod plugin;
pub mod process_start;
pub mod scan;

use crate::state::session_state::{self, SessionFile};
use handover_clients::Agent;
use handover_clients::Client;
use handover_clients::HookInput;
use handover_handoff::safe_fs::Refused;
use handover_handoff::safe_fs::{self, Kind};
use handover_handoff::store::Event;
use handover_handoff::store::Store;
use std::cell::OnceCell;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

#[derive(Clone)]
pub struct Call {
    pub agent: Agent,
    pub input: HookInput,
    /// None when no directory to work in was found: nothing to say then.
    pub store: Option<Store>,
    pub now_ms: u64,
    /// When this call's work must be done (crate::call::budget): every bounded step stops by then,
    /// so their limits never add up past the watchdog. `never_fail::run` counts it from the
    /// process's start.
    pub deadline: Instant,
    /// The payload as it came on stdin (capped), for a copy of this hook that finishes its work
    /// after it answered (crate::call::detach). Empty unless `never_fail::run` sets it.
    pub payload: Arc<Vec<u8>>,
    /// Set in such a copy: when the hook that started it began (its `now_ms`, which the copy
    /// takes as its own).
    pub finishing_since_ms: Option<u64>,
    /// Where the hook executable lives: `command` looks for `handover` beside it.
    install_dir: Option<PathBuf>,
    /// How the agent runs handover, found the first time an answer needs it (it may walk the
    /// PATH).
    command: OnceCell<String>,
}

impl Call {
    pub fn new(
        agent_flag: Option<Agent>,
        input: HookInput,
        project_dir_env: Option<&str>,
        process_dir: Option<&Path>,
        hook_exe: Option<&Path>,
    ) -> Call {
        let mut input = input;
        let agent = agent_flag.unwrap_or_else(|| handover_clients::detect(&input));
        if input.transcript_path.is_none() {
            // A client that names its transcript on some events only (GitHub Copilot CLI).
            input.transcript_path = handover_clients::of(agent)
                .behaviour
                .transcript_of(&input, &handover_clients::UserDirs::from_env())
                .map(|p| p.to_string_lossy().into_owned());
        }
        let store = locate::start_dir(input.cwd.as_deref(), project_dir_env, process_dir)
            .map(|dir| Store::discover(&dir));
        Call {
            agent,
            input,
            store,
            now_ms: session_state::now_ms(),
            deadline: Instant::now() + crate::call::budget::WORK_BUDGET,
            payload: Arc::default(),
            finishing_since_ms: None,
            install_dir: hook_exe.and_then(Path::parent).map(Path::to_path_buf),
            command: OnceCell::new(),
        }
    }

    /// What handover knows about the client that runs this hook.
    pub fn client(&self) -> &'static Client {
        handover_clients::of(self.agent)
    }

    /// How the agent runs handover (handover_base::handover_command), for answers that print it.
    pub fn command(&self) -> &str {
        self.command.get_or_init(|| {
            handover_base::handover_command::handover_command_in(
                self.install_dir.as_deref(),
                std::env::var_os("PATH").as_deref(),
            )
        })
    }

    /// `Store::check` of this call's store (the store keeps its verdict, so the layout is
    /// looked at once per call): Ok(false) when `.handover/` does not exist, Err when it is
    /// refused, None without a store.
    fn check(&self) -> Option<Result<bool, Refused>> {
        Some(self.store.as_ref()?.check())
    }

    pub fn session_id(&self) -> Option<&str> {
        self.input.session_id.as_deref()
    }

    /// The store's `.handover/` exists and passed the safety check (plain directory of ours,
    /// no links or odd files in it): only then may a hook read or write anything there.
    pub fn store_usable(&self) -> bool {
        self.check() == Some(Ok(true))
    }

    /// The session's state file and what it holds, when both a store and a session id are
    /// known and the store passed the safety check (a refused store is never read).
    pub fn session(&self) -> Option<(SessionFile, session_state::Loaded)> {
        let store = self.store.as_ref()?;
        if self.check()?.is_err() {
            return None;
        }
        let sid = self.session_id()?;
        let file = SessionFile::new(&store.sessions_dir(), sid);
        let loaded = file.load(sid, self.now_ms);
        Some((file, loaded))
    }

    /// Appends a journal event, but only to a journal that already exists: a repository where
    /// handover never wrote anything gets no visible files from a hook. Best effort.
    pub fn journal(&self, event: Event, mut fields: serde_json::Value) -> Option<String> {
        let store = self.store.as_ref()?;
        if !self.store_usable() || safe_fs::kind(&store.journal_path()).ok() != Some(Kind::File) {
            return None;
        }
        if let Some(obj) = fields.as_object_mut() {
            obj.insert("agent".into(), self.agent.as_str().into());
            if let Some(sid) = self.session_id() {
                obj.insert("session_id".into(), sid.into());
            }
        }
        // The store redacts every string of the event as it appends it.
        store
            .append_journal(event, fields)
            .err()
            .map(|e| format!("journal: {e}"))
    }
}
