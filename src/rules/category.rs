//! Failure categories: the stable slugs of DESIGN.md, one per failed call,
//! as one table: a new category is one enum variant and one row.

use std::fmt;

use serde::{Serialize, Serializer};

/// Why a failed call failed. The slug is part of the JSON contract.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Category {
    /// A required argument is absent or blank.
    MissingRequiredParam,
    /// An argument the tool does not define.
    UnknownParam,
    /// An argument has the wrong JSON type.
    InvalidParamType,
    /// A value outside the enum, format or range, or rejected by tool logic.
    InvalidParamValue,
    /// The arguments are not parseable JSON.
    MalformedArguments,
    /// The called tool name does not exist.
    UnknownTool,
    /// The edit anchor text is not in the file (not proven stale).
    EditMatchNotFound,
    /// The anchor is not in a file the session itself modified earlier, with no successful read since.
    StaleEditMatch,
    /// The edit anchor matches more than once.
    EditMatchNotUnique,
    /// The tool requires reading the file first.
    FileNotRead,
    /// The file changed after the agent last read it.
    FileChangedSinceRead,
    /// Old and new text are identical.
    NoOpEdit,
    /// A file, directory, record, URL or agent definition does not exist.
    NotFound,
    /// The create target already exists.
    AlreadyExists,
    /// Refused by the OS, a sandbox, a policy or auth.
    PermissionDenied,
    /// A human declined or interrupted the call.
    UserRejected,
    /// Cancelled because a sibling parallel call failed.
    CollateralCancel,
    /// A call of the agent's own warm-up, refused by its harness (Claude
    /// Code's `Warmup` sub-agents): not the model's work.
    Warmup,
    /// A time limit was exceeded.
    Timeout,
    /// Throttled (HTTP 429, quota).
    RateLimit,
    /// Too many simultaneous operations.
    ConcurrencyLimit,
    /// A connection, DNS or TLS failure.
    Network,
    /// A 5xx, internal error or crash.
    ServerError,
    /// Too large, or out of memory, disk or context.
    ResourceExhausted,
    /// A test run ran and reported failing tests: the work is wrong, not the tool.
    TestsFailed,
    /// A build, compile or type check failed: the work is wrong, not the tool.
    BuildFailed,
    /// A command ran and exited non-zero, not otherwise classified.
    NonzeroExit,
    /// An error no rule classifies.
    Other,
}

/// One row of the category table.
#[derive(Debug, Serialize)]
pub struct CategoryInfo {
    /// The category this row describes (the table's key, not serialized).
    #[serde(skip)]
    pub category: Category,
    /// The stable name (JSON contract, `--fail-on`, `examples --category`).
    pub slug: &'static str,
    /// What the category means (the DESIGN.md table).
    pub meaning: &'static str,
    /// Can a retry fix it?
    pub retry: &'static str,
    /// What to change so that this failure stops happening (for postmortems).
    pub fix: &'static str,
    /// Whose doing the failure is: the cause class of the headline.
    pub class: CauseClass,
}

/// The cause class of a category: who has to change for the failure to stop.
/// Every category belongs to exactly one (docs/rules.md, "Cause classes").
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum CauseClass {
    /// The model passed arguments the tool's contract does not accept
    /// (missing, unknown, wrong type or value, an anchor that is not in the
    /// file, more concurrent calls than the tool allows).
    Arguments,
    /// The model acted on a stale view of the state: edit and read order.
    StaleState,
    /// The world refused: permission, a missing resource, network, limits
    /// outside the call, timeouts.
    Environment,
    /// The work itself: tests or builds that ran and failed, commands that
    /// ran and exited non-zero.
    Work,
    /// A person: rejections and cancellations.
    User,
    /// The agent's harness, on its own: calls of its warm-up that it
    /// refuses, not the model's work.
    Harness,
    /// The tool broke: internal errors, crashes.
    Tool,
    /// No rule classified the failure (`other`): no cause can be named.
    Unknown,
}

/// One row of the cause-class table.
#[derive(Debug, Serialize)]
pub struct CauseClassInfo {
    /// The cause class this row describes (the table's key, not serialized).
    #[serde(skip)]
    pub class: CauseClass,
    /// The stable name (JSON contract).
    pub slug: &'static str,
    /// How the headline names the class's failures ("argument problems").
    pub noun: &'static str,
    /// The same for one failure ("an argument problem").
    pub noun_one: &'static str,
    /// What the class means.
    pub meaning: &'static str,
}

