//! Redaction of the secret shapes security scanners know, in trace text
//! shown in reports: provider API keys and tokens (OpenAI, Anthropic,
//! AWS, GitHub, GitLab, Slack, Google, Stripe, Hugging Face, npm, PyPI,
//! SendGrid, Shopify, DigitalOcean and others), JWTs, URL passwords,
//! webhook URLs, bearer and basic credentials, private key blocks, and
//! values assigned to secret names (`password=`, `DB_PASSWORD=`,
//! `aws_secret_access_key:`, `"api_key": …`). On by default; `--no-redact`
//! turns it off. docs/security.md lists the shapes.

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::{Captures, Regex};

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
        }
    }
}

/// What a match becomes: a replacement template, or a function of it.
enum With {
    Text(&'static str),
    Fn(fn(&Captures<'_>) -> String),
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

/// A name that holds a secret: a strong word anywhere in it
/// (`SECRET_KEY_BASE`, `db_password_prod`), or a weaker one at its end
/// (`GITHUB_TOKEN`, `client_secret`, `AccountKey`, `auth`).
const SECRET_NAME: &str = r"(?:(?:[a-z0-9]+[_.-])*(?:password|passwd|passphrase|secret|private[_-]?key|api[_-]?key)(?:[_.-][a-z0-9]+)*|(?:[a-z0-9]+[_.-])*(?:pwd|token|(?:access|account|signing|encryption|master|client)[_-]?key|credentials?|auth))";

/// An unquoted value assigned to a secret name (`DB_PASSWORD=x`).
static ASSIGNMENT: LazyLock<Regex> = LazyLock::new(|| Regex::new(&assignment()).expect("secret pattern"));

/// `ASSIGNMENT`'s pattern.
fn assignment() -> String {
    format!(r#"(?i)\b(?P<name>{SECRET_NAME}(?:\\?["'])?\s*[:=]\s*)(?P<value>[^\s"'\\,;]{{3,}})"#)
}

/// The next `&name=` of a query string in `value` (where the secret ends).
static NEXT_PARAM: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"&[A-Za-z_][A-Za-z0-9_.\[\]-]*=").expect("query parameter"));

/// An unquoted value assigned to a secret name: redacted up to the next
/// query parameter (`password=hunter22&user=a`), whose own value is judged
/// by its own name; an `&` inside the value (`Tr0ub4dor&3`) is the
/// secret's.
fn assigned(c: &Captures<'_>) -> String {
    let value = &c["value"];
    let (_, rest) = value.split_at(NEXT_PARAM.find(value).map_or(value.len(), |m| m.start()));
    let rest = ASSIGNMENT.replace_all(rest, assigned);
    format!("{}[REDACTED]{rest}", &c["name"])
}

/// Before a token: the start of the text or a character that is not a
/// letter or digit. `_` counts as a separator (`\b` would not see the key
/// in `toolu_sk-…` or `DB_PASSWORD`), and the character is put back.
const PRE: &str = r"(?P<pre>^|[^A-Za-z0-9])";

/// The secret shapes, most specific first. Token formats are those the
/// secret scanners (gitleaks, secretlint) know by a fixed prefix, so that
/// ordinary words and hex hashes never match; the assignment shape at the
/// end catches the rest by the name they are given.
static SHAPES: LazyLock<Vec<Shape>> = LazyLock::new(|| {
    let shape = |p: &str, with| Shape::new(p.to_string(), With::Text(with));
    let token = |p: &str, with| shape(&format!("{PRE}{p}"), with);
    vec![
        shape(
            r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?s:.*?)(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|$)",
            "[REDACTED PRIVATE KEY]",
        ),
        // The password of a URL's userinfo: `https://user:pw@`, `postgres://u:pw@`.
        shape(r#"\b([A-Za-z][A-Za-z0-9+.-]*://[^\s/:@'"`<>]*:)[^\s/@'"`<>]+@"#, "${1}[REDACTED]@"),
        Shape::new(
            r#"(?P<pre>^|[^A-Za-z0-9_.%+-])(?P<user>[A-Za-z0-9_.%+-]+:)[^\s/@:'"`<>\[\]]+@(?P<host>(?:[A-Za-z0-9-]+\.)+[A-Za-z]{2,}|[0-9]{1,3}(?:\.[0-9]{1,3}){3}|localhost)"#
                .to_string(),
            With::Fn(userinfo),
        ),
        // Webhook URLs are the credential themselves (`_` for `/`: a file name).
        shape(r"(hooks\.slack\.com[/_](?:services|workflows|triggers)[/_])[A-Za-z0-9+/_-]{8,}", "${1}[REDACTED]"),
        shape(r"(discord(?:app)?\.com[/_]api[/_]webhooks[/_])[0-9]+[/_][A-Za-z0-9_-]{8,}", "${1}[REDACTED]"),
        // JWTs: a base64url JSON header and payload (`eyJ…`), and a signature.
        token(r"ey[A-Za-z0-9_-]{10,}\.ey[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]*", "${pre}[REDACTED JWT]"),
        token(r"sk-(?:ant-|proj-|svcacct-|admin-)?[A-Za-z0-9_-]{16,}", "${pre}sk-[REDACTED]"),
        token(r"(?P<k>sk|rk)_(?P<m>live|test|prod)_[A-Za-z0-9]{10,}", "${pre}${k}_${m}_[REDACTED]"),
        token(r"(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b", "${pre}AKIA[REDACTED]"),
        token(r"gh[pousr]_[A-Za-z0-9]{30,}", "${pre}gh_[REDACTED]"),
        token(r"github_pat_[A-Za-z0-9_]{30,}", "${pre}github_pat_[REDACTED]"),
        token(r"(?P<k>gl(?:pat|ptt|rt|dt|ft|soat|agent|oas|imt|cbt|ffct))-[A-Za-z0-9_-]{20,}", "${pre}${k}-[REDACTED]"),
        // Slack, also as a template of a report made with --no-redact left
        // it (`xoxb<n><n>-…`: its digit groups normalized).
        token(r"(?:xox[abposre]|xapp)(?:-|<n>)[A-Za-z0-9<>-]{10,}", "${pre}xox-[REDACTED]"),
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
        // LLM providers agents call, and the other fixed prefixes of the
        // scanners' rule sets.
        token(r"(?P<k>gsk_|xai-|r8_|tvly-|lsv2_(?:pt|sk)_)[A-Za-z0-9_-]{30,}", "${pre}${k}[REDACTED]"),
        token(r"(?P<k>whsec_|ntn_|pnu_|rdme_|rubygems_|sntryu_|sntrys_|pscale_(?:tkn|oauth|pw)_|glsa_|glc_|ico-|shippo_(?:live|test)_|duffel_(?:live|test)_|xkeysib-|tk-us-|fo1_|fm2_|fio-u-|sq0atp-|hv[sb]\.)[A-Za-z0-9_=./+-]{20,}", "${pre}${k}[REDACTED]"),
        token(r"(?P<k>AGE-SECRET-KEY-1|ATATT3|ABSK|AKCp|HRKU-AA|PMAK-|ops_eyJ|dt0c01\.|dp\.pt\.|EZ[AT]K|sha256~|pul-)[A-Za-z0-9_=./+~-]{20,}", "${pre}${k}[REDACTED]"),
        token(r"SK[0-9a-fA-F]{32}\b", "${pre}SK[REDACTED]"),
        // A key cut short by a report made with --no-redact (a template
        // is cut at 160 characters, `gsk_Tl22Gro…`): its prefix and the cut
        // say enough, what is left of it goes.
        token(
            r"(?P<k>sk-|(?:sk|rk)_(?:live|test|prod)_|gh[pousr]_|github_pat_|gl(?:pat|ptt|rt)-|xox[abposre]-|xapp-|AIza|ya29\.|GOCSPX-|hf_|api_org_|npm_|pypi-|SG\.|shp(?:at|ca|pa|ss)_|do[por]_v1_|lin_api_|pplx-|gsk_|xai-|r8_|tvly-|lsv2_(?:pt|sk)_|whsec_|ntn_|hv[sb]\.|AKIA|ASIA|ey[A-Za-z0-9_-]{10,}\.)[A-Za-z0-9_<>.+/=-]*…",
            "${pre}${k}[REDACTED]…",
        ),
        shape(r"(?i)\b(bearer)\s+[A-Za-z0-9._~+/=-]{12,}", "$1 [REDACTED]"),
        shape(r#"(?i)\b(authorization["']?\s*[:=]\s*["']?basic)\s+[A-Za-z0-9+/=]{8,}"#, "$1 [REDACTED]"),
        // `NAME=value`, `NAME: value`, `"name": "value"` (also JSON-escaped,
        // as in serialized arguments), where the name holds a secret word
        // (`SECRET_KEY_BASE=`, `db_password_prod:`) or ends in a weaker one
        // (`DB_TOKEN=`, `client_secret:`, `AccountKey=`): `max_tokens: 10`
        // and `author: x` are kept. A quoted value goes up to its quote,
        // spaces included; an unquoted one up to a space, `,` or `;`, and
        // up to an `&` only where a query's next `name=` starts.
        shape(&format!(r#"(?i)\b({SECRET_NAME}(?:\\?["'])?\s*[:=]\s*\\?")[^"\\\n]{{3,}}"#), "${1}[REDACTED]"),
        shape(&format!(r#"(?i)\b({SECRET_NAME}(?:\\?["'])?\s*[:=]\s*')[^'\n]{{3,}}"#), "${1}[REDACTED]"),
        Shape::new(assignment(), With::Fn(assigned)),
        // A command's option followed by its secret: `--password hunter2`
        // (after the assignments, whose names it would otherwise take).
        shape(
            r"(?i)(--(?:password|passwd|token|secret|client-secret|api-key|access-key)\s+)[^\s-][^\s]{2,}",
            "${1}[REDACTED]",
        ),
    ]
});

/// One pattern that matches wherever some shape does: most text holds no
/// secret, and one pass says so.
static ANY: LazyLock<regex::RegexSet> =
    LazyLock::new(|| regex::RegexSet::new(SHAPES.iter().map(|s| &s.pattern)).expect("secret patterns"));

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
    if !ANY.is_match(text) {
        return Cow::Borrowed(text);
    }
    let mut held = ANY.matches(text);
    let mut out = Cow::Borrowed(text);
    for (i, s) in SHAPES.iter().enumerate() {
        if !held.matched(i) {
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
            (r#"deploy --token {\"api_key\": \"Tl22Json\"}"#, r#"deploy --token [REDACTED] \"[REDACTED]\"}"#),
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
