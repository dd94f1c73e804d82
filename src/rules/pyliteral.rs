//! Python's `repr` of a dict, read as JSON: what a Python framework stores
//! when a tool returns a dict and the framework keeps `str(result)`. The
//! OpenAI Agents SDK does (`ItemHelpers._convert_tool_output`, `return …
//! str(output)`, src/agents/items.py), so a function tool's
//! `return {"error": "…", "status": "failed"}` is stored as the text
//! `{'error': '…', 'status': 'failed'}`, which no JSON parser reads. The
//! envelope walker (envelope/mod.rs) judges the value this gives, as it judges
//! a JSON reply.
//!
//! Only literals `repr` writes are read: dicts, lists, tuples (as lists),
//! strings in either quote with their escapes, numbers, `True`, `False` and
//! `None`. Anything else (`datetime.datetime(…)`, an object's repr) and the
//! text is not a literal: `None`.

use serde_json::{Map, Number, Value};

/// How deep literals nest before the text is refused.
const MAX_DEPTH: usize = 32;

/// The value of `text`, one Python literal and nothing after it but white
/// space, or `None`.
pub(super) fn parse(text: &str) -> Option<Value> {
    let mut p = Parser { s: text.as_bytes(), at: 0, text };
    let v = p.value(0)?;
    p.space();
    (p.at == p.s.len()).then_some(v)
}

struct Parser<'a> {
    s: &'a [u8],
    at: usize,
    text: &'a str,
}

impl Parser<'_> {
    fn space(&mut self) {
        while self.s.get(self.at).is_some_and(u8::is_ascii_whitespace) {
            self.at += 1;
        }
    }

    fn eat(&mut self, b: u8) -> bool {
        self.space();
        let hit = self.s.get(self.at) == Some(&b);
        self.at += usize::from(hit);
        hit
    }

    fn value(&mut self, depth: usize) -> Option<Value> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.space();
        match *self.s.get(self.at)? {
            b'{' => {
                self.at += 1;
                let mut map = Map::new();
                while !self.eat(b'}') {
                    let key = match self.value(depth + 1)? {
                        Value::String(k) => k,
                        Value::Number(n) => n.to_string(),
                        _ => return None,
                    };
                    if !self.eat(b':') {
                        return None;
                    }
                    map.insert(key, self.value(depth + 1)?);
                    if !self.eat(b',') {
                        return self.eat(b'}').then_some(Value::Object(map));
                    }
                }
                Some(Value::Object(map))
            }
            open @ (b'[' | b'(') => {
                self.at += 1;
                let close = if open == b'[' { b']' } else { b')' };
                let mut items = Vec::new();
                while !self.eat(close) {
                    items.push(self.value(depth + 1)?);
                    if !self.eat(b',') {
                        return self.eat(close).then_some(Value::Array(items));
                    }
                }
                Some(Value::Array(items))
            }
            q @ (b'\'' | b'"') => self.string(q).map(Value::String),
            _ => self.word(),
        }
    }

    /// A quoted string, its escapes undone (`repr` writes `\\`, `\'`,
    /// `\n`, `\t`, `\r`, `\xhh`, `\uhhhh`, `\Uhhhhhhhh`).
    fn string(&mut self, quote: u8) -> Option<String> {
        self.at += 1;
        let mut out = String::new();
        loop {
            let start = self.at;
            while let Some(&b) = self.s.get(self.at) {
                if b == quote || b == b'\\' || b == b'\n' {
                    break;
                }
                self.at += 1;
            }
            out.push_str(self.text.get(start..self.at)?);
            match *self.s.get(self.at)? {
                b'\\' => {
                    let e = *self.s.get(self.at + 1)?;
                    self.at += 2;
                    let hex = |p: &mut Self, n: usize| {
                        let h = p.text.get(p.at..p.at + n)?;
                        p.at += n;
                        char::from_u32(u32::from_str_radix(h, 16).ok()?)
                    };
                    let c = match e {
                        b'n' => '\n',
                        b't' => '\t',
                        b'r' => '\r',
                        b'x' => hex(self, 2)?,
                        b'u' => hex(self, 4)?,
                        b'U' => hex(self, 8)?,
                        b'\\' | b'\'' | b'"' => char::from(e),
                        _ => return None,
                    };
                    out.push(c);
                }
                b'\n' => return None,
                _ => {
                    self.at += 1;
                    return Some(out);
                }
            }
        }
    }

    /// A number, `True`, `False` or `None`.
    fn word(&mut self) -> Option<Value> {
        let start = self.at;
        while self.s.get(self.at).is_some_and(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'+' | b'_')) {
            self.at += 1;
        }
        let word = self.text.get(start..self.at)?;
        match word {
            "True" => Some(Value::Bool(true)),
            "False" => Some(Value::Bool(false)),
            "None" => Some(Value::Null),
            _ => {
                if let Ok(i) = word.parse::<i64>() {
                    return Some(Value::Number(i.into()));
                }
                let f =
                    word.parse::<f64>().ok().filter(|f| f.is_finite() && word.bytes().any(|b| b.is_ascii_digit()))?;
                Number::from_f64(f).map(Value::Number)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::parse;
    use serde_json::json;

    #[test]
    fn reprs_of_dicts_read_as_json() {
        assert_eq!(
            parse("{'error': 'Missing the subject. Please give one.', 'status': 'missing_parameters'}"),
            Some(json!({"error": "Missing the subject. Please give one.", "status": "missing_parameters"}))
        );
        assert_eq!(
            parse(
                r#"{'ok': False, 'n': -3, 'x': 1.5e3, 'none': None, 'items': [1, (2, 'b')], "it's": 'a\'b\\c\nd\xe9\u00e9'}"#
            ),
            Some(
                json!({"ok": false, "n": -3, "x": 1500.0, "none": null, "items": [1, [2, "b"]], "it's": "a'b\\c\ndéé"})
            )
        );
        assert_eq!(parse("{}"), Some(json!({})));
        assert_eq!(parse("  [1, 2,]  "), Some(json!([1, 2])));
    }

    #[test]
    fn what_repr_does_not_write_is_not_read() {
        for not in [
            "{'when': datetime.datetime(2025, 1, 1)}",
            "{'a': 1} and more",
            "{'a': 'no end}",
            "{'a' 1}",
            "{'a': 'line\nbreak'}",
            "{'a': inf}",
            "{'a': '\\q'}",
            "{'a': '\\xZZ'}",
            "",
            "{'a': 1",
        ] {
            assert_eq!(parse(not), None, "{not:?}");
        }
        let deep = "[".repeat(100) + &"]".repeat(100);
        assert_eq!(parse(&deep), None, "too deep");
    }
}
