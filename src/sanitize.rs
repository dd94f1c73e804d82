//! The one place that makes untrusted trace text safe to print: no control
//! characters, no escape sequences, no bidi overrides reach any output.

/// `text` on one line: escape sequences removed, control characters and line
/// breaks turned into single spaces, bidi and zero-width controls dropped.
pub fn one_line(text: &str) -> String {
    let mut out = String::with_capacity(text.len().min(1024));
    let mut chars = text.chars().peekable();
    let mut pending_space = false;
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            skip_escape(&mut chars);
            continue;
        }
        if c == '\u{9b}' {
            // C1 CSI: parameters up to a final byte.
            skip_csi(&mut chars);
            continue;
        }
        if c.is_control() || c.is_whitespace() {
            pending_space = !out.is_empty();
            continue;
        }
        if is_invisible_format(c) {
            continue;
        }
        if pending_space {
            out.push(' ');
            pending_space = false;
        }
        out.push(c);
    }
    out
}

/// At most `max` characters of `text`, with `…` marking a cut.
pub fn truncate(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        None => text.to_string(),
        Some(_) => {
            let keep: String = text.chars().take(max.saturating_sub(1)).collect();
            format!("{keep}…")
        }
    }
}

/// Multi-line text made safe: every line cleaned as by `one_line`, at most
/// `max_lines` lines and `max_chars` characters, each line prefixed with
/// `indent`. Cuts are marked.
pub fn block(text: &str, indent: &str, max_lines: usize, max_chars: usize) -> String {
    let mut out = String::new();
    let mut chars = 0;
    let lines: Vec<&str> = text.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        if i == max_lines || chars >= max_chars {
            out.push_str(&format!("{indent}… ({} more lines)\n", lines.len() - i));
            break;
        }
        let clean = truncate(&one_line(line), max_chars - chars);
        chars += clean.chars().count();
        out.push_str(indent);
        out.push_str(&clean);
        out.push('\n');
    }
    out
}

fn is_invisible_format(c: char) -> bool {
    matches!(c,
        '\u{200b}'..='\u{200f}' // zero-width, LRM, RLM
        | '\u{202a}'..='\u{202e}' // bidi embeddings and overrides
        | '\u{2060}'..='\u{2064}'
        | '\u{2066}'..='\u{2069}' // bidi isolates
        | '\u{feff}')
}

fn skip_escape(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    match chars.peek() {
        Some('[') => {
            chars.next();
            skip_csi(chars);
        }
        Some(']') | Some('P') | Some('_') | Some('^') | Some('X') => {
            // OSC / DCS / APC / PM / SOS: up to BEL or ST (ESC \).
            chars.next();
            while let Some(c) = chars.next() {
                if c == '\u{7}' || c == '\u{9c}' {
                    break;
                }
                if c == '\u{1b}' {
                    if chars.peek() == Some(&'\\') {
                        chars.next();
                    }
                    break;
                }
            }
        }
        Some(_) => {
            chars.next(); // two-character escape
        }
        None => {}
    }
}

fn skip_csi(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    for c in chars.by_ref() {
        if ('\u{40}'..='\u{7e}').contains(&c) {
            break;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_escapes_controls_and_bidi() {
        assert_eq!(one_line("\u{1b}[31mred\u{1b}[0m text"), "red text");
        assert_eq!(one_line("a\u{1b}]8;;https://evil\u{7}link\u{1b}]8;;\u{7}b"), "alinkb");
        assert_eq!(one_line("a\u{1b}]0;title\u{1b}\\b"), "ab");
        assert_eq!(one_line("line1\nline2\r\n\tx"), "line1 line2 x");
        assert_eq!(one_line("abc\u{202e}fed\u{2066}"), "abcfed");
        assert_eq!(one_line("nul\0byte\u{7}bell\u{9b}2Jz"), "nul byte bellz");
        assert_eq!(one_line("  padded  "), "padded");
    }

    #[test]
    fn keeps_ordinary_text() {
        assert_eq!(one_line("工具 'Task' 不存在 ✗ é"), "工具 'Task' 不存在 ✗ é");
    }

    #[test]
    fn blocks_keep_lines_but_not_escapes() {
        assert_eq!(block("a\n\u{1b}[2Jb\nc", "  ", 2, 100), "  a\n  b\n  … (1 more lines)\n");
        assert_eq!(block("abcdef", "", 5, 3), "ab…\n");
    }

    #[test]
    fn truncates_by_chars() {
        assert_eq!(truncate("abcdef", 4), "abc…");
        assert_eq!(truncate("abcd", 4), "abcd");
        assert_eq!(truncate("ééééé", 3), "éé…");
    }
}
