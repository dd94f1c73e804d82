//! The predicates of custom rules and benign shapes: a regex on the text,
//! or a JSON pointer and a test, applied to the result and to every reply
//! nested in it as the envelope walker follows them (`rules::envelope`:
//! `result`/`response`/`output` wrappers, MCP `content[].text`, strings
//! holding JSON), and to the call's arguments.

use regex::Regex;
use serde_json::Value;

use crate::rules::envelope;

/// A compiled predicate.
#[derive(Debug)]
pub(crate) enum Predicate {
    /// A regex searched in the text.
    Text(Regex),
    /// A JSON pointer and what the value there must be.
    Pointer {
        /// The pointer (RFC 6901), `""` for the whole value.
        pointer: String,
        /// The test of the value it points at.
        test: Test,
    },
}

/// What the value a pointer points at must be.
#[derive(Debug)]
pub(crate) enum Test {
    /// Equal to this value (numbers by value, strings exactly).
    Equals(Value),
    /// Equal to one of these.
    In(Vec<Value>),
    /// Present (`true`) in some layer, or (`false`) in none.
    Exists(bool),
    /// A string holding this text, or an array holding this value.
    Contains(Value),
    /// A string (or the JSON text of a number or boolean) the regex matches.
    Matches(Regex),
}

/// What a predicate reads: texts, and JSON layers.
pub(crate) struct Subject {
    texts: Vec<String>,
    layers: Vec<Value>,
}

impl Subject {
    /// A result: its stored text and its text as the rules see it; its
    /// JSON, if it is JSON, with every reply nested in it.
    pub(crate) fn of_result(raw: &str, shown: &str) -> Subject {
        let texts = vec![crate::rules::examined(raw).into_owned(), crate::rules::examined(shown).into_owned()];
        let head = raw.trim_start();
        let layers = if head.len() <= 1 << 20 && (head.starts_with('{') || head.starts_with('[')) {
            match serde_json::from_str::<Value>(head) {
                Ok(Value::Object(o)) => envelope::layers(&o).into_iter().map(Value::Object).collect(),
                Ok(v) => vec![v],
                Err(_) => Vec::new(),
            }
        } else {
            Vec::new()
        };
        Subject { texts, layers }
    }

    /// A call's arguments: their JSON, and its text.
    pub(crate) fn of_args(input: &Value) -> Subject {
        Subject { texts: vec![input.to_string()], layers: vec![input.clone()] }
    }
}

impl Predicate {
    /// Does the predicate hold of `s`?
    pub(crate) fn holds(&self, s: &Subject) -> bool {
        match self {
            Predicate::Text(re) => s.texts.iter().any(|t| re.is_match(t)),
            Predicate::Pointer { pointer, test: Test::Exists(want) } => {
                s.layers.iter().any(|l| l.pointer(pointer).is_some()) == *want
            }
            Predicate::Pointer { pointer, test } => {
                s.layers.iter().filter_map(|l| l.pointer(pointer)).any(|v| test.accepts(v))
            }
        }
    }
}

impl Test {
    fn accepts(&self, v: &Value) -> bool {
        match self {
            Test::Equals(want) => same(v, want),
            Test::In(wants) => wants.iter().any(|w| same(v, w)),
            Test::Exists(_) => true,
            Test::Contains(want) => match (v, want) {
                (Value::String(s), Value::String(w)) => s.contains(w.as_str()),
                (Value::Array(items), w) => items.iter().any(|i| same(i, w)),
                _ => false,
            },
            Test::Matches(re) => match v {
                Value::String(s) => re.is_match(s),
                Value::Number(_) | Value::Bool(_) => re.is_match(&v.to_string()),
                _ => false,
            },
        }
    }
}

/// Equal JSON values, numbers by value (`429` equals `429.0`).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x == y || x.as_f64().is_some_and(|x| y.as_f64() == Some(x)),
        _ => a == b,
    }
}
