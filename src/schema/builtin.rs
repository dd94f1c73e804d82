//! Built-in input schemas of agents' core tools, selected by a session's
//! dialect.
//!
//! Peri: the core tools' schemas as Peri's source declares them at commit
//! `1c8ac5f0` (2026-06-06), the fix that followed the postmortem. Its `Agent` schema
//! requires only `prompt`, although the tool fails without `subagent_type`
//! unless `fork` is true: exactly the drift the founding postmortem fixed.
//! Peri's tools ignore unknown fields, so its schemas allow them (unknown
//! names then show up as `undocumented-param` drift). Claude Code's tools
//! reject unknown parameters, so its schemas do not allow them.

use serde_json::{Value, json};

use crate::model::Dialect;

/// (tool, schema) pairs of a dialect; empty when none is built in.
pub(crate) fn for_dialect(dialect: Dialect) -> Vec<(&'static str, Value)> {
    match dialect {
        Dialect::PERI => peri(),
        Dialect::CLAUDE_CODE => claude_code(),
        _ => Vec::new(),
    }
}

fn obj(required: &[&str], properties: Value, closed: bool) -> Value {
    let mut v = json!({"type": "object", "properties": properties, "required": required});
    if closed {
        v["additionalProperties"] = false.into();
    }
    v
}

fn peri() -> Vec<(&'static str, Value)> {
    let s = json!({"type": "string"});
    let n = json!({"type": "number"});
    let b = json!({"type": "boolean"});
    vec![
        ("Read", obj(&["file_path"], json!({"file_path": s, "offset": n, "limit": n, "pages": s}), false)),
        ("Write", obj(&["file_path", "content"], json!({"file_path": s, "content": s}), false)),
        (
            "Edit",
            obj(
                &["file_path", "old_string", "new_string"],
                json!({"file_path": s, "old_string": s, "new_string": s, "replace_all": b}),
                false,
            ),
        ),
        ("Glob", obj(&["pattern"], json!({"pattern": s, "path": s}), false)),
        (
            "Grep",
            obj(
                &["pattern"],
                json!({
                    "pattern": s, "path": s, "glob": s, "type": s,
                    "output_mode": {"type": "string", "enum": ["content", "files_with_matches", "count", "files_without_matches"]},
                    "-i": b, "-C": n, "-A": n, "-B": n, "-n": b, "multiline": b, "whole_word": b,
                    "invert_match": b, "fixed_strings": b, "max_depth": n, "head_limit": n, "offset": n
                }),
                false,
            ),
        ),
        (
            "folder_operations",
            obj(
                &["operation", "folder_path"],
                json!({"operation": {"type": "string", "enum": ["create", "list", "exists"]}, "folder_path": s, "recursive": b}),
                false,
            ),
        ),
        (
            "Bash",
            obj(
                &["command"],
                json!({"command": s, "timeout": {"type": "number", "minimum": 1, "maximum": 600000}, "description": s, "run_in_background": b}),
                false,
            ),
        ),
        ("WebFetch", obj(&["url"], json!({"url": s, "prompt": s}), false)),
        ("WebSearch", obj(&["query"], json!({"query": s, "num_results": n}), false)),
        (
            "TodoWrite",
            obj(
                &["todos"],
                json!({"todos": {"type": "array", "items": {
                    "type": "object", "required": ["content", "status"],
                    "properties": {"content": s, "status": {"type": "string", "enum": ["pending", "in_progress", "completed"]}, "activeForm": s}
                }}}),
                false,
            ),
        ),
        (
            "AskUserQuestion",
            obj(
                &["questions"],
                json!({"questions": {"type": "array", "items": {
                    "type": "object", "required": ["question", "header", "options"],
                    "properties": {
                        "question": s, "header": s, "multiSelect": b,
                        "options": {"type": "array", "minItems": 2, "maxItems": 4, "items": {
                            "type": "object", "required": ["label"],
                            "properties": {"label": s, "description": s, "preview": s}
                        }}
                    }
                }}}),
                false,
            ),
        ),
        (
            "Agent",
            obj(
                &["prompt"],
                json!({
                    "prompt": s, "description": s, "subagent_type": s, "name": s, "isolation": s,
                    "run_in_background": b, "cwd": s, "fork": b
                }),
                false,
            ),
        ),
        ("AgentResult", obj(&[], json!({"task_id": s}), false)),
        ("SearchExtraTools", obj(&["query"], json!({"query": s, "max_results": n}), false)),
        ("cron_register", obj(&["expression", "prompt"], json!({"expression": s, "prompt": s}), false)),
        ("cron_remove", obj(&["id"], json!({"id": s}), false)),
        ("cron_list", obj(&[], json!({}), false)),
        ("mcp_read_resource", obj(&["server_name", "uri"], json!({"server_name": s, "uri": s}), false)),
    ]
}

