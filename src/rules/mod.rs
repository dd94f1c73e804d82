//! The rule registry: content rules (is this text a failure?), classification
//! rules (which category?), benign exits, the judge's own reasons, categories,
//! finding rules and tool roles (which tools read or modify files), all held
//! by one value, `REGISTRY`. All of it is data; this module only compiles and
//! applies it.
#![warn(missing_docs)]

pub mod benign;
pub mod category;
pub mod classify;
pub mod content;
pub mod delegation;
pub mod envelope;
pub mod findings;
pub mod http;
pub mod masked;
mod plan;
mod prefilter;
mod present;
mod pyliteral;
pub mod reasons;
pub mod registry;
mod syntax;
mod table;
pub mod tools;

use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

use crate::model::{Args, Dialect};

pub use category::{CATEGORIES, Category};
pub use classify::{CLASS_RULES, ClassRule, EXIT_CLASS_RULES};
pub use content::{CONTENT_RULES, ContentRule};
pub use findings::{FINDING_RULES, FindingRule, Scope, Severity};
pub use present::{ENVELOPE_PREFIX, present, present_with_exit};
pub use reasons::{JUDGE_REASONS, JudgeReason};
pub use registry::{REGISTRY, Registry};
pub use tools::{ToolClass, tool_class};

/// How sure a content rule is that a match means failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Precision {
    /// An error string a specific agent is known to emit.
    High,
    /// A generic shape (`Error: …`) that nearly always means failure.
    Medium,
}

/// Which results a content rule reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reads {
    /// Every result of the tools in scope: a shape the tool or its agent
    /// writes when the call failed (`<tool_use_error>`, `Exit code N`).
    Any,
    /// Only the results of tools whose text is their own verdict
    /// (`tools::ToolClass::Verdict`): wording that means failure when a
    /// custom tool says it, and means nothing in a file it read or a
    /// program's output.
    Verdicts,
    /// The reply an HTTP client printed (`curl`, `wget`) with a status of
    /// success, as `http::failed_reply` presents it.
    HttpReplies,
    /// The output of a shell pipeline whose status is its last command's,
    /// when an earlier command's own error reached it, or of a command whose
    /// whole output is its error (`rules::masked`).
    MaskedPipelines,
    /// Every result of a shell tool (`tools::ToolClass::Shell`): a shape
    /// only a shell writes when one of its commands failed, whatever the
    /// exit status (PowerShell's error records).
    ShellOutput,
    /// The opening of a delegation's reply (a sub-agent's, or an agent's
    /// used as a tool), as `delegation::opening` gives it: what the
    /// sub-agent says first about the task it was handed.
    Delegations,
    /// Every result of a tool that is not a shell (a reader's or a custom
    /// tool's own reply): a shape its code prints when it caught a failure
    /// (`Fetch failed: fetch failed`), and that a program's output or a log
    /// a shell printed only quotes.
    Replies,
}

impl Reads {
    /// How `falseok rules` describes what a rule reads.
    pub fn as_str(self) -> &'static str {
        match self {
            Reads::Any => "any result",
            Reads::Verdicts => "verdicts of custom tools",
            Reads::HttpReplies => "HTTP replies printed by curl or wget",
            Reads::MaskedPipelines => "masked shell pipelines",
            Reads::ShellOutput => "shell output",
            Reads::Replies => "results of tools other than shells",
            Reads::Delegations => "the opening of a sub-agent's reply",
        }
    }
}

impl serde::Serialize for Reads {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl serde::Serialize for Precision {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl Precision {
    /// The stable name (`high`, `medium`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Precision::High => "high",
            Precision::Medium => "medium",
        }
    }
}

/// Only the two ends of a result are examined: error messages are short,
/// and a 50 MB tool output must not cost a 50 MB regex scan. The readers
/// keep no more than this of each end (`model::TEXT_CAP`).
pub const EXAMINED_PREFIX_BYTES: usize = crate::model::TEXT_CAP;

