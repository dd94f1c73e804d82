//! Tool schemas: where they come from (built in per source format, a
//! `--tool-schemas` file, or the trace itself), validating every call's
//! recorded arguments against them, and what the violations mean.

pub(crate) mod builtin;

use std::path::Path;

use jsonschema::error::ValidationErrorKind;
use serde_json::Value;

use crate::error::{Error, Result};
use crate::model::{Args, Dialect, Member};
use crate::rules::Category;

/// One tool's schema, compiled.
pub struct ToolSchema {
    /// The name of the tool it describes.
    pub tool: String,
    /// Where it came from: `built-in peri`, a file path, `trace`.
    pub origin: String,
    /// The JSON Schema of the tool's arguments, as read.
    pub schema: Value,
    validator: jsonschema::Validator,
    properties: Vec<String>,
    required: Vec<String>,
    /// The required parameters whose schema does not allow a blank string
    /// (`"minLength": 0` does): decided once, checked on every call.
    not_blank: Vec<String>,
    /// The allowed values of each top-level parameter that has an enum:
    /// asked for every argument of every call (`enum_of`).
    enums: Vec<(String, Vec<Value>)>,
    /// The schema read as a flat one (`Flat`), when it is.
    flat: Option<Flat>,
}

/// A schema every valid call of which can be told from its top-level
/// members' names and the first byte of their values: an object of
/// scalar, array or object properties, each with only a type (and words
/// for people), or an enum of strings; some required; others allowed or
/// not. The built-in schemas are such. It accepts only what the validator
/// accepts; anything it does not accept is validated.
#[derive(Debug)]
struct Flat {
    /// Each property and what it allows: one lookup per member.
    properties: Vec<Prop>,
    /// How many properties are required.
    required: usize,
    /// Whether members it does not document are refused.
    closed: bool,
}

/// One property of a flat schema.
#[derive(Debug)]
struct Prop {
    name: String,
    /// The JSON types it allows (bits below).
    allowed: u8,
    /// The strings of its enum, if it has one.
    strings: Option<Vec<String>>,
    /// A number's `minimum` and `maximum`, if it has either.
    bounds: Option<(f64, f64)>,
    /// An array's `items`, when they are flat objects (Claude Code's and
    /// Peri's `TodoWrite`).
    items: Option<Flat>,
    required: bool,
    /// Required and not to be blank (`ToolSchema::not_blank`).
    not_blank: bool,
}

/// The JSON types as bits, by the first byte of a value's text.
const STRING: u8 = 1;
const NUMBER: u8 = 2;
const INTEGER: u8 = 4;
const BOOLEAN: u8 = 8;
const NULL: u8 = 16;
const ARRAY: u8 = 32;
const OBJECT: u8 = 64;

