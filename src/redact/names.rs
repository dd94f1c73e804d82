//! Secret names by meaning: what a name (`PGPASSWORD`, `clientSecret`,
//! `x-api-key`, `_authToken`, `SharedAccessKey`, `session_id`) says of the
//! value given to it, whatever its case style. A name is cut into words
//! (at `_`, `-`, `.`, other non-alphanumerics, camelCase humps and
//! digits) and the words decide; glued words (`PGPASSWORD`, `apikey`) are
//! searched inside. `max_tokens`, `token_count`, `keyboard`, `monkey`,
//! `tokenizer`, `passed` and `author` name no secret.

/// What a name says its value is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Named {
    /// Not a secret (`max_tokens`, `author`, `password_file`).
    Plain,
    /// A secret (`PGPASSWORD`, `clientSecret`, `GITHUB_TOKEN`).
    Secret,
    /// An `Authorization` header: a scheme (kept), then its credentials.
    Authorization,
    /// A `Cookie` or `Set-Cookie` header: `name=value` pairs, each value a secret.
    Cookie,
}

/// Words a name may end in after its secret word without changing what
/// it holds: which environment or encoding (`GITHUB_TOKEN_PROD`,
/// `PASSWORD_B64`, `API_KEY_V2`).
const TRANSPARENT: &[&str] = &[
    "prod",
    "production",
    "dev",
    "development",
    "test",
    "testing",
    "staging",
    "stage",
    "live",
    "local",
    "value",
    "val",
    "b",
    "base",
    "hex",
    "raw",
    "str",
    "string",
    "enc",
    "encoded",
    "encrypted",
    "old",
    "new",
    "current",
    "next",
    "prev",
    "previous",
    "secondary",
    "default",
    "override",
    "v",
];

/// Last words that make the name one of a secret's attributes, not the
/// secret: `token_count`, `password_file`, `secret_name`, `token_type`,
/// `--password-stdin`, `credential.helper`.
const ATTRIBUTE: &[&str] = &[
    "count",
    "counts",
    "len",
    "length",
    "size",
    "max",
    "min",
    "limit",
    "limits",
    "num",
    "number",
    "total",
    "used",
    "usage",
    "type",
    "types",
    "kind",
    "name",
    "names",
    "file",
    "files",
    "filename",
    "path",
    "paths",
    "dir",
    "directory",
    "folder",
    "hint",
    "prompt",
    "policy",
    "required",
    "enabled",
    "disabled",
    "expiry",
    "expires",
    "expiration",
    "expired",
    "ttl",
    "timeout",
    "url",
    "uri",
    "endpoint",
    "field",
    "fields",
    "format",
    "mode",
    "label",
    "description",
    "desc",
    "env",
    "var",
    "variable",
    "ref",
    "arn",
    "version",
    "algorithm",
    "alg",
    "strategy",
    "provider",
    "method",
    "scope",
    "scopes",
    "audience",
    "issuer",
    "host",
    "port",
    "user",
    "username",
    "login",
    "email",
    "reset",
    "strength",
    "index",
    "idx",
    "offset",
    "budget",
    "rate",
    "ratio",
    "cost",
    "price",
    "window",
    "left",
    "remaining",
    "rotation",
    "created",
    "updated",
    "status",
    "state",
    "valid",
    "exists",
    "present",
    "missing",
    "error",
    "errors",
    "message",
    "stdin",
    "command",
    "helper",
    "store",
];

/// What a `key` must follow to be a secret (`api_key`, `AccountKey`,
/// `SharedAccessKey`, `Ocp-Apim-Subscription-Key`); `primary_key`,
/// `cache_key`, `sort_key` and `monkey` are no secrets. The word before
/// `key`, or the glued word's start, must end in one of these.
const KEY_OWNERS: &[&str] = &[
    "api",
    "access",
    "secret",
    "private",
    "account",
    "signing",
    "sign",
    "encryption",
    "encrypt",
    "decryption",
    "master",
    "client",
    "subscription",
    "app",
    "application",
    "consumer",
    "license",
    "licence",
    "auth",
    "session",
    "shared",
    "sas",
    "hmac",
    "webhook",
    "admin",
    "deploy",
    "service",
    "storage",
    "ingest",
    "ingestion",
    "management",
    "root",
    "jwt",
    "cookie",
    "crypto",
    "gpg",
    "pgp",
    "aes",
    "server",
    "restricted",
    "write",
    "openai",
    "anthropic",
    "stripe",
    "google",
    "gemini",
    "mistral",
    "cohere",
    "groq",
    "sendgrid",
    "mailgun",
    "twilio",
    "firebase",
];

