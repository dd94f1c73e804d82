//! A call's arguments (`Call::input`): a JSON value, or the text a reader
//! found them in, decoded into a `Value` only when something asks for it.
//!
//! Most calls are judged without their arguments' value: a clean result
//! of a tool whose schema is flat needs only the top-level members'
//! names and kinds (`members`), a shell call its command line
//! (`get_str`). Kept as text, such a call builds no `Value` and frees none
//! (issue 53: parsing and dropping arguments was a tenth of a scan).
//! Every answer is the one the decoded value gives: the text is read
//! without serde only when serde would surely decode it to the same
//! object, else the value is built and asked.

use std::borrow::Cow;
use std::sync::OnceLock;

use serde_json::Value;

use crate::json;

/// A call's arguments. See the module's documentation.
#[derive(Clone)]
pub struct Args {
    /// The arguments as stored, when a reader kept them as text; decoded
    /// as `decode` says.
    text: Option<Box<str>>,
    /// The decoded value, built the first time it is asked for.
    value: OnceLock<Value>,
    /// The top-level members of `text`, as byte ranges, when it surely
    /// decodes to an object (`json::sure_members`); read once.
    members: OnceLock<Option<Vec<json::Member>>>,
}

/// One top-level member of arguments kept as text: its key, and its value
/// as written (valid JSON: `"…"` with its escapes, a number, `{…}`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Member<'a> {
    /// The key, which holds no escape.
    pub key: &'a str,
    /// The value's JSON text.
    pub raw: &'a str,
}

impl<'a> Member<'a> {
    /// The value when it is a string: its decoded text.
    pub fn as_str(&self) -> Option<Cow<'a, str>> {
        if let Some(plain) = self.plain_str() {
            return Some(Cow::Borrowed(plain));
        }
        // The text holds no `\u` (`json::surely_parses`): nothing is repaired.
        self.raw.starts_with('"').then(|| json::unescape(self.raw)).flatten().map(|(s, _)| Cow::Owned(s))
    }

    /// The value when it is a string without escapes: its text.
    pub fn plain_str(&self) -> Option<&'a str> {
        let body = self.raw.strip_prefix('"')?.strip_suffix('"')?;
        (!body.contains('\\')).then_some(body)
    }
}

impl Args {
    /// Arguments already decoded.
    pub fn new(value: Value) -> Args {
        Args { text: None, value: OnceLock::from(value), members: OnceLock::new() }
    }

    /// Arguments stored as text (a database column, a stringified
    /// `arguments` field), decoded only when asked (`json::arguments`):
    /// blank text is an empty object, JSON its value, anything else the
    /// string itself.
    pub fn stored(text: impl Into<Box<str>>) -> Args {
        Args { text: Some(text.into()), value: OnceLock::new(), members: OnceLock::new() }
    }

    /// Arguments that are one JSON value, as `json::value_end` checked
    /// it: kept as text when serde surely decodes it (`json::surely_parses`),
    /// `None` when it might not (the caller then decodes it and decides).
    pub fn checked_json(text: &str) -> Option<Args> {
        if text.starts_with('{') {
            return json::sure_members(text).map(|members| Args::object(text, members));
        }
        json::surely_parses(text).then(|| Args::stored(text))
    }

    /// The object `text` with its `members` as `json::object_members` read
    /// them (ranges from the text's start, sure to decode so).
    pub(crate) fn object(text: &str, members: Vec<json::Member>) -> Args {
        Args { text: Some(text.into()), value: OnceLock::new(), members: OnceLock::from(Some(members)) }
    }

    /// The decoded value.
    pub fn value(&self) -> &Value {
        self.value.get_or_init(|| decode(self.text.as_deref().unwrap_or_default()))
    }

    /// The decoded value, owned.
    pub fn into_value(self) -> Value {
        let Args { text, value, .. } = self;
        value.into_inner().unwrap_or_else(|| decode(text.as_deref().unwrap_or_default()))
    }

    /// Whether the decoded value has been built.
    #[cfg(test)]
    fn is_decoded(&self) -> bool {
        self.value.get().is_some()
    }

    /// The top-level members, read from the text without decoding it,
    /// when the arguments are kept as text that surely decodes to an
    /// object; `None` otherwise (ask `value`). In the text's order, each
    /// key once.
    pub fn members(&self) -> Option<impl ExactSizeIterator<Item = Member<'_>> + Clone> {
        if self.value.get().is_some() {
            return None; // decoded already: the value answers as cheaply
        }
        let text = self.text.as_deref()?;
        let members = self.members.get_or_init(|| json::sure_members(text)).as_deref()?;
        Some(members.iter().map(move |m| Member {
            key: &text[m.key.start as usize..m.key.end as usize],
            raw: &text[m.raw.start as usize..m.raw.end as usize],
        }))
    }

    /// The top-level member `key` when it is a string: what
    /// `value().get(key).and_then(Value::as_str)` gives, without decoding
    /// the whole text when it need not.
    pub fn get_str(&self, key: &str) -> Option<Cow<'_, str>> {
        match self.members() {
            Some(mut members) => members.find(|m| m.key == key)?.as_str(),
            None => self.value().get(key).and_then(Value::as_str).map(Cow::Borrowed),
        }
    }

    /// Does the top-level member `key` exist? (`value().get(key).is_some()`)
    pub fn has(&self, key: &str) -> bool {
        match self.members() {
            Some(mut members) => members.any(|m| m.key == key),
            None => self.value().get(key).is_some(),
        }
    }
}

