//! The rules' patterns as regex syntax trees: parsed once, for their
//! prefilters (prefilter.rs) and their regex alike, with `\w`, `\d`, `\s`
//! and `\b` read as ASCII's.
//!
//! A rule's `\w` means a name's letters (`[A-Z]\w*Error`), its `\d` a
//! status's digits and its `\s` the blanks between words; in Unicode they
//! are classes of thousands of code points (`\w` alone is 771 ranges), which
//! made compiling a rule's automaton five times the work it is in ASCII,
//! and a Unicode `\b` sends the lazy DFA to a slower engine on any text
//! with a byte past ASCII. So, as in most regex dialects: `\d` is `[0-9]`,
//! `\w` is `[0-9A-Za-z_]`, `\s` is `[\t\n\v\f\r ]`, their negations are
//! every character but those, and `\b` is the boundary of an ASCII word.
//! Everything else is the `regex` crate's syntax, Unicode included: `.`,
//! `[^\n]`, `(?i)` and the literals of any script. `\B` stays Unicode's
//! (its ASCII form could split a character).

use regex_syntax::ast::{self, Ast, ClassAscii, ClassAsciiKind, ClassPerlKind, ClassSet, ClassSetItem};
use regex_syntax::hir::{Hir, HirKind, Look};

/// The syntax tree of `pattern`, as the rules read it (see the module);
/// `None` for a pattern regex-syntax refuses.
pub(super) fn parse(pattern: &str) -> Option<Hir> {
    let mut tree = ast::parse::Parser::new().parse(pattern).ok()?;
    ascii_classes(&mut tree);
    let hir = regex_syntax::hir::translate::Translator::new().translate(pattern, &tree).ok()?;
    Some(if hir.properties().look_set().contains_word_unicode() { ascii_bounds(hir) } else { hir })
}

/// `\d`, `\s` and `\w` (and their negations), alone or in a bracketed
/// class, become the ASCII classes of the same name.
fn ascii_classes(tree: &mut Ast) {
    match tree {
        Ast::ClassPerl(perl) => {
            let (span, negated) = (perl.span, perl.negated);
            let item = ClassSetItem::Ascii(ClassAscii { span, kind: ascii_kind(&perl.kind), negated: false });
            *tree = Ast::class_bracketed(ast::ClassBracketed { span, negated, kind: ClassSet::Item(item) });
        }
        Ast::ClassBracketed(class) => ascii_set(&mut class.kind),
        Ast::Repetition(rep) => ascii_classes(&mut rep.ast),
        Ast::Group(group) => ascii_classes(&mut group.ast),
        Ast::Alternation(alt) => alt.asts.iter_mut().for_each(ascii_classes),
        Ast::Concat(concat) => concat.asts.iter_mut().for_each(ascii_classes),
        Ast::Empty(_) | Ast::Flags(_) | Ast::Literal(_) | Ast::Dot(_) | Ast::Assertion(_) | Ast::ClassUnicode(_) => {}
    }
}

fn ascii_set(set: &mut ClassSet) {
    match set {
        ClassSet::Item(item) => ascii_item(item),
        ClassSet::BinaryOp(op) => {
            ascii_set(&mut op.lhs);
            ascii_set(&mut op.rhs);
        }
    }
}

fn ascii_item(item: &mut ClassSetItem) {
    match item {
        ClassSetItem::Perl(perl) => {
            *item = ClassSetItem::Ascii(ClassAscii {
                span: perl.span,
                kind: ascii_kind(&perl.kind),
                negated: perl.negated,
            });
        }
        ClassSetItem::Bracketed(class) => ascii_set(&mut class.kind),
        ClassSetItem::Union(union) => union.items.iter_mut().for_each(ascii_item),
        ClassSetItem::Empty(_)
        | ClassSetItem::Literal(_)
        | ClassSetItem::Range(_)
        | ClassSetItem::Ascii(_)
        | ClassSetItem::Unicode(_) => {}
    }
}

fn ascii_kind(kind: &ClassPerlKind) -> ClassAsciiKind {
    match kind {
        ClassPerlKind::Digit => ClassAsciiKind::Digit,
        ClassPerlKind::Space => ClassAsciiKind::Space,
        ClassPerlKind::Word => ClassAsciiKind::Word,
    }
}