/// Every cause class, in enum order.
pub static CAUSE_CLASSES: &[CauseClassInfo] = &[
    CauseClassInfo {
        class: CauseClass::Arguments,
        slug: "arguments",
        noun: "argument problems",
        noun_one: "an argument problem",
        meaning: "the model passed arguments the tool does not accept",
    },
    CauseClassInfo {
        class: CauseClass::StaleState,
        slug: "stale-state",
        noun: "stale-state problems",
        noun_one: "a stale-state problem",
        meaning: "the model acted on a stale view of a file: edit and read order",
    },
    CauseClassInfo {
        class: CauseClass::Environment,
        slug: "environment",
        noun: "environment problems",
        noun_one: "an environment problem",
        meaning: "permission, missing resources, network, quotas and timeouts",
    },
    CauseClassInfo {
        class: CauseClass::Work,
        slug: "work",
        noun: "failures of the work itself",
        noun_one: "a failure of the work itself",
        meaning: "tests, builds and commands that ran and failed",
    },
    CauseClassInfo {
        class: CauseClass::User,
        slug: "user",
        noun: "rejections and cancellations",
        noun_one: "a rejection or cancellation",
        meaning: "a person or the harness declined or cancelled the call",
    },
    CauseClassInfo {
        class: CauseClass::Harness,
        slug: "harness",
        noun: "calls of the agent's own warm-up",
        noun_one: "a call of the agent's own warm-up",
        meaning: "the agent's harness refused calls of its own warm-up",
    },
    CauseClassInfo {
        class: CauseClass::Tool,
        slug: "tool",
        noun: "tool failures",
        noun_one: "a tool failure",
        meaning: "the tool or its server broke: internal errors, crashes",
    },
    CauseClassInfo {
        class: CauseClass::Unknown,
        slug: "unknown",
        noun: "unclassified failures",
        noun_one: "an unclassified failure",
        meaning: "no classification rule matched (`other`)",
    },
];

impl CauseClass {
    /// Every class, in table order.
    pub fn all() -> impl Iterator<Item = CauseClass> {
        CAUSE_CLASSES.iter().map(|i| i.class)
    }

    /// The class's row of `CAUSE_CLASSES`.
    pub fn info(self) -> &'static CauseClassInfo {
        &CAUSE_CLASSES[self as usize]
    }

    /// The stable slug (`arguments`, `stale-state`, ...).
    pub fn as_str(self) -> &'static str {
        self.info().slug
    }

    /// The class with this slug, if any.
    pub fn from_slug(slug: &str) -> Option<CauseClass> {
        CAUSE_CLASSES.iter().find(|i| i.slug == slug).map(|i| i.class)
    }
}

