//! OpenTelemetry traces as files: one reader, three front doors,
//! all normalised to one span table; a span is a tool call when
//! `gen_ai.operation.name` is `execute_tool`, or its OpenInference or
//! Langfuse kind is `TOOL`.
//!
//! - OTLP/JSON (`{"resourceSpans": [...]}`): the Collector's `file`
//!   exporter (one request per line), an SDK's OTLP/JSON dump, or one
//!   pretty-printed request in a `.json` file. Ids are hex strings, times
//!   nanoseconds as decimal strings, attribute values typed `AnyValue`s,
//!   `status.code` 2 is ERROR.
//! - Phoenix spans (`{"context": {"trace_id", "span_id"}, "span_kind",
//!   "parent_id", "status_code", "attributes": {...}}`), one per line, as a
//!   JSON array, or inside `{"data": [...]}`; the Python SDK's console
//!   exporter prints nearly the same shape (`status: {status_code}`), as
//!   pretty-printed objects one after another.
//! - Langfuse observations (`{"id", "traceId"|"trace_id", "type", "level",
//!   "input", "output", "parentObservationId"}`), JSONL or a JSON array
//!   (API responses `{"data": [...]}` too).
//!
//! All become one span table. A span is a call when
//! `gen_ai.operation.name = execute_tool` (OTel GenAI), when
//! `openinference.span.kind` (or Phoenix `span_kind`) is `TOOL`
//! (OpenInference), or when a Langfuse observation's `type` is `TOOL`; the
//! span is its own result. The flag: status ERROR, an `error.type`
//! attribute, an `exception` event, or Langfuse `level = ERROR`. The text:
//! the recorded result (`gen_ai.tool.call.result`, `output.value`, Langfuse
//! `output`), which is opt-in and often absent; a flagged span without
//! one gets its status or exception message. A span without a recorded
//! result keeps an empty text, so the report's content coverage says how
//! many results could be judged at all.
//!
//! Session: `gen_ai.conversation.id` or `session.id` on the span or an
//! ancestor (or any span of its trace), else the trace id. Sub-agents: a
//! tool span whose nearest `invoke_agent` / `AGENT` ancestor itself has an
//! agent ancestor belongs to the session `<session>/agent-<span id>`,
//! whose parent is the enclosing agent's session. Spans of one trace may
//! come in any order and any file, so everything is resolved at the end.

use std::collections::HashMap;
use std::path::Path;

use chrono::{DateTime, SecondsFormat, Utc};
use serde_json::{Map, Value};

use super::{
    ImportRun, ImportStats, Importer, Line, LineReader, ResultRow, SessionRow, Writer, is_json_document, read_document,
};
use crate::error::{Error, Result};
use crate::model::Dialect;
use crate::source::FormatInfo;

pub(crate) struct Otel;

static INFO: FormatInfo = FormatInfo {
    dialect: Dialect::OTEL,
    agent: "OpenTelemetry traces as JSON (OTLP/JSON lines, Langfuse observations, Phoenix spans), read through import",
    product: "OpenTelemetry",
    signature: "`resourceSpans` (OTLP/JSON); `context.span_id` + `span_kind` (Phoenix); `traceId` + upper-case `type` (Langfuse); tool spans: `gen_ai.operation.name = execute_tool`, `openinference.span.kind = TOOL`, type `TOOL`",
    flag: "span status ERROR (code 2), `error.type`, an `exception` event, or Langfuse `level = ERROR`",
    locations: &[],
    sample: "otel",
};

const AGENT: &str = Dialect::OTEL.as_str();

/// Langfuse observation types.
const LANGFUSE_TYPES: &[&str] =
    &["SPAN", "GENERATION", "EVENT", "AGENT", "TOOL", "CHAIN", "RETRIEVER", "EVALUATOR", "EMBEDDING", "GUARDRAIL"];

/// Is `v` one record of the format: an OTLP request, a Phoenix span or a
/// Langfuse observation?
fn is_record(v: &Value) -> bool {
    is_otlp(v) || is_phoenix(v) || is_langfuse(v)
}

fn is_otlp(v: &Value) -> bool {
    v.get("resourceSpans").is_some_and(Value::is_array)
}

