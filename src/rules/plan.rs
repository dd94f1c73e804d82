//! Which rules read one tool's results, worked out once per tool.
//!
//! A result meets the content rules in registry order, and each used to
//! ask in turn whether the result's tool and dialect are in its scope and
//! whether it reads that class of tool: about 80 rules and a thousand
//! string comparisons for every result, a tenth of a scan's instructions
//! on a database of short results. A scan meets few distinct tools, so
//! the answer is listed once per (tool, dialect): the indexes of the rules
//! that apply, in registry order. Matching walks only those, in the same
//! order, so the first rule that fires is the same rule.

use std::cell::RefCell;
use std::rc::Rc;

use aho_corasick::{AhoCorasick, AhoCorasickKind};

use super::classify::{CLASS_RULES, EXIT_CLASS_RULES, NOT_FOR_PROGRAMS};
use super::content::CONTENT_RULES;
use super::prefilter::Needles;
use super::tools::{ToolClass, tool_class};
use super::{COMPILED, in_dialect, in_scope, reads_class};
use crate::model::Dialect;

/// The rules that apply to the results of one tool in one dialect.
pub(super) struct ToolPlan {
    /// The tool's class (`tools::tool_class`).
    pub(super) class: ToolClass,
    /// Content rules in the tool's and the dialect's scope that read
    /// results of its class (`reads_class`), as indexes of `CONTENT_RULES`.
    pub(super) content: Box<[u16]>,
    /// Classification rules in scope, as indexes of `CLASS_RULES`.
    pub(super) classify: Box<[u16]>,
    /// Exit classification rules in scope, as indexes of `EXIT_CLASS_RULES`.
    pub(super) exit_classify: Box<[u16]>,
    /// One search for the needles of all its content rules that have
    /// needles, built when first asked (`gate`); `None` inside when they
    /// are too many to search for at once (Teddy's limit) or there are none.
    gate: std::cell::OnceCell<Option<Gate>>,
    /// The content rules to try on a text, by whether the gate found a
    /// needle and by the text's first byte, built when first asked
    /// (`content_by_first`).
    content_first: std::cell::OnceCell<ByFirst>,
    /// One search for the needles of all its classification rules, built
    /// when first asked (`first_class`).
    class_gate: std::cell::OnceCell<Rc<ClassGate>>,
}

/// What a failure's text is read for before its classification rules:
/// one search, whatever the case of ASCII letters, for every literal of
/// every rule of the plan that has needles, which tells the rules whose
/// needles the text holds; the others cannot match and are never asked.
/// A failure meets about sixty classification rules, each of which used
/// to search the text for its own needles.
struct ClassGate {
    /// Every literal of the plan's rules with needles, each found at every
    /// place it occurs (standard, overlapping matches); `None` when no rule
    /// has needles.
    search: Option<AhoCorasick>,
    /// For each literal of `search`, the rules (indexes of `CLASS_RULES`)
    /// one of whose literals it is.
    owners: Box<[Box<[u16]>]>,
    /// Whether each rule of `CLASS_RULES` has needles (`search` holds them).
    needled: Box<[bool]>,
    /// The plan's rules per first byte of a text.
    by_first: ByFirst,
}

/// Words of a set of classification rules, one bit a rule.
const CLASS_WORDS: usize = 4;
const _: () =
    assert!(super::classify::CLASS_RULE_COUNT <= CLASS_WORDS * 64, "a set of classification rules holds them all");

thread_local! {
    /// Gates by the rules they were built for: plans of most tools list the
    /// same classification rules, and an automaton costs more to build than
    /// thousands of searches.
    static CLASS_GATES: RefCell<foldhash::HashMap<Box<[u16]>, Rc<ClassGate>>> = RefCell::default();
}