/// Every category, in the order of the DESIGN.md table (and of the enum).
pub static CATEGORIES: &[CategoryInfo] = &[
    CategoryInfo {
        category: Category::MissingRequiredParam,
        slug: "missing-required-param",
        class: CauseClass::Arguments,
        meaning: "a required argument is absent or blank",
        retry: "yes, with args",
        fix: "Make the parameter required in the tool schema, or describe exactly when it is needed; say in the error which parameter is missing and what to pass.",
    },
    CategoryInfo {
        category: Category::UnknownParam,
        slug: "unknown-param",
        class: CauseClass::Arguments,
        meaning: "an argument the tool does not define",
        retry: "yes",
        fix: "List the accepted parameters in the error; consider accepting common aliases.",
    },
    CategoryInfo {
        category: Category::InvalidParamType,
        slug: "invalid-param-type",
        class: CauseClass::Arguments,
        meaning: "an argument has the wrong JSON type",
        retry: "yes",
        fix: "State the expected type in the schema and in the error; coerce harmless forms (\"5\" for 5).",
    },
    CategoryInfo {
        category: Category::InvalidParamValue,
        slug: "invalid-param-value",
        class: CauseClass::Arguments,
        meaning: "a value outside the enum, format or range, or rejected by tool logic",
        retry: "yes",
        fix: "Put the allowed values or format in the schema (enum, pattern, range) and echo them in the error.",
    },
    CategoryInfo {
        category: Category::MalformedArguments,
        slug: "malformed-arguments",
        class: CauseClass::Arguments,
        meaning: "the arguments are not parseable JSON",
        retry: "yes",
        fix: "Show where parsing failed and an example of valid arguments; check the model's tool-call formatting.",
    },
    CategoryInfo {
        category: Category::UnknownTool,
        slug: "unknown-tool",
        class: CauseClass::Arguments,
        meaning: "the called tool name does not exist",
        retry: "yes, other tool",
        fix: "Alias the hallucinated names to real tools, or remove stale tool names from prompts and examples.",
    },
    CategoryInfo {
        category: Category::EditMatchNotFound,
        slug: "edit-match-not-found",
        class: CauseClass::Arguments,
        meaning: "the edit anchor text is not in the file (not proven stale)",
        retry: "after re-read",
        fix: "Return the closest match and its line numbers in the error, and tell the agent to re-read the file.",
    },
    CategoryInfo {
        category: Category::StaleEditMatch,
        slug: "stale-edit-match",
        class: CauseClass::StaleState,
        meaning: "anchor not found in a file the session itself modified earlier, with no successful read since",
        retry: "after re-read",
        fix: "Re-read the file after editing it: have the edit tool return the new content, or require a read before the next edit.",
    },
    CategoryInfo {
        category: Category::EditMatchNotUnique,
        slug: "edit-match-not-unique",
        class: CauseClass::Arguments,
        meaning: "the edit anchor matches more than once",
        retry: "yes",
        fix: "Return the matching line numbers and ask for more context or replace_all; consider line-targeted edits.",
    },
    CategoryInfo {
        category: Category::FileNotRead,
        slug: "file-not-read",
        class: CauseClass::StaleState,
        meaning: "the tool requires reading the file first",
        retry: "after read",
        fix: "Say in the tool description that the file must be read first, or read it automatically.",
    },
    CategoryInfo {
        category: Category::FileChangedSinceRead,
        slug: "file-changed-since-read",
        class: CauseClass::StaleState,
        meaning: "the file changed after the agent last read it",
        retry: "after read",
        fix: "Return the current content (or a diff) with the error so the agent can retry without another read.",
    },
    CategoryInfo {
        category: Category::NoOpEdit,
        slug: "no-op-edit",
        class: CauseClass::Arguments,
        meaning: "old and new text are identical",
        retry: "yes",
        fix: "Tell the agent the edit changes nothing; check why it believed a change was needed.",
    },
    CategoryInfo {
        category: Category::NotFound,
        slug: "not-found",
        class: CauseClass::Environment,
        meaning: "a file, directory, record, URL or agent definition does not exist",
        retry: "args only",
        fix: "Name what does not exist and what does (nearby paths, available agents); validate paths before calling.",
    },
    CategoryInfo {
        category: Category::AlreadyExists,
        slug: "already-exists",
        class: CauseClass::Arguments,
        meaning: "the create target already exists",
        retry: "yes",
        fix: "Say whether to overwrite or choose another name; offer an overwrite flag.",
    },
    CategoryInfo {
        category: Category::PermissionDenied,
        slug: "permission-denied",
        class: CauseClass::Environment,
        meaning: "refused by the OS, a sandbox, a policy or auth",
        retry: "no",
        fix: "Document the sandbox or policy in the tool description so the agent stops asking.",
    },
    CategoryInfo {
        category: Category::UserRejected,
        slug: "user-rejected",
        class: CauseClass::User,
        meaning: "a human declined or interrupted the call",
        retry: "no",
        fix: "Not a defect by itself; look for calls users reject often and ask before making them.",
    },
    CategoryInfo {
        category: Category::CollateralCancel,
        slug: "collateral-cancel",
        class: CauseClass::User,
        meaning: "cancelled because a sibling parallel call failed",
        retry: "n/a, not the tool's fault",
        fix: "Not the tool's fault: fix the sibling call that failed first.",
    },
    CategoryInfo {
        category: Category::Warmup,
        slug: "warmup",
        class: CauseClass::Harness,
        meaning: "a call of the agent's own warm-up, refused by its harness",
        retry: "n/a, not a real call",
        fix: "Nothing to fix in the tools: the agent warms its sub-agents up with calls it refuses; leave them out of error budgets (they are flagged, never hidden).",
    },
    CategoryInfo {
        category: Category::Timeout,
        slug: "timeout",
        class: CauseClass::Environment,
        meaning: "a time limit was exceeded",
        retry: "wait / narrow",
        fix: "Expose the time limit in the description; narrow the work or run it in the background.",
    },
    CategoryInfo {
        category: Category::RateLimit,
        slug: "rate-limit",
        class: CauseClass::Environment,
        meaning: "throttled (HTTP 429, quota)",
        retry: "wait",
        fix: "Back off and retry with delay; expose the quota to the agent.",
    },
    CategoryInfo {
        category: Category::ConcurrencyLimit,
        slug: "concurrency-limit",
        class: CauseClass::Arguments,
        meaning: "too many simultaneous operations",
        retry: "wait",
        fix: "Expose the concurrency limit in the tool description, or queue the call instead of failing it.",
    },
    CategoryInfo {
        category: Category::Network,
        slug: "network",
        class: CauseClass::Environment,
        meaning: "connection, DNS or TLS failure",
        retry: "wait",
        fix: "Retry with backoff; report which host failed.",
    },
    CategoryInfo {
        category: Category::ServerError,
        slug: "server-error",
        class: CauseClass::Tool,
        meaning: "5xx, internal error or crash",
        retry: "wait (limited)",
        fix: "Retry a limited number of times; fix the server-side crash.",
    },
    CategoryInfo {
        category: Category::ResourceExhausted,
        slug: "resource-exhausted",
        class: CauseClass::Environment,
        meaning: "too large, or out of memory, disk or context",
        retry: "no, reduce scope",
        fix: "Tell the agent the limit and how to narrow the request (offset/limit, filters).",
    },
    CategoryInfo {
        category: Category::TestsFailed,
        slug: "tests-failed",
        class: CauseClass::Work,
        meaning: "a test run ran and reported failing tests: the work is wrong, not the tool",
        retry: "change code",
        fix: "Nothing in the tool: the agent's code fails its tests. Count it apart from tool misuse, and check the agent reads the failures before it retries.",
    },
    CategoryInfo {
        category: Category::BuildFailed,
        slug: "build-failed",
        class: CauseClass::Work,
        meaning: "a build, compile or type check failed (error[E…], error TS…, SyntaxError): the work is wrong, not the tool",
        retry: "change code",
        fix: "Nothing in the tool: the agent's code does not compile. Count it apart from tool misuse; make sure the errors reach the agent whole.",
    },
    CategoryInfo {
        category: Category::NonzeroExit,
        slug: "nonzero-exit",
        class: CauseClass::Work,
        meaning: "a command ran and exited non-zero, not otherwise classified",
        retry: "change command",
        fix: "Flag the result as an error when the exit code matters, and include stderr.",
    },
    CategoryInfo {
        category: Category::Other,
        slug: "other",
        class: CauseClass::Unknown,
        meaning: "an error no rule classifies",
        retry: "unknown",
        fix: "Read the examples: add a classification rule if the error is common.",
    },
];

