//! HTTP replies: a shell call of an HTTP client (`curl`, `wget`, HTTPie,
//! xh) exits 0 when the server answered, whatever it answered. A person
//! reading `{"error":"Unauthorized"}`, `{"detail":"Not Found"}`, a
//! `HTTP/1.1 404` status line or an HTML error page sees that the request
//! failed; the `Reads::HttpReplies` content rules read the reply as these
//! functions present it.

use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

use super::benign;
use crate::model::Args;

/// Programs that send an HTTP request and print the server's reply.
pub const CLIENTS: &[&str] = &["curl", "wget", "http", "https", "xh", "xhs", "httpie"];

/// How a failing reply is presented to the rules.
pub const REPLY_PREFIX: &str = "HTTP error reply: ";

/// Does `input`'s command line end with a request whose reply is printed
/// (the first command of the last pipeline is an HTTP client)?
pub fn is_request(input: &Args) -> bool {
    benign::command_line(input).is_some_and(|line| line_requests(&line))
}

/// Does the command `line` end with a request whose reply is printed?
fn line_requests(line: &str) -> bool {
    if !may_name_a_client(line) {
        return false;
    }
    let pipelines = benign::pipelines(line);
    let first_word = |c: &String| c.split(' ').next().unwrap_or("").to_string();
    let program = |p: &Vec<String>| p.first().map(first_word).unwrap_or_default();
    // The last pipeline is the request, or what follows it only prints or
    // prints nothing when it works (`curl -s URL && echo ""`, `curl -X
    // DELETE URL && rm -rf DIR`): the reply is still what the call shows.
    let Some(at) = pipelines.iter().rposition(|(p, _)| CLIENTS.contains(&program(p).as_str())) else { return false };
    let after = &pipelines[at + 1..];
    if pipelines[at..pipelines.len() - 1].iter().all(|(_, joint)| *joint == benign::Joint::And)
        && after.iter().all(|(p, _)| matches!(p.as_slice(), [c] if quiet_after_reply(c)))
    {
        return true;
    }
    // `curl -o FILE -w '%{http_code}' URL; cat FILE | head`: the reply was
    // saved, then printed by the line's last commands, which read only it.
    let Some(saved) = pipelines[at].0.first().and_then(|c| output_file(c)) else { return false };
    let reads_saved = |p: &Vec<String>| {
        p.iter().all(|c| matches!(first_word(c).as_str(), "echo" | "printf" | "cat" | "head" | "tail" | "jq"))
            && p.first().is_some_and(|c| {
                matches!(first_word(c).as_str(), "echo" | "printf") || c.split(' ').any(|w| w == saved)
            })
    };
    pipelines[at..pipelines.len() - 1]
        .iter()
        .all(|(_, joint)| matches!(joint, benign::Joint::And | benign::Joint::Other))
        && after.iter().all(|(p, _)| reads_saved(p))
}

/// A program that may follow a request without adding to what the call
/// shows: it prints only what it is given (`echo`, `printf`), or nothing
/// when it works (POSIX `rm`, `mkdir`, `cp`, `mv`, `touch`, `sleep`, `cd`
/// without `-v`), so the output is still the reply. A failing one exits
/// non-zero, and the exit rules judge the call.
fn quiet_after_reply(command: &str) -> bool {
    let mut words = command.split(' ');
    match words.next().unwrap_or("") {
        "echo" | "printf" => true,
        quiet if benign::SILENT_WHEN_DONE.contains(&quiet) => {
            let verbose = |w: &str| w == "--verbose" || (w.starts_with('-') && !w.starts_with("--") && w.contains('v'));
            !words.any(verbose)
        }
        _ => false,
    }
}

/// The file a curl or wget command saves the reply to (`-o FILE`,
/// `--output FILE`, wget's `-O FILE`), unless it is thrown away.
fn output_file(cmd: &str) -> Option<&str> {
    let words: Vec<&str> = cmd.split(' ').collect();
    let file = words.windows(2).find_map(|w| matches!(w[0], "-o" | "--output" | "-O").then_some(w[1]))?;
    (file != "/dev/null" && file != "-").then_some(file)
}

