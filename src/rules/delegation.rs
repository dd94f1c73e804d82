//! Delegations: calls that hand a task to a sub-agent or to an agent used
//! as a tool (LABELS.md: a delegation asks for a task to be done, and a
//! reply that asks for input instead of doing it is a failure).
//!
//! The `Reads::Delegations` content rules read only the opening of such a
//! reply (`opening`): a sub-agent that did the work and asks a question at
//! its end has answered.

use serde_json::Value;

use crate::model::{Args, Dialect};

/// Tools that run a sub-agent, by the names their agents give them:
/// Claude Code's `Task` (renamed `Agent`), the `task` of deepagents,
/// OpenCode and Kilo, and the `agent`/`task` of Qwen Code and Crush.
const SUB_AGENT_TOOLS: &[&str] = &["Task", "Agent", "task", "agent"];

/// Does the call hand a task to a sub-agent? A sub-agent tool by name, an
/// ADK `AgentTool` (google/adk-python `tools/agent_tool.py`: without an
/// input schema its one parameter is `request`), or an OpenAI Agents SDK
/// `Agent.as_tool` (`agent.py`: its one parameter is `input`).
pub fn is_delegation(dialect: Dialect, tool: &str, input: &Args) -> bool {
    if SUB_AGENT_TOOLS.contains(&tool) {
        return true;
    }
    let key = match dialect {
        Dialect::ADK => "request",
        Dialect::OPENAI_AGENTS => "input",
        _ => return false,
    };
    match input.members() {
        Some(mut members) => {
            members.len() == 1 && members.next().is_some_and(|m| m.key == key && m.raw.starts_with('"'))
        }
        None => input.value().as_object().is_some_and(|o| o.len() == 1 && o.get(key).is_some_and(Value::is_string)),
    }
}

/// The longest reply whose opening is read, in characters: a longer one
/// did some work.
const MAX_REPLY_CHARS: usize = 1_500;
/// How many sentences of a reply are its opening.
const OPENING_SENTENCES: usize = 3;
/// The most bytes of a reply that are its opening.
const OPENING_BYTES: usize = 600;

/// The opening of a short reply: its first three sentences, at most 600
/// bytes. A sentence ends at `.` (before white space), `!`, `?`, their
/// CJK forms, or a line break; a run of them ends one sentence. `None`
/// for a reply longer than 1,500 characters.
pub fn opening(text: &str) -> Option<&str> {
    let t = text.trim();
    if t.len() > MAX_REPLY_CHARS && t.chars().count() > MAX_REPLY_CHARS {
        return None;
    }
    let ends = |c: char| matches!(c, '.' | '!' | '?' | '。' | '！' | '？' | '\n');
    let mut sentences = 0;
    let mut chars = t.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let end = i + c.len_utf8();
        if end > OPENING_BYTES {
            return Some(&t[..i]);
        }
        if !ends(c) {
            continue;
        }
        let next = chars.peek().map(|&(_, n)| n);
        if (c == '.' && next.is_some_and(|n| !n.is_whitespace())) || next.is_some_and(ends) {
            continue;
        }
        sentences += 1;
        if sentences == OPENING_SENTENCES {
            return Some(&t[..end]);
        }
    }
    Some(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delegations_by_name_and_by_the_framework_s_schema() {
        let request = Args::stored(r#"{"request": "Analyse the damage"}"#);
        assert!(is_delegation(Dialect::ADK, "image_damage_agent", &request));
        assert!(!is_delegation(Dialect::LANGGRAPH, "image_damage_agent", &request));
        let two = Args::stored(r#"{"request": "x", "city": "Oslo"}"#);
        assert!(!is_delegation(Dialect::ADK, "get_weather", &two));
        let input = Args::new(serde_json::json!({"input": "Summarise"}));
        assert!(is_delegation(Dialect::OPENAI_AGENTS, "summariser", &input));
        assert!(is_delegation(Dialect::CLAUDE_CODE, "Task", &Args::stored("{}")));
        assert!(!is_delegation(Dialect::CLAUDE_CODE, "Bash", &Args::stored("{}")));
    }

    #[test]
    fn the_opening_is_three_sentences_of_a_short_reply() {
        assert_eq!(opening("One. Two! Three? Four."), Some("One. Two! Three?"));
        assert_eq!(
            opening("Version 2.5 is out. Yes.\n\nThird line\nFourth"),
            Some("Version 2.5 is out. Yes.\n\nThird line\n")
        );
        assert_eq!(opening("您好！很高兴为您服务。请提供主题。其余"), Some("您好！很高兴为您服务。请提供主题。"));
        assert_eq!(opening(&"word ".repeat(400)), None);
        let long_first = "a".repeat(700);
        assert_eq!(opening(&long_first).map(str::len), Some(600));
    }
}