impl Category {
    /// Every category, in table order.
    pub fn all() -> impl Iterator<Item = Category> {
        CATEGORIES.iter().map(|i| i.category)
    }

    /// The category's row of `CATEGORIES`.
    pub fn info(self) -> &'static CategoryInfo {
        // The table is in enum order (tested), so the discriminant indexes it.
        &CATEGORIES[self as usize]
    }

    /// The stable slug, as in the JSON contract and `--fail-on`.
    pub fn as_str(self) -> &'static str {
        self.info().slug
    }

    /// What the category means, one line.
    pub fn meaning(self) -> &'static str {
        self.info().meaning
    }

    /// What to change so that this failure stops happening.
    pub fn fix(self) -> &'static str {
        self.info().fix
    }

    /// Whether a retry can fix it.
    pub fn retry(self) -> &'static str {
        self.info().retry
    }

    /// The cause class the category belongs to.
    pub fn class(self) -> CauseClass {
        self.info().class
    }

    /// The category with this slug, if any.
    pub fn from_slug(slug: &str) -> Option<Category> {
        CATEGORIES.iter().find(|i| i.slug == slug).map(|i| i.category)
    }
}

impl Serialize for Category {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl Serialize for CauseClass {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl fmt::Display for Category {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_in_enum_order_and_slugs_round_trip() {
        let mut seen = std::collections::HashSet::new();
        for (i, row) in CATEGORIES.iter().enumerate() {
            assert_eq!(row.category as usize, i, "{} is out of order", row.slug);
            assert!(seen.insert(row.slug), "duplicate slug {}", row.slug);
            assert_eq!(Category::from_slug(row.slug), Some(row.category));
            assert!(row.slug.bytes().all(|b| b.is_ascii_lowercase() || b == b'-'), "{}", row.slug);
            assert!(!row.meaning.is_empty() && !row.retry.is_empty() && !row.fix.is_empty(), "{}", row.slug);
        }
        // The last variant has the last row: no variant lacks one.
        assert_eq!(Category::Other as usize + 1, CATEGORIES.len());
        assert_eq!(Category::from_slug("no-such-slug"), None);
    }

    #[test]
    fn cause_classes_are_in_enum_order_and_each_has_a_category() {
        for (i, row) in CAUSE_CLASSES.iter().enumerate() {
            assert_eq!(row.class as usize, i, "{} is out of order", row.slug);
            assert_eq!(CauseClass::from_slug(row.slug), Some(row.class));
            assert!(Category::all().any(|c| c.class() == row.class), "no category in class {}", row.slug);
        }
        assert_eq!(CauseClass::Unknown as usize + 1, CAUSE_CLASSES.len());
        // Only `other` is unclassified.
        let unknown: Vec<_> = Category::all().filter(|c| c.class() == CauseClass::Unknown).collect();
        assert_eq!(unknown, vec![Category::Other]);
    }
}