fn is_phoenix(v: &Value) -> bool {
    v.get("context").is_some_and(|c| c.get("span_id").is_some() || c.get("spanId").is_some())
        && (v.get("span_kind").is_some() || v.get("attributes").is_some_and(Value::is_object))
}

fn is_langfuse(v: &Value) -> bool {
    v.get("id").is_some_and(Value::is_string)
        && (v.get("traceId").is_some() || v.get("trace_id").is_some())
        && v.get("type").and_then(Value::as_str).is_some_and(|t| LANGFUSE_TYPES.contains(&t))
}

/// The records of a whole document: itself, its items, or the items of its
/// `data` list.
fn records(doc: &Value) -> Vec<&Value> {
    match doc {
        Value::Array(items) => items.iter().collect(),
        Value::Object(o) if !is_record(doc) => match o.get("data") {
            Some(Value::Array(items)) => items.iter().collect(),
            _ => vec![doc],
        },
        _ => vec![doc],
    }
}

impl Importer for Otel {
    fn info(&self) -> &'static FormatInfo {
        &INFO
    }

    fn recognise(&self, v: &Value) -> bool {
        is_record(v)
    }

    fn recognise_document(&self, _path: &Path, doc: &Value) -> bool {
        records(doc).first().is_some_and(|r| is_record(r))
    }

    fn run(&self) -> Box<dyn ImportRun> {
        Box::new(Run::default())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Tool,
    Agent,
    Other,
}

/// A tool span's call and result.
#[derive(Debug)]
struct ToolPart {
    name: String,
    call_id: Option<String>,
    input: Value,
    /// The recorded result, `None` when content was not captured.
    result: Option<String>,
    flag: bool,
    /// Why a flagged span failed (status or exception message).
    error: Option<String>,
    end: Option<String>,
}

/// One span of the table every front door fills.
#[derive(Debug)]
struct Span {
    trace: String,
    id: String,
    parent: Option<String>,
    kind: Kind,
    /// Its own session attribute.
    session: Option<String>,
    start_ns: i128,
    start: Option<String>,
    /// The file it came from.
    source: usize,
    tool: Option<ToolPart>,
}

#[derive(Default)]
struct Run {
    spans: Vec<Span>,
    /// (trace, span id) → place in `spans`; a span exported twice keeps its first copy.
    index: HashMap<(String, String), usize>,
    sources: Vec<String>,
}

impl ImportRun for Run {
    fn writes_at_finish(&self) -> bool {
        true
    }

    fn file(&mut self, path: &Path, w: &mut Writer<'_>) -> Result<()> {
        self.sources.push(path.display().to_string());
        let source = self.sources.len() - 1;
        let mut lines = LineReader::open(path)?;
        // Line mode unless the first line is not a record: then the file
        // is one document (or pretty-printed objects one after another),
        // whatever its name.
        let mut first = true;
        loop {
            match lines.next_line(&mut w.stats)? {
                None => break,
                Some(None) => {}
                Some(Some(Line::Record(v))) => {
                    first = false;
                    self.record(&v, source, w);
                }
                Some(Some(Line::Invalid)) if first => {
                    first = false;
                    let mut doc_stats = ImportStats::default();
                    match read_document(path, &mut doc_stats)? {
                        Some(doc) => {
                            w.stats.lines = w.stats.lines.saturating_sub(1);
                            w.stats.surrogates += doc_stats.surrogates;
                            for r in records(&doc) {
                                self.record(r, source, w);
                            }
                            break;
                        }
                        // A `.json` file is one document or nothing; lines
                        // of any other file go on, this one counted broken.
                        None if is_json_document(path) => {
                            return Err(Error::input(path, "is not a JSON document (cut or broken?)"));
                        }
                        None => lines.invalid(&mut w.stats),
                    }
                }
                Some(Some(Line::Invalid)) => {
                    first = false;
                    lines.invalid(&mut w.stats);
                }
                // Opened without a typed parser: never given.
                Some(Some(Line::Typed(_))) => first = false,
            }
        }
        Ok(())
    }

    fn finish(&mut self, w: &mut Writer<'_>) -> rusqlite::Result<()> {
        self.write(w)
    }
}