/// Can a program of `line` be an HTTP client? Without quotes or
/// backslashes every word of a command line is a piece of it, so a client
/// named nowhere in it runs nowhere in it: most lines are answered without
/// being parsed.
fn may_name_a_client(line: &str) -> bool {
    line.contains(['\'', '"', '\\']) || ["curl", "wget", "http", "xh"].iter().any(|c| line.contains(c))
}

/// An HTTP client's call in a script's text: Python's requests, httpx,
/// urllib and aiohttp, JavaScript's `fetch` and axios.
static SCRIPT_CLIENT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"\b(?:requests\.(?:get|post|put|patch|delete|head|request)\(|requests\.Session\(|httpx\.(?:get|post|put|patch|delete|head|request|Client|AsyncClient)\b|urllib\.request\b|urlopen\(|aiohttp\.ClientSession\b|\bfetch\(|axios\.(?:get|post|put|patch|delete|request)\()",
    )
    .expect("the script clients compile")
});

/// An interpreter given its script inline: `python -c "…"`, `node -e
/// "…"`, or a here-document (`python3 - <<'EOF'`).
static INLINE_SCRIPT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"(?i)\b(?:python[\d.]*|py|node|deno|bun)(?:\.exe)?["']?(?:\s+-[A-Za-z]+)*?\s+-[ce]\s|\b(?:python[\d.]*|node)(?:\.exe)?["']?\s+-?\s*<<-?\s*['"]?\w+"#,
    )
    .expect("the inline scripts compile")
});

/// A status a script printed for the reply it got: `status: 403`,
/// `Status code: 404`, `HTTP 502`, `response_code=401`, or a line that is
/// only a status.
static PRINTED_STATUS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?im)^[^\n]{0,60}?\b(?:status(?:[ _]?code)?|http(?:[ _]?status)?|response[ _]?code)\b\s*[:=]?\s*([1-5]\d\d)\b|^\s*([1-5]\d\d)\s*$")
        .expect("the printed status compiles")
});

/// Does `input`'s command line run a script of its own (inline or from a
/// here-document) that sends an HTTP request through a client library? A
/// request the agent wrote in Python or JavaScript exits 0 when the server
/// answered, as curl does, whatever it answered (LABELS.md).
pub fn is_script_request(input: &Args) -> bool {
    benign::command_line(input).is_some_and(|line| line_scripts_a_request(&line))
}

/// Does the command `line` run a script of its own that sends a request?
fn line_scripts_a_request(line: &str) -> bool {
    // Most command lines give no script inline: answered without a search.
    (line.contains(" -c") || line.contains(" -e") || line.contains("<<"))
        && SCRIPT_CLIENT.is_match(line)
        && INLINE_SCRIPT.is_match(line)
}

/// The failing reply of the request `input`'s command line made, by curl
/// and its kind (`failed_reply_to`) or by a script of the agent's own
/// (`script_status`); `None` when the line made no request or the reply
/// did not fail.
pub fn failed_request(input: &Args, output: &str) -> Option<String> {
    // The command line is parsed once, for both kinds of request.
    let line = benign::command_line(input)?;
    if line_requests(&line) {
        failed_reply(output).or_else(|| written_status_of(&line, output))
    } else if line_scripts_a_request(&line) {
        script_status(output)
    } else {
        None
    }
}

/// The HTTP error status a request script printed, when every status it
/// printed is an error: a script that tried several URLs and got one
/// answer did what it was for.
pub fn script_status(output: &str) -> Option<String> {
    let codes: Vec<u16> = PRINTED_STATUS
        .captures_iter(output)
        .filter_map(|c| c.get(1).or_else(|| c.get(2))?.as_str().parse().ok())
        .collect();
    let first = *codes.first()?;
    codes.iter().all(|c| (400..600).contains(c)).then(|| format!("{REPLY_PREFIX}HTTP status {first}"))
}