/// A rule's regex, compiled the first time a result gets past its
/// prefilters: rules scoped to other stores, tools or classes are never
/// compiled, nor are rules whose prefilters turn away every text a scan
/// meets, and a scan's start-up pays only for the rules that get as far
/// as their regex (a Unicode pattern costs 0.1 to 3 ms to compile, its
/// prefilters a tenth of that).
pub(crate) struct LazyRegex {
    pattern: &'static str,
    /// Which needles it searches for itself.
    needles: NeedleKind,
    cell: std::sync::OnceLock<Matcher>,
}

/// The needles a rule searches a text for before its regex.
#[derive(Clone, Copy, PartialEq, Eq)]
enum NeedleKind {
    /// Its literals as they are.
    Exact,
    /// Its literals, or where it has no exact ones, literals found
    /// whatever the case of their ASCII letters (`prefilter::folded_literals`).
    Folded,
    /// None: it is asked only once a plan's search for its literals (exact
    /// or folded, as `Folded` finds them) found one in the text, whatever
    /// their case (`plan::ClassGate`).
    Gated,
}

/// A rule's tests that answer "no" before its regex (prefilter.rs): the
/// bytes a match can start with when every match starts at the text's
/// first byte, else literals every match contains; and the regex, compiled
/// when first run.
struct Matcher {
    regex: std::sync::OnceLock<regex_automata::meta::Regex>,
    /// The syntax tree the prefilters were read from, kept until the regex
    /// is compiled from it.
    hir: std::sync::Mutex<Option<regex_syntax::hir::Hir>>,
    first: Option<Box<[bool; 256]>>,
    /// For a pattern split into anchored branches and branches with
    /// needles (`prefilter::split`): the first bytes its anchored branches
    /// can open a text with (slot 256: the empty text). A text opening
    /// with one of them is matched without asking the needles.
    opens: Option<prefilter::Opens>,
    needles: Option<prefilter::Needles>,
    /// Its exact literals (`prefilter::literals`): the literals `needles`
    /// searches for, for a plan's gate (plan.rs).
    literals: Option<Vec<Vec<u8>>>,
    /// Where it has no exact literals, its literals in lower case, one of
    /// which every match holds whatever its case (`prefilter::folded_literals`).
    folded: Option<Vec<Vec<u8>>>,
}

impl LazyRegex {
    const fn new(pattern: &'static str) -> LazyRegex {
        LazyRegex { pattern, needles: NeedleKind::Exact, cell: std::sync::OnceLock::new() }
    }

    /// A rule that may have case-insensitive needles: an exit-code
    /// classification rule, most of which are `(?i)` and run only on
    /// failures, where a search for them costs little and spares compiling
    /// the rules whose words a scan's failures never hold.
    const fn folded(pattern: &'static str) -> LazyRegex {
        LazyRegex { pattern, needles: NeedleKind::Folded, cell: std::sync::OnceLock::new() }
    }

    /// A classification rule: its literals are searched for by its plan's
    /// gate, with every other rule's, not by itself.
    const fn gated(pattern: &'static str) -> LazyRegex {
        LazyRegex { pattern, needles: NeedleKind::Gated, cell: std::sync::OnceLock::new() }
    }