impl Run {
    fn record(&mut self, v: &Value, source: usize, w: &mut Writer<'_>) {
        if is_otlp(v) {
            self.otlp(v, source, w);
        } else if is_phoenix(v) {
            self.phoenix(v, source, w);
        } else if is_langfuse(v) {
            self.langfuse(v, source, w);
        } else {
            w.stats.skipped += 1;
        }
    }

    fn push(&mut self, span: Span, w: &mut Writer<'_>) {
        let key = (span.trace.clone(), span.id.clone());
        if self.index.contains_key(&key) {
            w.stats.duplicates += 1;
            return;
        }
        self.index.insert(key, self.spans.len());
        self.spans.push(span);
    }

    /// An OTLP/JSON `ExportTraceServiceRequest`.
    fn otlp(&mut self, v: &Value, source: usize, w: &mut Writer<'_>) {
        for rs in arr(v.get("resourceSpans")) {
            let resource = attributes(rs.get("resource").and_then(|r| r.get("attributes")));
            let scopes = arr(rs.get("scopeSpans")).chain(arr(rs.get("instrumentationLibrarySpans")));
            for ss in scopes {
                for s in arr(ss.get("spans")) {
                    let mut attrs = attributes(s.get("attributes"));
                    for key in ["gen_ai.conversation.id", "session.id"] {
                        if !attrs.contains_key(key)
                            && let Some(val) = resource.get(key)
                        {
                            attrs.insert(key.to_string(), val.clone());
                        }
                    }
                    let status = s.get("status");
                    let code = status.and_then(|st| st.get("code"));
                    let errored = match code {
                        Some(Value::Number(n)) => n.as_i64() == Some(2),
                        Some(Value::String(c)) => c == "2" || c.ends_with("ERROR"),
                        _ => false,
                    };
                    let message = status.and_then(|st| st.get("message")).and_then(Value::as_str);
                    let events: Vec<(String, Map<String, Value>)> = arr(s.get("events"))
                        .map(|e| (str_of(e.get("name")).unwrap_or_default(), attributes(e.get("attributes"))))
                        .collect();
                    let start_ns = nanos(s.get("startTimeUnixNano"));
                    let end_ns = nanos(s.get("endTimeUnixNano"));
                    let span = SpanIn {
                        trace: str_of(s.get("traceId")).unwrap_or_default(),
                        id: str_of(s.get("spanId")).unwrap_or_default(),
                        parent: str_of(s.get("parentSpanId")),
                        name: str_of(s.get("name")).unwrap_or_default(),
                        kind_hint: None,
                        attrs: &attrs,
                        errored,
                        message,
                        events: &events,
                        start_ns,
                        start: start_ns.map(ns_time),
                        end: end_ns.map(ns_time),
                    };
                    self.push(span.build(source), w);
                }
            }
        }
    }

    /// A Phoenix span (OpenInference attribute names, Phoenix's own model),
    /// or a span as the Python SDK's console exporter prints it (the same
    /// `context`, `parent_id` and `attributes`, its status nested).
    fn phoenix(&mut self, v: &Value, source: usize, w: &mut Writer<'_>) {
        let cx = v.get("context");
        let attrs = match v.get("attributes") {
            Some(Value::Object(o)) => o.clone(),
            _ => Map::new(),
        };
        let events: Vec<(String, Map<String, Value>)> = arr(v.get("events"))
            .map(|e| {
                let a = match e.get("attributes") {
                    Some(Value::Object(o)) => o.clone(),
                    _ => Map::new(),
                };
                (str_of(e.get("name")).unwrap_or_default(), a)
            })
            .collect();
        // Phoenix: `status_code`, `status_message`; the Python SDK's console
        // exporter: `status: {status_code, description}`.
        let st = v.get("status");
        let status = str_of(v.get("status_code").or_else(|| st.and_then(|s| s.get("status_code")))).unwrap_or_default();
        let message = v.get("status_message").or_else(|| st.and_then(|s| s.get("description"))).and_then(Value::as_str);
        let mut attrs = attrs;
        if let Some(Value::Object(resource)) = v.get("resource").and_then(|r| r.get("attributes")) {
            for key in ["gen_ai.conversation.id", "session.id"] {
                if !attrs.contains_key(key)
                    && let Some(val) = resource.get(key)
                {
                    attrs.insert(key.to_string(), val.clone());
                }
            }
        }
        let start = str_of(v.get("start_time"));
        let span = SpanIn {
            trace: cx.and_then(|c| str_of(c.get("trace_id").or(c.get("traceId")))).unwrap_or_default(),
            id: cx.and_then(|c| str_of(c.get("span_id").or(c.get("spanId")))).unwrap_or_default(),
            parent: str_of(v.get("parent_id")),
            name: str_of(v.get("name")).unwrap_or_default(),
            kind_hint: str_of(v.get("span_kind")),
            attrs: &attrs,
            errored: status.eq_ignore_ascii_case("ERROR") || status.ends_with("STATUS_CODE_ERROR"),
            message,
            events: &events,
            start_ns: start.as_deref().and_then(iso_ns),
            start: start.as_deref().map(norm_time),
            end: str_of(v.get("end_time")).as_deref().map(norm_time),
        };
        self.push(span.build(source), w);
    }