impl ClassGate {
    /// The gate of `rules`, built once per thread and list of rules (at
    /// most `KEPT` lists are kept).
    fn of(rules: &[u16]) -> Rc<ClassGate> {
        CLASS_GATES.with(|gates| {
            if let Some(gate) = gates.borrow().get(rules) {
                return gate.clone();
            }
            let gate = Rc::new(ClassGate::build(rules));
            let mut gates = gates.borrow_mut();
            if gates.len() < KEPT {
                gates.insert(rules.into(), gate.clone());
            }
            gate
        })
    }

    fn build(rules: &[u16]) -> ClassGate {
        let mut literals: Vec<Vec<u8>> = Vec::new();
        let mut owners: Vec<Vec<u16>> = Vec::new();
        let mut needled = vec![false; CLASS_RULES.len()];
        for &i in rules {
            let Some(set) = COMPILED.classify[usize::from(i)].any_case_literals() else { continue };
            needled[usize::from(i)] = true;
            for literal in set {
                let literal = literal.to_ascii_lowercase();
                match literals.iter().position(|l| *l == literal) {
                    Some(at) => owners[at].push(i),
                    None => {
                        literals.push(literal);
                        owners.push(vec![i]);
                    }
                }
            }
        }
        let search = (!literals.is_empty()).then(|| {
            AhoCorasick::builder()
                .ascii_case_insensitive(true)
                .kind(Some(AhoCorasickKind::ContiguousNFA))
                .build(&literals)
                .expect("a few hundred literals make an automaton")
        });
        ClassGate {
            search,
            owners: owners.into_iter().map(Vec::into_boxed_slice).collect(),
            needled: needled.into(),
            by_first: ByFirst::build(&[rules], |_, i, b| COMPILED.classify[usize::from(i)].may_start(b)),
        }
    }
}

/// Rules listed per first byte of a text: an anchored rule (most of them)
/// whose first bytes leave out a text's first byte cannot match it, so it
/// is never asked. Each list keeps registry order, and the first rule of
/// a list that fires is the first of the whole plan that fires.
struct ByFirst {
    /// For each case (`slot`), which of `lists` to try.
    index: Box<[u16]>,
    /// The distinct lists (most bytes share a few).
    lists: Box<[Box<[u16]>]>,
}

/// Slots of a `ByFirst`: one per first byte and one for the empty text.
const SLOTS: usize = 257;

pub(super) fn slot(first: Option<u8>) -> usize {
    first.map_or(256, usize::from)
}

impl ByFirst {
    /// `cases` lists of rules, each cut per first byte by `may_start` (of
    /// the case, the rule and the byte).
    fn build(cases: &[&[u16]], may_start: impl Fn(usize, u16, Option<u8>) -> bool) -> ByFirst {
        let mut lists: Vec<Box<[u16]>> = Vec::new();
        let mut index = Vec::with_capacity(cases.len() * SLOTS);
        for (case, rules) in cases.iter().enumerate() {
            for s in 0..SLOTS {
                let first = u8::try_from(s).ok();
                let list: Box<[u16]> = rules.iter().copied().filter(|&i| may_start(case, i, first)).collect();
                let at = lists.iter().position(|l| *l == list).unwrap_or_else(|| {
                    lists.push(list);
                    lists.len() - 1
                });
                index.push(u16::try_from(at).expect("fewer than 65,536 lists"));
            }
        }
        ByFirst { index: index.into(), lists: lists.into() }
    }

    fn get(&self, case: usize, first: Option<u8>) -> &[u16] {
        &self.lists[usize::from(self.index[case * SLOTS + slot(first)])]
    }
}

/// A search for every needle of a plan's content rules, and the rules left
/// to try on a text where it finds none.
pub(super) struct Gate {
    /// Every needle of every content rule of the plan that has needles.
    pub(super) needles: Needles,
    /// The plan's content rules without needles, in registry order: on a
    /// text that holds no needle, the only ones that can match. Most of a
    /// plan's rules have needles, so a clean result walks a few rules,
    /// not all of them.
    pub(super) unneedled: Box<[u16]>,
}