impl Flat {
    /// `schema` read as a flat schema, or `None` if it says anything more.
    fn of(schema: &Value, not_blank: &[String]) -> Option<Flat> {
        let o = schema.as_object()?;
        let mut closed = false;
        for (k, v) in o {
            match k.as_str() {
                "type" if v == "object" => {}
                "properties" | "required" | "$schema" | "title" | "description" => {}
                "additionalProperties" => closed = !v.as_bool()?,
                _ => return None,
            }
        }
        o.get("type")?;
        let kinds = |t: &Value| -> Option<u8> {
            let one = |t: &str| match t {
                "string" => Some(STRING),
                // An integer written `1.0` is one to a validator: left to it.
                "number" => Some(NUMBER | INTEGER),
                "integer" => Some(INTEGER),
                "boolean" => Some(BOOLEAN),
                "null" => Some(NULL),
                "array" => Some(ARRAY),
                "object" => Some(OBJECT),
                _ => None,
            };
            match t {
                Value::String(s) => one(s),
                Value::Array(list) => list.iter().map(|t| one(t.as_str()?)).try_fold(0, |a, k| Some(a | k?)),
                _ => None,
            }
        };
        let required = match o.get("required") {
            Some(r) => r.as_array()?.iter().map(|s| s.as_str().map(String::from)).collect::<Option<Vec<_>>>()?,
            None => Vec::new(),
        };
        let mut properties = Vec::new();
        for (name, p) in o.get("properties").map_or(Some(&serde_json::Map::new()), Value::as_object)? {
            let p = p.as_object()?;
            let mut allowed = None;
            let mut strings = None;
            let mut items = None;
            let (mut lo, mut hi) = (None, None);
            for (k, v) in p {
                match k.as_str() {
                    "type" => allowed = Some(kinds(v)?),
                    "minimum" => lo = Some(v.as_f64()?),
                    // An array of flat objects: each item accepted alike.
                    "items" => items = Some(Flat::of(v, &[])?),
                    "maximum" => hi = Some(v.as_f64()?),
                    "description" | "title" => {}
                    "minLength" if v == 0 => {}
                    "enum" => {
                        let list: Option<Vec<String>> =
                            v.as_array()?.iter().map(|s| s.as_str().map(String::from)).collect();
                        strings = Some(list?);
                    }
                    _ => return None,
                }
            }
            let allowed = match (allowed, &strings) {
                (Some(a), None) => a,
                (Some(STRING) | None, Some(_)) => STRING,
                _ => return None,
            };
            let bounds =
                (lo.is_some() || hi.is_some()).then(|| (lo.unwrap_or(f64::NEG_INFINITY), hi.unwrap_or(f64::INFINITY)));
            if bounds.is_some() && allowed & !(NUMBER | INTEGER) != 0 {
                return None;
            }
            properties.push(Prop {
                name: name.clone(),
                allowed,
                strings,
                bounds,
                items,
                required: required.contains(name),
                not_blank: not_blank.contains(name),
            });
        }
        // A required name twice, or one not documented: left to the validator.
        let documented = properties.iter().filter(|p| p.required).count();
        if documented != required.len() {
            return None;
        }
        Some(Flat { properties, required: documented, closed })
    }

    /// Is every item of the JSON array `raw` (checked, sure to decode) an
    /// object this schema accepts?
    fn accepts_all(&self, raw: &str) -> bool {
        let mut all = true;
        let end = crate::json::array(raw, 0, |at| {
            let (end, members) = crate::json::object_members(raw, at, 1)?;
            let m = members?;
            let fields = m.iter().map(|m| Member {
                key: &raw[at + m.key.start as usize..at + m.key.end as usize],
                raw: &raw[at + m.raw.start as usize..at + m.raw.end as usize],
            });
            all &= self.accepts(fields);
            Some(end)
        });
        all && end == Some(raw.len())
    }

    /// Is a call with these top-level members surely valid? Every member
    /// documented (or the schema open) and of an allowed type by its first
    /// byte, an enum's value one of its strings (written without
    /// escapes), every required member present, and a required string
    /// that must not be blank holding a visible ASCII character.
    fn accepts<'a>(&self, members: impl Iterator<Item = Member<'a>>) -> bool {
        let mut seen = 0usize;
        for m in members {
            let Some(p) = self.properties.iter().find(|p| p.name == m.key) else {
                if self.closed {
                    return false;
                }
                continue;
            };
            let kind = match m.raw.as_bytes().first() {
                Some(b'"') => STRING,
                Some(b't' | b'f') => BOOLEAN,
                Some(b'n') => NULL,
                Some(b'[') => ARRAY,
                Some(b'{') => OBJECT,
                // An integer has neither a fraction nor an exponent.
                Some(_) if m.raw.bytes().all(|b| b.is_ascii_digit() || b == b'-') => INTEGER,
                Some(_) => NUMBER,
                None => return false,
            };
            if p.allowed & kind == 0 {
                return false;
            }
            if let Some(strings) = &p.strings
                && !m.plain_str().is_some_and(|s| strings.iter().any(|e| e == s))
            {
                return false;
            }
            // An array of flat objects: every item an object it accepts.
            if let Some(item) = &p.items
                && !(kind == ARRAY && item.accepts_all(m.raw))
            {
                return false;
            }
            // A bounded number: short enough to be read exactly, and inside.
            if let Some((lo, hi)) = p.bounds
                && !(m.raw.len() < 16 && m.raw.parse::<f64>().is_ok_and(|x| lo <= x && x <= hi))
            {
                return false;
            }
            // A string that must not be blank: a visible ASCII character
            // says it is not; else it is decoded and trimmed as `validate`
            // trims it.
            if kind == STRING
                && p.not_blank
                && !m.plain_str().is_some_and(|s| s.bytes().any(|b| b.is_ascii_graphic()))
                && m.as_str().is_none_or(|s| s.trim().is_empty())
            {
                return false;
            }
            seen += usize::from(p.required);
        }
        seen == self.required
    }
}