    fn get(&self) -> &Matcher {
        // The unit tests compile every pattern of the registry.
        self.cell.get_or_init(|| {
            let hir = prefilter::parse(self.pattern);
            let first = hir.as_ref().and_then(prefilter::first_bytes);
            // An anchored literal start is cheaper to test than a search.
            let unanchored = hir.as_ref().filter(|_| first.is_none());
            let mut literals = unanchored.and_then(prefilter::literals);
            // Content rules only: a classification rule's literals are its
            // gate's, and a gate knows no branches.
            let opens = match (self.needles, &literals) {
                (NeedleKind::Exact, None) => unanchored.and_then(prefilter::split).map(|(opens, split)| {
                    literals = Some(split);
                    opens
                }),
                _ => None,
            };
            let folded = match self.needles {
                NeedleKind::Exact => None,
                NeedleKind::Folded | NeedleKind::Gated => {
                    unanchored.filter(|_| literals.is_none()).and_then(prefilter::folded_literals)
                }
            };
            let needles = match self.needles {
                NeedleKind::Gated => None,
                NeedleKind::Exact | NeedleKind::Folded => match (&literals, &folded) {
                    (Some(set), _) => prefilter::Needles::of_literals(set),
                    (None, Some(set)) => prefilter::Needles::folded(set),
                    (None, None) => None,
                },
            };
            // Literals without their search would leave a gate without them.
            let (literals, folded, opens) = match self.needles {
                NeedleKind::Gated => (literals, folded, opens),
                NeedleKind::Exact | NeedleKind::Folded if needles.is_none() => (None, None, None),
                NeedleKind::Exact | NeedleKind::Folded => (literals, folded, opens),
            };
            let hir = std::sync::Mutex::new(hir);
            Matcher { regex: std::sync::OnceLock::new(), hir, first, opens, needles, literals, folded }
        })
    }

    /// The compiled regex.
    fn regex(&self) -> &regex_automata::meta::Regex {
        let m = self.get();
        m.regex.get_or_init(|| {
            let kept = m.hir.lock().map(|mut h| h.take()).unwrap_or_default();
            let hir = kept.unwrap_or_else(|| syntax::parse(self.pattern).expect("rule patterns parse"));
            syntax::regex_of(&hir)
        })
    }

    /// Does the pattern match `text`? A text that fails a prefilter is
    /// answered without running the regex: a search that fails at once
    /// still cost about 40 ns, and a result meets twenty such rules; an
    /// unanchored search of a clean output costs 1 µs for some patterns.
    pub(crate) fn is_match(&self, text: &str) -> bool {
        let m = self.get();
        if let Some(first) = &m.first
            && !text.as_bytes().first().is_some_and(|b| first[usize::from(*b)])
        {
            return false;
        }
        if let Some(needles) = &m.needles
            && !m.opens.as_ref().is_some_and(|opens| opens[plan::slot(text.as_bytes().first().copied())])
            && !needles.any_in(text)
        {
            return false;
        }
        self.regex().is_match(text)
    }

    /// The literals its needles search for, if it has needles.
    fn literals(&self) -> Option<&[Vec<u8>]> {
        self.get().literals.as_deref()
    }

    /// Literals one of which every match contains whatever the case of
    /// their ASCII letters, if it has needles: its exact needles (a
    /// text without any of them in any case holds none of them as they
    /// are) or its folded ones.
    fn any_case_literals(&self) -> Option<&[Vec<u8>]> {
        let m = self.get();
        m.literals.as_deref().or(m.folded.as_deref())
    }

    /// Can the pattern match a text whose first byte is `first` (`None`:
    /// an empty text)? `false` only where `is_match` answers "no" at its
    /// first test.
    fn may_start(&self, first: Option<u8>) -> bool {
        match (&self.get().first, first) {
            (None, _) => true,
            (Some(set), Some(b)) => set[usize::from(b)],
            (Some(_), None) => false,
        }
    }

    /// `may_start`, for a text that holds none of its needles: a pattern
    /// split into anchored branches and branches with needles can then
    /// only match by an anchored one.
    fn may_start_unneedled(&self, first: Option<u8>) -> bool {
        match &self.get().opens {
            Some(opens) => opens[plan::slot(first)],
            None => self.may_start(first),
        }
    }

    /// Does a text that holds none of its needles still need asking (a
    /// pattern split into anchored branches and branches with needles)?
    fn opens_unneedled(&self) -> bool {
        self.get().opens.is_some()
    }
}

