//! `falseok guard`: the live guard (docs/guard.md). An agent's hook runs it
//! once per event with one payload on stdin; it judges the call's result
//! with the judge `scan` uses (`judge::judge_alone`, the same verdict),
//! counts runs of identical failures per (session, tool, error template)
//! over success and failure events alike, and answers in the agent's
//! dialect: context after a hidden error, and before a call that repeats a
//! run of `--streak-threshold` failures, context (advise) or a denial
//! (enforce). It fails open: whatever goes wrong is one line on stderr and
//! exit 1, which every agent takes as "no answer", never as a block.

mod install;
mod log;
pub(crate) mod payload;
pub(crate) mod record;
mod state;

use std::io::{Read, Write};
use std::sync::Arc;

use serde_json::Value;

use super::ExitStatus;
use crate::cli::{GuardArgs, GuardCommand, GuardMode, GuardRunArgs};
use crate::error::Result;
use crate::judge::{Failure, Outcome};
use crate::model::{Call, ToolResult};
use crate::redact::Redaction;
use payload::{Hook, Moment};
use state::Verdict;

/// The largest payload read (a result of several megabytes is cut by the
/// agents long before this).
const MAX_PAYLOAD: u64 = 64 << 20;

/// Run `guard` or one of its subcommands.
pub(crate) fn run(
    args: &GuardArgs,
    stdin: &mut dyn Read,
    stdin_is_terminal: bool,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<ExitStatus> {
    if args.command.is_none() && stdin_is_terminal {
        return Err(crate::error::Error::Usage(
            "falseok guard reads one hook payload on stdin, as an agent's hook runs it: see `falseok guard --help` and docs/guard.md".into(),
        ));
    }
    match &args.command {
        Some(GuardCommand::Log(a)) => log::run(a, out).map(|()| ExitStatus::Clean),
        Some(GuardCommand::Install(a)) => install::install(a, out).map(|()| ExitStatus::Clean),
        Some(GuardCommand::Uninstall(a)) => install::uninstall(a, out).map(|()| ExitStatus::Clean),
        None => Ok(hook(&args.run, stdin, out, err)),
    }
}

/// Answer one hook event; never an error, never a panic that escapes.
fn hook(args: &GuardRunArgs, stdin: &mut dyn Read, out: &mut dyn Write, err: &mut dyn Write) -> ExitStatus {
    let answered = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| answer(args, stdin)));
    let failed = match answered {
        Ok(Ok(None)) => return ExitStatus::Clean,
        Ok(Ok(Some(reply))) => match writeln!(out, "{reply}").and_then(|()| out.flush()) {
            Ok(()) => return ExitStatus::Clean,
            Err(e) => format!("cannot write the answer: {e}"),
        },
        Ok(Err(problem)) => problem,
        Err(_) => "an internal error stopped the guard".to_string(),
    };
    let _ = writeln!(err, "falseok guard: {}; the call goes on unguarded", crate::sanitize::one_line(&failed));
    // Copilot CLI denies a call when its hook errs (1.0.57: "preToolUse hook
    // errors now deny the tool call"): for it, failing open is exit 0 with
    // nothing on stdout. Every other agent takes exit 1 as "no answer".
    if args.agent == Some(crate::cli::GuardAgent::Copilot) {
        return ExitStatus::Clean;
    }
    ExitStatus::FailedOpen
}

/// The answer to the payload on `stdin`, if the agent is to be told anything.
fn answer(args: &GuardRunArgs, stdin: &mut dyn Read) -> std::result::Result<Option<Value>, String> {
    let mut bytes = Vec::new();
    stdin.take(MAX_PAYLOAD + 1).read_to_end(&mut bytes).map_err(|e| format!("cannot read the hook payload: {e}"))?;
    if bytes.len() as u64 > MAX_PAYLOAD {
        return Err(format!("the hook payload is larger than {} MB", MAX_PAYLOAD >> 20));
    }
    let Some(hook) = payload::parse(&bytes, args.agent)? else { return Ok(None) };
    let dir = state::dir(args.state_dir.as_deref())?;
    let mut locked = state::open(&dir, &hook.session)?;
    if locked.fresh {
        state::sweep(&dir, state::QUIET);
        locked.state.session.clone_from(&hook.session);
        locked.state.agent = payload::agent_name(hook.agent).to_string();
    }
    let (verdict, reply) = match hook.moment {
        Moment::Before => before(args, &hook, &locked.state),
        Moment::After | Moment::AfterFailure => after(args, &hook, &mut locked.state),
    };
    if let Some(v) = verdict {
        match v.action.as_str() {
            "deny" | "stop" => locked.state.denied += 1,
            "context" => locked.state.advised += 1,
            _ => {}
        }
        locked.record(v);
    }
    locked.save()?;
    Ok(reply)
}