/// A line of curl's progress meter (printed on stderr, so often mixed in).
fn is_progress(line: &str) -> bool {
    let t = line.trim();
    t.starts_with("% Total") || t.starts_with("Dload") || t.contains("--:--:--") || t.starts_with("Warning: ")
}

/// The reply in `output`, presented as `HTTP error reply: <what failed>`
/// when it says the request failed; `None` when it does not.
pub fn failed_reply(output: &str) -> Option<String> {
    let lines: Vec<&str> = output.lines().filter(|l| !is_progress(l)).collect();
    for l in &lines {
        let t = l.trim();
        // A tool's framing may open the line (Gemini CLI's `Output: HTTP/1.1 404`).
        let t = OUTPUT_FRAMING.iter().find_map(|f| t.strip_prefix(f)).map_or(t, str::trim_start);
        // `curl -i`: the status line of the reply.
        if let Some(rest) = t.strip_prefix("HTTP/") {
            let status = rest.split_whitespace().nth(1).and_then(|s| s.parse::<u16>().ok());
            if status.is_some_and(|s| (400..600).contains(&s)) {
                return Some(format!("{REPLY_PREFIX}{t}"));
            }
        }
        let lower = t.to_ascii_lowercase();
        // Every title of the line: a framework's error page (Next.js) can
        // follow the app's own `<title>` in the same document.
        for (i, _) in lower.match_indices("<title>").take(8) {
            let title = t[i + 7..].split('<').next().unwrap_or("").trim();
            let says_error = title.split_whitespace().next().is_some_and(|w| {
                let w = w.trim_end_matches(|c: char| c.is_ascii_punctuation());
                w.len() == 3 && (w.starts_with('4') || w.starts_with('5')) && w.bytes().all(|b| b.is_ascii_digit())
            }) || ["not found", "error", "forbidden", "unauthorized", "bad gateway", "unavailable"]
                .iter()
                .any(|w| title.to_ascii_lowercase().contains(w));
            if says_error {
                return Some(format!("{REPLY_PREFIX}{title}"));
            }
        }
    }
    // Every JSON object the output holds (a command can print several).
    let body = lines.join("\n");
    let mut at = 0;
    for line in body.split_inclusive('\n') {
        let start = at;
        at += line.len();
        // A tool's framing may open the line the reply starts on (`Output: {`).
        let framing =
            OUTPUT_FRAMING.iter().find_map(|f| line.strip_prefix(f)).map_or(0, |rest| line.len() - rest.len());
        if !line[framing..].starts_with('{') {
            continue;
        }
        let rest = &body[start + framing..];
        let value = match serde_json::Deserializer::from_str(rest).into_iter::<Value>().next() {
            Some(Ok(value)) => value,
            // Only a reply broken inside a string is read again, unwrapped.
            Some(Err(e)) if e.to_string().starts_with("control character") => {
                let Some(Ok(value)) = serde_json::Deserializer::from_str(&unwrapped(rest)).into_iter::<Value>().next()
                else {
                    continue;
                };
                value
            }
            _ => continue,
        };
        if let Some(message) = failing_object(&value) {
            return Some(format!("{REPLY_PREFIX}{message}"));
        }
    }
    None
}

/// `text` with the line breaks inside its JSON strings taken out. A shell
/// tool that runs commands in a terminal (Gemini CLI renders the output of
/// its pseudo-terminal at the terminal's width) breaks a long line where
/// the width ends, even inside a string, and JSON allows no raw line break
/// there.
fn unwrapped(text: &str) -> String {
    let (mut in_string, mut escaped) = (false, false);
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if in_string && (c == '\n' || c == '\r') {
            continue;
        }
        if escaped {
            escaped = false;
        } else if c == '\\' {
            escaped = in_string;
        } else if c == '"' {
            in_string = !in_string;
        }
        out.push(c);
    }
    out
}