/// Plans are the same plan when they list the same rules (the gate is
/// worked out from them).
impl PartialEq for ToolPlan {
    fn eq(&self, other: &ToolPlan) -> bool {
        (self.class, &self.content, &self.classify, &self.exit_classify)
            == (other.class, &other.content, &other.classify, &other.exit_classify)
    }
}

impl std::fmt::Debug for ToolPlan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolPlan")
            .field("class", &self.class)
            .field("content", &self.content)
            .field("classify", &self.classify)
            .field("exit_classify", &self.exit_classify)
            .finish()
    }
}

impl ToolPlan {
    /// The plan worked out from the registry, without the cache.
    pub(super) fn build(dialect: Option<Dialect>, tool: &str) -> ToolPlan {
        let class = tool_class(tool);
        let indexes = |keep: &mut dyn FnMut(usize) -> bool, n: usize| -> Box<[u16]> {
            (0..n).filter(|&i| keep(i)).map(|i| u16::try_from(i).expect("fewer than 65,536 rules")).collect()
        };
        let content = indexes(
            &mut |i| {
                let r = &CONTENT_RULES[i];
                in_scope(r.tools, tool) && in_dialect(r.dialects, dialect) && reads_class(r, class)
            },
            CONTENT_RULES.len(),
        );
        let classify = indexes(
            &mut |i| {
                let r = &CLASS_RULES[i];
                in_scope(r.tools, tool)
                    && in_dialect(r.dialects, dialect)
                    && !(class == ToolClass::Shell && NOT_FOR_PROGRAMS.contains(&r.id))
            },
            CLASS_RULES.len(),
        );
        let exit_classify = indexes(
            &mut |i| in_scope(EXIT_CLASS_RULES[i].tools, tool) && in_dialect(EXIT_CLASS_RULES[i].dialects, dialect),
            EXIT_CLASS_RULES.len(),
        );
        ToolPlan {
            class,
            content,
            classify,
            exit_classify,
            gate: std::cell::OnceCell::new(),
            content_first: std::cell::OnceCell::new(),
            class_gate: std::cell::OnceCell::new(),
        }
    }

    /// The first of its classification rules (an index of `CLASS_RULES`)
    /// that matches `head`, the examined text of a failure.
    pub(super) fn first_class(&self, head: &str) -> Option<u16> {
        let gate = self.class_gate.get_or_init(|| ClassGate::of(&self.classify));
        let mut found = [0u64; CLASS_WORDS];
        if let Some(search) = &gate.search {
            for m in search.find_overlapping_iter(head) {
                for &i in &gate.owners[m.pattern().as_usize()] {
                    found[usize::from(i) / 64] |= 1 << (i % 64);
                }
            }
        }
        let found = |i: u16| found[usize::from(i) / 64] & (1 << (i % 64)) != 0;
        gate.by_first
            .get(0, head.as_bytes().first().copied())
            .iter()
            .copied()
            .filter(|&i| !gate.needled[usize::from(i)] || found(i))
            .find(|&i| COMPILED.classify[usize::from(i)].is_match(head))
    }

    /// The content rules that may match a text whose first byte is
    /// `first`, in registry order: of all the plan's rules when the gate
    /// found a needle in it (or the plan has no gate), else of those
    /// without needles (and those split into anchored branches and
    /// branches with needles, for their anchored branches' first bytes).
    pub(super) fn content_by_first(&self, needled: bool, first: Option<u8>) -> &[u16] {
        let by_first = self.content_first.get_or_init(|| {
            let unneedled = self.gate().map_or(&[][..], |g| &g.unneedled);
            ByFirst::build(&[unneedled, &self.content], |case, i, b| {
                let rule = &COMPILED.content[usize::from(i)];
                if case == 0 { rule.may_start_unneedled(b) } else { rule.may_start(b) }
            })
        });
        by_first.get(usize::from(needled), first)
    }