    /// A Langfuse observation: its own call and result.
    fn langfuse(&mut self, v: &Value, source: usize, w: &mut Writer<'_>) {
        let get = |camel: &str, snake: &str| v.get(camel).or_else(|| v.get(snake)).filter(|x| !x.is_null());
        let kind = match v.get("type").and_then(Value::as_str) {
            Some("TOOL") => Kind::Tool,
            Some("AGENT") => Kind::Agent,
            _ => Kind::Other,
        };
        let session = ["sessionId", "session_id", "traceSessionId", "trace_session_id"]
            .iter()
            .find_map(|k| str_of(v.get(*k)))
            .filter(|s| !s.is_empty());
        let start = str_of(get("startTime", "start_time"));
        let tool = (kind == Kind::Tool).then(|| {
            let flag = str_of(v.get("level")).is_some_and(|l| l.eq_ignore_ascii_case("ERROR"));
            ToolPart {
                name: str_of(v.get("name")).filter(|s| !s.is_empty()).unwrap_or_else(|| "(unnamed)".into()),
                call_id: None,
                input: get("input", "input").cloned().unwrap_or(Value::Null),
                result: get("output", "output").map(text_of),
                flag,
                error: str_of(get("statusMessage", "status_message")).filter(|s| !s.is_empty()),
                end: str_of(get("endTime", "end_time")).as_deref().map(norm_time),
            }
        });
        let span = Span {
            trace: str_of(get("traceId", "trace_id")).unwrap_or_default(),
            id: str_of(v.get("id")).unwrap_or_default(),
            parent: str_of(get("parentObservationId", "parent_observation_id")).filter(|s| !s.is_empty()),
            kind,
            session,
            start_ns: start.as_deref().and_then(iso_ns).unwrap_or(0),
            start: start.as_deref().map(norm_time),
            source,
            tool,
        };
        self.push(span, w);
    }

    /// Resolve sessions and sub-agents, then write calls in start order.
    fn write(&mut self, w: &mut Writer<'_>) -> rusqlite::Result<()> {
        // A session named anywhere in a trace names the whole trace.
        let mut trace_session: HashMap<&str, &str> = HashMap::new();
        for s in &self.spans {
            if let Some(id) = &s.session {
                trace_session.entry(s.trace.as_str()).or_insert(id.as_str());
            }
        }
        let mut order: Vec<usize> = (0..self.spans.len()).filter(|&i| self.spans[i].tool.is_some()).collect();
        order.sort_by(|&a, &b| {
            let (x, y) = (&self.spans[a], &self.spans[b]);
            (x.start_ns, &x.trace, &x.id).cmp(&(y.start_ns, &y.trace, &y.id))
        });
        let (parent, above) = self.ancestries();
        for i in order {
            let span = &self.spans[i];
            let session_attr = above[i].session.and_then(|u| self.spans[u].session.as_deref());
            // The agents above the call, not the call itself.
            let agents: &[usize] = parent[i].map_or(&[], |p| &above[p].agents);
            let main = session_attr
                .or_else(|| trace_session.get(span.trace.as_str()).copied())
                .filter(|s| !s.is_empty())
                .unwrap_or(span.trace.as_str())
                .to_string();
            let agent_session = |k: usize| format!("{main}/agent-{}", self.spans[agents[k]].id);
            let (session, parent) = match agents.len() {
                0 | 1 => (main.clone(), None),
                2 => (agent_session(0), Some(main.clone())),
                _ => (agent_session(0), Some(agent_session(1))),
            };
            let tool = span.tool.as_ref().expect("tool spans only");
            w.session(&SessionRow {
                id: &session,
                parent: parent.as_deref(),
                agent: AGENT,
                source: &self.sources[span.source],
                started: span.start.as_deref(),
            })?;
            let call_id = tool.call_id.clone().filter(|c| !c.is_empty()).unwrap_or_else(|| span.id.clone());
            w.call(&session, &call_id, &tool.name, &tool.input, span.start.as_deref())?;
            let text = match (&tool.result, &tool.error) {
                (Some(r), _) if !r.trim().is_empty() => r.clone(),
                (_, Some(e)) if tool.flag => e.clone(),
                (Some(r), _) => r.clone(),
                _ => String::new(),
            };
            w.result(&ResultRow {
                session: &session,
                call_id: &call_id,
                text: &text,
                flag: Some(tool.flag),
                exit_code: None,
                time: tool.end.as_deref().or(span.start.as_deref()),
            })?;
        }
        Ok(())
    }

