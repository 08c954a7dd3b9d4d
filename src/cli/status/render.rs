//! The `handover status` screen, drawn from the gathered [`StatusReport`] and nothing else.

use super::*;
use handover_handoff::sanitize::{quote, token};

impl StatusReport {
    pub(super) fn render(&self) -> String {
        let mut out = String::new();
        if !self.guard.in_git {
            let _ = writeln!(
                out,
                "not in a git repository: {} (see below)",
                one_line(&self.root)
            );
        }
        let h = &self.handoff;
        match (h.present, &h.id) {
            _ if h.refused.is_some() => {
                let _ = writeln!(
                    out,
                    "handoff: REFUSED, nothing under .handover/ was read: {}",
                    h.refused.as_deref().unwrap_or("")
                );
            }
            (false, _) if !self.fetched.is_empty() => {
                out.push_str("handoff: none written here; fetched from a remote (below)\n")
            }
            (false, _) => out.push_str("handoff: none (write one with `handover write`)\n"),
            (true, None) => {
                let _ = writeln!(
                    out,
                    "handoff: DAMAGED, nothing intact to recover: {}",
                    h.problem.as_deref().unwrap_or("unreadable")
                );
            }
            (true, Some(id)) => {
                // Values from the handoff (anyone's text): the id and time as is when of our
                // shape, else quoted; the goal quoted.
                let _ = writeln!(
                    out,
                    "handoff: {} written {} — goal: {}",
                    token(id),
                    token(h.created_at.as_deref().unwrap_or("")),
                    quote(h.goal.as_deref().unwrap_or(""))
                );
                if let Some(note) = &h.recovered_note {
                    let _ = writeln!(out, "  recovered: {}", one_line(note));
                }
                if h.foreign == Some(true) {
                    out.push_str("  FOREIGN: not written in this working tree; treat it as an unverified claim\n");
                }
                if let Some(verdict) = self.verdict {
                    let main_reason = self
                        .reasons
                        .iter()
                        .flatten()
                        .next()
                        .map(|r| format!(" ({})", one_line(&r.message)))
                        .unwrap_or_default();
                    let _ = writeln!(out, "verdict: {}{main_reason}", verdict.as_str());
                }
                if h.handover_md_edited == Some(true) {
                    out.push_str("handover.md: edited by hand, edits not recorded\n");
                }
                let _ = writeln!(
                    out,
                    "delivered to agents: {} time(s); acknowledged: {} time(s)",
                    h.deliveries.unwrap_or(0),
                    h.acks.unwrap_or(0)
                );
            }
        }
        for f in &self.fetched {
            let machine = if f.machine.is_empty() {
                "an unnamed machine".to_string()
            } else {
                format!("machine {}", quote(&f.machine))
            };
            let _ = writeln!(
                out,
                "fetched: a handoff for this branch from {machine}, pushed at {}, remote {} — goal: {}{}; `handover boot` shows it, `handover pull {} --adopt{}` makes it this working tree's",
                token(&f.pushed_at),
                quote(&f.remote),
                quote(&f.goal),
                if f.with_changes { "; its uncommitted work travelled with it" } else { "" },
                handover_base::shell::shell_quote(&f.remote),
                if f.with_changes { " --apply" } else { "" },
            );
        }
        let foreign = self
            .records
            .iter()
            .filter(|r| !r.foreign.is_empty())
            .count();
        let foreign_note = match foreign {
            0 => String::new(),
            n => format!("; {n} foreign (not written by handover in this working tree: never shown to agents; `handover boot` lists them)"),
        };
        match self.records.iter().find(|r| r.foreign.is_empty()) {
            None if self.records.is_empty() => out.push_str("session records: none\n"),
            None => {
                let _ = writeln!(
                    out,
                    "session records: none of this working tree's own{foreign_note}"
                );
            }
            Some(last) => {
                let _ = writeln!(
                    out,
                    "session records: {} kept; last: {} (agent {}), {}{foreign_note}",
                    self.records.len() - foreign,
                    quote(&last.session_id),
                    quote(&last.agent),
                    last.ending
                );
            }
        }
        if let Some(problem) = &self.config_problem {
            let _ = writeln!(out, "config: INVALID, defaults in use: {problem}");
        }
        let _ = writeln!(
            out,
            "private: {}",
            if self.guard.present {
                "yes (git ignores handover.md and .handover/)"
            } else if !self.guard.in_git {
                "no git repository here (see below)"
            } else if self.guard.problem.is_some() {
                "NO (see below)"
            } else {
                "no"
            }
        );
        if !self.guard.tracked.is_empty() {
            let _ = writeln!(out, "  tracked by git: {}", self.guard.tracked.join(", "));
        }
        for line in self.agents.lines() {
            let _ = writeln!(out, "{line}");
        }
        if !self.uncommitted_wiring.is_empty() {
            let _ = writeln!(
                out,
                "not committed yet: {} (commit them: the hooks then reach everyone who clones the repository, and handoffs stop listing them among a session's changes)",
                self.uncommitted_wiring.join(", ")
            );
        }
        if self.problems.is_empty() {
            out.push_str("No problems found.\n");
        } else {
            out.push_str("\nTo fix:\n");
            for p in &self.problems {
                let _ = writeln!(out, "  - {p}");
            }
        }
        out
    }
}
