//! `export`: one row per judged call, against its contract, and in
//! agreement with `scan` on every sample.

use crate::util::*;
use serde_json::Value;

fn rows(args: &[&str]) -> Vec<Value> {
    let out = run_in(root(), args);
    assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    stdout(&out).lines().map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"))).collect()
}

#[test]
fn rows_follow_the_contract_in_a_fixed_key_order() {
    let text = std::fs::read_to_string(root().join("schema/export-v3.schema.json")).unwrap();
    let schema: Value = serde_json::from_str(&text).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let order: Vec<&str> = schema["required"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    for sample in ["sample-traces/peri-postfix.db", "sample-traces/crush.db", "sample-traces/claude-code"] {
        let out = run_in(root(), &["export", sample]);
        for line in stdout(&out).lines() {
            let v: Value = serde_json::from_str(line).unwrap();
            let errors: Vec<String> = validator.iter_errors(&v).map(|e| e.to_string()).collect();
            assert!(errors.is_empty(), "{sample}: {errors:?}\n{line}");
            // serde_json's map keeps insertion order only with preserve_order;
            // read the keys off the text instead.
            let mut at = 0;
            for key in &order {
                let found =
                    line[at..].find(&format!("\"{key}\":")).unwrap_or_else(|| panic!("{key} out of order in {line}"));
                at += found;
            }
        }
    }
}

#[test]
fn export_counts_equal_scan_totals_on_every_sample() {
    for &sample in LOOP_SAMPLES.iter() {
        let report = json(&run_in(root(), &["scan", sample, "--format", "json"]));
        let t = &report["totals"];
        let rows = rows(&["export", sample]);
        let count = |k: &str| rows.iter().filter(|r| r[k] == true).count() as u64;
        assert_eq!(rows.len() as u64, t["calls"].as_u64().unwrap(), "{sample}: calls");
        assert_eq!(count("hidden"), t["hidden_errors"].as_u64().unwrap(), "{sample}: hidden");
        assert_eq!(count("flagged"), t["flagged_errors"].as_u64().unwrap(), "{sample}: flagged");
        assert_eq!(count("error"), t["errors"].as_u64().unwrap(), "{sample}: errors");
        assert_eq!(rows.iter().filter(|r| r["paired"] == false).count() as u64, t["unpaired_calls"].as_u64().unwrap());
    }
}

#[test]
fn filters_apply_and_partitions_are_hive_style_days() {
    let all = rows(&["export", "sample-traces/peri-postmortem.db"]);
    let edit = rows(&["export", "sample-traces/peri-postmortem.db", "--tool", "Edit"]);
    assert!(edit.iter().all(|r| r["tool"] == "Edit"));
    assert_eq!(edit.len(), all.iter().filter(|r| r["tool"] == "Edit").count());
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("calls");
    let o = run_in(root(), &["export", "sample-traces/crush.db", "--out", out.to_str().unwrap(), "--partition"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let days = listing(&out);
    assert!(!days.is_empty() && days.iter().all(|d| d.starts_with("date=")), "{days:?}");
    let mut n = 0;
    for d in &days {
        assert_eq!(listing(&out.join(d)), vec!["part-00000.ndjson"]);
        n += std::fs::read_to_string(out.join(d).join("part-00000.ndjson")).unwrap().lines().count();
    }
    assert_eq!(n, rows(&["export", "sample-traces/crush.db"]).len());
    // Never onto an input.
    let input = root().join("sample-traces/crush.db");
    let before = std::fs::read(&input).unwrap();
    let o = run_in(root(), &["export", "sample-traces/crush.db", "--out", "sample-traces/crush.db"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(std::fs::read(&input).unwrap(), before);
}

/// Without the `parquet` feature, `--format parquet` is a usage error that
/// says how to get it, and leaves no file behind.
#[cfg(not(feature = "parquet"))]
#[test]
fn parquet_without_the_feature_says_how_to_build_it() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("calls.parquet");
    let o =
        run_in(root(), &["export", "sample-traces/crush.db", "--format", "parquet", "--out", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--features parquet"), "{}", stderr(&o));
    assert!(!out.exists());
}

/// The Parquet file, read back with the parquet crate, as NDJSON-like rows:
/// the same keys in the same order, `ts` printed as the NDJSON prints it.
#[cfg(feature = "parquet")]
fn parquet_rows(path: &std::path::Path) -> Vec<Value> {
    use arrow_array::cast::AsArray;
    use arrow_array::types::{Float64Type, Int64Type, TimestampMillisecondType};
    use arrow_array::{Array, RecordBatch};
    use arrow_schema::{DataType, TimeUnit};
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

    let file = std::fs::File::open(path).unwrap();
    let reader = ParquetRecordBatchReaderBuilder::try_new(file).unwrap().build().unwrap();
    let cell = |column: &dyn Array, i: usize| -> Value {
        if column.is_null(i) {
            return Value::Null;
        }
        match column.data_type() {
            DataType::Utf8 => Value::from(column.as_string::<i32>().value(i)),
            DataType::Int64 => Value::from(column.as_primitive::<Int64Type>().value(i)),
            DataType::Boolean => Value::from(column.as_boolean().value(i)),
            DataType::Float64 => Value::from(column.as_primitive::<Float64Type>().value(i)),
            DataType::Timestamp(TimeUnit::Millisecond, Some(tz)) if tz.as_ref() == "UTC" => {
                let ms = column.as_primitive::<TimestampMillisecondType>().value(i);
                let t = chrono::DateTime::from_timestamp_millis(ms).unwrap();
                Value::from(t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true))
            }
            DataType::List(_) => {
                let items = column.as_list::<i32>().value(i);
                let items = items.as_string::<i32>();
                Value::from((0..items.len()).map(|j| items.value(j)).collect::<Vec<_>>())
            }
            other => panic!("unexpected column type {other}"),
        }
    };
    let mut rows = Vec::new();
    for batch in reader {
        let batch: RecordBatch = batch.unwrap();
        let schema = batch.schema();
        for i in 0..batch.num_rows() {
            let mut row = serde_json::Map::new();
            for (field, column) in schema.fields().iter().zip(batch.columns()) {
                row.insert(field.name().clone(), cell(column.as_ref(), i));
            }
            rows.push(Value::Object(row));
        }
    }
    rows
}

#[cfg(feature = "parquet")]
#[test]
fn parquet_holds_the_same_rows_and_values_as_ndjson() {
    let text = std::fs::read_to_string(root().join("schema/export-v3.schema.json")).unwrap();
    let contract: Value = serde_json::from_str(&text).unwrap();
    let order: Vec<&str> = contract["required"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    let dir = tempfile::tempdir().unwrap();
    for &sample in LOOP_SAMPLES.iter() {
        let out = dir.path().join(format!("{}.parquet", sample.replace('/', "_")));
        let o = run_in(root(), &["export", sample, "--format", "parquet", "--out", out.to_str().unwrap()]);
        assert!(o.status.success(), "{sample}: {}", stderr(&o));
        let expected = rows(&["export", sample]);
        let actual = parquet_rows(&out);
        assert_eq!(actual.len(), expected.len(), "{sample}: rows");
        assert!(!actual.is_empty(), "{sample}: no rows");
        for (a, e) in actual.iter().zip(&expected) {
            let keys: Vec<&str> = a.as_object().unwrap().keys().map(String::as_str).collect();
            assert_eq!(keys.len(), order.len(), "{sample}: columns");
            // serde_json's map sorts keys; the column order is checked on the schema below.
            assert_eq!(a, e, "{sample}: a row differs");
        }
    }
    // The column order is the contract's.
    let file = std::fs::File::open(dir.path().join("sample-traces_crush.db.parquet")).unwrap();
    let builder = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file).unwrap();
    let columns: Vec<&str> = builder.schema().fields().iter().map(|f| f.name().as_str()).collect();
    assert_eq!(columns, order);
    // Nullable exactly where the contract allows null.
    for field in builder.schema().fields() {
        let ty = &contract["properties"][field.name()]["type"];
        let nullable = ty.as_array().is_some_and(|t| t.iter().any(|v| v == "null"));
        assert_eq!(field.is_nullable(), nullable, "{}", field.name());
    }
    let meta = builder.metadata().file_metadata().key_value_metadata().unwrap();
    assert!(meta.iter().any(|kv| kv.key == "falseok.export_version" && kv.value.as_deref() == Some("3")));
}

#[cfg(feature = "parquet")]
#[test]
fn parquet_partitions_are_hive_style_days() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("calls");
    let sample = "sample-traces/peri-postmortem.db";
    let o = run_in(root(), &["export", sample, "--format", "parquet", "--out", out.to_str().unwrap(), "--partition"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let days = listing(&out);
    assert!(days.len() > 1 && days.iter().all(|d| d.starts_with("date=")), "{days:?}");
    let mut all = Vec::new();
    for d in &days {
        assert_eq!(listing(&out.join(d)), vec!["part-00000.parquet"]);
        for row in parquet_rows(&out.join(d).join("part-00000.parquet")) {
            let day = row["ts"].as_str().map_or("__HIVE_DEFAULT_PARTITION__", |ts| &ts[..10]);
            assert_eq!(&format!("date={day}"), d);
            all.push(row);
        }
    }
    let mut expected = rows(&["export", sample]);
    let key = |r: &Value| (r["source"].to_string(), r["session"].to_string(), r["seq"].as_u64().unwrap());
    all.sort_by_key(key);
    expected.sort_by_key(key);
    assert_eq!(all, expected);
}

#[test]
fn partitions_go_into_an_existing_folder_but_never_onto_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("calls");
    for _ in 0..2 {
        let o = run_in(root(), &["export", "sample-traces/crush.db", "--out", out.to_str().unwrap(), "--partition"]);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let file = dir.path().join("file.ndjson");
    std::fs::write(&file, "x").unwrap();
    let o = run_in(root(), &["export", "sample-traces/crush.db", "--out", file.to_str().unwrap(), "--partition"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "x");
}

/// `--incremental`: across runs that add sessions, grow one, delete some
/// and lose a file, the dataset holds exactly the calls one scan counts,
/// each once; unchanged sources are not written again.
#[test]
fn an_incremental_export_neither_loses_nor_doubles_a_row() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let db = d.join("peri.db");
    std::fs::copy(root().join("sample-traces/peri-postmortem.db"), &db).unwrap();
    let folder = d.join("claude");
    copy_tree(&root().join("sample-traces/claude-code"), &folder);
    // Dated 10 s back (a file changed within 2 s of a read is read again),
    // but later than the last time: a change shows in the time, as it does.
    let age = |p: &std::path::Path| {
        let old = std::time::SystemTime::now() - std::time::Duration::from_secs(10);
        let all = if p.is_dir() { tree(p).into_iter().map(|f| p.join(f)).collect() } else { vec![p.to_path_buf()] };
        for f in all.iter().filter(|f| f.is_file()) {
            std::fs::File::options().append(true).open(f).unwrap().set_modified(old).unwrap();
        }
    };
    age(&db);
    age(&folder);
    let sql = |q: &str| {
        rusqlite::Connection::open(&db).unwrap().execute_batch(q).unwrap();
        age(&db);
    };
    let (db_s, folder_s) = (db.to_str().unwrap(), folder.to_str().unwrap());
    let export = || {
        let o = run_in(d, &["export", db_s, folder_s, "--out", "ds", "--partition", "--incremental"]);
        assert!(o.status.success(), "{}", stderr(&o));
        stderr(&o)
    };
    let check = |what: &str| {
        let scan = json(&run_in(d, &["scan", db_s, folder_s, "--format", "json", "--no-index"]));
        let mut rows = Vec::new();
        for f in tree(&d.join("ds")).iter().filter(|f| f.ends_with(".ndjson")) {
            let text = std::fs::read_to_string(d.join("ds").join(f)).unwrap();
            rows.extend(text.lines().map(|l| serde_json::from_str::<Value>(l).unwrap()));
        }
        let keys: std::collections::BTreeSet<String> =
            rows.iter().map(|r| format!("{} {} {} {}", r["source"], r["session"], r["call_id"], r["seq"])).collect();
        assert_eq!(keys.len(), rows.len(), "{what}: a row twice");
        assert_eq!(rows.len() as u64, scan["totals"]["calls"].as_u64().unwrap(), "{what}: rows");
        let hidden = rows.iter().filter(|r| r["hidden"] == true).count() as u64;
        assert_eq!(hidden, scan["totals"]["hidden_errors"].as_u64().unwrap(), "{what}: hidden");
    };
    let busiest = "(SELECT thread_id FROM messages GROUP BY thread_id ORDER BY count(*) DESC, thread_id LIMIT 1)";
    assert!(export().contains("(2 of 2 sources read"));
    check("first export");
    let files = tree(&d.join("ds"));
    assert!(files.iter().any(|f| f == "_falseok_export.json"), "{files:?}");
    // Nothing new: nothing read, nothing written.
    assert!(export().contains("exported 0 new calls") && tree(&d.join("ds")) == files);
    check("unchanged");
    // A new session: only its rows, in new files; the others stay as they were.
    sql(&format!(
        "INSERT INTO threads (id, title, cwd, created_at, updated_at) SELECT id || '-new', 'new', cwd,
           '2026-12-01T00:00:00Z', '2026-12-01T00:00:00Z' FROM threads WHERE id = {busiest};
         INSERT INTO messages (message_id, thread_id, role, content) SELECT message_id || '-new',
           thread_id || '-new', role, content FROM messages WHERE thread_id = {busiest} ORDER BY rowid;"
    ));
    let said = export();
    assert!(said.contains("(1 of 2 sources read"), "{said}");
    let after = tree(&d.join("ds"));
    assert!(files.iter().all(|f| after.contains(f)), "the earlier files stay");
    check("a new session");
    // An old session goes on: the database is exported again, its old files removed.
    sql("INSERT INTO messages (message_id, thread_id, role, content) SELECT message_id || '-again', thread_id, role,
           content FROM messages WHERE rowid = (SELECT max(rowid) FROM messages WHERE role = 'tool'
           AND thread_id NOT LIKE '%-new')");
    export();
    check("a session that went on");
    // Sessions deleted (rows gone from pages that stay in use).
    sql(&format!(
        "DELETE FROM messages WHERE rowid IN (SELECT rowid FROM messages WHERE thread_id = {busiest} LIMIT 3)"
    ));
    export();
    check("rows deleted");
    // A transcript appended to and a new one: the folder is exported again.
    let first = tree(&folder).into_iter().find(|f| f.ends_with(".jsonl")).unwrap();
    let text = std::fs::read_to_string(folder.join(&first)).unwrap();
    std::fs::write(
        folder.join("another.jsonl"),
        text.replace("\"sessionId\": \"", "\"sessionId\": \"x").replace("\"u-", "\"xu-"),
    )
    .unwrap();
    age(&folder);
    export();
    check("a new transcript");
    // A file of the dataset lost: its source is exported again whole.
    let part = tree(&d.join("ds")).into_iter().find(|f| f.ends_with(".ndjson")).unwrap();
    std::fs::remove_file(d.join("ds").join(&part)).unwrap();
    export();
    check("a lost file");
    // A run that stopped after putting a file in place, before its manifest:
    // the file it named as pending goes.
    let manifest = d.join("ds/_falseok_export.json");
    let mut m: Value = serde_json::from_str(&std::fs::read_to_string(&manifest).unwrap()).unwrap();
    let extra = "date=2026-12-01/part-ffffffffffffffff-00000.ndjson";
    let some = tree(&d.join("ds")).into_iter().find(|f| f.ends_with(".ndjson")).unwrap();
    std::fs::create_dir_all(d.join("ds/date=2026-12-01")).unwrap();
    std::fs::copy(d.join("ds").join(&some), d.join("ds").join(extra)).unwrap();
    m["pending"] = serde_json::json!([extra]);
    std::fs::write(&manifest, serde_json::to_string(&m).unwrap()).unwrap();
    export();
    assert!(!d.join("ds").join(extra).exists());
    check("a stopped run");
    // Another format or other options: refused, nothing written.
    let o = run_in(d, &["export", db_s, "--out", "ds", "--partition", "--incremental", "--tool", "Edit"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("other options"), "{}", stderr(&o));
    check("refused");
}

/// Issue 55, D1: the manifest of an `--incremental` export is a list of
/// files the next run removes. One that names anything but a partition
/// file falseok wrote in the dataset (a path out of it, an absolute path,
/// an input, a link or hard link to one, a partition folder that links into
/// an input folder, a file that is not an export) is refused in one line,
/// exit 2, and nothing is removed, in `parts` (removed after a change) as
/// in `pending` (removed first thing).
#[test]
fn an_incremental_export_removes_only_the_files_it_wrote() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    copy_tree(&root().join("sample-traces/claude-code"), &d.join("src"));
    let input = d.join("src/-home-u-proj/agent-b2.jsonl");
    std::fs::write(d.join("victim.txt"), "precious").unwrap();
    let export = || run_in(d, &["export", "src", "--out", "out/ds", "--partition", "--incremental"]);
    let o = export();
    assert!(o.status.success(), "{}", stderr(&o));
    let manifest = d.join("out/ds/_falseok_export.json");
    let good: Value = serde_json::from_str(&std::fs::read_to_string(&manifest).unwrap()).unwrap();
    let part = good["sources"][0]["parts"][0].as_str().unwrap().to_string();
    let (day, name) = part.split_once('/').unwrap();
    // A well-formed name of another run in a folder that links to the input
    // folder; in the dataset, well-formed names that are not its exports.
    let other = name.replacen("-00000.", "-90007.", 1);
    std::os::unix::fs::symlink(d.join("src/-home-u-proj"), d.join("out/ds/date=1999-01-01")).unwrap();
    std::fs::copy(&input, d.join("src/-home-u-proj").join(&other)).unwrap();
    let at = |n: u32| format!("{day}/{}", name.replacen("-00000.", &format!("-9000{n}."), 1));
    std::os::unix::fs::symlink(&input, d.join("out/ds").join(at(1))).unwrap();
    std::fs::hard_link(&input, d.join("out/ds").join(at(2))).unwrap();
    std::fs::write(d.join("out/ds").join(at(3)), "my notes\n").unwrap();
    let victim = d.join("victim.txt").display().to_string();
    let not_ours = "not the name of one of its partition files";
    let hostile = [
        ("../../victim.txt".to_string(), not_ours),
        (victim.clone(), not_ours),
        (input.display().to_string(), not_ours),
        ("../../src/-home-u-proj/agent-b2.jsonl".into(), not_ours),
        (format!("{day}/../../../victim.txt"), not_ours),
        (format!("{day}/part-0123456789abcdef-00000.ndjson/../../../../victim.txt"), not_ours),
        (format!("date=1999-01-01/{other}"), "partition folder is a link"),
        (at(1), "a link or not a regular file"),
        (at(2), "is a hard link to"),
        (at(3), "is not a falseok export"),
    ];
    let before = tree(d);
    for (n, (bad, why)) in hostile.iter().enumerate() {
        for list in ["parts", "pending"] {
            let mut m = good.clone();
            match list {
                "parts" => m["sources"][0]["parts"].as_array_mut().unwrap().push(bad.as_str().into()),
                _ => m["pending"] = serde_json::json!([bad]),
            }
            std::fs::write(&manifest, serde_json::to_string(&m).unwrap()).unwrap();
            // A change: the next run exports the folder again and retires its parts.
            let mut f = std::fs::File::options().append(true).open(&input).unwrap();
            std::io::Write::write_all(&mut f, format!("{{\"type\":\"summary\",\"leafUuid\":\"z{n}\"}}\n").as_bytes())
                .unwrap();
            let o = export();
            let err = stderr(&o);
            assert_eq!(o.status.code(), Some(2), "{list} {bad}: {err}");
            assert_eq!(err.lines().count(), 1, "{list} {bad}: {err}");
            assert!(err.contains("_falseok_export.json: names") && err.contains("removed nothing"), "{err}");
            assert!(err.contains(why), "{list} {bad}: {err}");
            let now = tree(d);
            let gone: Vec<&String> = before.iter().filter(|f| !now.contains(f)).collect();
            assert!(gone.is_empty(), "{list} {bad}: removed {gone:?}");
            assert_eq!(std::fs::read_to_string(d.join("victim.txt")).unwrap(), "precious");
        }
    }
    // The manifest as falseok wrote it: the change is exported, the old
    // parts replaced.
    std::fs::write(&manifest, serde_json::to_string(&good).unwrap()).unwrap();
    for f in [at(1), at(2), at(3)] {
        std::fs::remove_file(d.join("out/ds").join(f)).unwrap();
    }
    std::fs::remove_file(d.join("out/ds/date=1999-01-01")).unwrap();
    let o = export();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!d.join("out/ds").join(&part).exists(), "the earlier part is replaced");
}