    /// For every span, its parent's place in `spans` (`None` for a root or
    /// a parent not exported), and what lies at or above it: the nearest
    /// span naming a session and the nearest agent spans (`MAX_AGENTS`,
    /// nearest first). Each span is visited once, whatever the depth; a
    /// broken export's cycle is cut where the walk comes back round.
    fn ancestries(&self) -> (Vec<Option<usize>>, Vec<Above>) {
        let parent: Vec<Option<usize>> = self
            .spans
            .iter()
            .map(|s| {
                let p = s.parent.as_ref().filter(|p| !p.is_empty())?;
                self.index.get(&(s.trace.clone(), p.clone())).copied()
            })
            .collect();
        #[derive(Clone, Copy, PartialEq)]
        enum State {
            New,
            OnPath,
            Done,
        }
        let mut state = vec![State::New; self.spans.len()];
        let mut above = vec![Above::default(); self.spans.len()];
        let mut path = Vec::new();
        for start in 0..self.spans.len() {
            path.clear();
            let mut at = Some(start);
            while let Some(u) = at {
                if state[u] != State::New {
                    break;
                }
                state[u] = State::OnPath;
                path.push(u);
                at = parent[u];
            }
            // Above the path: a span already resolved, or nothing (a root,
            // or a span of this very path: a cycle).
            let mut acc = match at {
                Some(u) if state[u] == State::Done => above[u].clone(),
                _ => Above::default(),
            };
            for &u in path.iter().rev() {
                let s = &self.spans[u];
                if s.session.is_some() {
                    acc.session = Some(u);
                }
                if s.kind == Kind::Agent {
                    acc.agents.insert(0, u);
                    acc.agents.truncate(MAX_AGENTS);
                }
                above[u] = acc.clone();
                state[u] = State::Done;
            }
        }
        (parent, above)
    }
}

/// The agent ancestors a call's session is decided by: its nearest agent
/// names the sub-agent, the next one the session that started it; a third
/// says the second is itself a sub-agent.
const MAX_AGENTS: usize = 3;

/// What lies at or above a span (see `Run::ancestries`).
#[derive(Debug, Clone, Default, PartialEq)]
struct Above {
    /// The nearest span that names a session.
    session: Option<usize>,
    /// The nearest agent spans, nearest first, at most `MAX_AGENTS`.
    agents: Vec<usize>,
}

/// A span as read, before it is reduced to what the table keeps.
struct SpanIn<'a> {
    trace: String,
    id: String,
    parent: Option<String>,
    name: String,
    /// Phoenix's `span_kind`.
    kind_hint: Option<String>,
    attrs: &'a Map<String, Value>,
    errored: bool,
    message: Option<&'a str>,
    events: &'a [(String, Map<String, Value>)],
    start_ns: Option<i128>,
    start: Option<String>,
    end: Option<String>,
}

