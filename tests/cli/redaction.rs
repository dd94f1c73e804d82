//! Redaction everywhere: a trace full of secrets, run through every
//! renderer (every section) and the drill-down commands; none may leak,
//! and `--no-redact` shows them (so the test can fail).

use crate::util::*;

pub(crate) const SECRETS: &[&str] =
    &["sk-proj-AAAAAAAAAAAAAAAAAAAAAAAA", "supersecret123", "AKIAABCDEFGHIJKLMNOP", "abcdefghijklmnop1234"];

/// A Peri database whose error texts, arguments and accepted enum values
/// carry secrets: hidden errors, a guard-blind streak, feedback rows and an
/// enum-too-narrow drift.
pub(crate) fn secret_db(dir: &std::path::Path) {
    let mut sql = String::from(
        "CREATE TABLE threads (id TEXT PRIMARY KEY, title TEXT, cwd TEXT NOT NULL DEFAULT '', created_at TEXT NOT NULL,
           updated_at TEXT NOT NULL, message_count INTEGER NOT NULL DEFAULT 0, parent_thread_id TEXT);
         CREATE TABLE messages (message_id TEXT PRIMARY KEY, thread_id TEXT NOT NULL, role TEXT NOT NULL, content TEXT NOT NULL);
         INSERT INTO threads (id, title, created_at, updated_at) VALUES ('t1', 's', '2026-06-01T10:00:00+00:00', '2026-06-01T10:00:00+00:00');\n",
    );
    let mut n = 0;
    let mut msg = |role: &str, body: String| {
        n += 1;
        let id = format!("019e82a0-3d00-7000-8000-{n:012}");
        sql.push_str(&format!(
            "INSERT INTO messages VALUES ('{id}', 't1', '{role}', '{}');\n",
            body.replace('\'', "''")
        ));
    };
    for i in 0..6 {
        let call = format!("c{i}");
        msg(
            "assistant",
            format!(
                r#"{{"role":"assistant","content":[{{"type":"tool_use","id":"{call}","name":"Bash","input":{{"command":"curl -H \"Authorization: Bearer abcdefghijklmnop1234\" https://x"}}}}]}}"#
            ),
        );
        msg(
            "tool",
            format!(
                r#"{{"role":"tool","tool_call_id":"{call}","content":"Error: auth failed for token=supersecret123 key sk-proj-AAAAAAAAAAAAAAAAAAAAAAAA","is_error":false}}"#
            ),
        );
    }
    for i in 0..2 {
        let call = format!("l{i}");
        msg(
            "assistant",
            format!(
                r#"{{"role":"assistant","content":[{{"type":"tool_use","id":"{call}","name":"Lookup","input":{{"id":"1","mode":"AKIAABCDEFGHIJKLMNOP"}}}}]}}"#
            ),
        );
        msg("tool", format!(r#"{{"role":"tool","tool_call_id":"{call}","content":"found","is_error":false}}"#));
    }
    db_from_sql(dir, "secrets.db", &sql);
}

fn leaks(text: &str) -> Vec<&'static str> {
    SECRETS.iter().copied().filter(|s| text.contains(s)).collect()
}

#[test]
fn no_renderer_and_no_section_shows_a_secret() {
    let dir = tempfile::tempdir().unwrap();
    secret_db(dir.path());
    let schemas = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/schema_tools.json");
    let mut runs: Vec<Vec<&str>> = Vec::new();
    for cmd in ["scan", "check"] {
        for format in ["table", "json", "markdown", "csv", "github", "junit", "html"] {
            runs.push(vec![
                cmd,
                "secrets.db",
                "--tool-schemas",
                schemas,
                "--format",
                format,
                "--streak-threshold",
                "3",
            ]);
        }
    }
    runs.push(vec!["examples", "secrets.db", "--category", "other", "--tool-schemas", schemas]);
    runs.push(vec!["show", "t1", "secrets.db", "--tool-schemas", schemas]);
    runs.push(vec!["show", "t1", "secrets.db", "--call", "c0"]);
    let mut sections_seen = 0;
    for args in &runs {
        let out = run_in(dir.path(), args);
        assert!(out.status.code() != Some(2), "{args:?}: {}", stderr(&out));
        let text = format!("{}{}", stdout(&out), stderr(&out));
        assert_eq!(leaks(&text), Vec::<&str>::new(), "{args:?} leaks:\n{text}");
        // The sections that carry trace text are there to be checked.
        if args[0] == "scan" && args.contains(&"json") {
            let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
            assert!(v["findings"].as_array().unwrap().iter().any(|f| f["rule"] == "guard-blind-streak"), "{v}");
            assert!(!v["feedback"].as_array().unwrap().is_empty());
            assert!(v["schema"]["drift"].as_array().unwrap().iter().any(|d| d["rule"] == "enum-too-narrow"), "{v}");
            sections_seen += 1;
        }
        if args[0] == "scan" && args.contains(&"table") {
            assert!(text.contains("[REDACTED"), "the table shows the redacted messages:\n{text}");
        }
    }
    assert_eq!(sections_seen, 1);
    // And the secrets are there to leak: --no-redact shows them.
    let out = run_in(dir.path(), &["scan", "secrets.db", "--tool-schemas", schemas, "--format", "json", "--no-redact"]);
    assert_eq!(leaks(&stdout(&out)).len(), 3, "{}", stdout(&out));
}