impl ToolSchema {
    /// Compiles `schema` for `tool`; the error says why it is not a valid JSON Schema.
    pub fn new(tool: &str, schema: Value, origin: &str) -> std::result::Result<ToolSchema, String> {
        let validator = jsonschema::options()
            .should_validate_formats(true)
            .build(&schema)
            .map_err(|e| format!("schema of {tool:?} is not a valid JSON Schema: {e}"))?;
        let properties =
            schema.get("properties").and_then(Value::as_object).map_or(Vec::new(), |p| p.keys().cloned().collect());
        let required = schema
            .get("required")
            .and_then(Value::as_array)
            .map_or(Vec::new(), |r| r.iter().filter_map(Value::as_str).map(str::to_string).collect());
        let not_blank: Vec<String> = required
            .iter()
            .filter(|r| {
                schema.get("properties").and_then(|p| p.get(r.as_str())).and_then(|p| p.get("minLength"))
                    != Some(&Value::from(0))
            })
            .cloned()
            .collect();
        let enums = schema.get("properties").and_then(Value::as_object).map_or(Vec::new(), |p| {
            p.iter().filter_map(|(name, s)| Some((name.clone(), s.get("enum")?.as_array()?.clone()))).collect()
        });
        let flat = Flat::of(&schema, &not_blank);
        Ok(ToolSchema {
            flat,
            tool: tool.to_string(),
            origin: origin.to_string(),
            schema,
            validator,
            properties,
            required,
            not_blank,
            enums,
        })
    }

    /// The top-level properties the schema documents.
    pub fn properties(&self) -> &[String] {
        &self.properties
    }

    /// The top-level parameters the schema requires.
    pub fn required(&self) -> &[String] {
        &self.required
    }

    /// Whether the schema documents `param` as a top-level property.
    pub fn documents(&self, param: &str) -> bool {
        self.properties.iter().any(|p| p == param)
    }

    /// Documented but not required.
    pub fn is_optional(&self, param: &str) -> bool {
        self.documents(param) && !self.required.iter().any(|r| r == param)
    }

    /// The allowed values of a top-level parameter, if it has an enum.
    pub fn enum_of(&self, param: &str) -> Option<&Vec<Value>> {
        self.enums.iter().find(|(name, _)| name == param).map(|(_, values)| values)
    }
}

/// Why a call's arguments violate its tool's schema.
#[derive(Debug, Clone, PartialEq)]
pub struct Violation {
    /// The failure category the violation stands for.
    pub category: Category,
    /// The top-level parameter concerned, if one.
    pub param: Option<String>,
    /// A short description, e.g. "missing required `subagent_type`".
    pub text: String,
}

fn top_param(path: &str) -> Option<String> {
    path.trim_start_matches('/')
        .split('/')
        .next()
        .filter(|s| !s.is_empty())
        .map(|s| s.replace("~1", "/").replace("~0", "~"))
}

/// Validate a call's arguments against `ts`: `validate`, without
/// decoding them when they are kept as text and the schema is flat enough
/// to accept them from their members (`Flat::accepts`).
pub(crate) fn validate_args(ts: &ToolSchema, input: &Args) -> Vec<Violation> {
    if let (Some(flat), Some(members)) = (&ts.flat, input.members())
        && flat.accepts(members)
    {
        return Vec::new();
    }
    validate(ts, input.value())
}