    /// A search for every needle of its content rules: when it finds none
    /// in a text, no rule with needles can match it. Only a vector search
    /// (Teddy) is worth it: the automaton a larger set needs costs more
    /// than the few searches it would save.
    pub(super) fn gate(&self) -> Option<&Gate> {
        self.gate
            .get_or_init(|| {
                let (mut all, mut rules, mut unneedled) = (Vec::new(), 0, Vec::new());
                for &i in &self.content {
                    let rule = &COMPILED.content[usize::from(i)];
                    match rule.literals() {
                        Some(literals) => {
                            all.extend_from_slice(literals);
                            rules += 1;
                        }
                        None => unneedled.push(i),
                    }
                    // A split pattern may match by an anchored branch
                    // where the gate finds no needle.
                    if rule.literals().is_some() && rule.opens_unneedled() {
                        unneedled.push(i);
                    }
                }
                // A single rule's needles are searched for by the rule itself.
                if rules < 2 {
                    return None;
                }
                all.sort();
                all.dedup();
                Needles::gate(&all).map(|needles| Gate { needles, unneedled: unneedled.into() })
            })
            .as_ref()
    }
}

/// Plans kept per thread: past this many distinct tool names (an input
/// that names a new tool in every call) plans are built and not kept, so
/// memory stays bounded.
const KEPT: usize = 4096;

type Plans = foldhash::HashMap<Box<str>, Vec<(Option<Dialect>, Rc<ToolPlan>)>>;

thread_local! {
    static PLANS: RefCell<Plans> = RefCell::new(Plans::default());
}

