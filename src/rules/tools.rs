//! What tools do to files, as data: the stale-edit analysis needs to know
//! which calls read a file and which modify it, and where the path is.

use serde_json::Value;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileEffect {
    /// A successful call shows the agent the file's current content.
    Reads,
    /// A successful call changes the file.
    Modifies,
}

pub struct ToolRole {
    pub tool: &'static str,
    pub effect: FileEffect,
    /// Argument names that hold the file path, tried in order.
    pub path_keys: &'static [&'static str],
}

const PATH_KEYS: &[&str] = &["file_path", "path", "notebook_path"];

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

/// Does `tool` return a file's or a program's own text (a reader or a
/// shell), where words and JSON inside are data, not the tool's verdict?
pub fn returns_data(tool: &str) -> bool {
    SHELL_TOOLS.contains(&tool)
        || TOOL_ROLES.iter().any(|r| r.tool == tool && r.effect == FileEffect::Reads)
        || matches!(tool, "read_many_files" | "cat" | "view_file" | "fetch" | "WebFetch" | "web_fetch")
}

/// The file effect of a call of `tool` with `input`, and the file's path.
pub fn file_effect<'a>(tool: &str, input: &'a Value) -> Option<(FileEffect, &'a str)> {
    let role = TOOL_ROLES.iter().find(|r| r.tool == tool)?;
    let path =
        role.path_keys.iter().find_map(|k| input.get(k).and_then(Value::as_str)).filter(|p| !p.trim().is_empty())?;
    Some((role.effect, path))
}

/// The path a call acts on, if its tool is known to act on files.
pub fn file_path<'a>(tool: &str, input: &'a Value) -> Option<&'a str> {
    file_effect(tool, input).map(|(_, p)| p)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn roles_and_paths() {
        let input = json!({"file_path": "/a.rs", "old_string": "x"});
        assert_eq!(file_effect("Edit", &input), Some((FileEffect::Modifies, "/a.rs")));
        assert_eq!(file_effect("Read", &json!({"path": "/b"})), Some((FileEffect::Reads, "/b")));
        assert_eq!(file_effect("Bash", &json!({"command": "ls"})), None);
        assert_eq!(file_effect("Edit", &json!({"file_path": "  "})), None);
        assert_eq!(file_path("Write", &json!({"file_path": "/c"})), Some("/c"));
    }
}
