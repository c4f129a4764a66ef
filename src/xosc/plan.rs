//! When each storyboard action starts: the file's triggers evaluated as far as they are known
//! before the run (parameter conditions, simulation times, storyboard element states of
//! elements that complete at a known time); what depends on the run (distances, speeds,
//! variables) stays a condition for the mapping to turn into a start rule or reject.

use std::collections::HashMap;

use openscenario::model::{Action, Condition, ConditionKind, Scenario, Trigger};

/// When an action starts.
#[derive(Debug, Clone)]
pub(super) enum Start {
    /// At this simulation time (s).
    At(f64),
    /// Never (an act whose parameter condition is false).
    Never,
    /// When this run-time condition holds.
    On(Box<Condition>),
}

/// One storyboard action with its actors and start.
#[derive(Debug, Clone)]
pub(super) struct Step<'a> {
    pub actors: Vec<String>,
    pub action: &'a Action,
    pub start: Start,
    /// `story/act/event/action` for messages.
    pub at: String,
    /// The maneuver the action belongs to.
    pub maneuver: String,
}

fn instantaneous(a: &Action) -> bool {
    match a {
        Action::Teleport { .. }
        | Action::SetVariable { .. }
        | Action::Environment { .. }
        | Action::Event { .. }
        | Action::AssignRoute { .. } => true,
        Action::LongitudinalDistance { continuous, .. } => !continuous,
        Action::Speed { dynamics, .. } => dynamics.shape == "step",
        _ => false,
    }
}

enum Eval {
    Known(Start),
    Unknown,
}

struct Times {
    /// element name → (start, completion) when known.
    start: HashMap<String, f64>,
    done: HashMap<String, f64>,
    /// Last pass: a state not known by now depends on the run.
    final_pass: bool,
}

fn cmp(rule: &str, a: f64, b: f64) -> bool {
    match rule {
        "greaterThan" => a > b,
        "lessThan" => a < b,
        "equalTo" => a == b,
        "greaterOrEqual" => a >= b,
        "lessOrEqual" => a <= b,
        _ => a != b,
    }
}

fn condition(c: &Condition, sc: &Scenario, t: &Times) -> Eval {
    let known = |s: Start| Eval::Known(s);
    match &c.kind {
        ConditionKind::Parameter {
            parameter,
            rule,
            value,
        } => {
            let Some(p) = sc.parameters.get(parameter) else {
                return known(Start::On(Box::new(c.clone())));
            };
            let holds = match (p.as_f64(), value.trim().parse::<f64>()) {
                (Some(a), Ok(b)) => cmp(rule, a, b),
                _ => {
                    let eq = p.as_string() == *value;
                    if rule == "equalTo" {
                        eq
                    } else {
                        !eq
                    }
                }
            };
            known(if holds {
                Start::At(c.delay_s)
            } else {
                Start::Never
            })
        }
        ConditionKind::SimulationTime { rule, value }
            if rule == "greaterThan" || rule == "greaterOrEqual" =>
        {
            known(Start::At(value + c.delay_s))
        }
        ConditionKind::StoryboardElementState { element, state, .. } => {
            let table = match state.as_str() {
                "completeState" | "endTransition" => &t.done,
                "startTransition" | "runningState" => &t.start,
                _ => return known(Start::On(Box::new(c.clone()))),
            };
            match table.get(element) {
                Some(v) => known(Start::At(v + c.delay_s)),
                None if t.final_pass => known(Start::On(Box::new(c.clone()))),
                None => Eval::Unknown,
            }
        }
        _ => known(Start::On(Box::new(c.clone()))),
    }
}