/// The plan for the results of `tool` in a session of `dialect` (`None`:
/// only rules without a dialect scope).
pub(super) fn of(dialect: Option<Dialect>, tool: &str) -> Rc<ToolPlan> {
    PLANS.with(|plans| {
        if let Some(kept) = plans.borrow().get(tool)
            && let Some((_, plan)) = kept.iter().find(|(d, _)| *d == dialect)
        {
            return plan.clone();
        }
        let plan = Rc::new(ToolPlan::build(dialect, tool));
        let mut plans = plans.borrow_mut();
        if plans.len() < KEPT || plans.contains_key(tool) {
            plans.entry(tool.into()).or_default().push((dialect, plan.clone()));
        }
        plan
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A kept plan is the plan the registry gives, for every dialect
    /// (and none), for tools in and out of the rules' scopes.
    #[test]
    fn kept_plans_are_the_registry_s() {
        let mut tools: Vec<&str> = CONTENT_RULES.iter().flat_map(|r| r.tools.iter().copied()).collect();
        tools.extend(CLASS_RULES.iter().chain(EXIT_CLASS_RULES).flat_map(|r| r.tools.iter().copied()));
        tools.extend(["Bash", "Read", "Edit", "get_weather", "mcp__fs__readFile", "", "é"]);
        let dialects = std::iter::once(None).chain(Dialect::ALL.iter().copied().map(Some));
        for dialect in dialects {
            for tool in &tools {
                // Twice: built, then kept.
                for _ in 0..2 {
                    assert_eq!(*of(dialect, tool), ToolPlan::build(dialect, tool), "{tool} in {dialect:?}");
                }
            }
        }
        let bash = of(Some(Dialect::CLAUDE_CODE), "Bash");
        assert_eq!(bash.class, ToolClass::Shell);
        assert!(!bash.content.is_empty() && bash.content.windows(2).all(|w| w[0] < w[1]), "registry order");
        let scoped_out = of(Some(Dialect::CLAUDE_CODE), "get_weather");
        assert!(scoped_out.content.len() < CONTENT_RULES.len(), "scopes leave rules out");
    }

    /// A plan's gate finds a needle in a text exactly when one of its
    /// rules' needles is there: on every content rule's examples, for
    /// every dialect and for tools in and out of the rules' scopes.
    #[test]
    fn gates_find_what_their_rules_needles_find() {
        let texts: Vec<String> = CONTENT_RULES
            .iter()
            .flat_map(|r| r.fires_on.iter().chain(r.ignores))
            .flat_map(|t| [t.to_string(), format!("ok\n{t}"), t.to_lowercase()])
            .chain(["".to_string(), "all good".to_string()])
            .collect();
        let mut tools: Vec<&str> = CONTENT_RULES.iter().flat_map(|r| r.tools.iter().copied()).collect();
        tools.extend(["Bash", "Read", "Edit", "get_weather", "mcp__fs__readFile"]);
        let mut gated = 0;
        for dialect in std::iter::once(None).chain(Dialect::ALL.iter().copied().map(Some)) {
            for tool in &tools {
                let plan = ToolPlan::build(dialect, tool);
                let Some(gate) = plan.gate() else { continue };
                gated += 1;
                let unneedled: Vec<u16> = plan
                    .content
                    .iter()
                    .copied()
                    .filter(|&i| {
                        let rule = &COMPILED.content[usize::from(i)];
                        rule.literals().is_none() || rule.opens_unneedled()
                    })
                    .collect();
                assert_eq!(*gate.unneedled, unneedled, "{tool} in {dialect:?}");
                for text in &texts {
                    let any = plan.content.iter().any(|&i| {
                        let m = COMPILED.content[usize::from(i)].get();
                        m.needles.as_ref().is_some_and(|n| n.any_in(text))
                    });
                    assert_eq!(gate.needles.any_in(text), any, "{tool} in {dialect:?} on {text:?}");
                }
            }
        }
        assert!(gated > 0, "some plan has a gate");
    }

    /// The gates of the tools most results come from stay small: past 64
    /// literals a gate splits into shares and every clean result is scanned
    /// once per share (a rule with nine needles once cost +3.6% of the
    /// small-message bench's instructions). Readers' and custom tools' gates
    /// are one vector search; shells' are two (their masked-pipeline rules
    /// hold about 75 literals). A rule whose needles would tip one of these
    /// belongs to a narrower scope (`tools`, `dialects`), or anchored, where
    /// its prefilter is its first bytes.
    #[test]
    fn the_common_tools_gates_stay_small() {
        use crate::rules::prefilter::Needles;
        let common: &[(Dialect, &[&str])] = &[
            (Dialect::PERI, &["Bash", "Read", "Edit", "Grep", "Glob", "Write"]),
            (Dialect::CLAUDE_CODE, &["Bash", "Read", "Edit", "Task", "WebFetch", "mcp__github__get_issue"]),
            (Dialect::CODEX, &["shell", "exec_command", "apply_patch"]),
            (Dialect::GEMINI, &["run_shell_command", "read_file", "replace", "web_fetch"]),
            (Dialect::ADK, &["get_weather", "search_flights"]),
            (Dialect::LANGGRAPH, &["get_weather", "tavily_search"]),
            (Dialect::OPENAI_AGENTS, &["get_weather", "exec_command"]),
        ];
        for (dialect, tools) in common {
            for tool in *tools {
                let plan = ToolPlan::build(Some(*dialect), tool);
                let Some(gate) = plan.gate() else { continue };
                let searches = match &gate.needles {
                    Needles::Shares(shares) => shares.len(),
                    Needles::Many(_) | Needles::Folded(_) => usize::MAX,
                    Needles::One(_) | Needles::Packed(_) => 1,
                };
                let most = if plan.class == ToolClass::Shell { 2 } else { 1 };
                assert!(searches <= most, "{tool} in {dialect:?}: its gate takes {searches} vector searches");
            }
        }
    }

    /// The examples of `rules` (each rule's `fires_on` and `ignores`), each
    /// also after a first line and in lower and upper case, and a few texts
    /// of no rule.
    fn rule_texts<'a>(examples: impl Iterator<Item = &'a &'a str>) -> Vec<String> {
        examples
            .flat_map(|t| [t.to_string(), format!("ok\n{t}"), t.to_lowercase(), t.to_uppercase()])
            .chain(["".to_string(), " ".to_string(), "all good".to_string(), "é".to_string()])
            .collect()
    }

    /// The rules a plan asks, per first byte and by its gates, find the
    /// rule that the registry's order finds by the regexes alone: on every
    /// rule's examples, for every dialect and for tools in and out of the
    /// rules' scopes.
    #[test]
    fn dispatch_finds_the_rule_the_regexes_find() {
        let content_texts = rule_texts(CONTENT_RULES.iter().flat_map(|r| r.fires_on.iter().chain(r.ignores)));
        let class_texts = rule_texts(CLASS_RULES.iter().flat_map(|r| r.fires_on.iter().chain(r.ignores)));
        let mut tools: Vec<&str> = CONTENT_RULES.iter().flat_map(|r| r.tools.iter().copied()).collect();
        tools.extend(CLASS_RULES.iter().flat_map(|r| r.tools.iter().copied()));
        tools.extend(["Bash", "Read", "Edit", "get_weather", "mcp__fs__readFile"]);
        tools.sort_unstable();
        tools.dedup();
        let (mut content_found, mut class_found) = (0, 0);
        // Each distinct list of rules once (a plan's gates and lists are
        // worked out from its lists alone).
        let (mut contents, mut classes): (Vec<ToolPlan>, Vec<ToolPlan>) = (Vec::new(), Vec::new());
        for dialect in std::iter::once(None).chain(Dialect::ALL.iter().copied().map(Some)) {
            for tool in &tools {
                let plan = ToolPlan::build(dialect, tool);
                if !classes.iter().any(|p| p.classify == plan.classify) {
                    classes.push(ToolPlan::build(dialect, tool));
                }
                if !contents.iter().any(|p| p.content == plan.content) {
                    contents.push(plan);
                }
            }
        }
        for plan in &contents {
            for text in &content_texts {
                let head = crate::rules::examined(text);
                let reads = |i: u16| CONTENT_RULES[usize::from(i)].reads != crate::rules::Reads::MaskedPipelines;
                let by_regex = plan
                    .content
                    .iter()
                    .copied()
                    .find(|&i| reads(i) && COMPILED.content[usize::from(i)].regex().is_match(&*head));
                let needled = plan.gate().is_none_or(|g| g.needles.any_in(&head));
                let dispatched = plan
                    .content_by_first(needled, head.as_bytes().first().copied())
                    .iter()
                    .copied()
                    .find(|&i| reads(i) && COMPILED.content[usize::from(i)].is_match(&head));
                assert_eq!(dispatched, by_regex, "content rule of {:?} on {text:?}", plan.content);
                content_found += usize::from(by_regex.is_some());
            }
        }
        for plan in &classes {
            for text in &class_texts {
                let head = crate::rules::examined(text);
                let by_regex =
                    plan.classify.iter().copied().find(|&i| COMPILED.classify[usize::from(i)].regex().is_match(&*head));
                assert_eq!(plan.first_class(&head), by_regex, "class rule of {:?} on {text:?}", plan.classify);
                class_found += usize::from(by_regex.is_some());
            }
        }
        assert!(content_found > 1000 && class_found > 1000, "{content_found} {class_found}");
    }

    /// Past `KEPT` tool names, plans are still right but no longer kept.
    #[test]
    fn plans_kept_are_bounded() {
        for i in 0..KEPT + 10 {
            let tool = format!("tool_{i}");
            assert_eq!(*of(Some(Dialect::PERI), &tool), ToolPlan::build(Some(Dialect::PERI), &tool));
        }
        PLANS.with(|p| assert!(p.borrow().len() <= KEPT));
    }
}
