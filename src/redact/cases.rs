//! Issue 55, D5, D12 and D13: secret names by meaning in every case style
//! and place, the header and command shapes, provider credentials, one
//! encoding down, and what is kept; each reproduction of
//! `reliability-4` with variations of its own. The property tests
//! generate names in every style (`proptest`).

use super::redact;

/// `redact(text)` no longer holds `secret`, and still holds `kept`.
#[track_caller]
fn hides(text: &str, secret: &str, kept: &str) {
    let out = redact(text);
    assert!(!out.contains(secret), "{text:?} shows {secret:?}: {out:?}");
    assert!(out.contains(kept), "{text:?} lost {kept:?}: {out:?}");
}

/// Names glued, camelCase, PascalCase, SCREAMING, kebab and dotted, and
/// the reproduction's 45 assignments (`repro_secret_names.py`) in other
/// places: at the start, inside a sentence, at the end of a line, after a
/// `_` of an id, and in JSON written once and escaped once and twice.
#[test]
fn secret_names_in_every_style_and_place() {
    let names = [
        "PGPASSWORD",
        "DBPASSWORD",
        "MYSQL_ROOT_PASSWORD",
        "mypassword",
        "userPassword",
        "SECRETKEY",
        "clientSecret",
        "ClientSecret",
        "client-secret",
        "dbPassword",
        "accessToken",
        "AccessToken",
        "authToken",
        "refreshToken",
        "refresh.token",
        "sessionToken",
        "ghToken",
        "_authToken",
        "SharedAccessKey",
        "sessionId",
        "session_id",
        "JSESSIONID",
        "apiKey",
        "APIKey",
        "apikey",
        "x-api-key",
        "X-Auth-Token",
        "privateKey",
        "private.key",
        "signingKey",
        "SecretAccessKey",
        "aws.secretAccessKey",
        "spring.datasource.password",
        "webhookSecret",
        "slack_bot_token",
        "NPM_TOKEN",
        "GITLAB_TOKEN_PROD",
        "db_pwd",
        "SMTP_PASS",
        "Ocp-Apim-Subscription-Key",
        "storageAccountKey",
    ];
    let value = "Zq8vRw3LmK0pXs";
    for name in names {
        let places = [
            format!("{name}={value}"),
            format!("export {name}={value} && run"),
            format!("Error: login failed ({name}: {value}) at line 3"),
            format!("config:\n  {name}: {value}\n  other: 1"),
            format!(r#"{{"{name}": "{value}", "n": 1}}"#),
            format!(r#"{{"{name}":"{value}"}}"#),
            format!(r#"{{\"{name}\": \"{value}\"}}"#),
            format!(r#"{{\\\"{name}\\\": \\\"{value}\\\"}}"#),
            format!("{{'{name}': '{value}'}}"),
            format!("{name} => '{value} with spaces'"),
            format!("{name} := \"{value}\""),
            format!("toolu_{name}={value}"),
            format!("mcp__{name}: '{value}'"),
            format!("https://x.example/cb?a=1&{name}={value}&b=2"),
            format!("<{name}>{value}</{name}>"),
            format!("--{name}={value}"),
        ];
        for text in &places {
            hides(text, value, name.trim_start_matches('_'));
        }
    }
}

/// The reproduction's assignments (`repro_secret_names.py`): each value
/// gone, the name kept. The script's 45 with other values, and more
/// of each kind.
#[test]
fn the_reproductions_assignments() {
    let cases = [
        "PGPASSWORD=Q1x",
        "MYSQL_PWD=Q2x",
        "DBPASSWORD=Q3x",
        "mypassword=Q4x",
        "APIKEY=Q5x",
        "apikey: Q6x",
        r#""accessToken": "Q7x""#,
        r#""authToken":"Q8x""#,
        "refreshToken=Q9x",
        "clientSecret=Q10x",
        "dbPassword=Q11x",
        "SECRETKEY=Q12x",
        "x-auth-token: Q13x",
        "X-Api-Token: Q14x",
        "private-key: Q15x",
        "SharedAccessKey=Q16x",
        "GITHUB_TOKEN=Q17x",
        "ghToken=Q18x",
        "NPM_TOKEN=Q19x",
        "//registry.npmjs.org/:_authToken=Q20x",
        "session_id=Q21x",
        "sessionToken=Q22x",
        "passwd Q23x0xyzA",
        "--password=Q24x",
        "-p Q25x0secretValue",
        "--token Q26x",
        // Found by the property test: `sk` then `--name value`, where the
        // key shape once swallowed the name and left the value.
        "sk--prod_client_secret Q26y0aa0AA",
        "PASSWORD='Q27x secret value'",
        r#"password="Q28x secret value""#,
        "Authorization: Token Q29x",
        "Authorization: token Q30x",
        "Authorization: ApiKey Q31x",
        "X-Amz-Security-Token=Q32x",
        "https://a.blob.core.windows.net/c?sv=2022&sig=Q33x",
        "https://maps.example/api?key=Q34x",
        "api-key: Q35x",
        "Ocp-Apim-Subscription-Key: Q36x",
        "x-goog-api-key: Q37x",
        "PRIVATE_KEY=Q38x",
        "privateKey: Q39x",
        "aws configure set aws_secret_access_key Q40x0abcdEF",
        "TF_VAR_db_password=Q41x",
        "export OPENAI_API_KEY=Q42x",
        "OPENAI_API_KEY: Q43x",
        "ANTHROPIC_API_KEY=Q44x",
        "HF_TOKEN=Q45x",
        // More of each kind: other headers, schemes and stores.
        "Authorization: Digest username=\"u\", realm=\"r\", response=\"Q46x0aaaa\"",
        "authorization: SSWS Q47x",
        "Proxy-Authorization: Negotiate Q48x",
        "AUTHORIZATION: AWS4-HMAC-SHA256 Credential=Q49x/2026, Signature=Q49y",
        "curl -H 'Authorization: Token Q50x' https://api.example",
        r#"{"headers": {"Authorization": "ApiKey Q51x"}}"#,
        "X-Vault-Token: Q52x",
        "PRIVATE-TOKEN: Q53x",
        "DD-API-KEY: Q54x",
        "https://s3.example/o?X-Amz-Signature=Q55x&X-Amz-Date=1",
        "machine api.example login me password Q56x0abcd",
        r#"{"SecretAccessKey": "Q57x", "SessionToken": "Q58x"}"#,
        "AccountName=a;AccountKey=Q59x;EndpointSuffix=core.windows.net",
        "keytool -storepass Q60x -keypass Q61x",
        "$env:API_KEY = \"Q62x\"",
    ];
    for text in cases {
        let out = redact(text);
        let mut rest = out.as_ref();
        while let Some(at) = rest.find('Q') {
            let tail = &rest[at + 1..];
            assert!(!tail.starts_with(|c: char| c.is_ascii_digit()), "{text:?} shows a value: {out:?}");
            rest = tail;
        }
        assert!(out.contains("[REDACTED]"), "{text:?}: {out:?}");
    }
}

/// Headers and commands (D12): cookies, `Authorization` of any scheme,
/// commands' passwords, provider shapes of gitleaks' and secretlint's rule
/// sets that were missing; each value gone and what says what it was kept.
#[test]
fn headers_commands_and_providers() {
    let cases: &[(&str, &str, &str)] = &[
        ("Cookie: sessionid=Rel5CookieA1; csrftoken=Rel5CsrfB2", "Rel5", "Cookie: sessionid=[REDACTED]; csrftoken="),
        ("cookie: _gh_sess=Rel5GhSess1", "Rel5", "cookie: _gh_sess=[REDACTED]"),
        (
            "Set-Cookie: __Host-session=Rel5SetCk1; Path=/; Secure; HttpOnly",
            "Rel5",
            "__Host-session=[REDACTED]; Path=/; Secure; HttpOnly",
        ),
        (r#"{"Cookie": "sid=Rel5JsonCk1; theme=dark"}"#, "Rel5", r#"{"Cookie": "sid=[REDACTED]; theme=[REDACTED]"}"#),
        ("session_cookie=Rel5SessCk1 next", "Rel5", "session_cookie=[REDACTED] next"),
        ("Authorization: Basic UmVsNVVzZXI6UmVsNVBhc3M=", "UmVsNV", "Authorization: Basic [REDACTED]"),
        ("Authorization: Rel5RawKey0123456789", "Rel5", "Authorization: [REDACTED]"),
        ("mysql -uroot -pRel5MyPw app", "Rel5", "mysql -uroot -p[REDACTED] app"),
        ("mysqldump -h db --single-transaction -p'Rel5 Dump' db", "Rel5", "-p'[REDACTED]' db"),
        ("sshpass -p Rel5SshPw ssh root@host", "Rel5", "sshpass -p [REDACTED] ssh"),
        ("sshpass -pRel5SshGlued ssh h", "Rel5", "sshpass -p[REDACTED] ssh"),
        ("docker login -u me -p Rel5Docker registry.example", "Rel5", "-p [REDACTED] registry.example"),
        ("redis-cli -h cache -a Rel5Redis ping", "Rel5", "-a [REDACTED] ping"),
        ("openssl enc -aes256 -pass pass:Rel5Ossl -in f", "Rel5", "pass:[REDACTED] -in f"),
        ("curl -u admin:Rel5CurlPw https://x.example", "Rel5", "curl -u admin:[REDACTED] https://"),
        ("curl --user 'deploy:Rel5Quoted' https://x", "Rel5", "--user 'deploy:[REDACTED]'"),
        (
            "https://api.telegram.org/bot987654321:AAFRel5Telegram0123456789abcdefghij/getMe",
            "Rel5",
            "bot987654321:[REDACTED]/getMe",
        ),
        ("Error: failed <path>:AAHRel5TelegramBot<n>abcdefgh/getMe", "Rel5", "Error: failed <path>:[REDACTED]/getMe"),
        ("key-0123456789abcdefrel5mailgunxyzab", "rel5", "key-[REDACTED]"),
        ("glpat-Rel5GitlabTokenAbCdEfGh.01.0w1x2y3z4", "Rel5", "glpat-[REDACTED]"),
        ("GR1348941Rel5RunnerRegTokAbCd", "Rel5", "GR1348941[REDACTED]"),
        ("dckr_pat_Rel5DockerHubAbCdEfGhIjKl", "Rel5", "dckr_pat_[REDACTED]"),
        ("sbp_0123456789abcdef0123456789abcdef01234567", "0123456789abcdef01234", "sbp_[REDACTED]"),
        ("NRAK-REL5NEWRELICABCDEFGHIJKLMN", "REL5", "NRAK-[REDACTED]"),
        ("0123456789abcdef0123456789abcdef-us14", "0123456789abcdef", "-mailchimp"),
        ("abc8Q~Rel5AzureAdSecretAbCdEfGhIjKlMnOpQ", "Rel5", "[REDACTED]"),
        ("podman login -u me -p Rel5Podman quay.io", "Rel5", "-p [REDACTED] quay.io"),
        ("helm registry login r.example -u me -p Rel5Helm", "Rel5", "-p [REDACTED]"),
        ("mongosh -u admin -p Rel5Mongo --host h", "Rel5", "-p [REDACTED] --host"),
        ("sqlcmd -S db -U sa -PRel5Sqlcmd -Q x", "Rel5", "-P[REDACTED] -Q"),
        ("ldapsearch -x -D cn=admin -w Rel5Ldap -b dc=x", "Rel5", "-w [REDACTED] -b"),
        ("az login --service-principal -u id -p Rel5AzLogin --tenant t", "Rel5", "-p [REDACTED] --tenant"),
        ("secret_Rel5NotionAbCdEfGhIjKlMnOpQrStUvWxYz0123456", "Rel5", "secret_[REDACTED]"),
        ("sgp_Rel5SourcegraphAbCdEfGh0123", "Rel5", "sgp_[REDACTED]"),
        ("tfp_Rel5TypeformAbCdEfGhIjKl0123", "Rel5", "tfp_[REDACTED]"),
        ("p8e-Rel5AdobeAbCdEfGhIjKlMn0123", "Rel5", "p8e-[REDACTED]"),
        ("FLWSECK_TEST-Rel5FlutterwaveAbCdEfGh-X", "Rel5", "FLWSECK_TEST-[REDACTED]"),
        ("CLOJARS_rel5clojarsabcdefghijklmnop", "rel5", "CLOJARS_[REDACTED]"),
        ("oy2rel5nugetabcdefghijklmnopqrstuvwxyz0123", "rel5", "oy2[REDACTED]"),
        ("LTAIRel5AlibabaAbCdEfGhIj", "Rel5", "LTAI[REDACTED]"),
        ("dp.st.Rel5DopplerAbCdEfGhIjKl0123", "Rel5", "dp.st.[REDACTED]"),
        ("sq0csp-Rel5SquareAbCdEfGhIjKlMn", "Rel5", "sq0csp-[REDACTED]"),
        ("sb_secret_Rel5SupabaseAbCdEfGhIj", "Rel5", "sb_secret_[REDACTED]"),
        ("NRII-Rel5NewRelicIngestAbCdEf", "Rel5", "NRII-[REDACTED]"),
        ("patRel5AirtableAb.0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", "Rel5", "pat[REDACTED]"),
        ("sk.eyJRel5MapboxAbCdEfGhIjKlMnOp.Rel5MapboxSig0123", "Rel5", "sk.[REDACTED]"),
        (
            "rel5terraform1.atlasv1.Rel5TerraformCloudAbCdEfGhIjKlMnOpQrStUvWxYz0123456789AbCdEfGhIjKlMnOpQrSt",
            "Rel5",
            "[REDACTED].atlasv1",
        ),
        ("token sk_live_Rel5StripeAbCdEfGh and rk_prod_Rel5RestrictedAbCd", "Rel5", "sk_live_[REDACTED]"),
        (
            r#"{"aws_secret_access_key": "Rel5AwsJsonKeyAbCdEf0123"}"#,
            "Rel5",
            r#""aws_secret_access_key": "[REDACTED]""#,
        ),
        (
            "Endpoint=sb://x.servicebus.windows.net/;SharedAccessKeyName=Root;SharedAccessKey=Rel5SbKey=",
            "Rel5",
            "SharedAccessKeyName=Root;SharedAccessKey=[REDACTED]",
        ),
    ];
    for (text, secret, kept) in cases {
        hides(text, secret, kept);
    }
}

/// One encoding down (D12, D13): base64 of a key or of an assignment,
/// `%XX`-escaped names and values, and JSON escaped twice.
#[test]
fn one_encoding_down() {
    let b64 = |s: &str| {
        const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let mut out = String::new();
        for chunk in s.as_bytes().chunks(3) {
            let n = chunk.iter().enumerate().fold(0u32, |n, (i, &b)| n | (b as u32) << (16 - 8 * i));
            for i in 0..=chunk.len() {
                out.push(A[(n >> (18 - 6 * i) & 63) as usize] as char);
            }
        }
        while !out.len().is_multiple_of(4) {
            out.push('=');
        }
        out
    };
    for inner in [
        "sk-proj-Rel5B64KeyAbCdEfGhIjkl",
        "password=Rel5B64Pw0123",
        "ghp_Rel5GhpInBase64AbCdEfGhIjKlMnOpQrStUv",
        "{\"clientSecret\": \"Rel5B64Json\"}",
    ] {
        let encoded = b64(inner);
        for text in
            [format!("echo {encoded} | base64 -d"), format!("data={encoded}"), format!("\"blob\": \"{encoded}\"")]
        {
            hides(&text, &encoded, "[REDACTED]");
        }
    }
    // Base64 that decodes to ordinary text stays.
    let plain = b64("the build finished with 3 warnings");
    assert_eq!(redact(&format!("log {plain}")), format!("log {plain}"));
    for (text, secret, kept) in [
        (
            "https://login.example/cb?next=%2Fapp%3Fclient_secret%3DRel5UrlSecret%26x%3D1",
            "Rel5",
            "next=%2Fapp%3Fclient_secret%3D[REDACTED]%26x%3D1",
        ),
        ("redirect=%7B%22accessToken%22%3A%22Rel5UrlJson%22%7D", "Rel5", "%22accessToken%22%3A%22[REDACTED]%22"),
        ("u=https%3A%2F%2Fadmin%3ARel5UrlPass%40db.example%2Fx", "Rel5", "admin%3A[REDACTED]%40db.example"),
        ("q=PGPASSWORD%3DRel5Pg%20psql", "Rel5", "PGPASSWORD%3D[REDACTED]%20psql"),
        (r#"{\"db_password\": \"Rel5JsonEsc\"}"#, "Rel5", r#"{\"db_password\": \"[REDACTED]\"}"#),
        (r#"{\\\"db_password\\\": \\\"Rel5JsonEsc2\\\"}"#, "Rel5", r#"\\\"db_password\\\": \\\"[REDACTED]\\\""#),
        ("api_key=\\nRel5SplitLine", "Rel5", "api_key=\\n[REDACTED]"),
        ("api_key=\nRel5SplitLine2", "Rel5", "api_key=\n[REDACTED]"),
    ] {
        hides(text, secret, kept);
    }
    // A path with `%20` and nothing secret decoded stays as it is.
    for text in ["open /tmp/My%20Files/report%202026.pdf", "100%25 done", "5% of 10%"] {
        assert_eq!(redact(text), text);
    }
}

/// What is kept: names that mean no secret (falseok prints token counts),
/// and values that are clearly none.
#[test]
fn counts_words_and_placeholders_are_kept() {
    for text in [
        r#"{"input_tokens": 1234, "output_tokens": 56, "cache_read_input_tokens": 78901, "cache_creation_input_tokens": 0}"#,
        "max_tokens: 4096, token_count=12, tokens_used: 99, num_tokens=3",
        "usage: {\"prompt_tokens\": 10, \"completion_tokens\": 20, \"total_tokens\": 30}",
        "tokenizer: cl100k_base",
        "keyboard: us, monkey: george, hotkey: ctrl",
        "passed: 12, failed: 0, skipped: 1",
        "primary_key: id, sort_key: created_at, cache_key: abc123def456",
        "password_file: /run/secrets/db, token_type: bearer, secret_name: prod-db",
        "password: true, token: null, secret: None, api_key: \"\"",
        "password=$DB_PASSWORD token=${GITHUB_TOKEN} secret={{ vault.secret }}",
        "password: '****', apiKey: \"<your-api-key>\", token: [REDACTED]",
        "SharedAccessKeyName=RootManageSharedAccessKey",
        "author: Jane Doe, authority: ca.example",
        "the password is wrong and the token expired",
        "password authentication failed for user postgres",
        "docker login --password-stdin registry.example",
        "cargo test -p falseok --lib; mkdir -p build/out; ssh -p 2222 host",
        "kubectl logs -p web-7d9f8b6c5-x2k4j",
        "docker run -u 1000:1000 image",
        "git config credential.helper store",
        "PWD=/home/me/project",
        "secrets: inherit",
        "AccessKeyId: ASIAXXXXXXXXXXXXXXXX is shown as an id",
        "Authorization: required",
        "Set-Cookie: theme=dark; Path=/",
    ] {
        // The id of an access key and a theme cookie are the only changes allowed.
        let out = redact(text);
        if text.starts_with("AccessKeyId") || text.starts_with("Set-Cookie") {
            continue;
        }
        assert_eq!(out, text, "changed");
    }
}

/// Redacting twice changes nothing more: templates of a run and of the
/// index, and `merge` of a redacted report, all agree.
#[test]
fn redacting_redacted_text_changes_nothing() {
    for text in [
        "PGPASSWORD=Rel5x Cookie: a=b1234; c=d5678",
        "Authorization: Digest username=\"u\", response=\"abc\"",
        "https://x/cb?next=%2Fa%3Fclient_secret%3DRel5%26x%3D1",
        "echo c2stcHJvai1SZWw0QjY0S2V5QWJDZEVmR2hJakts | base64 -d",
        "mysql -pRel5 app; curl -u a:b1c2d3 x",
        "key sk-ant-api03-abcdefghijklmnopqrstuvwx rest, token=sk-proj-abcdefghijklmnopqrst",
    ] {
        let once = redact(text).into_owned();
        assert_ne!(once, text);
        assert_eq!(redact(&once), once, "for {text:?}");
    }
}

mod properties {
    use proptest::prelude::*;

    use super::super::redact;

    /// Words a secret name is made of around its secret word.
    const AROUND: &[&str] =
        &["db", "prod", "my", "github", "aws", "app", "client", "service", "x", "api", "pg", "user"];
    /// Secret words, as words or glued pairs (`access`+`key`).
    const SECRET: &[&[&str]] = &[
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
        &["passphrase"],
    ];

    /// `words` written in one of the case styles names come in.
    pub(crate) fn styled(words: &[&str], style: usize) -> String {
        let cap = |w: &str| w[..1].to_ascii_uppercase() + &w[1..];
        match style {
            0 => words.join("_"),
            1 => words.join("_").to_ascii_uppercase(),
            2 => words.join("-"),
            3 => words.iter().map(|w| cap(w)).collect::<Vec<_>>().join("-"),
            4 => words.join("."),
            5 => words[0].to_string() + &words[1..].iter().map(|w| cap(w)).collect::<String>(),
            6 => words.iter().map(|w| cap(w)).collect(),
            7 => words.concat(),
            _ => words.concat().to_ascii_uppercase(),
        }
    }

    /// A name that holds a secret word: up to two words before it, the
    /// secret word (or pair), in a style.
    pub(crate) fn secret_name() -> impl Strategy<Value = String> {
        (prop::collection::vec(prop::sample::select(AROUND), 0..3), prop::sample::select(SECRET), 0..9usize).prop_map(
            |(before, secret, style)| {
                let words: Vec<&str> = before.iter().copied().chain(secret.iter().copied()).collect();
                styled(&words, style)
            },
        )
    }

    /// A secret value: letters and digits, at least one of each.
    pub(crate) fn secret_value() -> impl Strategy<Value = String> {
        "[A-Za-z0-9]{6,30}".prop_map(|v| format!("Zq9{v}"))
    }

    /// How a value is given to a name.
    pub(crate) fn given(name: &str, value: &str, how: usize) -> String {
        match how {
            0 => format!("{name}={value}"),
            1 => format!("{name}: {value}"),
            2 => format!(r#""{name}": "{value}""#),
            3 => format!(r#"{{\"{name}\":\"{value}\"}}"#),
            4 => format!("{name}='{value} and more'"),
            5 => format!("?a=b&{name}={value}&c=d"),
            6 => format!("<{name}>{value}</{name}>"),
            _ => format!("--{name} {value}"),
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2000, failure_persistence: None, ..ProptestConfig::default() })]

        /// A secret given to any secret name, in any style, given in any
        /// way, anywhere in a text, is never shown; and redacting again
        /// changes nothing.
        #[test]
        fn no_secret_under_a_secret_name(
            name in secret_name(),
            value in secret_value(),
            how in 0..8usize,
            before in "[ a-z:(\n]{0,12}",
            after in "[ a-z,;)\n]{0,12}",
        ) {
            let text = format!("{before}{}{after}", given(&name, &value, how));
            let out = redact(&text);
            prop_assert!(!out.contains(&value), "{:?} shows the value: {:?}", text, out);
            prop_assert_eq!(redact(&out), out.clone());
        }

        /// Counts and switches under names that only look secret are kept.
        #[test]
        fn counts_are_kept(
            before in prop::collection::vec(prop::sample::select(&["max", "input", "output", "cache", "read", "total"][..]), 0..3),
            word in prop::sample::select(&["tokens", "token_count", "token_limit", "tokenizer", "keyboard", "passed", "password_length"][..]),
            style in 0..7usize,
            n in 0u32..1_000_000,
            how in 0..3usize,
        ) {
            let words: Vec<&str> = before.into_iter().chain(word.split('_')).collect();
            let name = styled(&words, style);
            let text = given(&name, &n.to_string(), how);
            let out = redact(&text).into_owned();
            prop_assert_eq!(out, text);
        }
    }
}

/// Lines made of names whose values are kept, each name inside the value
/// of the one before: read once each, not once per name (which took
/// seconds a megabyte, and grows with the square of the line). The
/// bound is generous: the square would take minutes.
#[test]
fn long_lines_of_names_take_linear_time() {
    let started = std::time::Instant::now();
    for unit in ["token=$token=$", "Cookie: a=1; Cookie: a=1; ", "Authorization: ", "token: '$x ", "passwd passwd "] {
        let line = unit.repeat((1 << 20) / unit.len());
        assert!(matches!(redact(&line), std::borrow::Cow::Borrowed(_)) || unit.starts_with("Cookie"), "{unit}");
    }
    assert!(started.elapsed() < std::time::Duration::from_secs(60), "took {:?}", started.elapsed());
}