struct Compiled {
    /// One regex per rule, in registry order, each compiled when first
    /// needed: rules out of a result's tool or format scope are skipped
    /// before any matching, and anchored patterns (most of them) stop at
    /// the first byte that cannot match, so a clean 4 KiB output costs a
    /// few comparisons, not a scan.
    content: Vec<LazyRegex>,
    classify: Vec<LazyRegex>,
    exit_classify: Vec<LazyRegex>,
    wrapper: Regex,
    benign: Vec<LazyRegex>,
    /// `EXIT_CODE`, behind its needles: most texts report no exit code,
    /// and an unanchored multi-line search of a clean 8 KiB text is long.
    exit_code: LazyRegex,
}

/// How a result reports the exit code of its process (see `exit_code_of`).
const EXIT_CODE: &str = r"(?m)^(?:Exit code:?|Exit Code:|Process exited with code|Command (?:failed|exited) with (?:exit )?code:?) (-?\d+)\.?\s*$|<exit_code>(-?\d+)</exit_code>|<(?:shellId: \S+ completed|exited|command with (?:shellId|id|sessionId): \S+ exited) with exit code (-?\d+)>";

static COMPILED: LazyLock<Compiled> = LazyLock::new(|| Compiled {
    content: CONTENT_RULES.iter().map(|r| LazyRegex::new(r.pattern)).collect(),
    classify: CLASS_RULES.iter().map(|r| LazyRegex::gated(r.pattern)).collect(),
    exit_classify: EXIT_CLASS_RULES.iter().map(|r| LazyRegex::folded(r.pattern)).collect(),
    wrapper: Regex::new(content::PERI_WRAPPER).expect("wrapper compiles"),
    benign: benign::BENIGN_EXITS.iter().map(|b| LazyRegex::new(b.command)).collect(),
    exit_code: LazyRegex::new(EXIT_CODE),
});

fn in_scope(scope: &[&str], tool: &str) -> bool {
    scope.is_empty() || scope.contains(&tool)
}

/// The head of `text` that rules look at: leading whitespace trimmed, cut at
/// a character boundary. A longer text is examined as its head, a newline
/// and its tail, so that rules about the last line (an exit code) still see
/// it; `^`-anchored rules without `(?m)` only ever see the start.
pub fn examined(text: &str) -> std::borrow::Cow<'_, str> {
    crate::model::text_ends(text)
}

/// The first content rule (in registry order) that says `text`, returned by
/// `tool`, is a failure, whatever the dialect (only unscoped rules).
pub fn detect(tool: &str, text: &str) -> Option<&'static ContentRule> {
    first_content(None, tool, text)
}

/// The first content rule for a result of `tool` in a session of `dialect`
/// (rules scoped to other dialects are skipped).
pub fn detect_in(dialect: Dialect, tool: &str, text: &str) -> Option<&'static ContentRule> {
    first_content(Some(dialect), tool, text)
}

fn first_content(dialect: Option<Dialect>, tool: &str, text: &str) -> Option<&'static ContentRule> {
    first_content_as(&plan::of(dialect, tool), &masked::Masking::default, text)
}

/// The first content rule of `plan` (the rules that read a result of its
/// tool, in registry order) that fires on `text`, the command line masked
/// as `masking` says. The masking is asked for only when a masked-pipelines
/// rule matched, and once: most shell results match none, and reading a
/// command line costs more than the rules' prefilters.
fn first_content_as(
    plan: &plan::ToolPlan,
    masking: &dyn Fn() -> masked::Masking,
    text: &str,
) -> Option<&'static ContentRule> {
    let head = examined(text);
    let known = std::cell::OnceCell::new();
    // One search for every needle of the plan's rules: most texts hold
    // none, and then only the rules without needles can match.
    let needled = match plan.gate() {
        Some(gate) => gate.needles.any_in(&head),
        None => true,
    };
    plan.content_by_first(needled, head.as_bytes().first().copied())
        .iter()
        .map(|&i| (&CONTENT_RULES[usize::from(i)], &COMPILED.content[usize::from(i)]))
        .find(|(r, re)| {
            re.is_match(&head)
                && (r.reads != Reads::MaskedPipelines || masked::reads(r.id, *known.get_or_init(masking)))
        })
        .map(|(r, _)| r)
}