/// Secrets of every shape the redactor promises (docs/security.md):
/// (what, the secret, a part of it that must never be shown).
const SHAPES: &[(&str, &str, &str)] = &[
    ("aws-access-key", "AKIAQ4TL22EXAMPLEXYZ", "Q4TL22EXAMPLE"),
    ("aws-secret", "aws_secret_access_key=Tl22AwsSecretQwErTyUiOpAsDfGhJkLzXcVbNm", "Tl22AwsSecret"),
    ("aws-secret-env", "AWS_SECRET_ACCESS_KEY=Tl22EnvSecretQwErTyUiOpAsDf", "Tl22EnvSecret"),
    ("ghp", "ghp_Tl22GhpTokQwErTyUiOpAsDfGhJkLzXcVbNm12", "Tl22GhpTok"),
    (
        "github-pat",
        "github_pat_11TL22AAA0123456789abcdef_Tl22FinePatQwErTyUiOpAsDfGhJkLzXcVbNm0123456789abcdefghijk",
        "Tl22FinePat",
    ),
    ("openai", "sk-proj-Tl22OpenAiQwErTyUiOpAsDfGhJk", "Tl22OpenAi"),
    ("anthropic", "sk-ant-api03-Tl22AnthropicQwErTyUiOpAsDf-AAAA", "Tl22Anthropic"),
    ("jwt", "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ0bDIyIn0.Tl22JwtSignatureQwErTyUiOp", "Tl22JwtSignature"),
    (
        "private-key",
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEATl22PrivateKeyBody\n-----END RSA PRIVATE KEY-----",
        "Tl22PrivateKeyBody",
    ),
    ("url-password", "https://deploy:Tl22UrlPass@git.example.com/repo", "Tl22UrlPass"),
    ("mysql-url", "mysql://root:Tl22MyPass@127.0.0.1:3306/db", "Tl22MyPass"),
    ("slack-bot", "xoxb-2345678901-2345678901-Tl22SlackBotQwErTy", "Tl22SlackBot"),
    ("slack-webhook", "https://hooks.slack.com/services/T0TL22AAA/B0TL22BBB/Tl22HookQwErTyUiOpAsDf", "Tl22Hook"),
    ("passwd", "passwd=Tl22Passwd99", "Tl22Passwd"),
    ("bearer", "Authorization: Bearer Tl22BearerQwErTyUiOp", "Tl22Bearer"),
    ("google", "AIzaSyTl22GoogleKeyQwErTyUiOpAsDfGhJkLz", "Tl22GoogleKey"),
    ("stripe", "rk_live_Tl22StripeQwErTyUiOp", "Tl22Stripe"),
    ("db-password-env", "POSTGRES_PASSWORD=Tl22PgEnvPw", "Tl22PgEnvPw"),
    ("hugging-face", "hf_Tl22HuggingQwErTyUiOpAsDfGhJkLzXcVb", "Tl22Hugging"),
    ("npm", "npm_Tl22NpmTokQwErTyUiOpAsDfGhJkLzXcVbNm", "Tl22NpmTok"),
    ("gitlab", "glpat-Tl22GitlabQwErTyUiOp", "Tl22Gitlab"),
    ("json-api-key", "{\"api_key\": \"Tl22JsonApiKey\"}", "Tl22JsonApiKey"),
    ("secret-in-name", "SECRET_KEY_BASE=Tl22KeyBaseQwErTyUiOp", "Tl22KeyBase"),
    ("password-with-amp", "DB_PASSWORD=Tl22Amp&Tl22AmpTail", "Tl22AmpTail"),
    ("quoted-with-space", "password: \"Tl22Quoted words here\"", "words here"),
    ("groq", "gsk_Tl22GroqQwErTyUiOpAsDfGhJkLzXcVbNm0123", "Tl22Groq"),
    ("xai", "xai-Tl22XaiQwErTyUiOpAsDfGhJkLzXcVbNm0123", "Tl22Xai"),
    ("stripe-webhook", "whsec_Tl22WebhookQwErTyUiOpAsDf", "Tl22Webhook"),
    ("vault", "hvs.Tl22VaultQwErTyUiOpAsDfGhJkLz", "Tl22Vault"),
];

