//! Parquet: the `CallRow` columns, in the same order, as an Arrow schema
//! written through arrow-rs (`--features parquet`).
//!
//! Streaming: rows go into column builders, every `BATCH_ROWS` rows become a
//! record batch handed to the Parquet writer, which closes a row group every
//! `ROW_GROUP_ROWS` rows (or `ROW_GROUP_BYTES`), so memory stays flat
//! whatever the size of the export: one batch plus one encoded row group.
//!
//! Types: strings are Utf8, booleans Boolean, integers Int64 (Spark has no
//! unsigned 64-bit type, and DuckDB infers BIGINT from the NDJSON: the same
//! type from both files), `rules` a List of Utf8, `ts` a timestamp in
//! milliseconds, UTC, beside `ts_ms`. Nullable exactly where the JSON
//! contract allows null. Compression: Snappy, the one codec built in.

use std::io::Write;
use std::sync::Arc;

use arrow_array::builder::{
    BooleanBuilder, Float64Builder, Int64Builder, ListBuilder, StringBuilder, TimestampMillisecondBuilder,
};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef, TimeUnit};
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::metadata::KeyValue;
use parquet::file::properties::WriterProperties;

use super::{CallRow, EXPORT_VERSION, RowWriter};

/// Rows per record batch handed to the Parquet writer.
pub(crate) const BATCH_ROWS: usize = 4096;
/// Rows per row group.
pub(crate) const ROW_GROUP_ROWS: usize = 64 * 1024;
/// A row group closes earlier when its encoded data reaches this size.
pub(crate) const ROW_GROUP_BYTES: usize = 64 * 1024 * 1024;

fn item() -> Arc<Field> {
    Arc::new(Field::new("item", DataType::Utf8, false))
}

/// The Arrow schema of a `CallRow`: same columns, same order.
pub(crate) fn schema() -> SchemaRef {
    let text = |name: &str, nullable: bool| Field::new(name, DataType::Utf8, nullable);
    let int = |name: &str, nullable: bool| Field::new(name, DataType::Int64, nullable);
    let flag = |name: &str, nullable: bool| Field::new(name, DataType::Boolean, nullable);
    Arc::new(Schema::new(vec![
        text("source", false),
        text("format", false),
        text("agent", false),
        text("session", false),
        text("parent_session", true),
        int("seq", false),
        Field::new("ts", DataType::Timestamp(TimeUnit::Millisecond, Some("UTC".into())), true),
        int("ts_ms", true),
        text("tool", false),
        text("call_id", false),
        flag("paired", false),
        flag("flagged", false),
        flag("content_error", false),
        flag("hidden", false),
        flag("error", false),
        text("category", true),
        Field::new("rules", DataType::List(item()), false),
        text("template", true),
        int("result_bytes", true),
        int("recovered_after", true),
        flag("identical_retry", true),
        int("retries", true),
        int("lost_ms", true),
        text("model", true),
        int("input_tokens", true),
        int("output_tokens", true),
        int("cache_read_tokens", true),
        int("cache_write_tokens", true),
        int("reasoning_tokens", true),
        Field::new("cost_usd", DataType::Float64, true),
        int("failure_tokens", true),
    ]))
}

/// One column builder per `CallRow` field, in order.
struct Columns {
    source: StringBuilder,
    format: StringBuilder,
    agent: StringBuilder,
    session: StringBuilder,
    parent_session: StringBuilder,
    seq: Int64Builder,
    ts: TimestampMillisecondBuilder,
    ts_ms: Int64Builder,
    tool: StringBuilder,
    call_id: StringBuilder,
    paired: BooleanBuilder,
    flagged: BooleanBuilder,
    content_error: BooleanBuilder,
    hidden: BooleanBuilder,
    error: BooleanBuilder,
    category: StringBuilder,
    rules: ListBuilder<StringBuilder>,
    template: StringBuilder,
    result_bytes: Int64Builder,
    recovered_after: Int64Builder,
    identical_retry: BooleanBuilder,
    retries: Int64Builder,
    lost_ms: Int64Builder,
    model: StringBuilder,
    input_tokens: Int64Builder,
    output_tokens: Int64Builder,
    cache_read_tokens: Int64Builder,
    cache_write_tokens: Int64Builder,
    reasoning_tokens: Int64Builder,
    cost_usd: Float64Builder,
    failure_tokens: Int64Builder,
}