impl SpanIn<'_> {
    fn attr(&self, key: &str) -> Option<&Value> {
        lookup(self.attrs, key).filter(|v| !v.is_null())
    }

    fn attr_str(&self, key: &str) -> Option<String> {
        self.attr(key).and_then(|v| str_of(Some(v))).filter(|s| !s.is_empty())
    }

    fn kind(&self) -> Kind {
        let op = self.attr_str("gen_ai.operation.name");
        let oi = self.attr_str("openinference.span.kind").or_else(|| self.kind_hint.clone());
        let oi = oi.as_deref().map(str::to_ascii_uppercase);
        if op.as_deref() == Some("execute_tool") || oi.as_deref() == Some("TOOL") {
            Kind::Tool
        } else if matches!(op.as_deref(), Some("invoke_agent" | "create_agent")) || oi.as_deref() == Some("AGENT") {
            Kind::Agent
        } else {
            Kind::Other
        }
    }

    fn build(self, source: usize) -> Span {
        let kind = self.kind();
        let session = self.attr_str("gen_ai.conversation.id").or_else(|| self.attr_str("session.id"));
        let tool = (kind == Kind::Tool).then(|| {
            let name = self
                .attr_str("gen_ai.tool.name")
                .or_else(|| self.attr_str("tool.name"))
                .or_else(|| {
                    let n = self.name.strip_prefix("execute_tool").unwrap_or(&self.name).trim();
                    (!n.is_empty()).then(|| n.to_string())
                })
                .unwrap_or_else(|| "(unnamed)".into());
            let exception = self.events.iter().find(|(n, _)| n == "exception");
            let error_type = self.attr_str("error.type");
            let flag = self.errored || error_type.is_some() || exception.is_some();
            let error = self
                .message
                .filter(|m| !m.is_empty())
                .map(str::to_string)
                .or_else(|| exception.and_then(|(_, a)| lookup(a, "exception.message")).map(text_of))
                .or(error_type);
            ToolPart {
                name,
                call_id: self
                    .attr_str("gen_ai.tool.call.id")
                    .or_else(|| self.attr_str("tool.id"))
                    .or_else(|| self.attr_str("tool_call.id")),
                input: self
                    .attr("gen_ai.tool.call.arguments")
                    .or_else(|| self.attr("input.value"))
                    .cloned()
                    .unwrap_or(Value::Null),
                result: self.attr("gen_ai.tool.call.result").or_else(|| self.attr("output.value")).map(text_of),
                flag,
                error,
                end: self.end.clone(),
            }
        });
        Span {
            trace: self.trace,
            id: self.id,
            parent: self.parent.filter(|p| !p.is_empty()),
            kind,
            session,
            start_ns: self.start_ns.unwrap_or(0),
            start: self.start,
            source,
            tool,
        }
    }
}

fn arr(v: Option<&Value>) -> impl Iterator<Item = &Value> {
    v.and_then(Value::as_array).into_iter().flatten()
}

/// A string, or a number as text.
fn str_of(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// A recorded value as text: a string as is, anything else as JSON.
fn text_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// OTLP attributes (`[{key, value: AnyValue}]`) as a flat map of plain JSON.
fn attributes(v: Option<&Value>) -> Map<String, Value> {
    let mut out = Map::new();
    for kv in arr(v) {
        if let Some(k) = kv.get("key").and_then(Value::as_str) {
            out.insert(k.to_string(), any_value(kv.get("value")));
        }
    }
    out
}

/// An OTLP `AnyValue` as plain JSON.
fn any_value(v: Option<&Value>) -> Value {
    let Some(Value::Object(o)) = v else { return Value::Null };
    if let Some(s) = o.get("stringValue") {
        return s.clone();
    }
    if let Some(i) = o.get("intValue") {
        return match i {
            Value::String(s) => s.parse::<i64>().map(Value::from).unwrap_or_else(|_| i.clone()),
            other => other.clone(),
        };
    }
    if let Some(x) = o.get("doubleValue").or_else(|| o.get("boolValue")).or_else(|| o.get("bytesValue")) {
        return x.clone();
    }
    if let Some(a) = o.get("arrayValue") {
        return Value::Array(arr(a.get("values")).map(|x| any_value(Some(x))).collect());
    }
    if let Some(kv) = o.get("kvlistValue") {
        return Value::Object(attributes(kv.get("values")));
    }
    Value::Null
}

/// A dotted attribute, whether stored flat (`"tool.name"`), nested
/// (`{"tool": {"name"}}`) or a mix of both.
fn lookup<'a>(m: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    if let Some(v) = m.get(key) {
        return Some(v);
    }
    let mut at = 0;
    while let Some(dot) = key[at..].find('.') {
        let split = at + dot;
        if let Some(Value::Object(inner)) = m.get(&key[..split])
            && let Some(v) = lookup(inner, &key[split + 1..])
        {
            return Some(v);
        }
        at = split + 1;
    }
    None
}

