//! What the rule tables share, a leaf below them: the joining of a table
//! kept in several files (`concat`), and the patterns that are both a
//! content rule and a category. The registry only lists the tables, and
//! the content and classification tables import neither each other nor it.

/// The shell's own complaint that it could not parse the line it was
/// given: a content rule (part of the command never ran), the same words
/// its category, and what no benign exit survives. The wordings are the
/// shells' own: bash's parse.y (`syntax error near unexpected token`,
/// `syntax error: unexpected end of file`, `unexpected EOF while looking
/// for matching`), dash's `Syntax error: …`, zsh's `parse error near` and
/// `unmatched "`; with the prefixes they print (`bash: -c: line 1:`,
/// `/bin/bash: line 3:`, `sh: 1:`, `zsh:1:`), after Gemini CLI's `Error: `.
pub(super) const SHELL_PARSE_ERROR: &str = r#"(?m)^(?:Error: )?(?:/[A-Za-z0-9_./-]*/)?(?:bash|sh|zsh|dash)(?:: -c)?(?:: line \d+|: \d+|:\d+)?: (?:syntax error(?: near unexpected token| in conditional|: unexpected end of file)|unexpected EOF while looking for matching|Syntax error: |parse error near |unmatched ["'`])"#;

/// A command whose output ends at a confirmation prompt waited for an
/// answer no one gave: the agent's shell has no terminal, so the program
/// stopped there and did nothing (Vercel's and other Inquirer.js prompts,
/// `? Continue? (y/N)`; click's `confirm`, `[y/N]: `; apt's `[Y/n]`;
/// npx's `Ok to proceed? (y)`). A content rule and, the same words, its
/// category.
/// The tool's framing after the output (Gemini CLI's `Exit Code: 0` and
/// `Process Group PGID:` lines, an `Exit code N` the judge appends) may
/// follow it.
pub(super) const UNANSWERED_PROMPT: &str = r"(?:\A|\n)[^\n]*(?:\((?:[yY]/[nN]|y)\)|\[(?:[yY]/[nN])\])[^\n]*(?:\s*\n(?:Exit [Cc]ode:? -?\d+|Error: \(none\)|Signal: [^\n]*|Background PIDs: [^\n]*|Process Group PGID: [^\n]*)[ \t]*)*\s*\z";

/// A Qwen Code sub-agent's whole answer is the sentence announcing what it
/// was about to do: its work came back without its report. A content rule
/// (`qwen-subagent-no-report`) and, the same words, its category.
pub(super) const QWEN_SUBAGENT_NO_REPORT: &str =
    r"\A\s*(?:I'll|I will|Let me|Now let me|Now I'll|First, let me|I'm going to)\b[^\n]{0,240}[.:]\s*\z";

/// An answer that opens by asking for approval or confirmation instead of
/// doing what it was asked (`Before I proceed, please confirm …`, `I need
/// your approval to …`, `Shall I go ahead?`): a content rule
/// (`asks-approval-instead`) and, the same words, its category.
pub(super) const ASKS_APPROVAL: &str = r"^(?:Before (?:I|we) (?:proceed|continue|go ahead|make|apply|execute|run|delete|remove|send|book|schedule|submit|deploy|publish|update|create|cancel)\b[^\n]{0,160}?\b(?:confirm|approv|permission|consent)|I (?:need|require|would need|will need|must have|must get|must first get) (?:your |the user's |explicit |final |written )*(?:approval|confirmation|permission|consent|go-ahead)\b|(?:Please|Kindly|Can you|Could you|Would you) (?:please )?(?:confirm|approve)\b|(?:Do you want|Would you like) me to (?:proceed|continue|go ahead)\b|(?:Shall|Should) I (?:proceed|continue|go ahead)\b)";

/// A delegation's reply that asks for input instead of doing the task
/// (`Please upload an image of the item so I can …`, `Could you provide
/// the ticker?`, `I need more information about …`, `请提供…`): a content
/// rule read on the opening of a sub-agent's reply (`delegation-asked-for-input`)
/// and, the same words, its category.
pub(super) const ASKS_INPUT: &str = concat!(
    r"(?i:\b(?:please|kindly) (?:provide|specify|share|upload|send|enter|tell me|clarify|give me|supply|attach|select|choose)\b",
    r"|\b(?:could|can|would) you (?:please |kindly )?(?:provide|specify|share|upload|send|tell me|clarify|give me|supply|attach|select|choose|let me know)\b",
    r"|\bI(?: would| will|'ll|’ll)? (?:need|require) (?:to know\b|(?:some |a few )?(?:more |additional |further )?(?:information|details|context|clarification)\b|you to (?:provide|specify|share|upload|tell|clarify|choose|select)\b)",
    r"|\bclarification (?:is )?(?:required|needed)\b)",
    r"|请(?:您)?(?:提供|告诉我|说明|上传|补充|指定|选择)|我需要(?:先|再|更多)?(?:了解|知道|确认)|请问",
);

/// How many rows the parts of a table hold together (see `concat`).
pub(super) const fn total<T>(parts: &[&[T]]) -> usize {
    let (mut n, mut i) = (0, 0);
    while i < parts.len() {
        n += parts[i].len();
        i += 1;
    }
    n
}

/// The rows of a table kept in several files, in order, as one array: a
/// table's order is its meaning (first match wins), so the parts are
/// joined at compile time, not at start-up.
pub(super) const fn concat<T: Copy, const N: usize>(parts: &[&[T]]) -> [T; N] {
    assert!(N > 0 && total(parts) == N, "N is the parts' total length");
    let mut out = [parts[0][0]; N];
    let (mut k, mut i) = (0, 0);
    while i < parts.len() {
        let mut j = 0;
        while j < parts[i].len() {
            out[k] = parts[i][j];
            k += 1;
            j += 1;
        }
        i += 1;
    }
    out
}