fn shape_leaks(data: &[u8]) -> Vec<&'static str> {
    let text = String::from_utf8_lossy(data);
    SHAPES.iter().filter(|(_, _, core)| text.contains(core)).map(|(name, _, _)| *name).collect()
}

/// The first `n` characters of `s`.
fn head(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}

/// An owned `FxCall`: tool, arguments, result text, flag, call id.
type OwnedCall = (String, serde_json::Value, String, bool, String);

/// One session per channel a secret can reach a report through (issue 22,
/// `gen_secret_channels.py`), and one session per secret named after it.
fn channel_sessions() -> Vec<(String, Vec<OwnedCall>)> {
    let mut sessions = Vec::new();
    let channel = |name: &str, f: &dyn Fn(usize, &str) -> Vec<OwnedCall>| {
        let calls: Vec<_> = SHAPES.iter().enumerate().flat_map(|(k, (_, s, _))| f(k, s)).collect();
        (name.to_string(), calls)
    };
    let plain = |k: usize| (format!("tool_{k}"), serde_json::json!({"command": "deploy"}));
    sessions.push(channel("result-hidden", &|k, s| {
        let (t, i) = plain(k);
        vec![(t, i, format!("Error: authentication failed for {s}"), false, format!("rh{k}"))]
    }));
    sessions.push(channel("result-flagged", &|k, s| {
        let (t, i) = plain(k);
        vec![(t, i, format!("request refused: {s}"), true, format!("rf{k}"))]
    }));
    sessions.push(channel("result-line2", &|k, s| {
        let (t, i) = plain(k);
        vec![(t, i, format!("Error: deploy failed\nusing {s}\n{s}"), false, format!("rl{k}"))]
    }));
    sessions.push(channel("result-cut", &|k, s| {
        let (t, i) = plain(k);
        vec![(t, i, format!("Error: {} {s} and more after the key", "w".repeat(139)), false, format!("rc{k}"))]
    }));
    sessions.push(channel("input", &|k, s| {
        let input = serde_json::json!({"command": format!("deploy --token {s}"), "env": {"X": s}, "raw": s});
        vec![(format!("tool_{k}"), input, "Error: deploy failed".to_string(), false, format!("in{k}"))]
    }));
    sessions.push(channel("tool-name", &|k, s| {
        vec![(head(s, 64), serde_json::json!({}), "Error: deploy failed".to_string(), false, format!("tn{k}"))]
    }));
    sessions.push(channel("call-id", &|k, s| {
        let (t, i) = plain(k);
        vec![(t, i, "Error: deploy failed".to_string(), false, format!("toolu_{}", head(s, 64)))]
    }));
    sessions.push(channel("streak", &|k, s| {
        (0..6)
            .map(|j| {
                let (t, i) = plain(k);
                (t, i, format!("Error: login with {s} failed"), false, format!("st{k}_{j}"))
            })
            .collect()
    }));
    for (k, (_, s, _)) in SHAPES.iter().enumerate() {
        let (t, i) = plain(k);
        sessions.push((
            format!("sess-{k}-{}", head(s, 60)),
            vec![(t, i, "Error: failed".to_string(), false, format!("sid{k}"))],
        ));
    }
    sessions
}

