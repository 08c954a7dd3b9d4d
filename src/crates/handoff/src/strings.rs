//! Every string of a handoff's content, with its field path (`decisions[1].alternatives[0]`,
//! `environment["KEY"]`): one walk over the model for everything that treats the content as
//! text, so a new field is seen by all of them at once (validation quotes the paths, redaction
//! and sanitizing rewrite the strings).

use crate::model::Content;

/// Every string value of the content with its field path (`decisions[1].alternatives[0]`,
/// `environment["KEY"]`). Map keys are not included; see `map_keys`.
pub fn visit_strings(c: &Content) -> Vec<(String, &str)> {
    let mut out: Vec<(String, &str)> = Vec::new();
    out.push(("goal".into(), &c.goal));
    for (name, v) in [
        ("narrative", &c.narrative),
        ("spec_ref", &c.spec_ref),
        ("next_action", &c.next_action),
    ] {
        if let Some(v) = v {
            out.push((name.into(), v));
        }
    }
    fn push_list<'a>(out: &mut Vec<(String, &'a str)>, path: &str, items: &'a [String]) {
        out.extend(
            items
                .iter()
                .enumerate()
                .map(|(i, s)| (format!("{path}[{i}]"), s.as_str())),
        );
    }
    push_list(&mut out, "status.completed", &c.status.completed);
    push_list(&mut out, "status.in_progress", &c.status.in_progress);
    push_list(&mut out, "status.pending", &c.status.pending);
    for (i, d) in c.decisions.iter().enumerate() {
        out.push((format!("decisions[{i}].what"), &d.what));
        out.push((format!("decisions[{i}].why"), &d.why));
        push_list(
            &mut out,
            &format!("decisions[{i}].alternatives"),
            &d.alternatives,
        );
    }
    for (i, a) in c.assumptions.iter().enumerate() {
        out.push((format!("assumptions[{i}].assumption"), &a.assumption));
        out.push((format!("assumptions[{i}].why"), &a.why));
        out.push((
            format!("assumptions[{i}].impact_if_wrong"),
            &a.impact_if_wrong,
        ));
    }
    push_list(&mut out, "blockers", &c.blockers);
    push_list(&mut out, "warnings", &c.warnings);
    for (i, f) in c.important_files.iter().enumerate() {
        out.push((format!("important_files[{i}].path"), &f.path));
        out.push((format!("important_files[{i}].why"), &f.why));
    }
    push_list(&mut out, "evidence.commands_run", &c.evidence.commands_run);
    for (k, v) in &c.evidence.measurements {
        out.push((format!("evidence.measurements[{k:?}]"), v));
    }
    push_list(&mut out, "evidence.artifacts", &c.evidence.artifacts);
    for (k, v) in &c.environment {
        out.push((format!("environment[{k:?}]"), v));
    }
    for (i, p) in c.priorities.iter().enumerate() {
        out.push((format!("priorities[{i}].task"), &p.task));
    }
    push_list(&mut out, "stop_conditions", &c.stop_conditions);
    if let Some(plan) = &c.plan {
        push_list(&mut out, "plan.work_items", &plan.work_items);
        push_list(&mut out, "plan.key_interfaces", &plan.key_interfaces);
        push_list(&mut out, "plan.dependencies", &plan.dependencies);
        push_list(&mut out, "plan.test_strategy", &plan.test_strategy);
    }
    out
}

/// Calls `f` on every string value of the content with its field path (same paths as
/// [`visit_strings`]); map keys are not visited.
pub fn visit_strings_mut(c: &mut Content, f: &mut dyn FnMut(&str, &mut String)) {
    fn list(f: &mut dyn FnMut(&str, &mut String), path: &str, items: &mut [String]) {
        for (i, s) in items.iter_mut().enumerate() {
            f(&format!("{path}[{i}]"), s);
        }
    }
    f("goal", &mut c.goal);
    if let Some(v) = &mut c.narrative {
        f("narrative", v);
    }
    if let Some(v) = &mut c.spec_ref {
        f("spec_ref", v);
    }
    if let Some(v) = &mut c.next_action {
        f("next_action", v);
    }
    list(f, "status.completed", &mut c.status.completed);
    list(f, "status.in_progress", &mut c.status.in_progress);
    list(f, "status.pending", &mut c.status.pending);
    for (i, d) in c.decisions.iter_mut().enumerate() {
        f(&format!("decisions[{i}].what"), &mut d.what);
        f(&format!("decisions[{i}].why"), &mut d.why);
        list(
            f,
            &format!("decisions[{i}].alternatives"),
            &mut d.alternatives,
        );
    }
    for (i, a) in c.assumptions.iter_mut().enumerate() {
        f(&format!("assumptions[{i}].assumption"), &mut a.assumption);
        f(&format!("assumptions[{i}].why"), &mut a.why);
        f(
            &format!("assumptions[{i}].impact_if_wrong"),
            &mut a.impact_if_wrong,
        );
    }
    list(f, "blockers", &mut c.blockers);
    list(f, "warnings", &mut c.warnings);
    for (i, file) in c.important_files.iter_mut().enumerate() {
        f(&format!("important_files[{i}].path"), &mut file.path);
        f(&format!("important_files[{i}].why"), &mut file.why);
    }
    list(f, "evidence.commands_run", &mut c.evidence.commands_run);
    for (k, v) in c.evidence.measurements.iter_mut() {
        f(&format!("evidence.measurements[{k:?}]"), v);
    }
    list(f, "evidence.artifacts", &mut c.evidence.artifacts);
    for (k, v) in c.environment.iter_mut() {
        f(&format!("environment[{k:?}]"), v);
    }
    for (i, p) in c.priorities.iter_mut().enumerate() {
        f(&format!("priorities[{i}].task"), &mut p.task);
    }
    list(f, "stop_conditions", &mut c.stop_conditions);
    if let Some(plan) = &mut c.plan {
        list(f, "plan.work_items", &mut plan.work_items);
        list(f, "plan.key_interfaces", &mut plan.key_interfaces);
        list(f, "plan.dependencies", &mut plan.dependencies);
        list(f, "plan.test_strategy", &mut plan.test_strategy);
    }
}