/// A verdict about `hook`'s call, for the log `guard log` prints: the
/// session id, tool name and call id redacted as a scan's reports show
/// them (the template is redacted already, by the judge).
fn verdict(hook: &Hook, verdict: &str, failure: Option<(&str, &str)>, streak: usize, action: &str) -> Verdict {
    let shown = |t: &str| Redaction::On.apply(t).into_owned();
    Verdict {
        time: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
        session: shown(&hook.session),
        agent: payload::agent_name(hook.agent).to_string(),
        event: if hook.moment == Moment::Before { "before" } else { "after" }.to_string(),
        tool: shown(&hook.tool),
        call_id: shown(&hook.call_id),
        verdict: verdict.to_string(),
        category: failure.map(|(c, _)| c.to_string()),
        template: failure.map(|(_, t)| crate::sanitize::truncate(t, state::MAX_TEXT)),
        streak,
        action: action.to_string(),
    }
}

/// Before a call: one identical to the last of a run of at least
/// `--streak-threshold` failures of its tool is denied (enforce) or
/// announced (advise). Other calls pass in silence and are not recorded.
fn before(args: &GuardRunArgs, hook: &Hook, st: &state::State) -> (Option<Verdict>, Option<Value>) {
    let Some(run) = st.streak(&hook.tool) else { return (None, None) };
    if run.len < args.streak_threshold || run.input_hash != state::input_hash(&hook.input) {
        return (None, None);
    }
    let said = format!(
        "falseok: this exact {} call already failed {} times in a row with \"{}\" ({}).",
        hook.tool, run.len, run.message, run.category
    );
    let fix = first_fix(&run.category);
    let (action, reply) = match args.mode {
        GuardMode::Observe => ("none", None),
        GuardMode::Advise => {
            let text = format!("{said} Repeating it unchanged will fail again. {fix}");
            let reply = payload::context_before(hook, text.trim_end());
            (if reply.is_some() { "context" } else { "none" }, reply)
        }
        GuardMode::Enforce => {
            let text = format!("{said} Refused: change the arguments or take another approach. {fix}");
            let denial = payload::deny(hook, text.trim_end());
            match args.stop_at.filter(|&n| run.len >= n).and_then(|_| payload::stop(hook, denial.clone(), &said)) {
                Some(stop) => ("stop", Some(stop)),
                None => ("deny", Some(denial)),
            }
        }
    };
    (Some(verdict(hook, "repeat", Some((&run.category, &run.template)), run.len, action)), reply)
}

