//! What tools do to files, as data: the stale-edit analysis needs to know
//! which calls read a file and which modify it, and where the path is.

use serde::Serialize;
use std::borrow::Cow;

use crate::model::Args;

/// Whether a tool reads a file or modifies it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FileEffect {
    /// A successful call shows the agent the file's current content.
    Reads,
    /// A successful call changes the file.
    Modifies,
}

/// What one tool does to files, and where its path is.
#[derive(Debug, Serialize)]
pub struct ToolRole {
    /// The tool's name, as called.
    pub tool: &'static str,
    /// Whether it reads or modifies the file.
    pub effect: FileEffect,
    /// Argument names that hold the file path, tried in order.
    pub path_keys: &'static [&'static str],
}

const PATH_KEYS: &[&str] = &["file_path", "path", "notebook_path"];

/// The tools known to read or modify files.
pub static TOOL_ROLES: &[ToolRole] = &[
    ToolRole { tool: "Read", effect: FileEffect::Reads, path_keys: PATH_KEYS },
    ToolRole { tool: "read_file", effect: FileEffect::Reads, path_keys: PATH_KEYS },
    ToolRole { tool: "view", effect: FileEffect::Reads, path_keys: PATH_KEYS },
    ToolRole { tool: "Edit", effect: FileEffect::Modifies, path_keys: PATH_KEYS },
    ToolRole { tool: "MultiEdit", effect: FileEffect::Modifies, path_keys: PATH_KEYS },
    ToolRole { tool: "Write", effect: FileEffect::Modifies, path_keys: PATH_KEYS },
    ToolRole { tool: "NotebookEdit", effect: FileEffect::Modifies, path_keys: PATH_KEYS },
    ToolRole { tool: "edit", effect: FileEffect::Modifies, path_keys: PATH_KEYS },
    ToolRole { tool: "write", effect: FileEffect::Modifies, path_keys: PATH_KEYS },
    ToolRole { tool: "replace", effect: FileEffect::Modifies, path_keys: PATH_KEYS },
    ToolRole { tool: "write_file", effect: FileEffect::Modifies, path_keys: PATH_KEYS },
];

/// Tools that run a shell command: their output is the program's, so a
/// JSON document in it is data, not the tool's envelope.
pub static SHELL_TOOLS: &[&str] = &[
    "Bash",
    "bash",
    "shell",
    "shell_command",
    "exec_command",
    "local_shell",
    "run_shell_command",
    "execute_command",
    "run_terminal_cmd",
];

/// What a tool's result is, for a person reading it: a program's output
/// (judged by its exit status), data the agent asked for (files, pages,
/// logs, search hits: judged by nothing but the tool's own error shapes),
/// or the tool's own verdict (every other tool, the custom tools of
/// agent frameworks above all: judged by what its text says).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolClass {
    /// A program's output, judged by its exit status.
    Shell,
    /// Data the agent asked for, judged only by the tool's own error shapes.
    Data,
    /// The tool's own verdict, judged by what its text says.
    Verdict,
}

/// Readers and searchers known by name, whatever their words.
const DATA_TOOLS: &[&str] = &[
    "read_many_files",
    "cat",
    "view_file",
    "fetch",
    "WebFetch",
    "web_fetch",
    "WebSearch",
    "web_search",
    "google_web_search",
    "Grep",
    "grep",
    "Glob",
    "glob",
    "LS",
    "ls",
    "browser",
];

/// Name words of a tool that runs a program (its output is the program's).
const SHELL_WORDS: &[&str] = &[
    "bash",
    "shell",
    "sh",
    "zsh",
    "terminal",
    "powershell",
    "cmd",
    "command",
    "commands",
    "python",
    "ipython",
    "repl",
];
/// Name words of reading: with an object word below, a reader of data.
const READ_WORDS: &[&str] = &[
    "read", "view", "cat", "open", "grep", "glob", "search", "find", "list", "ls", "tail", "browse", "scrape", "crawl",
    "fetch", "get", "download", "show", "query",
];
/// Name words of what is read as data: files, pages, logs, code.
const DATA_WORDS: &[&str] = &[
    "file",
    "files",
    "dir",
    "directory",
    "directories",
    "folder",
    "path",
    "paths",
    "log",
    "logs",
    "web",
    "page",
    "pages",
    "url",
    "urls",
    "html",
    "site",
    "website",
    "doc",
    "docs",
    "document",
    "documents",
    "content",
    "contents",
    "repo",
    "code",
    "codebase",
    "symbol",
    "symbols",
    "definition",
    "definitions",
];

