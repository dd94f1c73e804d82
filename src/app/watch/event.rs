//! What `watch` reports: the events of one judged session, their keys (so
//! each is reported once), and how they are printed (a line, or JSON).

use chrono::{DateTime, SecondsFormat, Utc};
use serde::Serialize;

use crate::aggregate::Filters;
use crate::judge::{JudgedSession, Outcome};
use crate::redact::Redaction;
use crate::rules::FindingRule;
use crate::sanitize;

/// The version of `schema/events-v1.schema.json`.
pub(super) const EVENTS_VERSION: u32 = 1;

/// Characters of the error text a line shows.
const EXCERPT_CHARS: usize = 80;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(super) enum Kind {
    /// The content says the call failed, the flag says success.
    HiddenError,
    /// The source flagged the result as an error.
    FlaggedError,
    /// A run of identical hidden failures reached `--streak-threshold`.
    GuardBlindStreak,
    /// The session ended (`--idle`) with no later call of the failed tool.
    AbandonedFailure,
}

impl Kind {
    pub(super) fn as_str(self) -> &'static str {
        match self {
            Kind::HiddenError => "hidden-error",
            Kind::FlaggedError => "flagged-error",
            Kind::GuardBlindStreak => "guard-blind-streak",
            Kind::AbandonedFailure => "abandoned-failure",
        }
    }
}

/// One event, as `--format ndjson` prints it (schema/events-v1.schema.json).
#[derive(Debug, Clone, Serialize)]
pub(super) struct Event {
    /// The schema version.
    pub v: u32,
    pub kind: Kind,
    /// The PATH watched, as given (a folder, a transcript or a database).
    pub source: String,
    /// The file the event was read from: a transcript of the folder, or
    /// the PATH itself.
    pub file: String,
    pub agent: String,
    pub session: String,
    pub call_id: String,
    /// The call's place in its session (from 1).
    pub seq: usize,
    pub tool: String,
    pub category: Option<String>,
    /// The content rule that fired (hidden and flagged errors), or the
    /// finding rule (`guard-blind-streak`).
    pub rule: Option<String>,
    /// The classification rule behind the category.
    pub reason: Option<String>,
    pub flagged: bool,
    pub hidden: bool,
    /// For a streak: how many identical failures in a row so far.
    pub streak: Option<usize>,
    /// The first line of the error text, redacted unless `--no-redact`.
    pub message: String,
    /// When the call was made, as the trace records it.
    pub ts: Option<String>,
    /// When watch saw it.
    pub seen_at: String,
}

/// What makes an event the same event on every re-read: source, session,
/// call id (with its occurrence, for a call id used twice) and kind.
pub(super) type Key = (String, String, String, usize, Kind);

impl Event {
    pub(super) fn key(&self, occurrence: usize) -> Key {
        (self.source.clone(), self.session.clone(), self.call_id.clone(), occurrence, self.kind)
    }

    /// How a terminal shows the event, in aligned columns: time, kind,
    /// agent, tool, category, the rule when it is not the category's own
    /// name, session prefix, and an excerpt of the error. Fitted to `width`
    /// (the terminal's, or `COLUMNS`) as `scan`'s tables are: below 100
    /// columns the date and agent give way and the excerpt goes on a line
    /// of its own, cut to the width; no line is wider than `width`.
    pub(super) fn line(&self, width: Option<usize>) -> String {
        // When the call was made, else when it was seen: YYYY-MM-DD HH:MM:SS (UTC).
        let at = self.ts.as_deref().unwrap_or(&self.seen_at);
        let time = at.get(..19).unwrap_or(at).replacen('T', " ", 1);
        let session: String = sanitize::one_line(&self.session).chars().take(8).collect();
        let category = self.category.as_deref().unwrap_or("-");
        let rule = self.rule.as_deref().or(self.reason.as_deref()).filter(|r| *r != category);
        let streak = self.streak.map(|n| format!(" ×{n}")).unwrap_or_default();
        let tool = format!("{}{streak}", sanitize::one_line(&self.tool));
        let cell = |text: &str, w: usize| format!("{:<w$}", sanitize::truncate(text, w));
        let narrow = width.is_some_and(|w| w < 100);
        let mut head = if narrow {
            let clock = time.get(11..).unwrap_or(&time);
            format!("{clock}  {} {} {}", cell(self.kind.as_str(), 18), cell(&tool, 14), cell(category, 22))
        } else {
            format!(
                "{time}  {} {} {} {}",
                cell(self.kind.as_str(), 18),
                cell(&sanitize::one_line(&self.agent), 12),
                cell(&tool, 16),
                cell(category, 22)
            )
        };
        head.push_str(&format!(" {session}"));
        let excerpt = match rule {
            Some(r) => format!("[{r}] {}", self.message),
            None => self.message.clone(),
        };
        let Some(w) = width else {
            return format!("{head}  {}", sanitize::truncate(&excerpt, EXCERPT_CHARS));
        };
        let head = sanitize::truncate(&head, w);
        let room = w.saturating_sub(head.chars().count() + 2);
        if !narrow && room >= 20 {
            return format!("{head}  {}", sanitize::truncate(&excerpt, room.min(EXCERPT_CHARS)));
        }
        let under = w.saturating_sub(4).clamp(1, EXCERPT_CHARS);
        format!("{head}\n    {}", sanitize::truncate(&excerpt, under))
    }
}