/// Framing a shell tool puts before the first line of a command's output.
const OUTPUT_FRAMING: &[&str] = &["Output: ", "Stdout: "];

/// Keys of a reply that is only a message (with a link to the docs or a code).
const MESSAGE_ONLY: &[&str] = &["message", "documentation_url", "code", "path", "timestamp", "error_description"];

/// Words that make a message-only reply an error: what APIs answer a
/// request they refused (`{"message": "Bad credentials"}`), as opposed to
/// `{"message": "User created"}`.
static FAILURE_WORDS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(?:invalid|incorrect|not found|unauthori[sz]ed|unauthenticated|not authenticated|forbidden|denied|expired|is required|are required|missing|failed|failure|error|not allowed|bad request|bad credentials|too many requests|rate limit|does not exist|doesn't exist|cannot|can't|unable to|no such|not permitted|already exists|not supported)\b",
    )
    .expect("the failure words compile")
});

/// The reply of the request `input` made, presented as `failed_reply`
/// does, or the HTTP error status its `--write-out` text printed
/// (`curl -s -o /dev/null -w '%{http_code}' URL` printing `404`).
pub fn failed_reply_to(input: &Args, output: &str) -> Option<String> {
    failed_reply(output).or_else(|| written_status(input, output))
}

/// The HTTP error status curl's `-w`/`--write-out` text shows at the end of
/// `output` (the tool's framing after it aside).
fn written_status(input: &Args, output: &str) -> Option<String> {
    written_status_of(&benign::command_line(input)?, output)
}

/// `written_status` of the command `line`.
fn written_status_of(line: &str, output: &str) -> Option<String> {
    if !line.contains("http_code") && !line.contains("response_code") {
        return None;
    }
    let words = shlex::split(line)?;
    let format = words.iter().enumerate().find_map(|(i, w)| match w.as_str() {
        "-w" | "--write-out" => words.get(i + 1).cloned(),
        _ => w
            .strip_prefix("--write-out=")
            .or_else(|| w.strip_prefix("-w"))
            .filter(|f| f.contains("%{"))
            .map(str::to_string),
    })?;
    let re = Regex::new(&write_out_pattern(&format, true)?).ok()?;
    // The write-out text comes last; a tool's framing may follow it.
    let mut lines: Vec<&str> = output.lines().collect();
    while lines.last().is_some_and(|l| l.trim().is_empty() || benign::is_framing(l.trim())) {
        lines.pop();
    }
    let body = lines.join("\n");
    let body = OUTPUT_FRAMING.iter().find_map(|f| body.strip_prefix(f)).unwrap_or(&body);
    // A labelled status (`-w "status: %{http_code}\n"`) is found on its own
    // line wherever the script's later commands left it; a bare number
    // only at the end, where nothing else could have printed it.
    let captured = re.captures(body.trim_end()).or_else(|| {
        labelled(&format).then(|| Regex::new(&write_out_pattern(&format, false)?).ok()?.captures(body)).flatten()
    });
    let code: u16 = captured?.get(1)?.as_str().parse().ok()?;
    // curl writes `000` when no reply came at all (the connection was
    // refused or timed out): the request got no answer.
    if code == 0 {
        return Some(format!("{REPLY_PREFIX}HTTP status 000, no response: could not connect"));
    }
    if !(400..600).contains(&code) {
        return None;
    }
    // Several probes of a service the chain started, one of which it
    // answered (`307` for the admin page, then `404` for `/`): the service
    // is up, and the chain did what it was for (the corpus's decided case).
    let probes = line.matches("http_code").count() + line.matches("response_code").count();
    let answered = |l: &str| {
        let t = l.trim();
        t.len() == 3 && t.parse::<u16>().is_ok_and(|c| (100..400).contains(&c))
    };
    if probes >= 2 && output.lines().any(answered) {
        return None;
    }
    Some(format!("{REPLY_PREFIX}HTTP status {code}"))
}