/// A trigger: any group whose conditions all hold.
fn trigger(tr: &Trigger, sc: &Scenario, t: &Times) -> Eval {
    let mut best: Option<f64> = None;
    let mut on: Option<Start> = None;
    let mut unknown = false;
    for g in &tr.groups {
        let mut at = 0.0f64;
        let mut never = false;
        let mut g_on = None;
        for c in g {
            match condition(c, sc, t) {
                Eval::Unknown => unknown = true,
                Eval::Known(Start::Never) => never = true,
                Eval::Known(Start::At(v)) => at = at.max(v),
                Eval::Known(s @ Start::On(_)) => {
                    if g_on.is_none() {
                        g_on = Some(s)
                    }
                }
            }
        }
        if never {
            continue;
        }
        match g_on {
            Some(s) => {
                if on.is_none() {
                    on = Some(s)
                }
            }
            None => best = Some(best.map_or(at, |b: f64| b.min(at))),
        }
    }
    if let Some(b) = best {
        return Eval::Known(Start::At(b));
    }
    if unknown {
        return Eval::Unknown;
    }
    Eval::Known(on.unwrap_or(Start::Never))
}

fn combine(outer: &Start, inner: Start) -> Start {
    match (outer, inner) {
        (Start::Never, _) | (_, Start::Never) => Start::Never,
        (Start::On(c), _) => Start::On(c.clone()),
        (_, Start::On(c)) => Start::On(c),
        (Start::At(a), Start::At(b)) => Start::At(a.max(b)),
    }
}

/// Every action of the stories with its start.
pub(super) fn steps(sc: &Scenario) -> Vec<Step<'_>> {
    let mut times = Times {
        start: HashMap::new(),
        done: HashMap::new(),
        final_pass: false,
    };
    let mut out = Vec::new();
    // Element states refer to each other: settle the known times in a few passes.
    for pass in 0..6 {
        times.final_pass = pass == 5;
        out.clear();
        for story in &sc.stories {
            for act in &story.acts {
                let act_start = match act.start_trigger.as_ref().map(|t| trigger(t, sc, &times)) {
                    None => Eval::Known(Start::At(0.0)),
                    Some(e) => e,
                };
                let act_start = match act_start {
                    Eval::Known(s) => s,
                    Eval::Unknown if pass < 5 => continue,
                    Eval::Unknown => Start::Never,
                };
                let mut act_done: Option<f64> = Some(0.0);
                if let Start::At(a) = act_start {
                    times.start.insert(act.name.clone(), a);
                }
                for g in &act.groups {
                    let mut g_done: Option<f64> = Some(0.0);
                    for m in &g.maneuvers {
                        let mut m_done: Option<f64> = Some(0.0);
                        for ev in &m.events {
                            let ev_start =
                                match ev.start_trigger.as_ref().map(|t| trigger(t, sc, &times)) {
                                    None => act_start.clone(),
                                    Some(Eval::Known(s)) => combine(&act_start, s),
                                    Some(Eval::Unknown) => {
                                        m_done = None;
                                        continue;
                                    }
                                };
                            let inst = ev.actions.iter().all(|a| instantaneous(&a.action));
                            match (&ev_start, inst) {
                                (Start::At(t), true) => {
                                    times.start.insert(ev.name.clone(), *t);
                                    times.done.insert(ev.name.clone(), *t);
                                    m_done = m_done.map(|d| d.max(*t));
                                }
                                (Start::At(t), false) => {
                                    times.start.insert(ev.name.clone(), *t);
                                    m_done = None;
                                }
                                _ => m_done = None,
                            }
                            for a in &ev.actions {
                                out.push(Step {
                                    actors: g.actors.clone(),
                                    action: &a.action,
                                    start: ev_start.clone(),
                                    at: format!(
                                        "{} ({}/{}/{}/{})",
                                        a.at, story.name, act.name, ev.name, a.name
                                    ),
                                    maneuver: m.name.clone(),
                                });
                            }
                        }
                        if let Some(d) = m_done {
                            times.done.insert(m.name.clone(), d);
                        }
                        g_done = match (g_done, m_done) {
                            (Some(a), Some(b)) => Some(a.max(b)),
                            _ => None,
                        };
                    }
                    if let Some(d) = g_done {
                        times.done.insert(g.name.clone(), d);
                    }
                    act_done = match (act_done, g_done) {
                        (Some(a), Some(b)) => Some(a.max(b)),
                        _ => None,
                    };
                }
                if let (Some(d), Start::At(_)) = (act_done, &act_start) {
                    times.done.insert(act.name.clone(), d);
                }
            }
        }
    }
    out
}