/// An event and the occurrence of its call id in the session.
pub(super) struct Found {
    pub event: Event,
    pub occurrence: usize,
}

/// The events a judged session holds now: its hidden and flagged errors and
/// guard-blind streaks, and (in `abandoned`) its failures that no later call
/// of the tool followed, which become events when the session ends. Only
/// calls the filters count (`--tool`, `--since`, `--until`).
pub(super) fn of_session(
    s: &JudgedSession,
    (source, file): (&str, &str),
    filters: &Filters,
    redaction: Redaction,
    now: DateTime<Utc>,
) -> (Vec<Found>, Vec<Found>) {
    let seen_at = now.to_rfc3339_opts(SecondsFormat::Millis, true);
    let mut occurrences = Vec::with_capacity(s.calls.len());
    let mut counts: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for c in &s.calls {
        let n = counts.entry(c.call_id.as_str()).or_default();
        occurrences.push(*n);
        *n += 1;
    }
    let event = |i: usize, kind: Kind| {
        let c = &s.calls[i];
        let failure = match &c.outcome {
            Outcome::Failed(f) => Some(f),
            _ => None,
        };
        Event {
            v: EVENTS_VERSION,
            kind,
            source: source.to_string(),
            file: file.to_string(),
            agent: s.dialect.to_string(),
            session: s.id.clone(),
            call_id: c.call_id.clone(),
            seq: c.seq,
            tool: c.tool.clone(),
            category: failure.map(|f| f.category.as_str().to_string()),
            rule: failure.and_then(|f| f.content_rule).map(str::to_string),
            reason: failure.map(|f| f.reason.to_string()),
            flagged: failure.is_some_and(|f| f.flagged),
            hidden: failure.is_some_and(|f| f.is_hidden()),
            streak: None,
            message: failure.map(|f| redaction.apply(&sanitize::one_line(&f.message)).into_owned()).unwrap_or_default(),
            ts: c.time.map(|t| t.to_rfc3339_opts(SecondsFormat::Millis, true)),
            seen_at: seen_at.clone(),
        }
    };
    let mut now_events = Vec::new();
    for (i, c) in s.calls.iter().enumerate() {
        if !filters.call_ok(c) {
            continue;
        }
        if let Outcome::Failed(f) = &c.outcome {
            let kind = if f.is_hidden() { Kind::HiddenError } else { Kind::FlaggedError };
            now_events.push(Found { event: event(i, kind), occurrence: occurrences[i] });
        }
    }
    // The scan's own finding, so watch and scan agree on every streak.
    for f in s.findings.iter().filter(|f| f.rule == FindingRule::GuardBlindStreak) {
        let (Some(at), crate::judge::Counted::Call(first)) = (f.at, f.counted) else { continue };
        if !filters.call_ok(&s.calls[first]) {
            continue;
        }
        let mut e = event(at, Kind::GuardBlindStreak);
        e.rule = Some(FindingRule::GuardBlindStreak.as_str().to_string());
        e.streak = s.sequences.streaks.iter().find(|st| st.calls.contains(&at)).map(|st| st.len);
        now_events.push(Found { event: e, occurrence: occurrences[at] });
    }
    let mut abandoned = Vec::new();
    for fate in s.sequences.fates.iter().filter(|f| f.abandoned) {
        if filters.call_ok(&s.calls[fate.call]) {
            abandoned
                .push(Found { event: event(fate.call, Kind::AbandonedFailure), occurrence: occurrences[fate.call] });
        }
    }
    (now_events, abandoned)
}

/// The latest time the session records, for its idle clock at start.
pub(super) fn last_time(s: &JudgedSession) -> Option<DateTime<Utc>> {
    s.calls.iter().flat_map(|c| [c.time, c.result.as_ref().and_then(|r| r.time)]).flatten().max()
}
