//! Which threshold a reading has crossed, and whether that calls for saying something now:
//! each threshold speaks once per context epoch, the Stop block comes once, never while the
//! client reports `stop_hook_active`. Pure decisions on the session state; the one read is
//! the client's own compaction point (Gemini CLI's settings, Codex's config), in `for_agent`.

use super::Event;
use crate::call::Call;
use crate::state::delivery::{self, Delivery, Epoch, Facts, Said};
use handover_clients::{SettingsLayers, UserDirs};
use handover_core::context::Pressure;
use handover_handoff::config::Config;
use handover_handoff::store::Store;

/// The (remind, insist) thresholds: the configured ones, moved below the client's own
/// compaction point where that comes early: Gemini CLI's `compressionThreshold` (50 % by
/// default), Codex's `model_auto_compact_token_limit` against `window` (about 90 % unset).
/// Claude Code compacts at 95 % or later: nothing to move.
pub fn for_agent(call: &Call, store: &Store, config: &Config, window: u64) -> (u8, u8) {
    let (remind, insist) = (config.remind_percent, config.insist_percent);
    let client = call.client();
    let user_dir = client.user_dir(&UserDirs::from_env());
    let at = SettingsLayers {
        project: Some(store.root()),
        user_dir: user_dir.as_deref(),
    };
    match client.behaviour.compaction_percent(at, window) {
        Some(point) => below_compaction_point(remind, insist, point),
        None => (remind, insist),
    }
}

/// The thresholds (remind, insist) for a client that compacts at `point` % of the window:
/// unchanged when that is well above them, else insist 5 points below the compaction point and
/// remind 10 points below that (at least 1 % and 2 %). Gemini CLI's default (50 %): 35 % and
/// 45 %; Codex with a limit at 60 % of the window: 45 % and 55 %.
pub fn below_compaction_point(remind: u8, insist: u8, point: u8) -> (u8, u8) {
    let insist = insist.min(point.saturating_sub(5)).max(2);
    let remind = remind.min(insist.saturating_sub(10)).max(1);
    (remind, insist.max(remind + 1))
}