/// What a glued `…pass` must start with to be a password (`storepass`,
/// `keypass`, `dbpass`); `bypass`, `compass` and `passed` are none.
const PASS_OWNERS: &[&str] = &[
    "store", "key", "db", "root", "user", "admin", "my", "sql", "smtp", "mail", "ftp", "proxy", "http", "ldap",
    "redis", "pg", "vnc", "wifi", "sudo",
];

/// The words of a name, lowercased: cut at every character that is not
/// an ASCII letter or digit, where a lowercase letter meets an uppercase
/// one (`clientSecret`), before the last capital of a run of capitals
/// followed by a lowercase letter (`APIKey`), and where letters meet
/// digits; words of digits are left out.
fn words(name: &str) -> Vec<String> {
    let mut out = Vec::new();
    for part in name.split(|c: char| !c.is_ascii_alphanumeric()) {
        let b = part.as_bytes();
        let mut start = 0;
        for i in 1..b.len() {
            let (p, c) = (b[i - 1], b[i]);
            let next_lower = b.get(i + 1).is_some_and(u8::is_ascii_lowercase);
            let cut = (p.is_ascii_lowercase() && c.is_ascii_uppercase())
                || (p.is_ascii_uppercase() && c.is_ascii_uppercase() && next_lower)
                || (p.is_ascii_digit() != c.is_ascii_digit());
            if cut {
                out.push(&part[start..i]);
                start = i;
            }
        }
        out.push(&part[start..]);
    }
    out.into_iter()
        .filter(|w| !w.is_empty() && !w.bytes().all(|b| b.is_ascii_digit()))
        .map(str::to_ascii_lowercase)
        .collect()
}

/// Does `word` end in one of `owners`, with `suffix` glued after it?
fn glued(word: &str, suffix: &str, owners: &[&str]) -> bool {
    word.len() > suffix.len()
        && word.ends_with(suffix)
        && owners.iter().any(|o| word[..word.len() - suffix.len()].ends_with(o))
}

/// A word that names a secret wherever it stands in the name.
fn strong(word: &str, prev: Option<&str>, alone: bool, option: bool) -> bool {
    if word == "secrets" || word == "passwords" {
        // A list of them (`secrets: inherit`), not one.
        return false;
    }
    ["password", "passwd", "passphrase", "passcode", "credential", "apikey", "privatekey"]
        .iter()
        .any(|s| word.contains(s))
        || (word.contains("secret") && !word.contains("secretar"))
        || (word == "key" && matches!(prev, Some("api" | "private" | "secret")))
        || (word == "pwd" && !alone)
        || (word.len() > 3 && word.ends_with("pwd"))
        || (word == "pass" && (!alone || option))
        || glued(word, "pass", PASS_OWNERS)
}

/// What `name` says of the value given to it. `in_query`: the name is a
/// URL query's (`?key=`, `&sig=`), where a bare `key`, `sig` or
/// `signature` is a credential (Google API keys, Azure SAS, presigned
/// URLs).
pub(super) fn classify(name: &str, in_query: bool) -> Named {
    let option = name.starts_with('-');
    let mut w = words(name);
    while w.len() > 1 && w.last().is_some_and(|l| TRANSPARENT.contains(&l.as_str())) {
        w.pop();
    }
    let Some(last) = w.last().map(String::as_str) else { return Named::Plain };
    if ATTRIBUTE.contains(&last) {
        return Named::Plain;
    }
    match last {
        "cookie" | "cookies" => return Named::Cookie,
        "authorization" | "authorisation" => return Named::Authorization,
        _ => {}
    }
    let alone = w.len() == 1;
    let prev_of = |i: usize| i.checked_sub(1).map(|j| w[j].as_str());
    let secret = w.iter().enumerate().any(|(i, x)| strong(x, prev_of(i), alone, option))
        || last.ends_with("token")
        || last == "auth"
        || last == "creds"
        || (last == "key" && prev_of(w.len() - 1).is_some_and(|p| KEY_OWNERS.iter().any(|o| p.ends_with(o))))
        || glued(last, "key", KEY_OWNERS)
        || last.ends_with("sessid")
        || last.ends_with("sessionid")
        || (last == "id" && prev_of(w.len() - 1) == Some("session"))
        || (in_query && alone && matches!(last, "key" | "sig"))
        || (in_query && last == "signature");
    if secret { Named::Secret } else { Named::Plain }
}