/// After a call: judge its result, count it, and tell the agent about a
/// hidden error, or about a run that just reached the threshold.
fn after(args: &GuardRunArgs, hook: &Hook, st: &mut state::State) -> (Option<Verdict>, Option<Value>) {
    let Some(result) = &hook.result else { return (None, None) };
    let dialect = payload::dialect(hook.agent);
    let call = Call {
        id: hook.call_id.clone(),
        tool: hook.tool.clone(),
        input: hook.input.clone().into(),
        time: None,
        row: 0,
        usage: None,
    };
    let result = ToolResult {
        call_id: hook.call_id.clone(),
        text: result.text.clone(),
        truncated: false,
        flag: result.flag,
        exit_code: result.exit_code,
        time: None,
        row: 0,
    };
    let outcome = {
        let files: crate::judge::FileStates<'_> =
            st.files.iter().map(|(p, m)| (std::borrow::Cow::Borrowed(p.as_str()), *m)).collect();
        crate::judge::judge_alone(dialect, &call, &result, &files, Redaction::On, || {
            Arc::new(
                crate::schema::SchemaSet::build(Some(dialect), &[], &crate::schema::FileSchemas::default())
                    .unwrap_or_default(),
            )
        })
    };
    let input_hash = state::input_hash(&hook.input);
    let failure: Option<&Failure> = match &outcome {
        Outcome::Failed(f) => Some(f),
        Outcome::Success | Outcome::Unpaired => None,
    };
    let len = st.count(
        &hook.tool,
        failure.map(|f| (f.template.as_str(), f.message.as_str(), f.category.as_str())),
        input_hash,
    );
    let Some(f) = failure else {
        if let Some((effect, path)) = crate::rules::tools::file_effect(&hook.tool, &call.input) {
            st.file(&path, effect == crate::rules::tools::FileEffect::Modifies);
        }
        return (Some(verdict(hook, "success", None, 0, "none")), None);
    };
    let kind = if f.is_hidden() { "hidden" } else { "flagged" };
    if f.is_hidden() {
        st.hidden += 1;
    } else {
        st.flagged += 1;
    }
    let at_threshold = len == args.streak_threshold;
    let text = match (f.is_hidden(), at_threshold) {
        _ if args.mode == GuardMode::Observe => None,
        (true, _) => {
            let times = if len > 1 { format!(" The same error {len} times in a row.") } else { String::new() };
            Some(format!(
                "falseok: this {} call failed, though its result is not marked as an error: \"{}\" ({}).{times} {}",
                hook.tool,
                f.message,
                f.category.as_str(),
                first_fix(f.category.as_str())
            ))
        }
        (false, true) => Some(format!(
            "falseok: {} failed {len} times in a row with the same error: \"{}\" ({}). Do not repeat the call unchanged. {}",
            hook.tool,
            f.message,
            f.category.as_str(),
            first_fix(f.category.as_str())
        )),
        (false, false) => None,
    };
    let reply = text.and_then(|t| payload::context_after(hook, t.trim_end()));
    let action = if reply.is_some() { "context" } else { "none" };
    (Some(verdict(hook, kind, Some((f.category.as_str(), &f.template)), len, action)), reply)
}

/// Prometheus text of the verdicts the guard kept in the index folder, for
/// `falseok metrics`: results judged per agent and verdict, and
/// interventions per agent and action. Empty when the guard kept none.
/// Totals of what the log holds now (it is bounded, and quiet sessions
/// go), as the scan's counters are totals of what the traces hold now.
pub(crate) fn exposition() -> String {
    use std::collections::BTreeMap;
    use std::fmt::Write as _;
    let Ok(dir) = state::dir(None) else { return String::new() };
    let mut judged: BTreeMap<(String, String), u64> = BTreeMap::new();
    let mut acted: BTreeMap<(String, String), u64> = BTreeMap::new();
    for v in state::verdicts(&dir) {
        if v.event == "after" {
            *judged.entry((v.agent.clone(), v.verdict.clone())).or_default() += 1;
        }
        if matches!(v.action.as_str(), "context" | "deny" | "stop") {
            *acted.entry((v.action, v.agent)).or_default() += 1;
        }
    }
    let mut out = String::new();
    // Label values are the guard's own words (agent names, verdicts,
    // actions): nothing to escape, but a log edited by hand is not trusted.
    let plain = |s: &str| s.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
    if !judged.is_empty() {
        out.push_str("# HELP falseok_guard_verdicts_total Results the live guard judged (falseok guard, docs/guard.md), by agent and verdict.\n");
        out.push_str("# TYPE falseok_guard_verdicts_total counter\n");
        for ((agent, verdict), n) in judged.iter().filter(|((a, v), _)| plain(a) && plain(v)) {
            let _ = writeln!(out, "falseok_guard_verdicts_total{{agent=\"{agent}\",verdict=\"{verdict}\"}} {n}");
        }
    }
    if !acted.is_empty() {
        out.push_str("# HELP falseok_guard_interventions_total Calls the live guard acted on, by action (context: the agent was told; deny: the call was refused; stop: refused and the turn ended) and agent.\n");
        out.push_str("# TYPE falseok_guard_interventions_total counter\n");
        for ((action, agent), n) in acted.iter().filter(|((a, g), _)| plain(a) && plain(g)) {
            let _ = writeln!(out, "falseok_guard_interventions_total{{action=\"{action}\",agent=\"{agent}\"}} {n}");
        }
    }
    out
}

/// The first sentence of the category's fix, prefixed `Fix:`.
fn first_fix(slug: &str) -> String {
    let Some(info) = crate::rules::Category::from_slug(slug).map(|c| c.info()) else { return String::new() };
    let fix = info.fix;
    let first = fix.find(". ").map_or(fix, |i| &fix[..=i]);
    format!("Fix: {first}")
}