/// What arguments stored as text decode to (see `Args::stored`).
fn decode(text: &str) -> Value {
    json::arguments(text.to_string())
}

/// No arguments: JSON null (a call recorded without any).
impl Default for Args {
    fn default() -> Args {
        Args::new(Value::Null)
    }
}

impl From<Value> for Args {
    fn from(value: Value) -> Args {
        Args::new(value)
    }
}

impl PartialEq for Args {
    /// Equal when they decode to equal values; the same stored text
    /// decodes to the same value, so it is compared without decoding.
    fn eq(&self, other: &Args) -> bool {
        if let (Some(a), Some(b)) = (&self.text, &other.text)
            && a == b
        {
            return true;
        }
        self.value() == other.value()
    }
}

impl PartialEq<Value> for Args {
    fn eq(&self, other: &Value) -> bool {
        self.value() == other
    }
}

impl std::fmt::Debug for Args {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.value().fmt(f)
    }
}

impl std::ops::Index<&str> for Args {
    type Output = Value;
    fn index(&self, key: &str) -> &Value {
        &self.value()[key]
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn stored_text_decodes_as_decode_arguments() {
        assert_eq!(Args::stored("").value(), &json!({}));
        assert_eq!(Args::stored("  ").value(), &json!({}));
        assert_eq!(Args::stored("{oops").value(), &json!("{oops"));
        assert_eq!(Args::stored("[1]").value(), &json!([1]));
        assert_eq!(Args::stored(r#"{"a": 1}"#).into_value(), json!({"a": 1}));
    }

    #[test]
    fn members_and_strings_without_decoding() {
        let a = Args::stored(r#" {"command": "ls -la", "n": 3, "q": "say \"hi\"\n", "o": {"x": [1]}} "#);
        assert_eq!(a.get_str("command").as_deref(), Some("ls -la"));
        assert_eq!(a.get_str("q").as_deref(), Some("say \"hi\"\n"));
        assert_eq!(a.get_str("n"), None);
        assert_eq!(a.get_str("absent"), None);
        assert!(a.has("o") && !a.has("x"));
        let keys: Vec<&str> = a.members().unwrap().map(|m| m.key).collect();
        assert_eq!(keys, ["command", "n", "q", "o"]);
        assert!(!a.is_decoded(), "nothing asked for the value");
        assert_eq!(a.value()["o"], json!({"x": [1]}));
    }

    #[test]
    fn doubtful_text_is_decoded_and_asked() {
        // Each of these decodes otherwise than a plain reading would say,
        // or might: the value answers.
        for (text, command) in [
            (r#"{"command": "a", "command": "b"}"#, Some("b")), // the last one wins
            (r#"{"command": "\u0041"}"#, Some("A")),
            (r#"{"command": "ls", "n": 1e400}"#, None), // not JSON serde reads: a string
            (r#"{"command": "ls"} x"#, None),
            (r#"["command"]"#, None),
            (r#"{"comm\u0061nd": "ls"}"#, Some("ls")),
        ] {
            let a = Args::stored(text);
            assert_eq!(a.get_str("command").as_deref(), command, "{text}");
            assert_eq!(a.get_str("command").as_deref(), a.value().get("command").and_then(Value::as_str), "{text}");
        }
    }

    #[test]
    fn no_arguments_are_null_not_an_empty_object() {
        assert_eq!(Args::default().value(), &Value::Null);
        assert_eq!(Args::default().into_value(), Value::Null);
        assert!(Args::default().members().is_none());
    }

    #[test]
    fn equality_is_the_values() {
        assert_eq!(Args::stored(r#"{"a":1}"#), Args::stored(r#"{ "a" : 1 }"#));
        assert_eq!(Args::stored(r#"{"a":1}"#), Args::new(json!({"a": 1})));
        assert_ne!(Args::stored(r#"{"a":1}"#), Args::stored(r#"{"a":2}"#));
        assert_eq!(Args::stored(""), json!({}));
    }

    #[test]
    fn checked_json_keeps_only_what_surely_parses() {
        assert!(Args::checked_json(r#"{"a": [1, 2.5, -3]}"#).is_some());
        assert!(Args::checked_json(r#"{"a": 1e400}"#).is_none());
        assert!(Args::checked_json(r#"{"a": "\ud800"}"#).is_none());
        assert!(Args::checked_json(r#"{"a": 123456789012345678901234567890}"#).is_none());
    }
}