/// A value that is clearly no secret: empty or short, a number of at most
/// six digits, a boolean, null, a reference to one kept elsewhere
/// (`$TOKEN`, `${TOKEN}`, `{{ token }}`, `%s`), a placeholder in
/// brackets (`<your-key>`, `[REDACTED]`) or a mask (`****`, `xxxxxx`).
pub(super) fn placeholder(value: &str) -> bool {
    let v = value.trim();
    if v.chars().count() < 3 {
        return true;
    }
    let number = v.strip_prefix('-').unwrap_or(v);
    if number.len() <= 6 && number.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
        return true;
    }
    const WORDS: &[&str] = &["true", "false", "yes", "no", "on", "off", "null", "nil", "none", "undefined"];
    if WORDS.iter().any(|w| v.eq_ignore_ascii_case(w)) {
        return true;
    }
    if v.starts_with('$') || v.starts_with("{{") || v.starts_with("%s") || v.starts_with("%(") {
        return true;
    }
    if (v.starts_with('<') && v.ends_with('>')) || (v.starts_with('[') && v.ends_with(']')) {
        return true;
    }
    // What redaction left (`sk-[REDACTED]`): redacting it again changes
    // nothing but the shape it kept.
    if v.contains("[REDACTED") {
        return true;
    }
    // A mask: one masking character over and over (`****`, `xxxxxx`).
    let mut chars = v.chars();
    let first = chars.next().unwrap_or('*');
    ("*xX•#.…".contains(first) && chars.all(|c| c == first)) || v == "…"
}

/// A value given without `=` or `:` (`passwd V23s3cr3t`, `-p Pa55word`)
/// that looks like a credential rather than a word of prose: at least
/// eight characters, not a path, with two of lowercase letters,
/// capitals (past the first character), digits and symbols.
pub(super) fn credential_like(value: &str) -> bool {
    if value.chars().count() < 8 || value.starts_with(['/', '.', '~']) || placeholder(value) {
        return false;
    }
    let mut kinds = [false; 4];
    for (i, c) in value.chars().enumerate() {
        if c.is_ascii_lowercase() {
            kinds[0] = true;
        } else if c.is_ascii_uppercase() && i > 0 {
            kinds[1] = true;
        } else if c.is_ascii_digit() {
            kinds[2] = true;
        } else if "+/=~!@#$%^&*".contains(c) {
            kinds[3] = true;
        }
    }
    kinds.iter().filter(|k| **k).count() >= 2
}

#[cfg(test)]
mod tests {
    use super::{Named, classify, credential_like, placeholder, words};

    #[test]
    fn names_are_cut_into_words_in_every_case_style() {
        let cases: &[(&str, &[&str])] = &[
            ("clientSecret", &["client", "secret"]),
            ("APIKey", &["api", "key"]),
            ("X-Api-Key", &["x", "api", "key"]),
            ("aws_secret_access_key", &["aws", "secret", "access", "key"]),
            ("spring.datasource.password", &["spring", "datasource", "password"]),
            ("PGPASSWORD", &["pgpassword"]),
            ("_authToken", &["auth", "token"]),
            ("oauth2Token", &["oauth", "token"]),
            ("API_KEY_V2", &["api", "key", "v"]),
            ("--client-secret", &["client", "secret"]),
        ];
        for (name, want) in cases {
            assert_eq!(words(name), *want, "{name}");
        }
    }