/// Does `rule` read a result of a tool of `class` (see `Reads`; a
/// masked-pipelines rule also asks how the command line masks)?
fn reads_class(rule: &ContentRule, class: ToolClass) -> bool {
    match rule.reads {
        Reads::Any => true,
        Reads::Verdicts => class == ToolClass::Verdict,
        Reads::MaskedPipelines | Reads::ShellOutput => class == ToolClass::Shell,
        Reads::Replies => class != ToolClass::Shell,
        // Read only through `detect_result`, on the reply it presents, or
        // on the opening of a delegation's reply.
        Reads::HttpReplies | Reads::Delegations => false,
    }
}

/// A result as the rules read it: whose it is, what the call asked, and
/// what came back (its text as `present` shows it, its exit status, and
/// whether the source flagged it).
#[derive(Debug, Clone, Copy)]
pub struct Reading<'a> {
    /// Whose conventions the session follows.
    pub dialect: Dialect,
    /// The name of the tool called.
    pub tool: &'a str,
    /// The arguments of the call.
    pub input: &'a Args,
    /// The result's text, as `present` shows it.
    pub text: &'a str,
    /// The exit status the result reports, if any.
    pub exit_code: Option<i64>,
    /// The source flagged the result as an error.
    pub flagged: bool,
}

impl<'a> Reading<'a> {
    /// A result of `tool` with no input, exit status or flag (tests, docs).
    pub fn of(dialect: Dialect, tool: &'a str, text: &'a str) -> Reading<'a> {
        Reading { dialect, tool, input: no_args(), text, exit_code: None, flagged: false }
    }
}

/// Arguments that are JSON null: a call read without any.
pub fn no_args() -> &'static Args {
    static NONE: LazyLock<Args> = LazyLock::new(|| Args::new(Value::Null));
    &NONE
}

/// An empty scope is every dialect; `None` (no dialect) only matches that.
fn in_dialect(scope: &[Dialect], dialect: Option<Dialect>) -> bool {
    scope.is_empty() || dialect.is_some_and(|d| scope.contains(&d))
}

/// The id of the content rule for a failing JSON envelope.
pub const ENVELOPE_RULE: &str = "json-envelope-error";
/// `text` as a terminal shows it: ANSI escape sequences (colours, cursor
/// moves, OSC titles and links) removed, so that `ESC[31mError:ESC[0m` is
/// read as `Error:`. Borrowed when there is none.
pub fn plain(text: &str) -> std::borrow::Cow<'_, str> {
    // memchr's vector search: `str::contains(char)` was 9% of the judge.
    if memchr::memchr(0x1b, text.as_bytes()).is_none() {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\u{1b}' {
            out.push(c);
            continue;
        }
        match chars.peek() {
            Some('[') => {
                chars.next();
                // Parameters and intermediates, then one final byte.
                for c in chars.by_ref() {
                    if ('@'..='~').contains(&c) {
                        break;
                    }
                }
            }
            Some(']') => {
                chars.next();
                // Up to BEL or ST (ESC \\).
                while let Some(c) = chars.next() {
                    if c == '\u{7}' || (c == '\u{1b}' && chars.peek() == Some(&'\\')) {
                        if c == '\u{1b}' {
                            chars.next();
                        }
                        break;
                    }
                }
            }
            Some(_) => {
                chars.next();
            }
            None => {}
        }
    }
    std::borrow::Cow::Owned(out)
}