/// Does curl's write-out `format` print a word of its own on the status's
/// line, before the status (`HTTP %{http_code}`, `status: %{http_code}`)?
fn labelled(format: &str) -> bool {
    let Some(at) = format.find("%{http_code}").or_else(|| format.find("%{response_code}")) else {
        return false;
    };
    let line = format[..at].rsplit("\\n").next().unwrap_or("");
    !line.contains("%{") && line.chars().filter(|c| c.is_alphabetic()).count() >= 2
}

/// A regex for the output that curl's write-out `format` made: the status
/// (`%{http_code}`, `%{response_code}`) captured, the other variables any
/// text on their line, `\n` and `\t` as curl expands them. `at_end`: at
/// the end of the output; else as whole lines anywhere in it.
fn write_out_pattern(format: &str, at_end: bool) -> Option<String> {
    let expanded = format.replace("\\n", "\n").replace("\\t", "\t").replace("\\r", "");
    let mut pattern = String::from(if at_end { "(?:^|\n|[^\\d])" } else { "(?m)^" });
    let mut rest = expanded.as_str();
    let mut status = false;
    while let Some(at) = rest.find("%{") {
        pattern.push_str(&regex::escape(&rest[..at]));
        let end = rest[at..].find('}')? + at;
        match &rest[at + 2..end] {
            "http_code" | "response_code" if !status => {
                pattern.push_str("(\\d{3})");
                status = true;
            }
            _ => pattern.push_str("[^\\n]*?"),
        }
        rest = &rest[end + 1..];
    }
    pattern.push_str(&regex::escape(rest.trim_end()));
    pattern.push_str(if at_end { "\\s*\\z" } else { "[ \\t]*$" });
    status.then_some(pattern)
}