    #[test]
    fn secret_names_whatever_their_style() {
        for name in [
            "PGPASSWORD",
            "DBPASSWORD",
            "mypassword",
            "SECRETKEY",
            "clientSecret",
            "dbPassword",
            "accessToken",
            "authToken",
            "refreshToken",
            "sessionToken",
            "ghToken",
            "_authToken",
            "SharedAccessKey",
            "session_id",
            "sessionId",
            "JSESSIONID",
            "PHPSESSID",
            "MYSQL_PWD",
            "dbPwd",
            "APIKEY",
            "apikey",
            "api-key",
            "x-auth-token",
            "X-Api-Token",
            "private-key",
            "privateKey",
            "GITHUB_TOKEN",
            "NPM_TOKEN",
            "npmtoken",
            "X-Amz-Security-Token",
            "Ocp-Apim-Subscription-Key",
            "x-goog-api-key",
            "TF_VAR_db_password",
            "OPENAI_API_KEY",
            "SecretAccessKey",
            "AWS_SECRET_ACCESS_KEY",
            "aws.secretAccessKey",
            "SessionToken",
            "AccountKey",
            "accesskey",
            "sharedaccesskey",
            "private_key_id",
            "storepass",
            "DB_PASS",
            "SMTP_PASS",
            "_auth",
            "HTTP_AUTH",
            "db_creds",
            "GITHUB_TOKEN_PROD",
            "PASSWORD_B64",
            "API_KEY_V2",
            "signingKey",
            "webhook-secret",
            "SECRET_KEY_BASE",
            "db_password_prod",
            "Passphrase",
            "client_credentials",
            "--password",
            "--pass",
            "-storepass",
        ] {
            assert_eq!(classify(name, false), Named::Secret, "{name}");
        }
        assert_eq!(classify("Authorization", false), Named::Authorization);
        assert_eq!(classify("Proxy-Authorization", false), Named::Authorization);
        assert_eq!(classify("toolu_Authorization", false), Named::Authorization);
        assert_eq!(classify("Cookie", false), Named::Cookie);
        assert_eq!(classify("Set-Cookie", false), Named::Cookie);
        assert_eq!(classify("session_cookie", false), Named::Cookie);
        for name in ["key", "sig", "X-Amz-Signature", "signature"] {
            assert_eq!(classify(name, true), Named::Secret, "{name} in a query");
        }
    }

    #[test]
    fn names_of_no_secret() {
        for name in [
            "token_count",
            "max_tokens",
            "input_tokens",
            "cache_read_input_tokens",
            "output_tokens",
            "tokens_used",
            "num_tokens",
            "tokenizer",
            "token_type",
            "keyboard",
            "monkey",
            "hotkey",
            "primary_key",
            "cache_key",
            "sort_key",
            "public_key",
            "passed",
            "bypass",
            "compass",
            "pass",
            "author",
            "authority",
            "oauth_callback",
            "password_file",
            "secret_name",
            "SharedAccessKeyName",
            "secret_count",
            "passwords",
            "secrets",
            "secretary",
            "PWD",
            "--password-stdin",
            "--token-file",
            "credential.helper",
            "access_key_id",
            "key",
            "sig",
            "signature",
            "session",
            "AccountName",
            "ACCESS_TOKEN_URL",
        ] {
            assert_eq!(classify(name, false), Named::Plain, "{name}");
        }
    }

    #[test]
    fn placeholders_and_credentials() {
        for v in [
            "",
            "3",
            "4096",
            "128000",
            "1.5",
            "true",
            "False",
            "null",
            "None",
            "$TOKEN",
            "${DB_PASSWORD}",
            "{{ token }}",
            "<your-key>",
            "[REDACTED]",
            "sk-[REDACTED]",
            "****",
            "xxxxxxxx",
            "…",
            "...",
        ] {
            assert!(placeholder(v), "{v:?} is a placeholder");
        }
        for v in ["hunter22", "12345678", "V01secretvalue", "correct horse", "zzzzzzzz", "aaaaaaaa1"] {
            assert!(!placeholder(v), "{v:?} may be a secret");
        }
        for v in ["V23secretvalue", "Hunter2024", "aB3dE5gH", "p4ss+word"] {
            assert!(credential_like(v), "{v:?}");
        }
        for v in ["authentication", "Required", "required_field", "12345678", "/etc/passwd", "short1"] {
            assert!(!credential_like(v), "{v:?}");
        }
    }
}