/// The words of a tool name: an MCP name's last part (`mcp__server__tool`),
/// split at non-alphanumerics and at lower-to-upper case changes, lowercased.
fn name_words(tool: &str) -> Vec<String> {
    let name = tool.rsplit("__").next().unwrap_or(tool);
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if !c.is_alphanumeric() {
            if !cur.is_empty() {
                words.push(std::mem::take(&mut cur));
            }
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower && !cur.is_empty() {
            words.push(std::mem::take(&mut cur));
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        cur.extend(c.to_lowercase());
    }
    if !cur.is_empty() {
        words.push(cur);
    }
    words
}

/// Is `tool` named as a reader of the web or of an API (a fetch, a scraper,
/// a search), not of files? Its JSON is a reply; a file reader's JSON is a
/// file's content.
pub fn reads_the_web(tool: &str) -> bool {
    const WEB_WORDS: &[&str] =
        &["fetch", "scrape", "crawl", "web", "url", "page", "browse", "http", "request", "search", "api"];
    let words = name_words(tool);
    !words.iter().any(|w| w.contains("file")) && words.iter().any(|w| WEB_WORDS.iter().any(|web| w.contains(web)))
}

/// The class of `tool`'s results (see `ToolClass`).
pub fn tool_class(tool: &str) -> ToolClass {
    if SHELL_TOOLS.contains(&tool) {
        return ToolClass::Shell;
    }
    if DATA_TOOLS.contains(&tool) || TOOL_ROLES.iter().any(|r| r.tool == tool && r.effect == FileEffect::Reads) {
        return ToolClass::Data;
    }
    let words = name_words(tool);
    let has = |set: &[&str]| words.iter().any(|w| set.contains(&w.as_str()));
    if has(SHELL_WORDS) {
        ToolClass::Shell
    } else if (has(READ_WORDS) && has(DATA_WORDS)) || (words.len() == 1 && words[0] != "query" && has(READ_WORDS)) {
        ToolClass::Data
    } else {
        ToolClass::Verdict
    }
}

/// The stores of agent frameworks, whose tools are their users' own code:
/// a custom `read_file` there answers a missing file with its own
/// `{"error": "File not found"}`, where a coding agent's reader would flag
/// the result (and a JSON object it returns is the file's text).
pub const CUSTOM_TOOL_DIALECTS: &[crate::model::Dialect] = &[
    crate::model::Dialect::LANGGRAPH,
    crate::model::Dialect::ADK,
    crate::model::Dialect::OPENAI_AGENTS,
    crate::model::Dialect::OTEL,
    crate::model::Dialect::LLM,
    crate::model::Dialect::FALSEOK,
];

/// Does `tool` return a file's or a program's own text (a reader or a
/// shell), where words and JSON inside are data, not the tool's verdict?
pub fn returns_data(tool: &str) -> bool {
    tool_class(tool) != ToolClass::Verdict
}

/// The file effect of a call of `tool` with `input`, and the file's path.
pub fn file_effect<'a>(tool: &str, input: &'a Args) -> Option<(FileEffect, Cow<'a, str>)> {
    let role = TOOL_ROLES.iter().find(|r| r.tool == tool)?;
    let path = role.path_keys.iter().find_map(|k| input.get_str(k)).filter(|p| !p.trim().is_empty())?;
    Some((role.effect, path))
}

/// The path a call acts on, if its tool is known to act on files.
pub fn file_path<'a>(tool: &str, input: &'a Args) -> Option<Cow<'a, str>> {
    file_effect(tool, input).map(|(_, p)| p)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tool_classes_by_name() {
        for t in ["Bash", "execute_bash", "run_shell_command", "run_python", "terminal", "mcp__desktop__run_command"] {
            assert_eq!(tool_class(t), ToolClass::Shell, "{t}");
        }
        for t in ["Read", "read_file", "search_gcp_logs", "list_directory", "WebFetch", "fetch", "mcp__fs__readFile"] {
            assert_eq!(tool_class(t), ToolClass::Data, "{t}");
        }
        for t in ["send_booking_notification", "get_weather", "market_data", "query_execution", "create_pr", "Edit"] {
            assert_eq!(tool_class(t), ToolClass::Verdict, "{t}");
        }
        assert_eq!(name_words("mcp__github__getPullRequestFiles"), ["get", "pull", "request", "files"]);
    }

    #[test]
    fn roles_and_paths() {
        let input = Args::from(json!({"file_path": "/a.rs", "old_string": "x"}));
        assert_eq!(file_effect("Edit", &input), Some((FileEffect::Modifies, "/a.rs".into())));
        assert_eq!(file_effect("Read", &Args::from(json!({"path": "/b"}))), Some((FileEffect::Reads, "/b".into())));
        assert_eq!(file_effect("Bash", &Args::from(json!({"command": "ls"}))), None);
        assert_eq!(file_effect("Edit", &Args::from(json!({"file_path": "  "}))), None);
        assert_eq!(file_path("Write", &Args::from(json!({"file_path": "/c"}))), Some("/c".into()));
    }
}