/// What a JSON reply says failed, if it is an error.
fn failing_object(value: &Value) -> Option<String> {
    let Value::Object(o) = value else { return None };
    // FastAPI's and Django REST framework's error: `{"detail": "…"}` alone.
    if let Some(Value::String(d)) = o.get("detail")
        && o.keys().all(|k| k == "detail" || k == "status" || k == "code")
    {
        return Some(d.clone());
    }
    // A message alone, whose words refuse the request (GitHub's
    // `{"message": "Not Found", "documentation_url": …}`).
    if let Some(Value::String(m)) = o.get("message")
        && o.keys().all(|k| MESSAGE_ONLY.contains(&k.as_str()))
        && FAILURE_WORDS.is_match(m)
    {
        return Some(m.clone());
    }
    let text = value.to_string();
    let (shown, _) = super::present_with_exit(None, "http reply", &text);
    shown.strip_prefix(super::ENVELOPE_PREFIX).map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_reply_the_terminal_wrapped_and_quiet_commands_after_a_request() {
        // A shell tool's terminal broke a long message where its width ended,
        // inside the JSON string, and padded the other lines.
        let wrapped = format!(
            "Command: curl -s -X POST https://api.example.com/v1/things\nDirectory: (root)\nOutput: {{{pad}\n  \"error\": {{{pad}\n    \"code\": 403,{pad}\n    \"message\": \"The caller has no quota project set for this long{pad}\nAPI, see the docs.\",\n    \"status\": \"PERMISSION_DENIED\"\n  }}\n}}\nError: (none)\nExit Code: 0",
            pad = " ".repeat(30)
        );
        let reply = failed_reply(&wrapped).expect("the wrapped reply is read");
        assert!(reply.contains("PERMISSION_DENIED") || reply.contains("403"), "{reply}");
        // Broken JSON that is not a wrapped string stays unread.
        assert_eq!(failed_reply("Output: {\n  \"error\": \"x\",,\n}"), None);
        assert_eq!(failed_reply("Output: {\"status\": \"ok\", \"note\": \"a long\nline\"}"), None);
        // `&& rm -rf DIR` prints nothing when it works: the output is the reply.
        let delete = "curl -X DELETE \"http://localhost:8081/instance/delete/a\" -H \"apikey: k\" && rm -rf ./data/a";
        assert!(is_request(&Args::from(json!({"command": delete}))));
        assert!(is_request(&Args::from(
            json!({"command": "curl -s http://x/api > /dev/null && mkdir -p out && echo ok"})
        )));
        // A follower that prints output of its own is not quiet.
        assert!(!is_request(&Args::from(json!({"command": "curl -s http://x/api && ls -la"}))));
        assert!(!is_request(&Args::from(json!({"command": "curl -s http://x/api && rm -rfv out"}))), "verbose");
        assert!(!is_request(&Args::from(json!({"command": "curl -s http://x/api && cp --verbose a b"}))), "verbose");
    }

    #[test]
    fn requests_and_their_replies() {
        assert!(is_request(&Args::from(json!({"command": "curl -s http://x/api | head -50"}))));
        assert!(is_request(&Args::from(json!({"command": "cd /p && curl -X POST http://x/login -d '{}'"}))));
        assert!(!is_request(&Args::from(json!({"command": "curl -s http://x | jq . > out.json; echo done"}))));
        let saved = "curl -s -o /tmp/h.html -w \"HTTP %{http_code}\" --max-time 5 http://localhost:3001/api 2>&1; echo \"\" && cat /tmp/h.html 2>/dev/null | head -3";
        assert!(is_request(&Args::from(json!({"command": saved}))), "the saved reply is printed after");
        let other = "curl -s -o /tmp/h.html http://x/api; cat notes.md";
        assert!(!is_request(&Args::from(json!({"command": other}))), "a file other than the reply");
        assert!(!is_request(&Args::from(json!({"command": "curl -s -o /tmp/h.html http://x/api || cat /tmp/h.html"}))));
        assert!(!is_request(&Args::from(json!({"command": "grep curl notes.md"}))));
        // Quoted or escaped, a client's name is still found.
        assert!(is_request(&Args::from(json!({"command": "'cu'rl -s localhost/api"}))));
        assert!(is_request(&Args::from(json!({"command": "c\\url -s localhost:8080"}))));
        assert!(is_request(&Args::from(json!({"command": ["bash", "-c", "\"/usr/bin/wget\" -qO- localhost"]}))));
        assert!(!is_request(&Args::from(json!({"command": "cargo test --workspace"}))));
        assert!(is_request(&Args::from(json!({"command": "sleep 3 && curl -s -X POST http://x/login && echo \"\""}))));
        let meter = "{\"error\":\"Unauthorized\"}\n  % Total    % Received % Xferd  Average Speed\n  Dload  Upload\n 0 100 24 0 24 0 0 66 0 --:--:-- --:--:-- --:--:-- 67";
        assert_eq!(failed_reply(meter).as_deref(), Some("HTTP error reply: Unauthorized"));
        assert_eq!(failed_reply("{\"detail\":\"Not Found\"}").as_deref(), Some("HTTP error reply: Not Found"));
        assert_eq!(
            failed_reply("{\n  \"message\": \"Requires authentication\",\n  \"status\": \"401\"\n}").as_deref(),
            Some("HTTP error reply: 401 Requires authentication")
        );
        assert!(failed_reply("HTTP/1.1 404 Not Found\nContent-Type: text/html").is_some());
        assert!(
            failed_reply("Output: HTTP/1.1 404 Not Found\nDate: Sun, 12 Apr 2026 01:28:54 GMT\nExit Code: 0").is_some()
        );
        assert!(failed_reply("<html><head><title>404 Not Found</title></head></html>").is_some());
        assert!(failed_reply("<!DOCTYPE html><html><head><title>404: This page could not be found.</title>").is_some());
        assert!(
            failed_reply("<html><head><title>My App</title><title>404: This page could not be found.</title>")
                .is_some(),
            "the error page's title after the app's"
        );
        assert_eq!(failed_reply("{\"status\":\"ok\",\"service\":\"api\"}"), None);
        let two = "{\"status\":\"ok\"}\n{\"detail\":\"User not found\"}";
        assert_eq!(failed_reply(two).as_deref(), Some("HTTP error reply: User not found"));
        assert_eq!(failed_reply("HTTP/1.1 200 OK\n\n{\"items\": []}"), None);
        assert_eq!(failed_reply("<title>Dashboard</title>"), None);
    }

    #[test]
    fn requests_a_script_made() {
        let script = |cmd: &str| is_script_request(&Args::from(json!({ "command": cmd })));
        assert!(script(
            "python -c \"import httpx; r = httpx.get('https://x/hot'); print('status:', r.status_code)\" 2>&1"
        ));
        assert!(script(
            "python3 - <<'EOF'\nimport requests\nprint(requests.get('http://localhost:8000/api').status_code)\nEOF"
        ));
        assert!(script("node -e \"fetch('http://localhost:3000/api').then(r => console.log(r.status))\""));
        assert!(!script("python manage.py runserver"), "a script file is judged by its exit status");
        assert!(!script("python -c \"print(1 + 1)\""), "no request");
        assert_eq!(
            script_status("status: 403\nurl: https://x/hot\nlen: 584").as_deref(),
            Some("HTTP error reply: HTTP status 403")
        );
        assert_eq!(script_status("404"), Some("HTTP error reply: HTTP status 404".to_string()));
        assert_eq!(script_status("Status code: 200\n{\"items\": []}"), None);
        assert_eq!(script_status("/a -> status 404\n/b -> status 200"), None, "one URL answered");
        assert_eq!(script_status("done: 3 rows"), None);
    }

    #[test]
    fn the_status_curl_write_out_printed() {
        let w = |cmd: &str, out: &str| failed_reply_to(&Args::from(json!({ "command": cmd })), out);
        let bare = "curl -s -o /dev/null -w '%{http_code}' http://localhost:8080/health";
        assert_eq!(w(bare, "404").as_deref(), Some("HTTP error reply: HTTP status 404"));
        assert_eq!(w(bare, "200"), None);
        assert!(w(bare, "000").is_some_and(|r| r.contains("no response")), "curl's 000: no reply at all");
        let framed = "curl -s -o /tmp/x.html -w \"HTTP %{http_code}\" --max-time 5 http://localhost:3001/api";
        assert!(w(framed, "HTTP 000").is_some());
        assert_eq!(w(framed, "HTTP 204"), None);
        assert_eq!(w("curl -s http://x/api", "000"), None, "without a write-out, 000 is the body");
        // Two probes of a service the chain started: one answered, so it is up.
        let two = "docker run -d app\ncurl -sk -o /dev/null -w \"%{http_code}\\n\" https://localhost:13333/\ncurl -s -o /dev/null -w \"%{http_code}\\n\" http://localhost:18080/";
        assert_eq!(w(two, "--- admin ---\n307\n--- phish ---\n404"), None);
        assert!(w(two, "--- admin ---\n502\n--- phish ---\n404").is_some(), "neither answered");
        // A labelled status in the middle of a script's output.
        let mid = "curl -sL -o /dev/null -w \"status: %{http_code}\\n\" \"$URL\"\necho \"=== body ===\"\ncurl -s \"$URL\" | head -5";
        assert_eq!(
            w(mid, "url: x\nstatus: 502\n\n=== body ===\n").as_deref(),
            Some("HTTP error reply: HTTP status 502")
        );
        assert_eq!(w(mid, "status: 200\n=== body ===\nError codes: 502 means bad gateway"), None);
        let bare_mid = "curl -s -o /dev/null -w '%{http_code}\\n' http://x/; echo done";
        assert_eq!(w(bare_mid, "404\ndone"), None, "a bare number mid-output is not sure to be the status");
    }
}