/// Nanoseconds since the epoch, as a decimal string or a number.
fn nanos(v: Option<&Value>) -> Option<i128> {
    let n = match v? {
        Value::String(s) => s.trim().parse::<i128>().ok()?,
        Value::Number(n) => n.as_u64().map(i128::from).or_else(|| n.as_f64().map(|f| f as i128))?,
        _ => return None,
    };
    (n > 0).then_some(n)
}

fn ns_time(ns: i128) -> String {
    let secs = ns.div_euclid(1_000_000_000) as i64;
    let sub = ns.rem_euclid(1_000_000_000) as u32;
    DateTime::<Utc>::from_timestamp(secs, sub)
        .map(|t| t.to_rfc3339_opts(SecondsFormat::AutoSi, true))
        .unwrap_or_default()
}

fn iso_ns(s: &str) -> Option<i128> {
    let t = crate::source::rows::iso_time(s)?;
    Some(i128::from(t.timestamp()) * 1_000_000_000 + i128::from(t.timestamp_subsec_nanos()))
}

/// An ISO time in UTC (`Z`), as the schema wants; other text is kept.
fn norm_time(s: &str) -> String {
    match crate::source::rows::iso_time(s) {
        Some(t) => t.to_rfc3339_opts(SecondsFormat::AutoSi, true),
        None => s.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn any_values_become_plain_json() {
        let attrs = attributes(Some(&json!([
            {"key": "s", "value": {"stringValue": "x"}},
            {"key": "i", "value": {"intValue": "42"}},
            {"key": "b", "value": {"boolValue": true}},
            {"key": "a", "value": {"arrayValue": {"values": [{"intValue": 1}, {"stringValue": "y"}]}}},
            {"key": "o", "value": {"kvlistValue": {"values": [{"key": "k", "value": {"doubleValue": 1.5}}]}}},
        ])));
        assert_eq!(Value::Object(attrs), json!({"s": "x", "i": 42, "b": true, "a": [1, "y"], "o": {"k": 1.5}}));
    }

    #[test]
    fn dotted_lookup_flat_nested_and_mixed() {
        let m = json!({"tool.name": "a", "output": {"value": "b"}, "llm": {"x.y": {"z": 1}}});
        let m = m.as_object().unwrap();
        assert_eq!(lookup(m, "tool.name"), Some(&json!("a")));
        assert_eq!(lookup(m, "output.value"), Some(&json!("b")));
        assert_eq!(lookup(m, "llm.x.y.z"), Some(&json!(1)));
        assert_eq!(lookup(m, "output.mime_type"), None);
    }

    #[test]
    fn times() {
        assert_eq!(ns_time(1_756_720_800_123_000_000), "2025-09-01T10:00:00.123Z");
        assert_eq!(nanos(Some(&json!("1756720800000000000"))), Some(1_756_720_800_000_000_000));
        assert_eq!(norm_time("2025-09-01T12:00:00+02:00"), "2025-09-01T10:00:00Z");
    }

    fn span(id: usize, parent: Option<usize>, kind: Kind, session: Option<&str>) -> Span {
        Span {
            trace: "t".into(),
            id: format!("{id:016x}"),
            parent: parent.map(|p| format!("{p:016x}")),
            kind,
            session: session.map(String::from),
            start_ns: id as i128,
            start: None,
            source: 0,
            tool: None,
        }
    }

    fn run_of(spans: Vec<Span>) -> Run {
        let index = spans.iter().enumerate().map(|(i, s)| ((s.trace.clone(), s.id.clone()), i)).collect();
        Run { spans, index, sources: vec![] }
    }

    /// The walk up the parent links, one step at a time (what the table
    /// held before), for acyclic traces.
    fn walked(run: &Run, i: usize) -> Above {
        let mut out = Above { session: run.spans[i].session.as_ref().map(|_| i), agents: vec![] };
        let mut at = i;
        loop {
            let s = &run.spans[at];
            let Some(&up) = s.parent.as_ref().and_then(|p| run.index.get(&(s.trace.clone(), p.clone()))) else { break };
            if out.session.is_none() && run.spans[up].session.is_some() {
                out.session = Some(up);
            }
            if run.spans[up].kind == Kind::Agent && out.agents.len() < MAX_AGENTS {
                out.agents.push(up);
            }
            at = up;
        }
        out
    }

    /// The resolved ancestry is the walk's, on a tree of agents, sessions
    /// and tools in an order that makes parents come after children.
    #[test]
    fn ancestries_are_the_walk_up() {
        let mut spans = Vec::new();
        for i in 0..300usize {
            let parent = (i < 299).then(|| 299 - (299 - i) / 2 + (i % 3)).filter(|&p| p > i && p < 300);
            let kind = if i % 4 == 0 {
                Kind::Agent
            } else if i % 4 == 1 {
                Kind::Tool
            } else {
                Kind::Other
            };
            let session = (i % 37 == 5).then_some("s");
            spans.push(span(i, parent, kind, session));
        }
        let run = run_of(spans);
        let (parent, above) = run.ancestries();
        for i in 0..run.spans.len() {
            let want = walked(&run, i);
            let got_agents = parent[i].map_or(vec![], |p| above[p].agents.clone());
            assert_eq!((above[i].session, got_agents), (want.session, want.agents), "span {i}");
        }
    }

    /// Issue 22, F19 (`gen_otel.py`): a parent chain, one cycle through
    /// every span, and spans that are their own parents are resolved in
    /// linear time (they were quadratic: 20,000 spans took 30–58 s). The
    /// timeout only detects a hang.
    #[test]
    fn long_chains_and_cycles_do_not_hang() {
        let n = 200_000;
        type ParentOf = fn(usize, usize) -> Option<usize>;
        let shapes: [(&str, ParentOf); 3] =
            [("chain", |i, _| i.checked_sub(1)), ("cycle", |i, n| Some((i + 1) % n)), ("self-parent", |i, _| Some(i))];
        for (name, parent_of) in shapes {
            let spans = (0..n)
                .map(|i| span(i, parent_of(i, n), if i % 2 == 0 { Kind::Agent } else { Kind::Tool }, None))
                .collect();
            let run = run_of(spans);
            let (tx, rx) = std::sync::mpsc::channel();
            std::thread::spawn(move || {
                let (_, above) = run.ancestries();
                let _ = tx.send(above.iter().map(|a| a.agents.len()).max());
            });
            let longest =
                rx.recv_timeout(std::time::Duration::from_secs(120)).unwrap_or_else(|_| panic!("{name} hangs"));
            assert!(longest.is_some_and(|m| m <= MAX_AGENTS), "{name}: {longest:?}");
        }
    }

    #[test]
    fn recognised_records() {
        assert!(Otel.recognise(&json!({"resourceSpans": []})));
        assert!(Otel.recognise(&json!({"context": {"trace_id": "t", "span_id": "s"}, "span_kind": "TOOL"})));
        assert!(Otel.recognise(&json!({"id": "o", "traceId": "t", "type": "TOOL", "startTime": "x"})));
        assert!(!Otel.recognise(&json!({"id": "m1", "type": "gemini"})), "Gemini");
        assert!(!Otel.recognise(&json!({"uuid": "u", "type": "user", "sessionId": "s"})), "Claude Code");
        let p = Path::new("x.json");
        assert!(Otel.recognise_document(p, &json!([{"id": "o", "trace_id": "t", "type": "SPAN"}])));
        assert!(Otel.recognise_document(p, &json!({"data": [{"context": {"span_id": "s"}, "attributes": {}}]})));
        assert!(!Otel.recognise_document(p, &json!({"sessionId": "s", "history": []})), "Continue");
    }
}
