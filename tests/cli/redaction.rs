//! Redaction everywhere: a trace full of secrets, run through every
//! renderer (every section) and the drill-down commands; none may leak,
//! and `--no-redact` shows them (so the test can fail).

use std::path::Path;

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
    // Issue 55, D5: names glued, camelCase and kebab, by what they mean.
    ("glued-name", "PGPASSWORD=Tl55PgGlued0 psql -h db", "Tl55PgGlued"),
    ("camel-name", "clientSecret=Tl55ClientSecretCamel", "Tl55ClientSecret"),
    ("json-camel", r#"{"accessToken": "Tl55AccessTokJson", "expiresIn": 3600}"#, "Tl55AccessTok"),
    ("npmrc", "//registry.npmjs.org/:_authToken=Tl55NpmrcAuth-0123", "Tl55NpmrcAuth"),
    (
        "azure-service-bus",
        "Endpoint=sb://x.servicebus.windows.net/;SharedAccessKeyName=Root;SharedAccessKey=Tl55SbShared0123=",
        "Tl55SbShared",
    ),
    ("glued-secret-key", "SECRETKEY=Tl55SecretKeyGlued", "Tl55SecretKeyGlued"),
    ("kebab-header", "x-api-key: Tl55KebabApiKey0123", "Tl55KebabApi"),
    ("aws-json-camel", r#"{"SecretAccessKey": "Tl55AwsCamelKey", "SessionToken": "Tl55AwsSessTok"}"#, "Tl55Aws"),
    // D12: headers of any scheme, cookies, commands, provider shapes.
    ("cookie", "Cookie: sessionid=Tl55CookieSess0123; csrftoken=Tl55CookieCsrf", "Tl55Cookie"),
    ("set-cookie", "Set-Cookie: __Host-sid=Tl55SetCookie0123; Path=/; HttpOnly", "Tl55SetCookie"),
    ("auth-token-scheme", "Authorization: Token Tl55AuthTokenScheme", "Tl55AuthTokenScheme"),
    ("auth-apikey-scheme", "authorization: ApiKey Tl55AuthApiKeyScheme", "Tl55AuthApiKey"),
    ("azure-sas", "https://a.blob.core.windows.net/c/b?sv=2022-11-02&sp=r&sig=Tl55SasSig0123%3D", "Tl55SasSig"),
    ("mysql-p", "mysql -uroot -pTl55MysqlPw0123 app", "Tl55MysqlPw"),
    ("sshpass", "sshpass -p Tl55SshpassPw ssh root@h", "Tl55SshpassPw"),
    ("telegram", "/bot123456789:AAHTl55TelegramBot0123456789abcdefg/getMe", "Tl55TelegramBot"),
    ("mailgun", "key-tl55mailgun0123456789abcdefghijk", "tl55mailgun"),
    ("gitlab-routable", "glpat-Tl55GitlabRoutableAbCd.01.0a1b2c3d4", "Tl55GitlabRoutable"),
    ("stripe-json", r#"{"stripe_key": "rk_live_Tl55StripeRkJson0123"}"#, "Tl55StripeRk"),
    // D12, D13: one encoding down.
    ("base64-key", "echo c2stcHJvai1UbDU1QjY0S2V5QWJDZEVmR2hJamts | base64 -d", "c2stcHJvai1UbDU1QjY0S2V5"),
    ("url-encoded", "https://login.example/cb?next=%2Fapp%3Fclient_secret%3DTl55UrlEncSecret%26x%3D1", "Tl55UrlEnc"),
    ("json-escaped", r#"{\"db_password\": \"Tl55JsonTwice0123\"}"#, "Tl55JsonTwice"),
    ("split-line", "api_key=\nTl55SplitLineKey0123", "Tl55SplitLine"),
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
type OwnedSession = (String, Vec<OwnedCall>);

/// One session per channel a secret can reach a report through (issue 22,
/// `gen_secret_channels.py`), and one session per secret named after it.
fn channel_sessions() -> Vec<OwnedSession> {
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

/// The databases the two tests below read: `secrets.db`, every channel's
/// sessions, and one small database per secret shape, named after it.
/// (the folder, the sessions, the database names).
fn secret_databases() -> (tempfile::TempDir, Vec<OwnedSession>, Vec<String>) {
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
    let mut paths = vec!["secrets.db".to_string()];
    for (k, (_, s, _)) in SHAPES.iter().enumerate() {
        let name = format!("f{k}-{}.db", head(&s.replace(['/', '\n'], "_"), 100));
        peri_db(dir.path(), &name, &[("one", vec![("Bash", serde_json::json!({}), "Error: failed", false, "c1")])]);
        paths.push(name);
    }
    (dir, sessions, paths)
}

/// Run each command in `dir`: it succeeds (exit 0 or 1) and no secret
/// shape reaches its stdout or stderr.
fn assert_no_leak(dir: &Path, runs: &[Vec<String>]) {
    for args in runs {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = run_in(dir, &args);
        assert!(matches!(out.status.code(), Some(0 | 1)), "{args:?}: {}", stderr(&out));
        let mut all = out.stdout.clone();
        all.extend_from_slice(&out.stderr);
        assert_eq!(shape_leaks(&all), Vec::<&str>::new(), "{:?} leaks", &args[..args.len().min(3)]);
    }
}

/// Issue 22, F7–F11, and issue 55, D5, D12, D13: every secret shape,
/// through every channel (result text, its later lines, the
/// 160-character cut, arguments, tool names, call ids, session ids, file
/// names, streaks), reaches no output of any report: scan in every
/// format, check, export, merge, `--summary`, baselines, sessions,
/// metrics and watch. `--no-redact` shows them, so it can fail. (The next
/// test takes `examples` and `show`: two tests, so both test threads work.)
#[test]
fn every_secret_shape_through_every_channel_and_report() {
    let (dir, _, paths) = secret_databases();
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
    for format in ["table", "json", "csv"] {
        runs.push(with(&["sessions"], &["--format", format, "--limit", "0", "--color", "never"]));
    }
    runs.push(with(&["metrics"], &[]));
    for format in ["text", "ndjson"] {
        runs.push(with(&["watch"], &["--from-start", "--timeout", "0", "--format", format]));
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
    assert_no_leak(dir.path(), &runs);
    for file in ["s.md", "b.json", "x.ndjson"] {
        let data = std::fs::read(dir.path().join(file)).unwrap();
        assert!(!data.is_empty(), "{file}");
        assert_eq!(shape_leaks(&data), Vec::<&str>::new(), "{file} leaks");
    }
    // The secrets are there to leak: --no-redact shows every one of them,
    // and merge --no-redact keeps what the report carried.
    assert_eq!(shape_leaks(&open.stdout).len(), SHAPES.len(), "{}", stdout(&open));
    let kept = run_in(dir.path(), &["merge", "open.json", "--format", "json", "--no-redact"]);
    assert_eq!(shape_leaks(&kept.stdout).len(), SHAPES.len());
}

/// The same secrets through `examples` (every category, every call in
/// full) and `show` (every session; the first and last call of each
/// channel; one call of the call-id channel by its id as written).
#[test]
fn every_secret_shape_through_every_channel_of_examples_and_show() {
    let (dir, sessions, paths) = secret_databases();
    let mut all: Vec<&str> = vec!["scan"];
    all.extend(paths.iter().map(String::as_str));
    all.extend(["--format", "json"]);
    let report: serde_json::Value = serde_json::from_slice(&run_in(dir.path(), &all).stdout).unwrap();
    let mut runs: Vec<Vec<String>> = Vec::new();
    for c in report["categories"].as_array().unwrap() {
        let mut args = vec!["examples".to_string()];
        args.extend(paths.iter().cloned());
        args.extend(["--category".into(), c["category"].as_str().unwrap().into(), "--limit".into(), "1000".into()]);
        runs.push(args);
    }
    assert!(runs.len() >= 2, "{report}");
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
    assert_no_leak(dir.path(), &runs);
    // A session id as reports show it, redacted, is found by `show` too.
    let shown = run_in(dir.path(), &["show", "sess-0-AKIA[REDACTED]", "secrets.db"]);
    assert!(shown.status.success() && stdout(&shown).contains("session sess-0-AKIA[REDACTED]"), "{}", stderr(&shown));
}

/// The words generated secret names are made of: some before, then a
/// secret word or pair.
const NAME_WORDS: &[&str] = &["db", "prod", "my", "github", "aws", "client", "service", "x", "pg", "user"];
const SECRET_WORDS: &[&[&str]] = &[
    &["password"],
    &["passwd"],
    &["secret"],
    &["token"],
    &["api", "key"],
    &["access", "token"],
    &["access", "key"],
    &["private", "key"],
    &["client", "secret"],
    &["auth", "token"],
    &["refresh", "token"],
    &["session", "token"],
    &["shared", "access", "key"],
    &["credentials"],
];

/// `words` in case style `style`: snake, SCREAMING, kebab, Train-Case,
/// dotted, camelCase, PascalCase, glued, GLUED.
fn name_in_style(words: &[&str], style: usize) -> String {
    let cap = |w: &&str| w[..1].to_ascii_uppercase() + &w[1..];
    let sep = ["_", "_", "-", "-", ".", "", "", "", ""][style % 9];
    let mut out: Vec<String> = match style % 9 {
        3 | 6 => words.iter().map(cap).collect(),
        5 => words.iter().enumerate().map(|(i, w)| if i == 0 { w.to_string() } else { cap(w) }).collect(),
        _ => words.iter().map(|w| w.to_string()).collect(),
    };
    if matches!(style % 9, 1 | 8) {
        out = out.iter().map(|w| w.to_ascii_uppercase()).collect();
    }
    out.join(sep)
}

/// A value given to `name`, in one of the ways traces write it.
fn assignment(name: &str, value: &str, how: usize) -> String {
    match how % 9 {
        0 => format!("{name}={value}"),
        1 => format!("{name}: {value}"),
        2 => format!(r#"{{"{name}": "{value}"}}"#),
        3 => format!(r#"{{\"{name}\":\"{value}\"}}"#),
        4 => format!("{name}='{value} with words'"),
        5 => format!("GET /cb?page=2&{name}={value}&x=1"),
        6 => format!("<{name}>{value}</{name}>"),
        7 => format!("--{name} {value}"),
        _ => format!("export {name}={value}; run"),
    }
}

/// Issue 55: the property. Secrets given to names generated in every
/// case style, in every way traces write them, through every channel (a
/// hidden error's text, arguments, tool names, call ids, session ids),
/// reach no output of any command; `--no-redact` shows every one, so the
/// check can fail.
#[test]
fn generated_secret_names_reach_no_output() {
    use proptest::prelude::*;
    use proptest::test_runner::{Config, TestRunner};
    let name =
        (prop::collection::vec(prop::sample::select(NAME_WORDS), 0..3), prop::sample::select(SECRET_WORDS), 0..9usize)
            .prop_map(|(before, secret, style)| {
                let words: Vec<&str> = before.iter().chain(secret.iter()).copied().collect();
                name_in_style(&words, style)
            });
    let secret = (name, "[A-Za-z0-9]{8,24}".prop_map(|v| format!("Zq7{v}")), 0..9usize, 0..5usize);
    let config = Config { cases: 4, failure_persistence: None, max_shrink_iters: 64, ..Config::default() };
    let mut runner = TestRunner::new(config);
    let result = runner.run(&prop::collection::vec(secret, 20..30), |batch| {
        let dir = tempfile::tempdir().unwrap();
        let texts: Vec<(String, &str, usize)> =
            batch.iter().map(|(n, v, how, channel)| (assignment(n, v, *how), v.as_str(), *channel)).collect();
        let mut main: Vec<OwnedCall> = Vec::new();
        let mut sessions: Vec<(String, Vec<OwnedCall>)> = Vec::new();
        for (k, (text, _, channel)) in texts.iter().enumerate() {
            let failed = "Error: deploy failed".to_string();
            let (tool, id) = (format!("tool_{k}"), format!("c{k}"));
            match channel {
                0 => main.push((tool, serde_json::json!({}), format!("Error: deploy failed: {text}"), false, id)),
                1 => main.push((tool, serde_json::json!({"command": format!("deploy {text}")}), failed, false, id)),
                2 => main.push((format!("mcp__{text}"), serde_json::json!({}), failed, false, id)),
                3 => main.push((tool, serde_json::json!({}), failed, false, format!("toolu_{text}"))),
                _ => sessions.push((format!("s{k}-{text}"), vec![(tool, serde_json::json!({}), failed, false, id)])),
            }
        }
        sessions.push(("gen".to_string(), main));
        let borrowed: Vec<(&str, Vec<FxCall>)> = sessions
            .iter()
            .map(|(id, calls)| {
                (
                    id.as_str(),
                    calls.iter().map(|(t, i, x, f, c)| (t.as_str(), i.clone(), x.as_str(), *f, c.as_str())).collect(),
                )
            })
            .collect();
        peri_db(dir.path(), "gen.db", &borrowed);
        let open = run_in(dir.path(), &["scan", "gen.db", "--format", "json", "--no-redact"]);
        std::fs::write(dir.path().join("open.json"), &open.stdout).unwrap();
        let mut runs: Vec<Vec<&str>> = Vec::new();
        for format in ["table", "json", "markdown", "csv", "github", "junit", "html"] {
            runs.push(vec!["scan", "gen.db", "--format", format, "--color", "never"]);
        }
        runs.extend([
            vec!["check", "gen.db", "--summary", "s.md"],
            vec!["examples", "gen.db", "--limit", "1000"],
            vec!["show", "gen", "gen.db"],
            vec!["export", "gen.db"],
            vec!["sessions", "gen.db", "--format", "json", "--limit", "0"],
            vec!["metrics", "gen.db"],
            vec!["watch", "gen.db", "--from-start", "--timeout", "0", "--format", "ndjson"],
            vec!["merge", "open.json", "--format", "json"],
        ]);
        let mut shown = Vec::new();
        for args in &runs {
            let out = run_in(dir.path(), args);
            prop_assert!(matches!(out.status.code(), Some(0 | 1)), "{:?}: {}", args, stderr(&out));
            shown.push((args.clone(), format!("{}{}", stdout(&out), stderr(&out))));
        }
        shown.push((vec!["s.md"], std::fs::read_to_string(dir.path().join("s.md")).unwrap()));
        // Not even the start of one, where an id is shown cut.
        for (args, text) in &shown {
            for (given, value, channel) in &texts {
                let start = &value[..10];
                prop_assert!(!text.contains(start), "{:?} shows {:?} (channel {}):\n{}", args, given, channel, text);
            }
        }
        // The values are there to leak.
        let mut open_text = String::new();
        for args in [
            vec!["examples", "gen.db", "--limit", "1000", "--no-redact"],
            vec!["sessions", "gen.db", "--format", "json", "--limit", "0", "--no-redact"],
            vec!["export", "gen.db", "--no-redact"],
        ] {
            open_text.push_str(&stdout(&run_in(dir.path(), &args)));
        }
        for (given, value, _) in &texts {
            prop_assert!(open_text.contains(value), "--no-redact hides {:?}", given);
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}
