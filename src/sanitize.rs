//! The one place that makes untrusted trace text safe to print: no control
//! characters, no escape sequences, no bidi overrides and no invisible
//! characters reach any output.
//!
//! What is removed follows two Unicode classes rather than a list of
//! known tricks: every control character (general category Cc, C0 and C1)
//! and every format or default-ignorable character (category Cf and the
//! `Default_Ignorable_Code_Point` property): bidi marks, embeddings,
//! overrides and isolates (U+061C, U+200E/F, U+202A–E, U+2066–9),
//! zero-width characters, the soft hyphen, the combining grapheme joiner,
//! Hangul fillers, the Mongolian vowel separator and free variation
//! selectors, interlinear annotation marks, and the tag characters
//! U+E0000–E0FFF that carry invisible ASCII ("ASCII smuggling").
//! A variation selector is kept only right after a visible character, once
//! (an emoji's presentation, an ideographic variant); a run of them, which
//! is how data is hidden in selectors, is removed.

/// `text` on one line: escape sequences removed, control characters and line
/// breaks turned into single spaces, bidi and zero-width controls dropped.
pub fn one_line(text: &str) -> String {
    let mut out = String::with_capacity(text.len().min(1024));
    let mut chars = text.chars().peekable();
    let mut pending_space = false;
    // The last character kept can take a variation selector.
    let mut after_base = false;
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
            after_base = false;
            continue;
        }
        if is_variation_selector(c) {
            if after_base && !pending_space {
                out.push(c);
            }
            after_base = false;
            continue;
        }
        if is_invisible(c) {
            continue;
        }
        if pending_space {
            out.push(' ');
            pending_space = false;
        }
        out.push(c);
        after_base = true;
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

/// Format characters (general category Cf) and default-ignorable code
/// points other than the variation selectors: nothing a reader sees, and
/// all a trick needs (reordering, hiding, smuggling). Unicode 15.1.
pub(crate) fn is_invisible(c: char) -> bool {
    matches!(c,
        '\u{ad}' // soft hyphen
        | '\u{34f}' // combining grapheme joiner
        | '\u{600}'..='\u{605}' // Arabic number signs
        | '\u{61c}' // Arabic letter mark (bidi)
        | '\u{6dd}'
        | '\u{70f}'
        | '\u{890}'..='\u{891}'
        | '\u{8e2}'
        | '\u{115f}'..='\u{1160}' // Hangul fillers
        | '\u{17b4}'..='\u{17b5}'
        | '\u{180e}' // Mongolian vowel separator
        | '\u{200b}'..='\u{200f}' // zero-width, LRM, RLM
        | '\u{202a}'..='\u{202e}' // bidi embeddings and overrides
        | '\u{2060}'..='\u{206f}' // word joiner, invisible operators, bidi isolates, deprecated controls
        | '\u{3164}' // Hangul filler
        | '\u{feff}' // zero-width no-break space, BOM
        | '\u{ffa0}' // halfwidth Hangul filler
        | '\u{fff0}'..='\u{fffb}' // unassigned, interlinear annotation
        | '\u{110bd}'
        | '\u{110cd}'
        | '\u{13430}'..='\u{1343f}' // Egyptian hieroglyph format controls
        | '\u{1bca0}'..='\u{1bca3}' // shorthand format controls
        | '\u{1d173}'..='\u{1d17a}' // musical symbol format controls
        | '\u{e0000}'..='\u{e00ff}' // tag characters
        | '\u{e01f0}'..='\u{e0fff}') // default-ignorable, unassigned
}

/// Variation selectors (VS1–VS256), Mongolian free variation selectors
/// included.
fn is_variation_selector(c: char) -> bool {
    matches!(c, '\u{180b}'..='\u{180d}' | '\u{180f}' | '\u{fe00}'..='\u{fe0f}' | '\u{e0100}'..='\u{e01ef}')
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

/// FNV-1a, 64 bits, with a 0xff byte after each part: a hash of names kept
/// across runs (the index's file names, the keys a transcript file
/// shares with others), stable across processes, platforms and Rust
/// releases (std's hasher is not promised to be).
pub(crate) fn stable_hash(parts: &[&[u8]]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for p in parts {
        for b in p.iter().chain(&[0xff]) {
            h ^= u64::from(*b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    h
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_stable_hash_is_stable() {
        // Entries written by one run are found by the next: the hash must
        // not depend on the process, the platform or the Rust release: pinned
        // values of FNV-1a 64 with a 0xff byte after each part.
        assert_eq!(super::stable_hash(&[b"a", b"b"]), 0xd2b3_7181_9297_f98a);
        assert_eq!(super::stable_hash(&[b""]), 0xaf64_724c_8602_eb6e);
        // The parts are told apart: ("ab") is not ("a", "b").
        assert_ne!(super::stable_hash(&[b"ab"]), super::stable_hash(&[b"a", b"b"]));
    }

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

    /// Issue 22, F12: the characters `repro_invisible.py` planted, and the
    /// ones of the same classes it did not.
    #[test]
    fn removes_invisible_and_bidi_characters() {
        let planted = "al\u{61c}m tags\u{e0049}\u{e0067}\u{e006e}\u{e006f}\u{e0072}\u{e0065} soft\u{ad}hy \
                       cgj\u{34f}x mvs\u{180e}x ann\u{fff9}a\u{fffb}b fill\u{3164}x \u{115f}\u{1160}\u{ffa0}h";
        assert_eq!(one_line(planted), "alm tags softhy cgjx mvsx annab fillx h");
        for c in ['\u{e0001}', '\u{e007f}', '\u{2065}', '\u{206f}', '\u{13438}', '\u{1d173}', '\u{e0fff}'] {
            assert_eq!(one_line(&format!("a{c}b")), "ab", "U+{:04X}", c as u32);
        }
    }

    /// Every character of general category Cc or Cf is removed (or, for
    /// line and tab controls, becomes a space), whichever Unicode version
    /// the table has.
    #[test]
    fn no_control_or_format_character_survives() {
        use unicode_general_category::{GeneralCategory, get_general_category};
        let mut checked = 0;
        for c in (0..=0x10ffff).filter_map(char::from_u32) {
            if !matches!(get_general_category(c), GeneralCategory::Format | GeneralCategory::Control) {
                continue;
            }
            checked += 1;
            let clean = one_line(&format!("a{c}b"));
            assert!(!clean.contains(c), "U+{:04X} survives", c as u32);
            // ESC and CSI start a sequence, which takes the next character too.
            let starts_sequence = matches!(c, '\u{1b}' | '\u{9b}');
            assert!(starts_sequence || clean == "ab" || clean == "a b", "U+{:04X}: {clean:?}", c as u32);
        }
        assert!(checked > 200, "{checked}");
    }

    /// Variation selectors: one after a visible character is a
    /// presentation choice and stays; a run, or one after nothing, hides data.
    #[test]
    fn variation_selectors_only_where_they_select() {
        assert_eq!(one_line("\u{2764}\u{fe0f} ok"), "\u{2764}\u{fe0f} ok");
        assert_eq!(one_line("\u{845b}\u{e0100}"), "\u{845b}\u{e0100}");
        assert_eq!(one_line("x\u{fe0f}\u{fe01}\u{e0100}\u{e01ef}y"), "x\u{fe0f}y");
        assert_eq!(one_line("\u{fe0f}a \u{fe0e}b"), "a b");
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