/// The content rule for a whole result: its text, and else the exit status
/// the source stored (presented to the rules as the line `Exit code N`). A
/// rule that reports an exit code is overruled by a benign exit of the
/// call's command (see `benign`). A shell result whose status says success
/// (or nothing) is also read for an earlier command's own error that its
/// pipeline masked (see `masked`).
pub fn detect_result(r: &Reading<'_>) -> Option<&'static ContentRule> {
    let plan = plan::of(Some(r.dialect), r.tool);
    let class = plan.class;
    let head = examined(r.text);
    // Asked only of a shell's result: most results are not, and the search
    // for an exit code is then saved.
    let ok = std::cell::OnceCell::new();
    let shell_ok = || {
        *ok.get_or_init(|| {
            class == ToolClass::Shell
                && !r.flagged
                && r.exit_code.unwrap_or(0) == 0
                && exit_code_of(&head).unwrap_or(0) == 0
        })
    };
    let masking = || {
        if !shell_ok() {
            return masked::Masking::default();
        }
        let m = masked::masking_of(r.input, &head);
        let statusless = masked::STATUSLESS_SHELLS.contains(&r.dialect);
        if statusless && r.exit_code.is_none() && exit_code_of(&head).is_none() {
            masked::unknown_status(m, r.input)
        } else {
            m
        }
    };
    let dialect = Some(r.dialect);
    // A result that only hands back an argument of the call (a
    // `task_complete` or `report` tool echoing the summary it was given)
    // says what the agent wrote, not what the tool did: only its exit
    // status is read.
    let said = if echoes_input(r.input, r.text) { None } else { first_content_as(&plan, &masking, r.text) };
    let (rule, shown) = match said {
        Some(rule) => (rule, head.into_owned()),
        None if shell_ok() => {
            let reply = http::failed_request(r.input, &head)?;
            return first_reading(Reads::HttpReplies, dialect, &reply);
        }
        None => {
            // A sub-agent's reply that asks instead of doing; else, as for
            // any call, its exit status.
            let asked = delegation::is_delegation(r.dialect, r.tool, r.input)
                .then(|| delegation::opening(&head))
                .flatten()
                .and_then(|opening| first_reading(Reads::Delegations, dialect, opening));
            if asked.is_some() {
                return asked;
            }
            let code = r.exit_code.filter(|&c| c != 0)?;
            let line = format!("Exit code {code}");
            (first_content_as(&plan, &masked::Masking::default, &line)?, line)
        }
    };
    // A shell command that exited 0 succeeded: a generic shape in its output
    // (a script printing `ERROR: …`) is the program's text, not the tool's.
    let succeeded = r.exit_code == Some(0) || exit_code_of(&shown) == Some(0);
    if rule.precision == Precision::Medium && succeeded && class == ToolClass::Shell {
        return None;
    }
    if is_benign(rule.id, r.input, &shown, r.text) || reads_past_end(r.text) { None } else { Some(rule) }
}

/// The first content rule that reads `reads` (a kind read only through
/// `detect_result`: HTTP replies, a delegation's opening) and fires on
/// `text` in `dialect`.
fn first_reading(reads: Reads, dialect: Option<Dialect>, text: &str) -> Option<&'static ContentRule> {
    CONTENT_RULES
        .iter()
        .zip(&COMPILED.content)
        .find(|(c, re)| c.reads == reads && in_dialect(c.dialects, dialect) && re.is_match(text))
        .map(|(c, _)| c)
}

/// A read whose range starts past the end of the file, answered with a
/// sentence that says so: an empty read, not a failure (LABELS.md).
/// crewai-tools' FileReadTool answers `Error: Start line N exceeds the
/// number of lines in the file.` (file_read_tool.py).
fn reads_past_end(text: &str) -> bool {
    let t = text.trim_start();
    let t = t.strip_prefix("Error: ").unwrap_or(t);
    t.strip_prefix("Start line ").is_some_and(|rest| {
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        digits > 0 && rest[digits..].starts_with(" exceeds the number of lines in the file")
    })
}

/// Is `text` one of the call's own string arguments, given back whole?
fn echoes_input(input: &Args, text: &str) -> bool {
    let t = text.trim();
    if t.len() < 24 {
        return false;
    }
    // Kept as text, only a member whose text is long enough is decoded.
    if let Some(mut members) = input.members() {
        return members
            .any(|m| m.raw.len() >= t.len() + 2 && m.as_str().is_some_and(|s| s.len() >= t.len() && s.trim() == t));
    }
    input
        .value()
        .as_object()
        .is_some_and(|o| o.values().any(|v| v.as_str().is_some_and(|s| s.len() >= t.len() && s.trim() == t)))
}

