//! Redaction of the secret shapes security scanners know, in trace text
//! shown in reports: provider API keys and tokens (OpenAI, Anthropic,
//! AWS, GitHub, GitLab, Slack, Google, Stripe, Hugging Face, npm, PyPI,
//! SendGrid, Shopify, DigitalOcean, Telegram, Mailgun and others), JWTs,
//! URL passwords, webhook URLs, `Authorization` headers of any scheme,
//! cookies, private key blocks, passwords given to commands (`mysql -p…`,
//! `sshpass -p`), and values given to a name that means a secret, in any
//! case style (`PGPASSWORD=`, `clientSecret:`, `"accessToken": …`,
//! `SharedAccessKey=`; `names.rs` reads the names). The same one
//! encoding down: base64, `%XX` URL escapes (`layers.rs`), and JSON
//! strings escaped once or more. On by default; `--no-redact` turns it
//! off. docs/security.md lists the shapes, and what is not covered.

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::{Captures, Regex};

#[cfg(test)]
mod cases;
mod layers;
mod names;

use names::{Named, classify, credential_like, placeholder};

/// Whether secrets are replaced: a value handed down from the settings
/// (`--no-redact` gives `Redaction::Off`), never a process-wide switch.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Redaction {
    #[default]
    On,
    Off,
}

impl Redaction {
    /// `text` with secret shapes replaced, unless redaction is off.
    pub fn apply(self, text: &str) -> Cow<'_, str> {
        match self {
            Redaction::On => redact(text),
            Redaction::Off => Cow::Borrowed(text),
        }
    }
}

/// A secret shape: its pattern, compiled the first time a text holds it
/// (`ANY` says which shapes a text holds; most scans meet few or none), and
/// what its matches become.
struct Shape {
    pattern: String,
    re: std::sync::OnceLock<Regex>,
    with: With,
}

impl Shape {
    fn new(pattern: String, with: With) -> Shape {
        Shape { pattern, re: std::sync::OnceLock::new(), with }
    }

    fn regex(&self) -> &Regex {
        self.re.get_or_init(|| Regex::new(&self.pattern).expect("secret pattern"))
    }

    /// `text` with every match of the shape replaced as it says.
    fn replace_all<'t>(&self, text: &'t str) -> Cow<'t, str> {
        match self.with {
            With::Text(t) => self.regex().replace_all(text, t),
            With::Fn(f) => self.regex().replace_all(text, f),
            With::Scan(f) => scan(self.regex(), text, f),
        }
    }
}

