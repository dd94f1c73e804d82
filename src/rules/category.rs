//! Failure categories: the stable slugs of DESIGN.md, one per failed call.

use std::fmt;

/// Why a failed call failed. The slug (`as_str`) is part of the JSON contract.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Category {
    MissingRequiredParam,
    UnknownParam,
    InvalidParamType,
    InvalidParamValue,
    MalformedArguments,
    UnknownTool,
    EditMatchNotFound,
    StaleEditMatch,
    EditMatchNotUnique,
    FileNotRead,
    FileChangedSinceRead,
    NoOpEdit,
    NotFound,
    AlreadyExists,
    PermissionDenied,
    UserRejected,
    CollateralCancel,
    Timeout,
    RateLimit,
    ConcurrencyLimit,
    Network,
    ServerError,
    ResourceExhausted,
    NonzeroExit,
    Other,
}

impl Category {
    /// Every category, in the order of the DESIGN.md table.
    pub const ALL: [Category; 25] = [
        Category::MissingRequiredParam,
        Category::UnknownParam,
        Category::InvalidParamType,
        Category::InvalidParamValue,
        Category::MalformedArguments,
        Category::UnknownTool,
        Category::EditMatchNotFound,
        Category::StaleEditMatch,
        Category::EditMatchNotUnique,
        Category::FileNotRead,
        Category::FileChangedSinceRead,
        Category::NoOpEdit,
        Category::NotFound,
        Category::AlreadyExists,
        Category::PermissionDenied,
        Category::UserRejected,
        Category::CollateralCancel,
        Category::Timeout,
        Category::RateLimit,
        Category::ConcurrencyLimit,
        Category::Network,
        Category::ServerError,
        Category::ResourceExhausted,
        Category::NonzeroExit,
        Category::Other,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Category::MissingRequiredParam => "missing-required-param",
            Category::UnknownParam => "unknown-param",
            Category::InvalidParamType => "invalid-param-type",
            Category::InvalidParamValue => "invalid-param-value",
            Category::MalformedArguments => "malformed-arguments",
            Category::UnknownTool => "unknown-tool",
            Category::EditMatchNotFound => "edit-match-not-found",
            Category::StaleEditMatch => "stale-edit-match",
            Category::EditMatchNotUnique => "edit-match-not-unique",
            Category::FileNotRead => "file-not-read",
            Category::FileChangedSinceRead => "file-changed-since-read",
            Category::NoOpEdit => "no-op-edit",
            Category::NotFound => "not-found",
            Category::AlreadyExists => "already-exists",
            Category::PermissionDenied => "permission-denied",
            Category::UserRejected => "user-rejected",
            Category::CollateralCancel => "collateral-cancel",
            Category::Timeout => "timeout",
            Category::RateLimit => "rate-limit",
            Category::ConcurrencyLimit => "concurrency-limit",
            Category::Network => "network",
            Category::ServerError => "server-error",
            Category::ResourceExhausted => "resource-exhausted",
            Category::NonzeroExit => "nonzero-exit",
            Category::Other => "other",
        }
    }

    /// What the category means (the DESIGN.md table).
    pub fn meaning(self) -> &'static str {
        match self {
            Category::MissingRequiredParam => "a required argument is absent or blank",
            Category::UnknownParam => "an argument the tool does not define",
            Category::InvalidParamType => "an argument has the wrong JSON type",
            Category::InvalidParamValue => "a value outside the enum, format or range, or rejected by tool logic",
            Category::MalformedArguments => "the arguments are not parseable JSON",
            Category::UnknownTool => "the called tool name does not exist",
            Category::EditMatchNotFound => "the edit anchor text is not in the file (not proven stale)",
            Category::StaleEditMatch => {
                "anchor not found in a file the session itself modified earlier, with no successful read since"
            }
            Category::EditMatchNotUnique => "the edit anchor matches more than once",
            Category::FileNotRead => "the tool requires reading the file first",
            Category::FileChangedSinceRead => "the file changed after the agent last read it",
            Category::NoOpEdit => "old and new text are identical",
            Category::NotFound => "a file, directory, record, URL or agent definition does not exist",
            Category::AlreadyExists => "the create target already exists",
            Category::PermissionDenied => "refused by the OS, a sandbox, a policy or auth",
            Category::UserRejected => "a human declined or interrupted the call",
            Category::CollateralCancel => "cancelled because a sibling parallel call failed",
            Category::Timeout => "a time limit was exceeded",
            Category::RateLimit => "throttled (HTTP 429, quota)",
            Category::ConcurrencyLimit => "too many simultaneous operations",
            Category::Network => "connection, DNS or TLS failure",
            Category::ServerError => "5xx, internal error or crash",
            Category::ResourceExhausted => "too large, or out of memory, disk or context",
            Category::NonzeroExit => "a command ran and exited non-zero, not otherwise classified",
            Category::Other => "an error no rule classifies",
        }
    }

    /// What to change so that this failure stops happening (for postmortems).
    pub fn fix(self) -> &'static str {
        match self {
            Category::MissingRequiredParam => {
                "Make the parameter required in the tool schema, or describe exactly when it is needed; say in the error which parameter is missing and what to pass."
            }
            Category::UnknownParam => "List the accepted parameters in the error; consider accepting common aliases.",
            Category::InvalidParamType => {
                "State the expected type in the schema and in the error; coerce harmless forms (\"5\" for 5)."
            }
            Category::InvalidParamValue => {
                "Put the allowed values or format in the schema (enum, pattern, range) and echo them in the error."
            }
            Category::MalformedArguments => {
                "Show where parsing failed and an example of valid arguments; check the model's tool-call formatting."
            }
            Category::UnknownTool => {
                "Alias the hallucinated names to real tools, or remove stale tool names from prompts and examples."
            }
            Category::EditMatchNotFound => {
                "Return the closest match and its line numbers in the error, and tell the agent to re-read the file."
            }
            Category::StaleEditMatch => {
                "Re-read the file after editing it: have the edit tool return the new content, or require a read before the next edit."
            }
            Category::EditMatchNotUnique => {
                "Return the matching line numbers and ask for more context or replace_all; consider line-targeted edits."
            }
            Category::FileNotRead => {
                "Say in the tool description that the file must be read first, or read it automatically."
            }
            Category::FileChangedSinceRead => {
                "Return the current content (or a diff) with the error so the agent can retry without another read."
            }
            Category::NoOpEdit => "Tell the agent the edit changes nothing; check why it believed a change was needed.",
            Category::NotFound => {
                "Name what does not exist and what does (nearby paths, available agents); validate paths before calling."
            }
            Category::AlreadyExists => "Say whether to overwrite or choose another name; offer an overwrite flag.",
            Category::PermissionDenied => {
                "Document the sandbox or policy in the tool description so the agent stops asking."
            }
            Category::UserRejected => {
                "Not a defect by itself; look for calls users reject often and ask before making them."
            }
            Category::CollateralCancel => "Not the tool's fault: fix the sibling call that failed first.",
            Category::Timeout => {
                "Expose the time limit in the description; narrow the work or run it in the background."
            }
            Category::RateLimit => "Back off and retry with delay; expose the quota to the agent.",
            Category::ConcurrencyLimit => {
                "Expose the concurrency limit in the tool description, or queue the call instead of failing it."
            }
            Category::Network => "Retry with backoff; report which host failed.",
            Category::ServerError => "Retry a limited number of times; fix the server-side crash.",
            Category::ResourceExhausted => {
                "Tell the agent the limit and how to narrow the request (offset/limit, filters)."
            }
            Category::NonzeroExit => "Flag the result as an error when the exit code matters, and include stderr.",
            Category::Other => "Read the examples: add a classification rule if the error is common.",
        }
    }

    /// Can a retry fix it? (the DESIGN.md table)
    pub fn retry(self) -> &'static str {
        match self {
            Category::MissingRequiredParam => "yes, with args",
            Category::UnknownParam
            | Category::InvalidParamType
            | Category::InvalidParamValue
            | Category::MalformedArguments
            | Category::EditMatchNotUnique
            | Category::NoOpEdit
            | Category::AlreadyExists => "yes",
            Category::UnknownTool => "yes, other tool",
            Category::EditMatchNotFound | Category::StaleEditMatch => "after re-read",
            Category::FileNotRead | Category::FileChangedSinceRead => "after read",
            Category::NotFound => "args only",
            Category::PermissionDenied | Category::UserRejected => "no",
            Category::CollateralCancel => "n/a, not the tool's fault",
            Category::Timeout => "wait / narrow",
            Category::RateLimit | Category::ConcurrencyLimit | Category::Network => "wait",
            Category::ServerError => "wait (limited)",
            Category::ResourceExhausted => "no, reduce scope",
            Category::NonzeroExit => "change command",
            Category::Other => "unknown",
        }
    }

    pub fn from_slug(slug: &str) -> Option<Category> {
        Category::ALL.into_iter().find(|c| c.as_str() == slug)
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
    fn slugs_round_trip_and_are_unique() {
        let mut seen = std::collections::HashSet::new();
        for c in Category::ALL {
            assert!(seen.insert(c.as_str()), "duplicate slug {c}");
            assert_eq!(Category::from_slug(c.as_str()), Some(c));
        }
        assert_eq!(Category::from_slug("no-such-slug"), None);
    }
}