/// Did `rule` fire on an exit code that the call's command makes benign?
/// The command line is parsed as a shell would (see `benign`): the status
/// is the last command's, or, when nothing was printed, that of a command
/// before `&&` that ended the list.
fn is_benign(rule: &str, input: &Args, shown: &str, output: &str) -> bool {
    let code = exit_code_of(shown);
    let Some(line) = benign::command_line(input) else { return false };
    let status = benign::status_of(&line, code);
    // What the command printed, not the `Exit code N` line a stored status
    // is presented as. Codex's sandbox reports a command that exited
    // non-zero as a denial, with its status and output inside.
    let sandboxed = benign::sandbox_exit(shown);
    let code = sandboxed.as_ref().map(|(c, _)| Some(*c)).unwrap_or(code);
    let printed = match &sandboxed {
        Some((_, out)) => std::borrow::Cow::Borrowed(out.as_str()),
        None => examined(output),
    };
    // A line the shell could not parse never ran: its status is no answer.
    if SHELL_COULD_NOT_PARSE.is_match(&printed) {
        return false;
    }
    let silent = benign::is_silent(&printed);
    // What was printed can have come from other commands than the status's.
    let several = status.commands > 1;
    benign::BENIGN_EXITS.iter().zip(&COMPILED.benign).any(|(b, re)| {
        b.rules.contains(&rule)
            && (if b.codes.is_empty() { true } else { code.is_some_and(|c| b.codes.contains(&c)) })
            && benign::printed_as(b.printed, &printed, several, &printed_matches)
            && b.described.is_none_or(|p| input.get_str("description").is_some_and(|d| printed_matches(p, d.trim())))
            // A command before `&&` ended the list when nothing was printed,
            // or when all that was printed is what it prints only with its
            // "none" (`ps -p PID && lsof …` printing only `ps`'s header).
            && status.candidates.iter().enumerate().any(|(i, c)| {
                (i == 0 || silent || ANSWER_ONLY_WHEN_NONE.contains(&b.id)) && re.is_match(c)
            })
    })
}

/// The shell's complaint that it could not parse the command line.
static SHELL_COULD_NOT_PARSE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(table::SHELL_PARSE_ERROR).expect("the shell's parse error compiles"));

/// Benign exits whose output pattern matches only what the command prints
/// when its answer is "none": `ps -p`'s lone header, `kill`'s `No such
/// process`, a lookup's not-found line. Their output alone shows that they
/// ended an `&&` list; `systemctl is-active` printing `active` does not.
const ANSWER_ONLY_WHEN_NONE: &[&str] = &["no-such-process-listed", "no-such-process", "lookup-said-not-found"];

/// Does `line` match the benign exits' output `pattern`? Each pattern is
/// compiled once, the first time a result needs it.
fn printed_matches(pattern: &'static str, line: &str) -> bool {
    static PATTERNS: LazyLock<std::sync::Mutex<foldhash::HashMap<&'static str, Regex>>> =
        LazyLock::new(Default::default);
    let mut patterns = PATTERNS.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    patterns
        .entry(pattern)
        .or_insert_with(|| Regex::new(pattern).expect("a benign exit's pattern compiles"))
        .is_match(line)
}

/// The exit code a result reports (`Exit code N`, `Exit Code: N`,
/// `Process exited with code N`, `<exit_code>N</exit_code>`, Copilot's
/// `<shellId: N completed with exit code X>`).
pub fn exit_code_of(text: &str) -> Option<i64> {
    // Most texts report none: a search that builds no capture groups first.
    if !COMPILED.exit_code.is_match(text) {
        return None;
    }
    let re = COMPILED.exit_code.regex();
    let mut caps = re.create_captures();
    re.captures(text, &mut caps);
    let code = (1..=3).find_map(|group| caps.get_group(group))?;
    text[code.range()].parse().ok()
}