/// What a match becomes: a replacement template, a function of it, or a
/// function of the match in its text (`Scan`).
enum With {
    Text(&'static str),
    Fn(fn(&Captures<'_>) -> String),
    /// Given the whole text and the match, what to do with it.
    Scan(fn(&str, &Captures<'_>) -> Found),
}

/// What a `Scan` function found at a match.
enum Found {
    /// The replacement, and the byte of the text where the replaced part
    /// ends (it may reach past the match: to the end of a quoted value
    /// the pattern does not take).
    Replace(usize, String),
    /// Kept (a name that means no secret, a placeholder value): the
    /// search goes on after the name, whose value may be a name of its
    /// own (`keytool -storepass …`), or after the match.
    Keep,
    /// Kept, and so is the text up to this byte: a long value that was
    /// read whole and is no secret is not read again for each name in it
    /// (which would make a long line of them cost its length squared).
    KeepTo(usize),
}

/// A value kept that is longer than this is not searched again for names.
const REREAD: usize = 64;

/// `text` with the matches of `re` that `f` replaces replaced.
fn scan<'t>(re: &Regex, text: &'t str, f: fn(&str, &Captures<'_>) -> Found) -> Cow<'t, str> {
    let mut out = String::new();
    let (mut last, mut at) = (0, 0);
    while at <= text.len() {
        let Some(c) = re.captures_at(text, at) else { break };
        let m = c.get(0).expect("a match");
        let after_name = c.name("name").map_or(m.end(), |n| n.end());
        match f(text, &c) {
            Found::Replace(end, with) if end >= m.start() && end >= last && text.is_char_boundary(end) => {
                out.push_str(&text[last..m.start()]);
                out.push_str(&with);
                last = end;
                at = end.max(m.end());
            }
            Found::KeepTo(end) if end > after_name && text.is_char_boundary(end) => at = end,
            _ => at = after_name,
        }
        if m.end() == m.start() {
            // An empty match: on to the next character.
            at = text[at..].chars().next().map_or(text.len() + 1, |ch| at + ch.len_utf8());
        }
    }
    if last == 0 && out.is_empty() {
        return Cow::Borrowed(text);
    }
    out.push_str(&text[last..]);
    Cow::Owned(out)
}

/// `user:password@host` without a scheme (or with its slashes lost, as in
/// a file name): the password goes, unless the "user" is a URI scheme
/// such as `mailto:`, whose `name@host` is an address.
fn userinfo(c: &Captures<'_>) -> String {
    let user = &c["user"];
    if user.eq_ignore_ascii_case("mailto:") || user.eq_ignore_ascii_case("xmpp:") {
        return c[0].to_string();
    }
    format!("{}{user}[REDACTED]@{}", &c["pre"], &c["host"])
}

/// Where a name that may mean a secret is: letters, digits, `_`, `.` and
/// `-` around one of the words secret names are made of (`names.rs`
/// decides whether the whole name means one). A name starts wherever
/// these characters start: `_` is part of it (`toolu_Authorization`,
/// `mcp__password`), and the words inside are read one by one.
const NAME: &str = r"[A-Za-z0-9_.-]*(?i:pass|pwd|secret|token|key|auth|cred|cookie|sess|sig)[A-Za-z0-9_.-]*";

/// `NAME=value`, `NAME: value`, `"name": "value"`, `name => 'value'`,
/// `name := value`, with a query's `?` or `&` before it (`?key=`), and a
/// quote after it escaped any number of times (JSON inside JSON). The
/// separator may be followed by spaces, line breaks, or their JSON
/// escapes (`api_key=\nvalue`). The value is read by `assigned`.
fn assignment_pattern() -> String {
    format!(r#"(?P<pre>[?&]?)(?P<name>{NAME})(?P<close>\\*["']?)[ \t]*(?:=>|:=|[:=])(?P<gap>(?:\s|\\[nrt])*)"#)
}

/// The span of a value at the start of `rest` (just after a name and its
/// separator): where its text starts and ends, a quoted value without
/// its quotes, and whether it was quoted. `header`: an unquoted value
/// goes up to the first of these bytes (the end of the line, or the
/// quote the header itself is in), not to the first space.
fn value_span(rest: &str, header: Option<&[u8]>) -> (usize, usize, bool) {
    let b = rest.as_bytes();
    let k = b.iter().take_while(|&&c| c == b'\\').count();
    if b.get(k) == Some(&b'"') {
        let start = k + 1;
        let mut i = start;
        while i < b.len() && b[i] != b'\n' {
            if b[i] == b'"' {
                let r = b[start..i].iter().rev().take_while(|&&c| c == b'\\').count();
                if (k == 0 && r % 2 == 0) || (k > 0 && r == k) {
                    return (start, i - r, true);
                }
            }
            i += 1;
        }
        return (start, i, true);
    }
    if k == 0 && b.first() == Some(&b'\'') {
        let end = b[1..].iter().position(|&c| c == b'\'' || c == b'\n').map_or(b.len(), |p| p + 1);
        return (1, end, true);
    }
    let stop: &[u8] = header.unwrap_or(b" \t\n\r\"'\\,;");
    let mut end = b.iter().position(|c| stop.contains(c)).unwrap_or(b.len());
    if header.is_none() {
        // Up to a query's next `&name=`, whose value its own name judges;
        // an `&` inside the value (`Tr0ub4dor&3`) is the secret's.
        if let Some(m) = NEXT_PARAM.find(&rest[..end]) {
            end = m.start();
        }
    }
    (0, end, false)
}

/// Where an unquoted header value ends: at the end of its line, or at
/// the quote the header is written in (`-H 'Authorization: Token …'`,
/// `"Cookie: a=b"`, also escaped: `\"Cookie: a=b\"`).
fn header_end(before: &str) -> &'static [u8] {
    match before.as_bytes() {
        [.., b'\\', b'"'] => b"\n\r\\\"",
        [.., b'"'] => b"\n\r\"",
        [.., b'\''] => b"\n\r'",
        _ => b"\n\r",
    }
}

/// A value that starts with `name=`: an assignment, not a value.
static ASSIGNS: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^[A-Za-z_][A-Za-z0-9_.-]*=").expect("assignment"));

/// The next `&name=` of a query string (where a secret ends).
static NEXT_PARAM: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"&[A-Za-z_][A-Za-z0-9_.\[\]-]*=").expect("query parameter"));

/// An `Authorization` value: its scheme kept (`Bearer`, `Basic`, `Token`,
/// `ApiKey`, `Digest`, `AWS4-HMAC-SHA256`, any other), its credentials
/// gone. `value` is the header's value, up to its closing quote when
/// `quoted`, else the rest of the text with `stop` its end. The result
/// is where the credentials start and end in it, or how far it was read
/// to find none. A value of one word is the credential itself when it
/// looks like one (`Authorization: abc123XYZ…`, not `Authorization:
/// required`).
fn credentials(value: &str, quoted: bool, stop: &[u8]) -> Result<(usize, usize), usize> {
    let b = value.as_bytes();
    let end_at = |from: usize, extra: &[u8]| {
        b[from..].iter().position(|c| stop.contains(c) || extra.contains(c)).map_or(b.len(), |p| from + p)
    };
    let scheme_len = b.iter().take_while(|c| c.is_ascii_alphanumeric() || b"-_.".contains(c)).count();
    let gap = b[scheme_len..].iter().take_while(|c| **c == b' ' || **c == b'\t').count();
    let scheme = &value[..scheme_len];
    let is_scheme = scheme_len > 0
        && gap > 0
        && b.get(scheme_len + gap).is_some_and(|c| !stop.contains(c))
        && scheme.len() <= 24
        && b[0].is_ascii_alphabetic()
        // A word that looks like a key is the key, not a scheme
        // (`AWS4-HMAC-SHA256` has digits, and a `-`).
        && (scheme.contains('-') || !credential_like(scheme));
    let (start, end) = if is_scheme {
        let start = scheme_len + gap;
        let first = end_at(start, b" \t,;");
        // `Digest username="…", response="…"`, `AWS4-HMAC-SHA256
        // Credential=…, Signature=…`: parameters, all of them go.
        let end = if quoted || value[start..first].contains('=') { end_at(start, b"") } else { first };
        (start, start + value[start..end].trim_end().len())
    } else {
        let end = end_at(0, b" \t,;");
        if !quoted && !credential_like(&value[..end]) {
            return Err(end);
        }
        (0, end)
    };
    if end > start && !placeholder(&value[start..end]) { Ok((start, end)) } else { Err(end) }
}

/// A `Cookie:` or `Set-Cookie:` value with the value of each `name=value`
/// pair replaced (the attributes `Path`, `Domain`, `Expires`, `Secure`, …
/// kept, and any other part without `=` replaced whole). `None` when
/// nothing is hidden.
fn cookies(value: &str) -> Option<String> {
    const ATTRIBUTES: &[&str] = &[
        "path",
        "domain",
        "expires",
        "max-age",
        "samesite",
        "secure",
        "httponly",
        "priority",
        "partitioned",
        "version",
        "",
    ];
    let attribute = |name: &str| ATTRIBUTES.contains(&name.trim().to_ascii_lowercase().as_str());
    let mut changed = false;
    let parts: Vec<String> = value
        .split(';')
        .map(|pair| match pair.split_once('=') {
            Some((name, v)) if !attribute(name) && !placeholder(v) => {
                changed = true;
                format!("{name}=[REDACTED]")
            }
            None if !attribute(pair) && !placeholder(pair) => {
                changed = true;
                let lead = &pair[..pair.len() - pair.trim_start().len()];
                format!("{lead}[REDACTED]")
            }
            _ => pair.to_string(),
        })
        .collect();
    changed.then(|| parts.join(";"))
}

/// Kept, having read `len` bytes of value from `from`: a long one is not
/// read again.
fn kept(from: usize, len: usize) -> Found {
    if len > REREAD { Found::KeepTo(from + len) } else { Found::Keep }
}

/// A value given to a name (`assignment_pattern`): replaced when the name
/// means a secret (`names::classify`) and the value is no placeholder.
fn assigned(text: &str, c: &Captures<'_>) -> Found {
    let (Some(m), Some(name)) = (c.get(0), c.name("name")) else { return Found::Keep };
    let in_query = !c.name("pre").is_some_and(|p| p.is_empty());
    let named = classify(name.as_str(), in_query);
    if named == Named::Plain {
        return Found::Keep;
    }
    let rest = &text[m.end()..];
    let keep = |upto: usize| format!("{}{}", m.as_str(), &rest[..upto]);
    let header = matches!(named, Named::Authorization | Named::Cookie) && m.as_str().trim_end().ends_with(':');
    let stop = header_end(&text[..m.start()]);
    if named == Named::Authorization {
        // An unquoted value is read as far as its credentials go, not to
        // the end of its line first.
        let quoted = rest.trim_start_matches('\\').starts_with('"') || rest.starts_with('\'');
        let (start, end, _) = if quoted { value_span(rest, None) } else { (0, rest.len(), false) };
        return match credentials(&rest[start..end], quoted, if quoted { b"" } else { stop }) {
            Ok((s, e)) => Found::Replace(m.end() + start + e, format!("{}[REDACTED]", keep(start + s))),
            Err(read) => kept(m.end(), if quoted { end } else { read }),
        };
    }
    let (start, end, _) = value_span(rest, header.then_some(stop));
    let value = &rest[start..end];
    if named == Named::Cookie {
        return match cookies(value) {
            Some(hidden) => Found::Replace(m.end() + end, format!("{}{hidden}", keep(start))),
            None => kept(m.end(), end),
        };
    }
    let gap = c.name("gap").map_or("", |g| g.as_str());
    let across_lines = gap.contains('\n') || gap.contains("\\n");
    // `api_key=` with nothing after it, and the next line's `NAME=`.
    if placeholder(value) || (across_lines && ASSIGNS.is_match(value)) {
        return kept(m.end(), end);
    }
    Found::Replace(m.end() + end, format!("{}[REDACTED]", keep(start)))
}

/// A secret name and its value with spaces between (`passwd V23s3cr3t`,
/// `aws configure set aws_secret_access_key wJalr…`, `.netrc`'s
/// `password hunter2x`, `--token abc`): an option's value goes (unless it
/// is another option), a bare name's only when it looks like a
/// credential rather than prose (`password authentication failed`).
fn spaced(_text: &str, c: &Captures<'_>) -> Found {
    let (Some(m), Some(name), Some(value)) = (c.get(0), c.name("name"), c.name("value")) else { return Found::Keep };
    let name = name.as_str();
    if classify(name, false) != Named::Secret {
        return Found::Keep;
    }
    let v = value.as_str();
    // `token=…` after the name is an assignment of its own.
    let secret = !ASSIGNS.is_match(v)
        && if name.starts_with('-') { !v.starts_with('-') && !placeholder(v) } else { credential_like(v) };
    if !secret {
        return kept(value.start(), v.len());
    }
    Found::Replace(value.end(), format!("{}[REDACTED]", &m.as_str()[..value.start() - m.start()]))
}

/// A password given to a command that takes it glued or after an option
/// (`mysql -pS3cret`, `sshpass -p S3cret`, `docker login -p …`,
/// `redis-cli -a …`, `sqlcmd -P …`, `ldapsearch -w …`, `openssl …
/// pass:…`, `curl -u user:pass`): the value goes, its quotes kept.
fn given(_text: &str, c: &Captures<'_>) -> Found {
    let (Some(m), Some(value)) = (c.get(0), c.name("value")) else { return Found::Keep };
    let v = value.as_str();
    let inner = v.trim_matches(|c| c == '\'' || c == '"');
    if placeholder(inner) {
        return Found::Keep;
    }
    // A bare `-p` is a port, a package or a parent flag as often: only a
    // value with capitals, small letters and digits is taken for a password.
    if c.name("bare").is_some() {
        let kinds = [u8::is_ascii_uppercase, u8::is_ascii_lowercase, u8::is_ascii_digit];
        if !kinds.iter().all(|k| inner.bytes().any(|b| k(&b))) || inner.contains(['/', ':']) {
            return Found::Keep;
        }
    }
    let quote = &v[..v.len() - v.trim_start_matches(['\'', '"']).len()];
    let close = &v[v.trim_end_matches(['\'', '"']).len()..];
    Found::Replace(value.end(), format!("{}{quote}[REDACTED]{close}", &m.as_str()[..value.start() - m.start()]))
}

/// `<password>…</password>` and other elements named after a secret
/// (Maven's `settings.xml`, .NET and Java configuration).
fn element(_text: &str, c: &Captures<'_>) -> Found {
    let (Some(m), Some(name), Some(value)) = (c.get(0), c.name("name"), c.name("value")) else { return Found::Keep };
    if classify(name.as_str(), false) != Named::Secret || placeholder(value.as_str()) {
        return Found::Keep;
    }
    Found::Replace(value.end(), format!("{}[REDACTED]", &m.as_str()[..value.start() - m.start()]))
}

/// A base64 run that decodes to text holding a secret: all of it goes.
fn base64(_text: &str, c: &Captures<'_>) -> Found {
    let Some(run) = c.name("run") else { return Found::Keep };
    let Some(decoded) = layers::base64_text(run.as_str()) else { return Found::Keep };
    match redact_with(&decoded, *PLAIN_SHAPES) {
        Cow::Borrowed(_) => Found::Keep,
        Cow::Owned(_) => Found::Replace(run.end(), format!("{}[REDACTED]", &c["pre"])),
    }
}

/// A run of URL text with `%XX` escapes whose decoded text holds a secret:
/// redacted decoded, and escaped again as it was.
fn percent(_text: &str, c: &Captures<'_>) -> Found {
    let Some(run) = c.get(0) else { return Found::Keep };
    let Some(decoded) = layers::percent(run.as_str()) else { return Found::Keep };
    match redact_with(&decoded.text, *PLAIN_SHAPES) {
        Cow::Borrowed(_) => Found::Keep,
        Cow::Owned(r) => Found::Replace(run.end(), decoded.reencode(run.as_str(), &r)),
    }
}

/// Before a token: the start of the text or a character that is not a
/// letter or digit. `_` counts as a separator (`\b` would not see the key
/// in `toolu_sk-…` or `DB_PASSWORD`), and the character is put back.
const PRE: &str = r"(?P<pre>^|[^A-Za-z0-9])";

/// How many shapes come before the encoded layers (the last two): the
/// shapes decoded text is redacted with.
static PLAIN_SHAPES: LazyLock<usize> = LazyLock::new(|| SHAPES.len() - 2);

/// The secret shapes, most specific first. Token formats are those the
/// secret scanners (gitleaks, secretlint) know by a fixed prefix, so that
/// ordinary words and hex hashes never match; the names after them catch
/// the rest by what they are called, and the encoded layers come last.
static SHAPES: LazyLock<Vec<Shape>> = LazyLock::new(|| {
    let shape = |p: &str, with| Shape::new(p.to_string(), With::Text(with));
    let token = |p: &str, with| shape(&format!("{PRE}{p}"), with);
    let scanned = |p: String, f| Shape::new(p, With::Scan(f));
    vec![
        shape(
            r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?s:.*?)(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|$)",
            "[REDACTED PRIVATE KEY]",
        ),
        // The password of a URL's userinfo: `https://user:pw@`,
        // `postgres://u:pw@`, `redis://:pw@`, also glued to an id by `_`.
        shape(
            r#"(?P<pre>^|[^A-Za-z0-9+.-])(?P<url>[A-Za-z][A-Za-z0-9+.-]*://[^\s/:@'"`<>]*:)[^\s/@'"`<>]+@"#,
            "${pre}${url}[REDACTED]@",
        ),
        Shape::new(
            r#"(?P<pre>^|[^A-Za-z0-9_.%+-])(?P<user>[A-Za-z0-9_.%+-]+:)[^\s/@:'"`<>\[\]]+@(?P<host>(?:[A-Za-z0-9-]+\.)+[A-Za-z]{2,}|[0-9]{1,3}(?:\.[0-9]{1,3}){3}|localhost)"#
                .to_string(),
            With::Fn(userinfo),
        ),
        // Webhook URLs are the credential themselves (`_` for `/`: a file name).
        shape(r"(hooks\.slack\.com[/_](?:services|workflows|triggers)[/_])[A-Za-z0-9+/_-]{8,}", "${1}[REDACTED]"),
        shape(r"(discord(?:app)?\.com[/_]api[/_]webhooks[/_])[0-9]+[/_][A-Za-z0-9_-]{8,}", "${1}[REDACTED]"),
        // Telegram bot tokens: the bot's number, `:`, and the secret; also
        // as a template of a report made with --no-redact left it (the
        // number, or the `/bot…` before it, a placeholder).
        shape(r"(?P<pre>^|[^0-9A-Za-z]|bot)(?P<id>[0-9]{5,16}):A[A-Za-z0-9_-]{30,}", "${pre}${id}:[REDACTED]"),
        shape(r"(?P<pre>^|[^0-9A-Za-z]|bot)(?P<id><n>|<path>|<id>):A[A-Za-z0-9_<>-]{20,}", "${pre}${id}:[REDACTED]"),
        // JWTs: a base64url JSON header and payload (`eyJ…`), and a signature.
        token(r"ey[A-Za-z0-9_-]{10,}\.ey[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]*", "${pre}[REDACTED JWT]"),
        // A key's body starts with a letter or digit: `sk--client_secret`
        // is an option named after a word ending in `sk`, not a key, and
        // redacting it as one would hide the name that marks its value.
        token(r"sk-(?:ant-|proj-|svcacct-|admin-)?[A-Za-z0-9][A-Za-z0-9_-]{15,}", "${pre}sk-[REDACTED]"),
        token(r"(?P<k>sk|rk)_(?P<m>live|test|prod)_[A-Za-z0-9]{10,}", "${pre}${k}_${m}_[REDACTED]"),
        token(r"(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b", "${pre}AKIA[REDACTED]"),
        token(r"gh[pousr]_[A-Za-z0-9]{30,}", "${pre}gh_[REDACTED]"),
        token(r"github_pat_[A-Za-z0-9_]{30,}", "${pre}github_pat_[REDACTED]"),
        token(r"(?P<k>gl(?:pat|ptt|rt|dt|ft|soat|agent|oas|imt|cbt|ffct))-[A-Za-z0-9_.-]{20,}", "${pre}${k}-[REDACTED]"),
        token(r"GR1348941[A-Za-z0-9_-]{20,}", "${pre}GR1348941[REDACTED]"),
        // Slack, also as a template of a report made with --no-redact left
        // it (`xoxb<n><n>-…`: its digit groups normalized). Every Slack
        // token has a digit group right after its prefix (`xoxb-<team>-…`,
        // `xapp-1-…`, as the secret scanners' rules say): without it,
        // `xapp-access-token=…` is a secret's name, which this shape would
        // eat and so leave its value to show.
        token(r"(?:xox[abposre]|xapp)(?:-[0-9]|<n>)[A-Za-z0-9<>-]{9,}", "${pre}xox-[REDACTED]"),
        token(r"AIza[0-9A-Za-z_-]{35}", "${pre}AIza[REDACTED]"),
        token(r"ya29\.[0-9A-Za-z_-]{20,}", "${pre}ya29.[REDACTED]"),
        token(r"GOCSPX-[0-9A-Za-z_-]{20,}", "${pre}GOCSPX-[REDACTED]"),
        token(r"(?P<k>hf_|api_org_)[A-Za-z0-9]{30,}", "${pre}${k}[REDACTED]"),
        token(r"npm_[A-Za-z0-9]{36}", "${pre}npm_[REDACTED]"),
        token(r"pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{20,}", "${pre}pypi-[REDACTED]"),
        token(r"SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}", "${pre}SG.[REDACTED]"),
        token(r"(?P<k>shp(?:at|ca|pa|ss))_[a-fA-F0-9]{32}", "${pre}${k}_[REDACTED]"),
        token(r"(?P<k>do[por])_v1_[a-f0-9]{64}", "${pre}${k}_v1_[REDACTED]"),
        token(r"(?P<k>lin_api_|pplx-|dapi)[A-Za-z0-9]{32,}", "${pre}${k}[REDACTED]"),
        // Mailgun (`key-` and 32 characters), Mailchimp (`…-us12`).
        token(r"key-[0-9a-zA-Z]{32}\b", "${pre}key-[REDACTED]"),
        token(r"[0-9a-f]{32}-us[0-9]{1,2}\b", "${pre}[REDACTED]-mailchimp"),
        // LLM providers agents call, and the other fixed prefixes of the
        // scanners' rule sets.
        token(r"(?P<k>gsk_|xai-|r8_|tvly-|lsv2_(?:pt|sk)_)[A-Za-z0-9_-]{30,}", "${pre}${k}[REDACTED]"),
        token(r"(?P<k>whsec_|ntn_|pnu_|rdme_|rubygems_|sntryu_|sntrys_|pscale_(?:tkn|oauth|pw)_|glsa_|glc_|ico-|shippo_(?:live|test)_|duffel_(?:live|test)_|xkeysib-|tk-us-|fo1_|fm2_|fio-u-|sq0atp-|sq0csp-|hv[sb]\.|dckr_pat_|sbp_|sb_secret_|sgp_|tfp_|NRAK-|NRII-|p8e-|FLWSECK(?:_TEST)?-|CLOJARS_|oy2|LTAI)[A-Za-z0-9_=./+-]{20,}", "${pre}${k}[REDACTED]"),
        token(r"(?P<k>AGE-SECRET-KEY-1|ATATT3|ABSK|AKCp|HRKU-AA|PMAK-|ops_eyJ|dt0c01\.|dp\.(?:pt|st|ct|sa|scim|audit)\.|EZ[AT]K|sha256~|pul-)[A-Za-z0-9_=./+~-]{20,}", "${pre}${k}[REDACTED]"),
        token(r"secret_[A-Za-z0-9]{43}\b", "${pre}secret_[REDACTED]"),
        token(r"sk\.eyJ[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{10,}", "${pre}sk.[REDACTED]"),
        token(r"pat[A-Za-z0-9]{14}\.[a-f0-9]{64}", "${pre}pat[REDACTED]"),
        token(r"[a-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,}", "${pre}[REDACTED].atlasv1"),
        // Azure AD client secrets (`…8Q~…`).
        shape(r"(?P<pre>^|[^A-Za-z0-9_~.-])[A-Za-z0-9_~.]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34}", "${pre}[REDACTED]"),
        token(r"SK[0-9a-fA-F]{32}\b", "${pre}SK[REDACTED]"),
        // A key cut short by a report made with --no-redact (a template
        // is cut at 160 characters, `gsk_Tl22Gro…`): its prefix and the cut
        // say enough, what is left of it goes.
        token(
            r"(?P<k>sk-|(?:sk|rk)_(?:live|test|prod)_|gh[pousr]_|github_pat_|gl(?:pat|ptt|rt)-|xox[abposre]-|xapp-|AIza|ya29\.|GOCSPX-|hf_|api_org_|npm_|pypi-|SG\.|shp(?:at|ca|pa|ss)_|do[por]_v1_|lin_api_|pplx-|gsk_|xai-|r8_|tvly-|lsv2_(?:pt|sk)_|whsec_|ntn_|hv[sb]\.|AKIA|ASIA|ey[A-Za-z0-9_-]{10,}\.)[A-Za-z0-9_<>.+/=-]*…",
            "${pre}${k}[REDACTED]…",
        ),
        shape(r"(?i)\b(bearer)\s+[A-Za-z0-9._~+/=-]{12,}", "$1 [REDACTED]"),
        // Passwords given to commands: glued (`mysql -pS3cret`), after an
        // option (`sshpass -p`, `docker login -p`, `redis-cli -a`,
        // `sqlcmd -P`, `ldapsearch -w`), openssl's `pass:`, curl's `-u
        // user:pass`, and a bare `-p` before something password-like.
        scanned(
            [
                r#"(?:(?P<cmd>(?:^|[^A-Za-z0-9])(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlshow|mysqlcheck|mysqlslap|mariadb|mariadb-dump|mariadb-admin)\b[^\n;|&]*?\s-p)"#,
                r#"|(?P<opt>(?:^|[^A-Za-z0-9])(?:sshpass\b[^\n;|&]*?\s-p[ \t]*|(?:docker|podman|helm|oras|skopeo|buildah|nerdctl)\s+(?:registry\s+)?login\b[^\n;|&]*?\s-p[ \t]+|(?:mongo|mongosh|mongodump|mongorestore|mongoexport|mongoimport)\b[^\n;|&]*?\s-p[ \t]+|redis-cli\b[^\n;|&]*?\s-a[ \t]+|sqlcmd\b[^\n;|&]*?\s-P[ \t]*|ldap[a-z]*\b[^\n;|&]*?\s-w[ \t]+|az\s+login\b[^\n;|&]*?\s-p[ \t]+))"#,
                r#"|(?P<pass>(?:^|\s)-pass(?:in|out|word)?[ \t]+pass:)"#,
                r#"|(?P<user>(?:^|\s)(?:-u|--user|--proxy-user)(?:[ \t]+|=)?['"]?[^\s:'"@/-][^\s:'"@/]*:)"#,
                r#"|(?P<bare>(?:^|\s)-p[ \t]+)"#,
                r#")(?P<value>'[^'\n]*'|"[^"\n]*"|[^\s'"@]+)"#,
            ]
            .concat(),
            given,
        ),
        // `NAME=value`, `NAME: value`, `"name": "value"` (also JSON-escaped
        // once or more, as in serialized arguments), where the name means
        // a secret in any case style (`names.rs`); `Authorization:` of any
        // scheme and `Cookie:` too.
        scanned(assignment_pattern(), assigned),
        scanned(format!(r#"(?:^|[^$%{{A-Za-z0-9_.-])(?P<name>{NAME})[ \t]+(?P<value>[^\s"'`,;]{{3,}})"#), spaced),
        scanned(format!(r#"<(?P<name>{NAME})>(?P<value>[^<\n]{{3,}})</"#), element),
        // One encoding down: base64 of text, and `%XX`-escaped URL text.
        scanned(
            r"(?P<pre>^|[^A-Za-z0-9+/_-])(?P<run>(?:[A-Za-f][A-Za-z0-9+/_-]{3}){5}[A-Za-z0-9+/_-]*={0,2})".to_string(),
            base64,
        ),
        scanned(r#"[^\s"'<>`\\%]*%[0-9A-Fa-f]{2}[^\s"'<>`\\]*"#.to_string(), percent),
    ]
});

/// Every shape, in two sets of half of them each: most text holds no
/// secret, and one pass of each says so. Over a long text (the joined ids
/// of `may_hold_secret`), one lazy DFA of every shape spent its time
/// building states, counted runs of many shapes at once; two smaller ones
/// build far fewer (a session's ids searched in 92 M instructions instead
/// of 150 M on the bench's small-message database).
static ANY: LazyLock<AnyShape> = LazyLock::new(|| {
    let split = SHAPES.len() / 2;
    let set = |shapes: &[Shape]| regex::RegexSet::new(shapes.iter().map(|s| &s.pattern)).expect("secret patterns");
    AnyShape { sets: [set(&SHAPES[..split]), set(&SHAPES[split..])], split }
});

struct AnyShape {
    /// The shapes before `split`, and those from it.
    sets: [regex::RegexSet; 2],
    split: usize,
}

impl AnyShape {
    /// Does `text` hold some shape?
    fn is_match(&self, text: &str) -> bool {
        self.sets.iter().any(|set| set.is_match(text))
    }

    /// Which shapes `text` holds, by their index in `SHAPES`.
    fn matches(&self, text: &str) -> impl Fn(usize) -> bool + use<> {
        let (first, second) = (self.sets[0].matches(text), self.sets[1].matches(text));
        let split = self.split;
        move |i| if i < split { first.matched(i) } else { second.matched(i - split) }
    }
}

/// Might one of `texts` hold a secret? `false` means `redact` leaves
/// every one of them as it is. They are joined by NUL bytes and searched
/// once: a session's call ids are thousands of short strings, and one
/// search of them all costs a fraction of a search each. A NUL is neither
/// a word character nor a space, and each shape's edges (`\b`, a `^` only
/// in `(?:^|[^A-Za-z0-9])`, a `$` only after a lazy run of anything) hold
/// beside it as at a string's end, so whatever matches in one text
/// matches in the joined ones (a match across two texts only makes the
/// caller look at each).
pub(crate) fn may_hold_secret<'a>(texts: impl Iterator<Item = &'a str>) -> bool {
    let mut joined = String::new();
    for t in texts {
        joined.push_str(t);
        joined.push('\0');
    }
    ANY.is_match(&joined)
}

/// `text` with secret shapes replaced. The shapes are applied in order,
/// each to the text the ones before it left; a shape that the set says is
/// not in that text would change nothing, so it is skipped (and never
/// compiled), and the set is asked again after each change.
pub fn redact(text: &str) -> Cow<'_, str> {
    redact_with(text, SHAPES.len())
}

/// `redact` with the first `shapes` shapes only (decoded text is redacted
/// without the encoded layers: one level down, not more).
fn redact_with(text: &str, shapes: usize) -> Cow<'_, str> {
    if !ANY.is_match(text) {
        return Cow::Borrowed(text);
    }
    let mut held = ANY.matches(text);
    let mut out = Cow::Borrowed(text);
    for (i, s) in SHAPES.iter().enumerate().take(shapes) {
        if !held(i) {
            continue;
        }
        if let Cow::Owned(o) = s.replace_all(&out) {
            out = Cow::Owned(o);
            held = ANY.matches(&out);
        }
    }
    // A match that was kept (an address) changed nothing.
    if out == text { Cow::Borrowed(text) } else { out }
}

#[cfg(test)]
mod tests {
    use super::redact;

    /// Whatever one text redacts, the joined texts are searched further:
    /// each shape's examples, among ids, at either end and alone.
    #[test]
    fn joined_texts_hold_what_each_holds() {
        use super::may_hold_secret;
        let ids = ["call_d9fb4f627a8733d4", "toolu_01ABCdef", "#3", "", "call_1"];
        let secrets = [
            "sk-ant-api03-abcdefghijklmnopqrstuvwx",
            "AKIAIOSFODNN7EXAMPLE",
            "ghp_0123456789abcdefghijklmnopqrstuvwxyz",
            "token: abc123def456",
            "password=hunter22",
            "-----BEGIN RSA PRIVATE KEY-----\nMIIE",
            "https://user:pass@example.com/x",
            "me:pw@example.com",
            "Bearer eyJhbGciOiJIUzI1NiJ9.abc.def",
            "xoxb-123-456-abcdefghij",
            "hf_abcdefghijklmnopqrstuvwxyzABCDEF",
            "SK0123456789abcdef0123456789abcdef",
            "sk-…",
            "--token s3cr3t",
        ];
        for secret in secrets {
            assert!(redact(secret) != secret, "{secret:?} is a secret");
            for at in 0..=ids.len() {
                let mut texts = ids.to_vec();
                texts.insert(at, secret);
                assert!(may_hold_secret(texts.iter().copied()), "{secret:?} at {at}");
            }
        }
        assert!(!may_hold_secret(ids.iter().copied()), "plain ids hold none");
        assert!(!may_hold_secret(std::iter::empty()));
    }

    /// Every shape applied in order, each compiled and run whatever the
    /// set says: what `redact` must give.
    fn every_shape(text: &str) -> String {
        let mut out = text.to_string();
        for s in super::SHAPES.iter() {
            out = s.replace_all(&out).into_owned();
        }
        out
    }

    /// `redact` skips the shapes the set says a text does not hold, and
    /// asks again after each change: secrets alone, in pairs and in the
    /// places they are met, redacted as every shape in turn redacts them.
    #[test]
    fn skipping_shapes_the_set_rules_out_changes_nothing() {
        let secrets = [
            "sk-ant-api03-abcdefghijklmnopqrstuvwx",
            "AKIAIOSFODNN7EXAMPLE",
            "ghp_0123456789abcdefghijklmnopqrstuvwxyz",
            "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJyZWwzand0In0.Rel3JwtSig",
            "xoxb-123456789012-Rel3SlackBotAbCdEf",
            "hf_abcdefghijklmnopqrstuvwxyzABCDEF",
            "SK0123456789abcdef0123456789abcdef",
            "gsk_Tl22GroqQ…",
            "hunter22",
            "Tr0ub4dor&3xyz",
            "-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----",
            "https://hooks.slack.com/services/T0REL3AAA/B0REL3BBB/Rel3SlackHookAbCdEfGhIj",
            "dXNlcjpwYXNzd29yZA==",
        ];
        let places: [&dyn Fn(&str) -> String; 8] = [
            &|s| s.to_string(),
            &|s| format!("password={s}"),
            &|s| format!("Authorization: Bearer {s}"),
            &|s| format!("Authorization: Basic {s}"),
            &|s| format!("deploy --token {s} now"),
            &|s| format!("https://admin:{s}@db.example.com/x"),
            &|s| format!(r#"{{\"api_key\": \"{s}\"}}"#),
            &|s| format!("toolu_{s}"),
        ];
        let mut texts = Vec::new();
        for a in secrets {
            for place in &places {
                texts.push(place(a));
            }
            for b in secrets {
                texts.push(format!("{a} and {b}"));
                texts.push(format!("token: {a}{b}"));
            }
        }
        let mut redacted = 0;
        for text in &texts {
            let want = every_shape(text);
            redacted += usize::from(want != *text);
            assert_eq!(redact(text), want, "for {text:?}");
        }
        assert!(redacted > texts.len() * 9 / 10, "the texts hold secrets: {redacted} of {}", texts.len());
    }

    #[test]
    fn secret_shapes() {
        let cases = [
            ("key sk-ant-api03-abcdefghijklmnopqrstuvwx rest", "key sk-[REDACTED] rest"),
            ("OPENAI=sk-proj-ABCDEFGHIJKLMNOP1234", "OPENAI=sk-[REDACTED]"),
            ("aws AKIAIOSFODNN7EXAMPLE here", "aws AKIA[REDACTED] here"),
            ("Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.abc.def", "Authorization: Bearer [REDACTED]"),
            ("curl -u x --data password=hunter22&user=a", "curl -u x --data password=[REDACTED]&user=a"),
            ("token: abc123def456", "token: [REDACTED]"),
            ("{\"api_key\": \"zzzzzzzz\"}", "{\"api_key\": \"[REDACTED]\"}"),
            (
                "-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY----- done",
                "[REDACTED PRIVATE KEY] done",
            ),
            ("ghp_0123456789abcdefghijklmnopqrstuvwxyz", "gh_[REDACTED]"),
        ];
        for (input, want) in cases {
            assert_eq!(redact(input), want, "for {input:?}");
        }
    }

    /// Issue 22, F7: the shapes security scanners know, each in the
    /// places it is met (text, an id after `_`, a JSON string).
    #[test]
    fn shapes_the_scanners_know() {
        let cases = [
            (
                "jwt eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJyZWwzand0In0.Rel3JwtSigAbCdEfGhIjKlMnOpQrStUv end",
                "jwt [REDACTED JWT] end",
            ),
            (
                "github_pat_11REL3ABC0123456789_Rel3FineGrainedPatAbCdEfGhIjKlMnOpQrStUvWxYz0123456789ab",
                "github_pat_[REDACTED]",
            ),
            ("https://admin:Rel3UrlPassw0rd@db.example.com/x", "https://admin:[REDACTED]@db.example.com/x"),
            ("postgres://svc:Rel3PgPassw0rd@10.0.0.5:5432/app", "postgres://svc:[REDACTED]@10.0.0.5:5432/app"),
            ("redis://:s3cr3tpass@cache:6379", "redis://:[REDACTED]@cache:6379"),
            // Slashes lost (a file name): the userinfo still goes.
            (
                "f9-https:__deploy:Tl22UrlPass@git.example.com_repo.db",
                "f9-https:__deploy:[REDACTED]@git.example.com_repo.db",
            ),
            ("mysql:__root:Tl22MyPass@127.0.0.1:3306_db", "mysql:__root:[REDACTED]@127.0.0.1:3306_db"),
            (
                "https://hooks.slack.com/services/T0REL3AAA/B0REL3BBB/Rel3SlackHookAbCdEfGhIj",
                "https://hooks.slack.com/services/[REDACTED]",
            ),
            ("xoxb-123456789012-Rel3SlackBotAbCdEf", "xox-[REDACTED]"),
            ("xoxp-1234567890-1234567890-abcdef", "xox-[REDACTED]"),
            ("login with xoxb<n><n>-Tl22SlackBotQwErTy failed", "login with xox-[REDACTED] failed"),
            ("xapp-1-A0REL3APP01-1234567890123-abcdef0123456789", "xox-[REDACTED]"),
            // A name that starts as a Slack prefix does: its value goes, the name stays.
            ("xapp-access-token='Zq90aaaAa and more'", "xapp-access-token='[REDACTED]'"),
            ("key=AIzaSyRel3GoogleApiKeyAbCdEfGhIjKlMnOpQ;", "key=AIza[REDACTED];"),
            ("sk_live_Rel3StripeKeyAbCdEfGhIjKl", "sk_live_[REDACTED]"),
            ("rk_live_0123456789abcdef and sk_test_0123456789abcdef", "rk_live_[REDACTED] and sk_test_[REDACTED]"),
            ("hf_Rel3HuggingFaceTokenAbCdEfGhIjKlMnOp", "hf_[REDACTED]"),
            ("npm_Rel3NpmTokenAbCdEfGhIjKlMnOpQrStUvWx", "npm_[REDACTED]"),
            ("glpat-Rel3GitlabTokAbCdEfGh", "glpat-[REDACTED]"),
            ("DB_PASSWORD=Rel3DbEnvPassw0rd", "DB_PASSWORD=[REDACTED]"),
            ("aws_secret_access_key=wJalrXUtnFEMIrel3K7MDENGbPxRfiCYEXAMPLEKEY", "aws_secret_access_key=[REDACTED]"),
            ("AWS_SECRET_ACCESS_KEY: Rel3AwsSecretEnvAbCd", "AWS_SECRET_ACCESS_KEY: [REDACTED]"),
            ("{\"client_secret\": \"abc123xyz\"}", "{\"client_secret\": \"[REDACTED]\"}"),
            (r#"{"raw":"{\"api_key\": \"Tl22Json\"}"}"#, r#"{"raw":"{\"api_key\": \"[REDACTED]\"}"}"#),
            ("Authorization: Basic dXNlcjpwYXNzd29yZA==", "Authorization: Basic [REDACTED]"),
            ("mysql --password hunter2 --user x", "mysql --password [REDACTED] --user x"),
            ("AccountName=acct;AccountKey=Zm9vYmFyYmF6cXV4==;", "AccountName=acct;AccountKey=[REDACTED];"),
            ("X-API-Key: 0123456789abcdef", "X-API-Key: [REDACTED]"),
            (r#"deploy --token {\"api_key\": \"Tl22Json\"}"#, r#"deploy --token {\"api_key\": \"[REDACTED]\"}"#),
            // A secret glued to an id or a name by `_` or `-`.
            ("toolu_sk-proj-Rel3OpenAIkeyAbCdEfGhIjKlMnOpQrStUvWx", "toolu_sk-[REDACTED]"),
            ("toolu_AKIAZ7Q3REL3EXAMPLE9", "toolu_AKIA[REDACTED]"),
            ("sess-3-ghp_Rel3GhpTokenAbCdEfGhIjKlMnOpQrStUvWx12", "sess-3-gh_[REDACTED]"),
            ("toolu_aws_secret_access_key=wJalrXUtnFEMIrel3K7", "toolu_aws_secret_access_key=[REDACTED]"),
            (
                "-----BEGIN OPENSSH PRIVATE KEY-----\\nb3BlbnNzaC1rZXktdjE\\n-----END OPENSSH PRIVATE KEY-----\"}",
                "[REDACTED PRIVATE KEY]\"}",
            ),
            ("-----BEGIN PGP PRIVATE KEY BLOCK-----\nlQOYBF\n", "[REDACTED PRIVATE KEY]"),
            // A secret word inside the name, and values with `&` and spaces.
            ("SECRET_KEY_BASE=8f3a9c1d2e4b5a6978c0d1e2f3a4b5c6d7e8f901", "SECRET_KEY_BASE=[REDACTED]"),
            ("export DATABASE_PASSWORD=Tr0ub4dor&3xyz; run", "export DATABASE_PASSWORD=[REDACTED]; run"),
            (
                "GET /login?password=hunter22&token=Tl22QueryTok&page=2",
                "GET /login?password=[REDACTED]&token=[REDACTED]&page=2",
            ),
            ("password: \"correct horse battery staple\"", "password: \"[REDACTED]\""),
            ("DB_PASS_SECRET='two words here'", "DB_PASS_SECRET='[REDACTED]'"),
            (r#"{\"db_password_prod\": \"with space\"}"#, r#"{\"db_password_prod\": \"[REDACTED]\"}"#),
            // Fixed prefixes: LLM providers and the scanners' other rules.
            ("gsk_Tl22GroqKeyAbCdEfGhIjKlMnOpQrStUvWxYz0123456789AbCd", "gsk_[REDACTED]"),
            ("key xai-Tl22XaiKeyAbCdEfGhIjKlMnOpQrStUvWxYz0123456789 end", "key xai-[REDACTED] end"),
            ("whsec_Tl22StripeWebhookAbCdEfGhIjKlMn", "whsec_[REDACTED]"),
            (
                "AGE-SECRET-KEY-1QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7LQPZRY9X8GF2TVDW0S3JN54KHCE6MUA7LQPZ",
                "AGE-SECRET-KEY-1[REDACTED]",
            ),
            ("hvs.CAESITl22VaultTokenAbCdEfGhIjKlMnOpQr", "hvs.[REDACTED]"),
            ("SK0123456789abcdef0123456789abcdef twilio", "SK[REDACTED] twilio"),
            ("lsv2_pt_Tl22LangSmithAbCdEfGhIjKlMnOpQrSt_0123abcd", "lsv2_pt_[REDACTED]"),
            ("Error: www failed for gsk_Tl22GroqQ…", "Error: www failed for gsk_[REDACTED]…"),
            ("token sk-proj-Tl…", "token sk-[REDACTED]…"),
        ];
        for (input, want) in cases {
            assert_eq!(redact(input), want, "for {input:?}");
        }
    }

    #[test]
    fn ordinary_text_is_untouched() {
        for text in [
            "Error: old_string not found in /a/b.rs",
            "please provide subagent_type parameter",
            "the token count is high",
            "sk-short",
            "commit 4f9e2c1a7b3d5e6f8091a2b3c4d5e6f708192a3b merged",
            "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
            "max_tokens: 4096, input_tokens=512, token_count: 7",
            "author: Jane Doe",
            "see https://example.com/a:b@c and git@github.com:org/repo.git",
            "write to mailto:jane@example.com or xmpp:bob@chat.example.org",
            "pull image:tag@sha256:abc and pkg@1.2.3",
            "disk-0123456789abcdefghij task-manager-abcdefghijklmnop",
            "toolu_01ABCDEFGHIJKLMNOPQRSTUV call_00_JpAjQZBIpNj4qysohdBQ6732",
            "ASIAN PACIFIC and AKIAsmall",
            "the basic configuration is fine",
            "docker login --password-stdin and --token-file path",
            "eyJhbGciOi alone",
            "secret_count: 3 and passwords: none",
            "the SKU is SK12 and ask_me later",
            "hvs.short",
        ] {
            assert!(matches!(redact(text), std::borrow::Cow::Borrowed(_)), "{text}: {}", redact(text));
        }
    }
}