fn int(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

impl Columns {
    fn new() -> Self {
        Columns {
            source: StringBuilder::new(),
            format: StringBuilder::new(),
            agent: StringBuilder::new(),
            session: StringBuilder::new(),
            parent_session: StringBuilder::new(),
            seq: Int64Builder::new(),
            ts: TimestampMillisecondBuilder::new().with_timezone("UTC"),
            ts_ms: Int64Builder::new(),
            tool: StringBuilder::new(),
            call_id: StringBuilder::new(),
            paired: BooleanBuilder::new(),
            flagged: BooleanBuilder::new(),
            content_error: BooleanBuilder::new(),
            hidden: BooleanBuilder::new(),
            error: BooleanBuilder::new(),
            category: StringBuilder::new(),
            rules: ListBuilder::new(StringBuilder::new()).with_field(item()),
            template: StringBuilder::new(),
            result_bytes: Int64Builder::new(),
            recovered_after: Int64Builder::new(),
            identical_retry: BooleanBuilder::new(),
            retries: Int64Builder::new(),
            lost_ms: Int64Builder::new(),
            model: StringBuilder::new(),
            input_tokens: Int64Builder::new(),
            output_tokens: Int64Builder::new(),
            cache_read_tokens: Int64Builder::new(),
            cache_write_tokens: Int64Builder::new(),
            reasoning_tokens: Int64Builder::new(),
            cost_usd: Float64Builder::new(),
            failure_tokens: Int64Builder::new(),
        }
    }

    fn push(&mut self, r: &CallRow) {
        self.source.append_value(&r.source);
        self.format.append_value(&r.format);
        self.agent.append_value(&r.agent);
        self.session.append_value(&r.session);
        self.parent_session.append_option(r.parent_session.as_deref());
        self.seq.append_value(int(r.seq));
        self.ts.append_option(r.ts_ms);
        self.ts_ms.append_option(r.ts_ms);
        self.tool.append_value(&r.tool);
        self.call_id.append_value(&r.call_id);
        self.paired.append_value(r.paired);
        self.flagged.append_value(r.flagged);
        self.content_error.append_value(r.content_error);
        self.hidden.append_value(r.hidden);
        self.error.append_value(r.error);
        self.category.append_option(r.category.as_deref());
        for id in &r.rules {
            self.rules.values().append_value(id);
        }
        self.rules.append(true);
        self.template.append_option(r.template.as_deref());
        self.result_bytes.append_option(r.result_bytes.map(int));
        self.recovered_after.append_option(r.recovered_after.map(int));
        self.identical_retry.append_option(r.identical_retry);
        self.retries.append_option(r.retries.map(int));
        self.lost_ms.append_option(r.lost_ms.map(int));
        self.model.append_option(r.model.as_deref());
        self.input_tokens.append_option(r.input_tokens.map(int));
        self.output_tokens.append_option(r.output_tokens.map(int));
        self.cache_read_tokens.append_option(r.cache_read_tokens.map(int));
        self.cache_write_tokens.append_option(r.cache_write_tokens.map(int));
        self.reasoning_tokens.append_option(r.reasoning_tokens.map(int));
        self.cost_usd.append_option(r.cost_usd);
        self.failure_tokens.append_option(r.failure_tokens.map(int));
    }

    /// The rows so far as one batch; the builders start over.
    fn batch(&mut self, schema: &SchemaRef) -> Result<RecordBatch, arrow_schema::ArrowError> {
        let columns: Vec<ArrayRef> = vec![
            Arc::new(self.source.finish()),
            Arc::new(self.format.finish()),
            Arc::new(self.agent.finish()),
            Arc::new(self.session.finish()),
            Arc::new(self.parent_session.finish()),
            Arc::new(self.seq.finish()),
            Arc::new(self.ts.finish()),
            Arc::new(self.ts_ms.finish()),
            Arc::new(self.tool.finish()),
            Arc::new(self.call_id.finish()),
            Arc::new(self.paired.finish()),
            Arc::new(self.flagged.finish()),
            Arc::new(self.content_error.finish()),
            Arc::new(self.hidden.finish()),
            Arc::new(self.error.finish()),
            Arc::new(self.category.finish()),
            Arc::new(self.rules.finish()),
            Arc::new(self.template.finish()),
            Arc::new(self.result_bytes.finish()),
            Arc::new(self.recovered_after.finish()),
            Arc::new(self.identical_retry.finish()),
            Arc::new(self.retries.finish()),
            Arc::new(self.lost_ms.finish()),
            Arc::new(self.model.finish()),
            Arc::new(self.input_tokens.finish()),
            Arc::new(self.output_tokens.finish()),
            Arc::new(self.cache_read_tokens.finish()),
            Arc::new(self.cache_write_tokens.finish()),
            Arc::new(self.reasoning_tokens.finish()),
            Arc::new(self.cost_usd.finish()),
            Arc::new(self.failure_tokens.finish()),
        ];
        RecordBatch::try_new(schema.clone(), columns)
    }
}

/// Writes `CallRow`s to one Parquet file.
pub(crate) struct Writer<W: Write + Send> {
    schema: SchemaRef,
    columns: Columns,
    buffered: usize,
    inner: ArrowWriter<W>,
}

fn io(e: impl std::error::Error + Send + Sync + 'static) -> std::io::Error {
    std::io::Error::other(e)
}

impl<W: Write + Send> Writer<W> {
    pub(crate) fn new(out: W) -> std::io::Result<Self> {
        let schema = schema();
        let props = WriterProperties::builder()
            .set_compression(Compression::SNAPPY)
            .set_max_row_group_row_count(Some(ROW_GROUP_ROWS))
            .set_max_row_group_bytes(Some(ROW_GROUP_BYTES))
            .set_created_by(format!("falseok {}", env!("CARGO_PKG_VERSION")))
            .set_key_value_metadata(Some(vec![KeyValue::new(
                "falseok.export_version".to_string(),
                EXPORT_VERSION.to_string(),
            )]))
            .build();
        let inner = ArrowWriter::try_new(out, schema.clone(), Some(props)).map_err(io)?;
        Ok(Writer { schema, columns: Columns::new(), buffered: 0, inner })
    }

    pub(crate) fn write(&mut self, row: &CallRow) -> std::io::Result<()> {
        self.columns.push(row);
        self.buffered += 1;
        if self.buffered >= BATCH_ROWS {
            self.flush_batch()?;
        }
        Ok(())
    }

    fn flush_batch(&mut self) -> std::io::Result<()> {
        if self.buffered == 0 {
            return Ok(());
        }
        let batch = self.columns.batch(&self.schema).map_err(io)?;
        self.buffered = 0;
        self.inner.write(&batch).map_err(io)
    }

    /// Write what is buffered and the footer.
    pub(crate) fn finish(mut self) -> std::io::Result<()> {
        self.flush_batch()?;
        let mut out = self.inner.into_inner().map_err(io)?;
        out.flush()
    }
}

impl<W: Write + Send> RowWriter for Writer<W> {
    fn write(&mut self, row: &CallRow) -> std::io::Result<()> {
        Writer::write(self, row)
    }
    fn finish(self: Box<Self>) -> std::io::Result<()> {
        Writer::finish(*self)
    }
}