/// Issue 22, F7–F11: every secret shape, through every channel (result
/// text, its later lines, the 160-character cut, arguments, tool names,
/// call ids, session ids, file names, streaks), reaches no output of any
/// command: scan in every format, check, examples, show, export, merge,
/// `--summary` and baselines. `--no-redact` shows them, so it can fail.
#[test]
fn every_secret_shape_through_every_channel_and_command() {
    let dir = tempfile::tempdir().unwrap();
    let sessions = channel_sessions();
    let borrowed: Vec<(&str, Vec<FxCall>)> = sessions
        .iter()
        .map(|(id, calls)| {
            (
                id.as_str(),
                calls.iter().map(|(t, i, x, f, c)| (t.as_str(), i.clone(), x.as_str(), *f, c.as_str())).collect(),
            )
        })
        .collect();
    peri_db(dir.path(), "secrets.db", &borrowed);
    // File names: one small database per secret, named after it.
    let mut paths = vec!["secrets.db".to_string()];
    for (k, (_, s, _)) in SHAPES.iter().enumerate() {
        let name = format!("f{k}-{}.db", head(&s.replace(['/', '\n'], "_"), 100));
        peri_db(dir.path(), &name, &[("one", vec![("Bash", serde_json::json!({}), "Error: failed", false, "c1")])]);
        paths.push(name);
    }
    let paths: Vec<&str> = paths.iter().map(String::as_str).collect();
    let with = |head: &[&str], tail: &[&str]| -> Vec<String> {
        head.iter().chain(&paths).chain(tail).map(|s| s.to_string()).collect()
    };
    let mut runs: Vec<Vec<String>> = Vec::new();
    for format in ["table", "json", "markdown", "csv", "github", "junit", "html"] {
        runs.push(with(&["scan"], &["--format", format, "--color", "never"]));
    }
    for format in ["table", "github", "junit", "markdown", "html"] {
        runs.push(with(&["check"], &["--format", format, "--color", "never"]));
    }
    runs.push(with(&["scan"], &["--summary", "s.md", "--format", "json"]));
    runs.push(with(&["check"], &["--write-baseline", "b.json"]));
    runs.push(with(&["export"], &[]));
    runs.push(with(&["export"], &["--out", "x.ndjson"]));
    let report =
        run_in(dir.path(), &with(&["scan"], &["--format", "json"]).iter().map(String::as_str).collect::<Vec<_>>());
    let report: serde_json::Value = serde_json::from_slice(&report.stdout).unwrap();
    for c in report["categories"].as_array().unwrap() {
        runs.push(with(&["examples"], &["--category", c["category"].as_str().unwrap(), "--limit", "1000"]));
    }
    // Every session; in full, the first and last call of each channel and
    // (by its id as written) one call of the call-id channel. `examples`
    // above printed every call in full already.
    for (id, calls) in &sessions {
        runs.push(vec!["show".into(), id.clone(), "secrets.db".into()]);
        if !id.starts_with("sess-") {
            for n in [1, calls.len()] {
                runs.push(vec!["show".into(), id.clone(), "secrets.db".into(), "--call".into(), n.to_string()]);
            }
        }
        if id == "call-id" {
            runs.push(vec!["show".into(), id.clone(), "secrets.db".into(), "--call".into(), calls[3].4.clone()]);
        }
    }
    // merge, of a report made with --no-redact.
    let open = run_in(
        dir.path(),
        &with(&["scan"], &["--format", "json", "--no-redact"]).iter().map(String::as_str).collect::<Vec<_>>(),
    );
    std::fs::write(dir.path().join("open.json"), &open.stdout).unwrap();
    for format in ["json", "table", "markdown", "csv"] {
        runs.push(["merge", "open.json", "--format", format, "--color", "never"].map(String::from).to_vec());
    }
    for args in &runs {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = run_in(dir.path(), &args);
        assert!(matches!(out.status.code(), Some(0 | 1)), "{args:?}: {}", stderr(&out));
        let mut all = out.stdout.clone();
        all.extend_from_slice(&out.stderr);
        assert_eq!(shape_leaks(&all), Vec::<&str>::new(), "{:?} leaks", &args[..args.len().min(3)]);
    }
    for file in ["s.md", "b.json", "x.ndjson"] {
        let data = std::fs::read(dir.path().join(file)).unwrap();
        assert!(!data.is_empty(), "{file}");
        assert_eq!(shape_leaks(&data), Vec::<&str>::new(), "{file} leaks");
    }
    // A session id as reports show it, redacted, is found by `show` too.
    let shown = run_in(dir.path(), &["show", "sess-0-AKIA[REDACTED]", "secrets.db"]);
    assert!(shown.status.success() && stdout(&shown).contains("session sess-0-AKIA[REDACTED]"), "{}", stderr(&shown));
    // The secrets are there to leak: --no-redact shows every one of them,
    // and merge --no-redact keeps what the report carried.
    assert_eq!(shape_leaks(&open.stdout).len(), SHAPES.len(), "{}", stdout(&open));
    let kept = run_in(dir.path(), &["merge", "open.json", "--format", "json", "--no-redact"]);
    assert_eq!(shape_leaks(&kept.stdout).len(), SHAPES.len());
}