/// `text` without Peri's `Tool execution failed: <Tool> - ` wrapper.
pub fn unwrap_text(text: &str) -> &str {
    let head = text.trim_start();
    match COMPILED.wrapper.find(head) {
        Some(m) => &head[m.end()..],
        None => head,
    }
}

/// The text a classification rule reads: `unwrap_text`, and without the
/// `JSON envelope error: ` the judge puts before an envelope's message
/// (`present`), so that a message is classified by its own words whether it
/// came whole or inside an envelope.
fn class_text(text: &str) -> &str {
    let head = unwrap_text(text);
    head.strip_prefix(ENVELOPE_PREFIX).unwrap_or(head)
}

/// The first classification rule for the (unwrapped) text of a failed call,
/// whatever the dialect (only unscoped rules). `None` means no rule knows
/// it: the category is `other`.
pub fn classify(tool: &str, text: &str) -> Option<&'static ClassRule> {
    first_class(None, tool, text)
}

/// `classify` for a result in a session of `dialect`.
pub fn classify_in(dialect: Dialect, tool: &str, text: &str) -> Option<&'static ClassRule> {
    first_class(Some(dialect), tool, text)
}

/// The category rule of a failed result. A result that reports a non-zero
/// process exit (in its text or as the stored `exit_code`) is a program's
/// failure: `EXIT_CLASS_RULES` (command not found, the tool's time limit,
/// an interrupt, failing tests, a failed build), else `nonzero-exit`,
/// whatever words the program printed. Any other result goes through
/// `CLASS_RULES`; a flagged shell result that no rule there knows is a
/// program's failure too (an agent that flags a command that failed but
/// writes no exit code).
pub fn classify_result(r: &Reading<'_>, content: Option<&ContentRule>) -> Option<&'static ClassRule> {
    let head = examined(class_text(r.text));
    match content.map(|c| c.reads) {
        // An earlier command of a pipeline failed: a program's failure.
        Some(Reads::MaskedPipelines) => return exit_class(r.dialect, r.tool, &head),
        // The server's reply says why the request failed.
        Some(Reads::HttpReplies) => {
            let reply = http::failed_request(r.input, &head).unwrap_or_default();
            return first_class(Some(r.dialect), r.tool, &reply);
        }
        _ => {}
    }
    let code = exit_code_of(&head).or(r.exit_code).filter(|&c| c != 0);
    let failed_task = head.contains("<status>failed</status>");
    if code.is_none() && !failed_task {
        let class = first_class(Some(r.dialect), r.tool, r.text);
        // A shell call that failed, by its flag or by what it printed, with
        // no exit status and no words a rule knows: its program failed.
        if class.is_none() && (r.flagged || content.is_some()) && tool_class(r.tool) == ToolClass::Shell {
            return exit_class(r.dialect, r.tool, &head);
        }
        return class;
    }
    let shown = match code {
        Some(c) if exit_code_of(&head).is_none() => format!("{head}\nExit code {c}"),
        _ => head.into_owned(),
    };
    exit_class(r.dialect, r.tool, &shown)
}

/// The category of a program that failed: the first exit rule, else `nonzero-exit`.
fn exit_class(dialect: Dialect, tool: &str, shown: &str) -> Option<&'static ClassRule> {
    plan::of(Some(dialect), tool)
        .exit_classify
        .iter()
        .map(|&i| usize::from(i))
        .find(|&i| COMPILED.exit_classify[i].is_match(shown))
        .map(|i| &EXIT_CLASS_RULES[i])
        .or_else(|| CLASS_RULES.iter().find(|r| r.id == "nonzero-exit"))
}

fn first_class(dialect: Option<Dialect>, tool: &str, text: &str) -> Option<&'static ClassRule> {
    let head = examined(class_text(text));
    plan::of(dialect, tool).first_class(&head).map(|i| &CLASS_RULES[usize::from(i)])
}

#[cfg(test)]
mod tests;