/// Validate `input` against `ts`, most telling violation first.
pub fn validate(ts: &ToolSchema, input: &Value) -> Vec<Violation> {
    if !input.is_object() {
        return vec![Violation {
            category: Category::MalformedArguments,
            param: None,
            text: "arguments are not a JSON object".into(),
        }];
    }
    let mut out = Vec::new();
    if !ts.validator.is_valid(input) {
        for e in ts.validator.iter_errors(input) {
            let at = top_param(e.instance_path().as_str());
            let name = at.clone().unwrap_or_else(|| "arguments".into());
            let (category, param, text) = match e.kind() {
                ValidationErrorKind::Required { property } => {
                    let p = property.as_str().unwrap_or("?").to_string();
                    let nested = at.is_some();
                    let text = if nested {
                        format!("`{name}` lacks required `{p}`")
                    } else {
                        format!("missing required `{p}`")
                    };
                    (Category::MissingRequiredParam, Some(if nested { name } else { p }), text)
                }
                ValidationErrorKind::AdditionalProperties { unexpected } => {
                    let p = unexpected.first().cloned().unwrap_or_default();
                    (Category::UnknownParam, Some(p.clone()), format!("unknown parameter `{p}`"))
                }
                ValidationErrorKind::Type { .. } => {
                    (Category::InvalidParamType, at, format!("`{name}` has the wrong type"))
                }
                ValidationErrorKind::Enum { .. } => {
                    (Category::InvalidParamValue, at, format!("`{name}` is not one of the allowed values"))
                }
                _ => (Category::InvalidParamValue, at, format!("`{name}` is out of range or format")),
            };
            out.push(Violation { category, param, text });
        }
    }
    // A required string that is blank is as missing as an absent one,
    // unless its schema says `"minLength": 0` (Claude Code's Edit deletes
    // text with an empty `new_string`).
    for r in &ts.not_blank {
        if input.get(r.as_str()).and_then(Value::as_str).is_some_and(|v| v.trim().is_empty()) {
            out.push(Violation {
                category: Category::MissingRequiredParam,
                param: Some(r.to_string()),
                text: format!("required `{r}` is blank"),
            });
        }
    }
    let rank = |c: Category| match c {
        Category::MalformedArguments => 0,
        Category::MissingRequiredParam => 1,
        Category::UnknownParam => 2,
        Category::InvalidParamType => 3,
        _ => 4,
    };
    out.sort_by_key(|v| rank(v.category));
    out
}

/// The schemas in effect for one source.
#[derive(Default)]
pub struct SchemaSet {
    /// Looked up twice for every call (validation, counting): foldhash,
    /// not SipHash, which was 1% of a scan.
    tools: foldhash::HashMap<String, ToolSchema>,
}

impl std::fmt::Debug for SchemaSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut tools: Vec<&str> = self.tools.keys().map(String::as_str).collect();
        tools.sort_unstable();
        f.debug_struct("SchemaSet").field("tools", &tools).finish()
    }
}

impl SchemaSet {
    /// Built-ins of `dialect` (none without one), then the trace's own
    /// schemas, then the `--tool-schemas` file: a later one replaces an
    /// earlier one per tool.
    pub fn build(
        dialect: Option<Dialect>,
        trace: &[(String, Value)],
        file: &FileSchemas,
    ) -> std::result::Result<SchemaSet, String> {
        let mut set = SchemaSet::default();
        if let Some(d) = dialect {
            for (tool, schema) in builtin::for_dialect(d) {
                set.insert(ToolSchema::new(tool, schema, &format!("built-in {d}"))?);
            }
        }
        for (tool, schema) in trace {
            // A trace's schema that does not compile is skipped, not fatal.
            if let Ok(ts) = ToolSchema::new(tool, schema.clone(), "trace") {
                set.insert(ts);
            }
        }
        for (tool, schema) in &file.tools {
            set.insert(ToolSchema::new(tool, schema.clone(), &file.origin)?);
        }
        Ok(set)
    }

    fn insert(&mut self, ts: ToolSchema) {
        self.tools.insert(ts.tool.clone(), ts);
    }

    /// The schema of `tool`, if the set has one.
    pub fn get(&self, tool: &str) -> Option<&ToolSchema> {
        self.tools.get(tool)
    }