/// Claude Code's tools as every CLI version from 1.0 to 2.1 accepts them:
/// a transcript records the `version` of the CLI that wrote it, and a
/// schema that does not match the recording must not raise
/// `schema-violation-accepted` or `undocumented-param` (issue 12, shape 7).
/// So a parameter any of those versions defines is allowed (Grep's
/// `include` (1.0) and `context` (2.1), NotebookEdit's `cell_number` (1.0),
/// TodoWrite items' `id` and `priority` (1.0)), one only some versions
/// require is optional (TodoWrite's `activeForm`, added in 1.0.51; Task's
/// `subagent_type`), and Edit's `old_string` and `new_string` may be empty
/// (`"minLength": 0`: an empty `new_string` deletes text, an empty
/// `old_string` creates a file).
fn claude_code() -> Vec<(&'static str, Value)> {
    let s = json!({"type": "string"});
    let may_be_empty = json!({"type": "string", "minLength": 0});
    let n = json!({"type": "number"});
    let b = json!({"type": "boolean"});
    let strings = json!({"type": "array", "items": {"type": "string"}});
    vec![
        ("Read", obj(&["file_path"], json!({"file_path": s, "offset": n, "limit": n, "pages": s}), true)),
        ("Write", obj(&["file_path", "content"], json!({"file_path": s, "content": s}), true)),
        (
            "Edit",
            obj(
                &["file_path", "old_string", "new_string"],
                json!({"file_path": s, "old_string": may_be_empty, "new_string": may_be_empty, "replace_all": b}),
                true,
            ),
        ),
        (
            "MultiEdit",
            obj(
                &["file_path", "edits"],
                json!({"file_path": s, "edits": {"type": "array", "minItems": 1, "items": {
                    "type": "object", "required": ["old_string", "new_string"],
                    "properties": {"old_string": may_be_empty, "new_string": may_be_empty, "replace_all": b}
                }}}),
                true,
            ),
        ),
        (
            "Bash",
            obj(
                &["command"],
                json!({"command": s, "timeout": {"type": "number", "maximum": 600000}, "description": s, "run_in_background": b, "dangerouslyDisableSandbox": b}),
                true,
            ),
        ),
        ("Glob", obj(&["pattern"], json!({"pattern": s, "path": s}), true)),
        (
            "Grep",
            obj(
                &["pattern"],
                json!({
                    "pattern": s, "path": s, "glob": s, "type": s,
                    "output_mode": {"type": "string", "enum": ["content", "files_with_matches", "count"]},
                    "-i": b, "-n": b, "-A": n, "-B": n, "-C": n, "context": n, "multiline": b, "head_limit": n,
                    "offset": n, "include": s
                }),
                true,
            ),
        ),
        (
            "Task",
            obj(
                &["description", "prompt"],
                json!({"description": s, "prompt": s, "subagent_type": s, "model": s, "resume": s, "run_in_background": b, "name": s, "isolation": s, "cwd": s}),
                true,
            ),
        ),
        (
            "TodoWrite",
            obj(
                &["todos"],
                json!({"todos": {"type": "array", "items": {
                    "type": "object", "required": ["content", "status"],
                    "properties": {"content": s, "status": {"type": "string", "enum": ["pending", "in_progress", "completed"]}, "activeForm": s, "id": s, "priority": {"type": "string", "enum": ["high", "medium", "low"]}}
                }}}),
                true,
            ),
        ),
        ("WebFetch", obj(&["url", "prompt"], json!({"url": {"type": "string", "format": "uri"}, "prompt": s}), true)),
        (
            "WebSearch",
            obj(
                &["query"],
                json!({"query": {"type": "string", "minLength": 2}, "allowed_domains": strings, "blocked_domains": strings}),
                true,
            ),
        ),
        (
            "NotebookEdit",
            obj(
                &["notebook_path", "new_source"],
                json!({"notebook_path": s, "cell_id": s, "cell_number": n, "new_source": s, "cell_type": {"type": "string", "enum": ["code", "markdown"]}, "edit_mode": {"type": "string", "enum": ["replace", "insert", "delete"]}}),
                true,
            ),
        ),
    ]
}