/// Unicode word boundaries become ASCII's: those that need a word byte on
/// one side, so that they never fall inside a character.
fn ascii_bounds(hir: Hir) -> Hir {
    match hir.into_kind() {
        HirKind::Look(look) => Hir::look(match look {
            Look::WordUnicode => Look::WordAscii,
            Look::WordStartUnicode => Look::WordStartAscii,
            Look::WordEndUnicode => Look::WordEndAscii,
            other => other,
        }),
        HirKind::Repetition(mut rep) => {
            rep.sub = Box::new(ascii_bounds(*rep.sub));
            Hir::repetition(rep)
        }
        HirKind::Capture(mut cap) => {
            cap.sub = Box::new(ascii_bounds(*cap.sub));
            Hir::capture(cap)
        }
        HirKind::Concat(parts) => Hir::concat(parts.into_iter().map(ascii_bounds).collect()),
        HirKind::Alternation(parts) => Hir::alternation(parts.into_iter().map(ascii_bounds).collect()),
        HirKind::Empty => Hir::empty(),
        HirKind::Literal(lit) => Hir::literal(lit.0),
        HirKind::Class(class) => Hir::class(class),
    }
}

/// The regex of a syntax tree `parse` gave: the `regex` crate's engine,
/// without its parse.
pub(super) fn regex_of(hir: &Hir) -> regex_automata::meta::Regex {
    regex_automata::meta::Regex::builder().build_from_hir(hir).expect("rule patterns compile")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn is_match(pattern: &str, text: &str) -> bool {
        regex_of(&parse(pattern).unwrap()).is_match(text)
    }

    #[test]
    fn perl_classes_and_word_boundaries_are_ascii() {
        // The ASCII forms.
        for (pattern, text) in [
            (r"\A\w+\z", "snake_Case9"),
            (r"\A\d+\z", "0123456789"),
            (r"\A\s+\z", " \t\n\r\u{b}\u{c}"),
            (r"\A[\w.-]+\z", "a.b-c_d"),
            (r"\bcat\b", "a cat."),
            (r"\A\S+\z", "é中"),
            (r"\A\W\z", "é"),
            (r"\A\D\z", "٣"),
            (r"\A[^\s]\z", "\u{a0}"),
            (r"(?i)\bKeyError\b", "keyerror: x"),
            (r"\A(?:\w+ ){2}\w+\z", "one two three"),
        ] {
            assert!(is_match(pattern, text), "{pattern} on {text:?}");
        }
        // What Unicode's forms also matched.
        for (pattern, text) in [
            (r"\A\w\z", "é"),
            (r"\A\d\z", "٣"),
            (r"\A\s\z", "\u{a0}"),
            (r"\A\s\z", "\u{3000}"),
            (r"\A[\w-]\z", "ж"),
            (r"\A[^\W]\z", "é"),
            (r"\A\S\z", " "),
        ] {
            assert!(!is_match(pattern, text), "{pattern} on {text:?}");
        }
        // A Unicode word boundary's ASCII form: é is no word character.
        assert!(is_match(r"\bcat", "écat"));
        // `\B` stays Unicode's, and the rest of the syntax is untouched.
        assert!(is_match(r"\Bb", "éb") && !is_match(r"\Bb", " b"));
        assert!(is_match(r"(?i)\AÉCHEC\z", "échec"));
        assert!(is_match(r"\A[^\n]{2}\z", "中文"));
        assert!(is_match(r"\A(?-u:\b)x", "x"));
    }

    /// Every rule pattern reads the same in the regex crate's own syntax
    /// on ASCII texts: only what lies past ASCII changes.
    #[test]
    fn ascii_texts_match_as_the_regex_crate_matches_them() {
        let patterns =
            [r"^[A-Z]\w*Error: \S", r"\bHTTP/\d(?:\.\d)?\s+[45]\d\d\b", r"(?i)\bno such file\b", r"[\w-]+\.\w+"];
        let texts =
            ["ValueError: x", "HTTP/1.1 404 Not Found", "cat: x: No such file or directory", "file-name.txt", "", " "];
        for pattern in patterns {
            let theirs = regex::Regex::new(pattern).unwrap();
            for text in texts {
                assert_eq!(is_match(pattern, text), theirs.is_match(text), "{pattern} on {text:?}");
            }
        }
    }
}