/// The threshold `percent` has reached, if any.
pub fn pressure(percent: u8, remind: u8, insist: u8) -> Option<Pressure> {
    if percent >= insist {
        Some(Pressure::Insist)
    } else if percent >= remind {
        Some(Pressure::Remind)
    } else {
        None
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Nothing to say; the reason is for the debug log.
    Quiet(&'static str),
    /// The save-progress instruction at this pressure, as context for the model.
    Say(Pressure),
    /// Send the model back to work with the firmer instruction (Stop only).
    BlockStop,
    /// Ask once more, as context with the next prompt, for a client whose Stop is not blocked
    /// ([`StopAsk::AtNextPrompt`]): the firmer instruction was said and a turn ended unsaved.
    AskAgain,
}

/// How the watch asks for the save a turn ended without, above the second threshold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopAsk {
    /// Block the Stop once: the model goes on and saves before the turn ends.
    Block,
    /// Never block the Stop (the client shows any block as a failed request,
    /// `Quirks::stop_block_looks_like_failure`): ask once more with the next prompt instead.
    AtNextPrompt,
}

pub fn decide(
    event: Event,
    pressure: Pressure,
    st: &Epoch,
    stop_hook_active: bool,
    ask: StopAsk,
) -> Decision {
    if event == Event::Stop {
        return if pressure != Pressure::Insist {
            Decision::Quiet("stop not blocked below the second threshold")
        } else if ask == StopAsk::AtNextPrompt {
            Decision::Quiet("stop not blocked: this client shows a block as a failed request; asked again with the next prompt")
        } else if stop_hook_active {
            Decision::Quiet("stop not blocked: the client is already continuing after a block")
        } else if st.stop_blocked_ms.is_some() {
            Decision::Quiet("stop already blocked once")
        } else {
            Decision::BlockStop
        };
    }
    // A prompt starts a turn: the firmer instruction said before it was said in a turn that
    // then ended without a save (a save since silences the watch before this).
    if ask == StopAsk::AtNextPrompt
        && event == Event::Prompt
        && pressure == Pressure::Insist
        && st.insisted_ms.is_some()
        && st.stop_blocked_ms.is_none()
    {
        return Decision::AskAgain;
    }
    let said = match pressure {
        Pressure::Insist => st.insisted_ms,
        Pressure::Remind => st.reminded_ms,
    };
    if said.is_some() {
        Decision::Quiet("already said")
    } else {
        Decision::Say(pressure)
    }
}

/// Records in the delivery state that `decision` was delivered at `now`.
pub fn remember(decision: Decision, st: &mut Delivery, now: u64) {
    let said = match decision {
        Decision::Quiet(_) => return,
        // The one ask after a turn ended unsaved, whichever way it went out.
        Decision::BlockStop | Decision::AskAgain => Said::AskedAtStop,
        Decision::Say(Pressure::Insist) => Said::Insisted,
        Decision::Say(Pressure::Remind) => Said::Reminded,
    };
    let facts = Facts {
        now,
        ..Facts::default()
    };
    *st = delivery::next(st, delivery::Event::Said(said), &facts).0;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thresholds_sit_below_the_compaction_point() {
        assert_eq!(below_compaction_point(60, 75, 50), (35, 45));
        assert_eq!(below_compaction_point(60, 75, 60), (45, 55));
        assert_eq!(
            below_compaction_point(60, 75, 95),
            (60, 75),
            "a late compaction changes nothing"
        );
        assert_eq!(
            below_compaction_point(60, 75, handover_clients::codex::DEFAULT_COMPACT_PERCENT),
            (60, 75),
            "Codex's default point changes nothing"
        );
        assert_eq!(
            below_compaction_point(30, 40, 50),
            (30, 40),
            "lower user thresholds stay"
        );
        assert_eq!(below_compaction_point(60, 75, 20), (5, 15));
        assert_eq!(below_compaction_point(60, 75, 3), (1, 2));
    }

    #[test]
    fn pressure_follows_the_thresholds() {
        assert_eq!(pressure(59, 60, 75), None);
        assert_eq!(pressure(60, 60, 75), Some(Pressure::Remind));
        assert_eq!(pressure(74, 60, 75), Some(Pressure::Remind));
        assert_eq!(pressure(75, 60, 75), Some(Pressure::Insist));
        assert_eq!(pressure(100, 60, 75), Some(Pressure::Insist));
    }

    /// `decide` for a client that shows a blocked Stop, outside a Stop hook's own turn.
    fn decide_blocking(event: Event, pressure: Pressure, st: &Delivery) -> Decision {
        decide(event, pressure, &st.epoch, false, StopAsk::Block)
    }

    #[test]
    fn each_threshold_speaks_once_and_insisting_spends_the_reminder() {
        let mut st = Delivery::default();
        let remind = decide_blocking(Event::Tool, Pressure::Remind, &st);
        assert_eq!(remind, Decision::Say(Pressure::Remind));
        remember(remind, &mut st, 5);
        assert!(matches!(
            decide_blocking(Event::Prompt, Pressure::Remind, &st),
            Decision::Quiet(_)
        ));
        let insist = decide_blocking(Event::Prompt, Pressure::Insist, &st);
        assert_eq!(insist, Decision::Say(Pressure::Insist));
        remember(insist, &mut st, 9);
        assert_eq!(
            (st.epoch.reminded_ms, st.epoch.insisted_ms),
            (Some(5), Some(9))
        );

        let mut jumped = Delivery::default();
        remember(Decision::Say(Pressure::Insist), &mut jumped, 3);
        assert_eq!(
            jumped.epoch.reminded_ms,
            Some(3),
            "no reminder after the firmer one"
        );
    }

    #[test]
    fn stop_is_blocked_once_above_the_second_threshold_only() {
        let mut st = Delivery::default();
        assert!(matches!(
            decide_blocking(Event::Stop, Pressure::Remind, &st),
            Decision::Quiet(_)
        ));
        // The client already going on after a block: not blocked again.
        assert!(matches!(
            decide(
                Event::Stop,
                Pressure::Insist,
                &st.epoch,
                true,
                StopAsk::Block
            ),
            Decision::Quiet(_)
        ));
        let block = decide_blocking(Event::Stop, Pressure::Insist, &st);
        assert_eq!(block, Decision::BlockStop);
        remember(block, &mut st, 4);
        assert_eq!(st.epoch.stop_blocked_ms, Some(4));
        assert!(matches!(
            decide_blocking(Event::Stop, Pressure::Insist, &st),
            Decision::Quiet(_)
        ));
    }

    #[test]
    fn a_client_that_shows_a_block_as_a_failure_is_asked_again_at_the_next_prompt() {
        let ask = StopAsk::AtNextPrompt;
        let mut st = Delivery::default();
        let insist = decide(Event::Tool, Pressure::Insist, &st.epoch, false, ask);
        assert_eq!(insist, Decision::Say(Pressure::Insist));
        remember(insist, &mut st, 3);
        assert!(matches!(
            decide(Event::Stop, Pressure::Insist, &st.epoch, false, ask),
            Decision::Quiet(_)
        ));
        assert!(matches!(
            decide(Event::Tool, Pressure::Insist, &st.epoch, false, ask),
            Decision::Quiet(_)
        ));
        let again = decide(Event::Prompt, Pressure::Insist, &st.epoch, false, ask);
        assert_eq!(again, Decision::AskAgain);
        remember(again, &mut st, 7);
        assert_eq!(st.epoch.stop_blocked_ms, Some(7));
        assert!(
            matches!(
                decide(Event::Prompt, Pressure::Insist, &st.epoch, false, ask),
                Decision::Quiet(_)
            ),
            "asked again twice"
        );
    }
}