    /// Whether the set holds no schema.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// Every schema, sorted by tool.
    pub fn all(&self) -> Vec<&ToolSchema> {
        let mut v: Vec<&ToolSchema> = self.tools.values().collect();
        v.sort_by(|a, b| a.tool.cmp(&b.tool));
        v
    }
}

/// Tool schemas read from a `--tool-schemas` file.
#[derive(Debug, Clone, Default)]
pub struct FileSchemas {
    /// The file's path, as the schemas' origin.
    pub origin: String,
    /// Each tool's name and its schema, in file order.
    pub tools: Vec<(String, Value)>,
}

/// Read a tool list in Anthropic (`input_schema`), OpenAI (`parameters`,
/// `function.parameters`) or MCP (`inputSchema`) shape: a JSON array, or an
/// object with a `tools` array. Every schema must compile.
pub(crate) fn load_file(path: &Path) -> Result<FileSchemas> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        Error::input(
            path,
            if e.kind() == std::io::ErrorKind::NotFound { "no such file".into() } else { format!("cannot read: {e}") },
        )
    })?;
    let v: Value = serde_json::from_str(&text).map_err(|e| Error::input(path, format!("not JSON: {e}")))?;
    let list = match &v {
        Value::Array(a) => a.clone(),
        Value::Object(o) => match o.get("tools").and_then(Value::as_array) {
            Some(a) => a.clone(),
            None => return Err(Error::input(path, "expected a JSON array of tools or an object with a `tools` array")),
        },
        _ => return Err(Error::input(path, "expected a JSON array of tools or an object with a `tools` array")),
    };
    let mut tools = Vec::new();
    for (i, t) in list.iter().enumerate() {
        let f = t.get("function").unwrap_or(t);
        let name = f
            .get("name")
            .and_then(Value::as_str)
            .ok_or_else(|| Error::input(path, format!("tool #{} has no name", i + 1)))?;
        let schema = ["input_schema", "inputSchema", "parameters"].iter().find_map(|k| f.get(*k)).ok_or_else(|| {
            Error::input(path, format!("tool {name:?} has no input_schema, inputSchema or parameters"))
        })?;
        if !schema.is_object() {
            return Err(Error::input(path, format!("the schema of tool {name:?} is not a JSON object")));
        }
        ToolSchema::new(name, schema.clone(), "").map_err(|e| Error::input(path, e))?;
        tools.push((name.to_string(), schema.clone()));
    }
    Ok(FileSchemas { origin: path.display().to_string(), tools })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn grep() -> ToolSchema {
        let b = builtin::for_dialect(Dialect::CLAUDE_CODE).into_iter().find(|(t, _)| *t == "Grep").unwrap();
        ToolSchema::new(b.0, b.1, "built-in claude-code").unwrap()
    }

    /// The flat fast accept says "valid" only where the validator does,
    /// and does say it for the usual calls of the built-in schemas (so
    /// that the fast path is taken, not only safe).
    #[test]
    fn flat_accepts_only_what_the_validator_accepts() {
        let mut fast = 0;
        for dialect in [Dialect::PERI, Dialect::CLAUDE_CODE] {
            for (tool, schema) in builtin::for_dialect(dialect) {
                let ts = ToolSchema::new(tool, schema, "built-in").unwrap();
                let calls = [
                    r#"{"file_path": "/a.rs"}"#,
                    r#"{"file_path": "/a.rs", "offset": 10, "limit": 2.5}"#,
                    r#"{"file_path": "  ", "content": "x"}"#,
                    r#"{"file_path": "/a", "content": "fn main() {}\n"}"#,
                    r#"{"file_path": "/a", "content": "\n\t "}"#,
                    r#"{"file_path": "/a", "old_string": "", "new_string": "y"}"#,
                    r#"{"file_path": "/a", "old_string": "x", "new_string": "y", "replace_all": "yes"}"#,
                    r#"{"command": "cargo test", "timeout": 120000}"#,
                    r#"{"command": "ls", "timeout": 0}"#,
                    r#"{"command": "ls", "timeout": 600001}"#,
                    r#"{"command": "ls", "timeout": 1.5}"#,
                    r#"{"pattern": "x", "output_mode": "content"}"#,
                    r#"{"pattern": "x", "output_mode": "lines"}"#,
                    r#"{"pattern": "x", "-C": 3, "-i": true}"#,
                    r#"{"todos": [{"content": "a", "status": "pending"}, {"content": "b", "status": "done"}]}"#,
                    r#"{"todos": [{"content": "a", "status": "completed", "activeForm": "A"}]}"#,
                    r#"{"todos": [{"content": "a"}]}"#,
                    r#"{"todos": []}"#,
                    r#"{"todos": {"content": "a"}}"#,
                    r#"{"prompt": "do it", "subagent_type": "general"}"#,
                    r#"{"query": "x", "num_results": "3"}"#,
                    r#"{"unknown": 1}"#,
                    r#"{}"#,
                ];
                for text in calls {
                    let args = Args::stored(text);
                    let accepted = ts.flat.as_ref().zip(args.members()).is_some_and(|(f, m)| f.accepts(m));
                    let violations = validate(&ts, args.value());
                    if accepted {
                        fast += 1;
                        assert!(violations.is_empty(), "{tool} {text}: accepted, but {violations:?}");
                    }
                    assert_eq!(validate_args(&ts, &Args::stored(text)), violations, "{tool} {text}");
                }
            }
        }
        assert!(fast >= 20, "the usual calls take the fast path ({fast})");
    }

    /// `enum_of` answers from the top-level properties only, as the
    /// schema says them.
    #[test]
    fn enums_of_top_level_parameters() {
        let schema = serde_json::json!({
            "type": "object",
            "properties": {
                "mode": {"enum": ["a", "b"]},
                "free": {"type": "string"},
                "nested": {"type": "object", "properties": {"inner": {"enum": [1]}}}
            }
        });
        let ts = ToolSchema::new("T", schema, "test").unwrap();
        assert_eq!(ts.enum_of("mode"), Some(&vec![Value::from("a"), Value::from("b")]));
        for none in ["free", "nested", "inner", "absent"] {
            assert_eq!(ts.enum_of(none), None, "{none}");
        }
    }

    #[test]
    fn each_kind_of_violation() {
        let ts = grep();
        let cats =
            |input: Value| validate(&ts, &input).iter().map(|v| (v.category, v.param.clone())).collect::<Vec<_>>();
        assert_eq!(cats(json!({"pattern": "x"})), vec![]);
        assert_eq!(cats(json!({"path": "src"})), vec![(Category::MissingRequiredParam, Some("pattern".into()))]);
        assert_eq!(cats(json!({"pattern": "  "})), vec![(Category::MissingRequiredParam, Some("pattern".into()))]);
        assert_eq!(cats(json!({"pattern": "x", "regex": true})), vec![(Category::UnknownParam, Some("regex".into()))]);
        assert_eq!(cats(json!({"pattern": 5})), vec![(Category::InvalidParamType, Some("pattern".into()))]);
        assert_eq!(
            cats(json!({"pattern": "x", "output_mode": "lines"})),
            vec![(Category::InvalidParamValue, Some("output_mode".into()))]
        );
        assert_eq!(cats(json!("pattern=x")), vec![(Category::MalformedArguments, None)]);
        let web = builtin::for_dialect(Dialect::CLAUDE_CODE).into_iter().find(|(t, _)| *t == "WebFetch").unwrap();
        let web = ToolSchema::new(web.0, web.1, "b").unwrap();
        let v = validate(&web, &json!({"url": "not a uri", "prompt": "p"}));
        assert_eq!(v[0].category, Category::InvalidParamValue, "formats are validated: {v:?}");
        let search = builtin::for_dialect(Dialect::CLAUDE_CODE).into_iter().find(|(t, _)| *t == "WebSearch").unwrap();
        let search = ToolSchema::new(search.0, search.1, "b").unwrap();
        assert_eq!(validate(&search, &json!({"query": "x"}))[0].category, Category::InvalidParamValue, "a range");
    }

    #[test]
    fn missing_comes_first() {
        let v = validate(&grep(), &json!({"regex": 1}));
        assert_eq!(v[0].category, Category::MissingRequiredParam);
        assert_eq!(v[1].category, Category::UnknownParam);
    }

    #[test]
    fn peri_agent_documents_subagent_type_as_optional() {
        let set = SchemaSet::build(Some(Dialect::PERI), &[], &FileSchemas::default()).unwrap();
        let agent = set.get("Agent").unwrap();
        assert!(agent.is_optional("subagent_type"));
        assert!(validate(agent, &json!({"prompt": "p"})).is_empty(), "the schema accepts the call that fails");
        assert_eq!(agent.origin, "built-in peri");
    }

    /// Issue 12, shape 7: arguments every Claude Code version from 1.0 to 2.1
    /// accepted are no violation of the built-in schemas.
    #[test]
    fn claude_code_schemas_fit_every_cli_version() {
        let set = SchemaSet::build(Some(Dialect::CLAUDE_CODE), &[], &FileSchemas::default()).unwrap();
        let ok = [
            ("TodoWrite", json!({"todos": [{"id": "1", "content": "a", "status": "pending", "priority": "high"}]})),
            ("TodoWrite", json!({"todos": [{"content": "a", "status": "in_progress", "activeForm": "Doing a"}]})),
            ("Edit", json!({"file_path": "/a", "old_string": "x\n", "new_string": ""})),
            ("Edit", json!({"file_path": "/new.md", "old_string": "", "new_string": "hello"})),
            ("Grep", json!({"pattern": "x", "include": "*.rs"})),
            ("Grep", json!({"pattern": "x", "context": 2, "output_mode": "content"})),
            ("NotebookEdit", json!({"notebook_path": "/a.ipynb", "cell_number": 3, "new_source": "x"})),
            ("Task", json!({"description": "d", "prompt": "p"})),
        ];
        for (tool, input) in ok {
            let v = validate(set.get(tool).unwrap(), &input);
            assert!(v.is_empty(), "{tool} {input}: {v:?}");
        }
        // What no version accepts is still a violation.
        assert!(!validate(set.get("Edit").unwrap(), &json!({"file_path": "/a", "old_string": "x"})).is_empty());
        assert!(!validate(set.get("Read").unwrap(), &json!({"file_path": "/a", "relative_path": "a"})).is_empty());
    }

    #[test]
    fn every_builtin_compiles() {
        for d in [Dialect::PERI, Dialect::CLAUDE_CODE] {
            let set = SchemaSet::build(Some(d), &[], &FileSchemas::default()).unwrap();
            assert!(set.all().len() >= 10);
        }
    }

    #[test]
    fn files_in_three_shapes() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("tools.json");
        std::fs::write(
            &p,
            r#"[{"name":"a","input_schema":{"type":"object","required":["x"]}},
                {"type":"function","function":{"name":"b","parameters":{"type":"object"}}},
                {"name":"c","inputSchema":{"type":"object","properties":{"q":{"enum":["x","y"]}}}}]"#,
        )
        .unwrap();
        let f = load_file(&p).unwrap();
        assert_eq!(f.tools.iter().map(|t| t.0.as_str()).collect::<Vec<_>>(), ["a", "b", "c"]);
        let set = SchemaSet::build(Some(Dialect::PERI), &[], &f).unwrap();
        assert_eq!(set.get("a").unwrap().origin, p.display().to_string());
        assert!(set.get("Read").is_some(), "built-ins stay for other tools");
        std::fs::write(
            &p,
            r#"{"tools":[{"name":"z","input_schema":{"type":"object","properties":{"q":{"type":"nonsense"}}}}]}"#,
        )
        .unwrap();
        assert!(load_file(&p).unwrap_err().to_string().contains("not a valid JSON Schema"));
        std::fs::write(&p, r#"[{"input_schema":{}}]"#).unwrap();
        assert!(load_file(&p).unwrap_err().to_string().contains("has no name"));
        std::fs::write(&p, "not json").unwrap();
        assert!(load_file(&p).unwrap_err().to_string().contains("not JSON"));
        std::fs::write(&p, r#"[{"name":"r","input_schema":{"$ref":"https://example.com/s.json"}}]"#).unwrap();
        assert!(load_file(&p).is_err(), "remote $ref is never fetched");
    }
}
