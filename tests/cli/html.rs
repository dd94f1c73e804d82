//! `--format html`: the page in a real headless Chromium (the DOM shows the
//! JSON report's numbers, a screenshot is not blank, nothing is fetched from
//! the network, the console stays silent, the sort script runs), and the
//! page's escaping, size bound and gate.
//!
//! Chromium is Debian's `chromium` (`.ci/run` installs it). Without it these
//! tests fail, unless `FALSEOK_SKIP_BROWSER=1` says to skip them.

use std::io::ErrorKind;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use regex::Regex;

use crate::util::*;

/// The browser, or `None` when the tests are told to skip it; a missing
/// browser is a failure, never a silent pass.
#[allow(clippy::print_stderr)] // the one note a skipped check leaves
fn chromium() -> Option<PathBuf> {
    if std::env::var("FALSEOK_SKIP_BROWSER").is_ok_and(|v| v == "1") {
        eprintln!("FALSEOK_SKIP_BROWSER=1: the headless-Chromium checks of the HTML report are skipped");
        return None;
    }
    let found = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].iter().map(PathBuf::from).find(|p| p.exists());
    match found {
        Some(p) => Some(p),
        None => panic!(
            "chromium is not installed (/usr/bin/chromium): .ci/run installs it (apt-get install -y chromium); \
             set FALSEOK_SKIP_BROWSER=1 to skip the browser checks"
        ),
    }
}

/// What one run of the browser gave.
struct Run {
    stdout: String,
    stderr: String,
    /// The hosts whose connections reached the proxy the browser was told
    /// to use (the browser's own services among them).
    proxied: Vec<String>,
    /// The URLs the page asked for, from the browser's network log: every
    /// request with an initiator (the browser's own have none).
    page_fetches: Vec<String>,
    /// The hosts of the requests the browser made for itself (the network
    /// time, account and search services it calls whatever the flags).
    browser_hosts: Vec<String>,
}

impl Run {
    /// Connections to the proxy that the browser's own requests do not
    /// explain, and the page's own requests: both must be none.
    fn fetched(&self) -> Vec<String> {
        let unexplained = self.proxied.iter().filter(|h| !self.browser_hosts.contains(h)).cloned();
        unexplained.chain(self.page_fetches.iter().cloned()).collect()
    }
}

/// The host a proxy request names: `CONNECT host:443 …` or `GET http://host/… …`.
fn proxied_host(line: &str) -> String {
    let target = line.split(' ').nth(1).unwrap_or("");
    let target = target.split("://").nth(1).unwrap_or(target);
    let host = target.split(['/', '?']).next().unwrap_or("");
    host.rsplit_once(':').map_or(host, |(h, _)| h).to_string()
}

/// (page fetches, hosts of the browser's own requests) in a network log.
fn net_log(path: &Path) -> (Vec<String>, Vec<String>) {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let log: serde_json::Value = serde_json::from_str(&text).expect("the network log is JSON");
    let start = log["constants"]["logEventTypes"]["URL_REQUEST_START_JOB"].as_u64().expect("event type");
    let (mut page, mut own) = (Vec::new(), Vec::new());
    for e in log["events"].as_array().unwrap().iter().filter(|e| e["type"].as_u64() == Some(start)) {
        // The event's end (no parameters) says nothing.
        let Some(url) = e["params"]["url"].as_str().map(str::to_string) else { continue };
        let initiator = e["params"]["initiator"].as_str().unwrap_or("");
        let isolation = e["params"]["network_isolation_key"].as_str().unwrap_or("");
        if initiator == "not an origin" && !isolation.contains("file:") {
            own.push(proxied_host(&format!("GET {url}")));
        } else {
            page.push(url);
        }
    }
    (page, own)
}

/// Run headless Chromium on `url` with `extra` flags, every fetch sent to a
/// proxy this test holds (which counts and drops each connection), names
/// resolving to nothing, and console messages logged to stderr.
fn browse(browser: &Path, url: &str, extra: &[&str]) -> Run {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    listener.set_nonblocking(true).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let seen = Arc::new(Mutex::new(Vec::new()));
    let proxy = {
        let (stop, seen) = (stop.clone(), seen.clone());
        std::thread::spawn(move || {
            loop {
                match listener.accept() {
                    Ok((stream, _)) => {
                        // The request line names the host; then the connection is dropped.
                        stream.set_nonblocking(false).unwrap();
                        stream.set_read_timeout(Some(Duration::from_secs(2))).unwrap();
                        let mut line = String::new();
                        let _ = std::io::BufRead::read_line(&mut std::io::BufReader::new(&stream), &mut line);
                        seen.lock().unwrap().push(proxied_host(&line));
                        drop(stream);
                    }
                    Err(e) if e.kind() == ErrorKind::WouldBlock => {
                        if stop.load(Ordering::SeqCst) {
                            break;
                        }
                        std::thread::sleep(Duration::from_millis(20));
                    }
                    Err(e) => panic!("proxy: {e}"),
                }
            }
        })
    };
    let profile = tempfile::tempdir().unwrap();
    let log = profile.path().join("net-log.json");
    let mut cmd = Command::new(browser);
    cmd.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--enable-logging=stderr",
        "--v=0",
    ])
    .arg(format!("--user-data-dir={}", profile.path().display()))
    .arg(format!("--proxy-server=127.0.0.1:{port}"))
    // Names resolve to nothing, but for the proxy's address: without the
    // exclusion the proxy itself is unreachable and would see nothing.
    .arg("--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1")
    .arg(format!("--log-net-log={}", log.display()))
    .args(extra)
    .arg(url)
    .stdin(Stdio::null())
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    let child = cmd.spawn().unwrap_or_else(|e| panic!("{}: {e}", browser.display()));
    let pid = child.id();
    let done = Arc::new(AtomicBool::new(false));
    let watchdog = {
        let done = done.clone();
        std::thread::spawn(move || {
            let start = Instant::now();
            while !done.load(Ordering::SeqCst) {
                if start.elapsed() > Duration::from_secs(90) {
                    // Only the browser this test started, by its id.
                    let _ = Command::new("kill").arg("-9").arg(pid.to_string()).status();
                    return true;
                }
                std::thread::sleep(Duration::from_millis(100));
            }
            false
        })
    };
    let out = child.wait_with_output().unwrap();
    done.store(true, Ordering::SeqCst);
    assert!(!watchdog.join().unwrap(), "chromium did not finish within 90 s on {url}");
    // Let a connection made at the very end reach the counter.
    std::thread::sleep(Duration::from_millis(100));
    stop.store(true, Ordering::SeqCst);
    proxy.join().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "chromium failed on {url}: {stderr}");
    let (page_fetches, browser_hosts) = net_log(&log);
    let proxied = seen.lock().unwrap().clone();
    Run { stdout: String::from_utf8_lossy(&out.stdout).into_owned(), stderr, proxied, page_fetches, browser_hosts }
}

/// The console messages Chromium logged (`--enable-logging=stderr`).
fn console_lines(stderr: &str) -> Vec<&str> {
    stderr.lines().filter(|l| l.contains("CONSOLE") || l.contains("Uncaught")).collect()
}

fn file_url(path: &Path) -> String {
    format!("file://{}", path.display())
}

/// `scan PATH --format html` into `dir/name`: the page's text.
fn page(dir: &Path, input: &str, name: &str) -> String {
    let out = run_in(root(), &["scan", input, "--format", "html"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    std::fs::write(dir.join(name), &text).unwrap();
    text
}

fn unescape(s: &str) -> String {
    s.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&#39;", "'").replace("&amp;", "&")
}

/// The part of `dom` that is the element `<table … id="ID" …>…</table>`.
fn table<'a>(dom: &'a str, id: &str) -> &'a str {
    let re = Regex::new(&format!(r#"<table[^>]*\bid="{id}"[^>]*>"#)).unwrap();
    let start = re.find(dom).unwrap_or_else(|| panic!("no table #{id}")).start();
    let end = dom[start..].find("</table>").unwrap() + start;
    &dom[start..end]
}

/// The body rows of a table: (attributes, cells by `data-k`), in DOM order.
fn rows(table: &str) -> Vec<(String, Vec<(String, String)>)> {
    let body = &table[table.find("<tbody>").unwrap()..table.find("</tbody>").unwrap()];
    let row = Regex::new(r"(?s)<tr([^>]*)>(.*?)</tr>").unwrap();
    let cell = Regex::new(r#"<t[dh][^>]*\bdata-k="(\w+)"[^>]*>([^<]*)</t[dh]>"#).unwrap();
    row.captures_iter(body)
        .map(|r| {
            let cells = cell.captures_iter(&r[2]).map(|c| (c[1].to_string(), unescape(&c[2]))).collect();
            (r[1].to_string(), cells)
        })
        .collect()
}

fn attr(attrs: &str, name: &str) -> Option<String> {
    let re = Regex::new(&format!(r#"\b{name}="([^"]*)""#)).unwrap();
    re.captures(attrs).map(|c| unescape(&c[1]))
}

fn cell<'a>(cells: &'a [(String, String)], k: &str) -> &'a str {
    cells.iter().find(|c| c.0 == k).map_or_else(|| panic!("no cell {k} in {cells:?}"), |c| c.1.as_str())
}

/// The Peri sample's page, rendered by Chromium, shows the JSON report's
/// numbers in the right cells; the sort script ran (sorted on load by the
/// address), the console is silent and no connection left the browser.
#[test]
fn the_peri_page_in_chromium_shows_the_json_numbers() {
    let Some(browser) = chromium() else { return };
    let dir = tempfile::tempdir().unwrap();
    let text = page(dir.path(), "sample-traces/peri-postmortem.db", "peri.html");
    // Measured: about 135 KB for 15,257 calls.
    assert!(text.len() < 3 << 20, "the page is {} bytes", text.len());
    let json = scan_json(&["sample-traces/peri-postmortem.db"], &[]);
    let url = format!("{}#sort=tools:1:asc", file_url(&dir.path().join("peri.html")));
    let run = browse(&browser, &url, &["--dump-dom"]);
    let dom = &run.stdout;
    assert_eq!(run.fetched(), Vec::<String>::new(), "the page made the browser fetch");
    assert_eq!(console_lines(&run.stderr), Vec::<&str>::new(), "console messages");
    assert!(dom.contains("data-script=\"ran\""), "the inline script ran");

    // Totals.
    let totals = rows(table(dom, "totals-table"));
    assert_eq!(totals.len(), 1);
    for k in ["calls", "errors", "flagged_errors", "content_errors", "hidden_errors", "sessions", "unpaired_calls"] {
        assert_eq!(cell(&totals[0].1, k), json["totals"][k].to_string(), "totals: {k}");
    }
    // Every tool, sorted by calls ascending on load.
    let tools = table(dom, "tools");
    assert!(tools.contains("data-sorted=\"1:asc\""), "the table was sorted by the script");
    let failing = rows(tools);
    let calls: Vec<u64> = failing.iter().map(|r| cell(&r.1, "calls").parse().unwrap()).collect();
    assert!(calls.windows(2).all(|w| w[0] <= w[1]), "ascending by calls: {calls:?}");
    // The tools without errors fold into one row, and are listed below it.
    let clean = rows(table(dom, "tools-clean"));
    assert!(failing.iter().all(|r| cell(&r.1, "errors") != "0"), "only tools with errors in the table");
    let folded = table(dom, "tools").split("id=\"tools-clean-row\"").nth(1).expect("the folded row");
    assert!(folded.contains(&format!("{} tools without errors", clean.len())), "{folded}");
    let tool_rows: Vec<_> = failing.into_iter().chain(clean).collect();
    assert_eq!(tool_rows.len(), json["tools"].as_array().unwrap().len());
    for t in json["tools"].as_array().unwrap() {
        let name = t["tool"].as_str().unwrap();
        let (_, cells) = tool_rows
            .iter()
            .find(|r| attr(&r.0, "data-tool").as_deref() == Some(name))
            .unwrap_or_else(|| panic!("no row for tool {name}"));
        let keys: &[&str] = if t["errors"] == 0 {
            &["calls"]
        } else {
            &["calls", "errors", "flagged_errors", "content_errors", "hidden_errors"]
        };
        for k in keys {
            assert_eq!(cell(cells, k), t[k].to_string(), "{name}: {k}");
        }
    }
    // Every category of every tool.
    let cat_rows = rows(table(dom, "categories"));
    let cats = json["categories"].as_array().unwrap();
    assert_eq!(cat_rows.len(), cats.len());
    let link = Regex::new(r##"<a [^>]*href="#(ex-\d+-\d+)">"##).unwrap();
    for c in cats {
        let (tool, category) = (c["tool"].as_str().unwrap(), c["category"].as_str().unwrap());
        let (_, cells) = cat_rows
            .iter()
            .find(|r| {
                attr(&r.0, "data-tool").as_deref() == Some(tool)
                    && attr(&r.0, "data-category").as_deref() == Some(category)
            })
            .unwrap_or_else(|| panic!("no row for {tool} {category}"));
        assert_eq!(cell(cells, "errors"), c["errors"].to_string(), "{tool} {category}");
        assert_eq!(cell(cells, "hidden_errors"), c["hidden_errors"].to_string(), "{tool} {category}");
        // And its link leads to its embedded examples: "N of M shown".
        let anchor = link
            .captures_iter(table(dom, "categories"))
            .map(|m| m[1].to_string())
            .find(|a| {
                let block = &dom[dom.find(&format!("id=\"{a}\"")).unwrap()..];
                let head = &block[..block.find('>').unwrap()];
                attr(head, "data-tool").as_deref() == Some(tool)
                    && attr(head, "data-category").as_deref() == Some(category)
            })
            .unwrap_or_else(|| panic!("no drill-down for {tool} {category}"));
        let block = &dom[dom.find(&format!("id=\"{anchor}\"")).unwrap()..];
        let block = &block[..block.find("</div>").unwrap()];
        let n = c["errors"].as_u64().unwrap();
        let shown = n.min(5);
        assert!(
            block.contains(&format!(
                "<span data-k=\"shown\">{shown}</span> of <span data-k=\"errors\">{n}</span> shown"
            )),
            "{block}"
        );
        assert_eq!(block.matches("<article class=\"ex\">").count() as u64, shown, "{tool} {category}");
    }
    // Every tool's cause classes.
    let class_rows = rows(table(dom, "classes"));
    for t in json["tools"].as_array().unwrap() {
        for (class, n) in t["classes"].as_object().unwrap().iter().filter(|(_, n)| n.as_u64() > Some(0)) {
            let (_, cells) = class_rows
                .iter()
                .find(|r| {
                    attr(&r.0, "data-tool").as_deref() == t["tool"].as_str()
                        && attr(&r.0, "data-class").as_deref() == Some(class)
                })
                .unwrap_or_else(|| panic!("no class row {} {class}", t["tool"]));
            assert_eq!(cell(cells, "errors"), n.to_string());
        }
    }
    // The cost of failures, per tool and category.
    let cost_table = table(dom, "cost");
    let cost_rows = rows(cost_table);
    assert_eq!(cost_rows.len(), json["cost"].as_array().unwrap().len());
    for c in json["cost"].as_array().unwrap() {
        let (tool, category) = (c["tool"].as_str().unwrap(), c["category"].as_str().unwrap());
        let (_, cells) = cost_rows
            .iter()
            .find(|r| {
                attr(&r.0, "data-tool").as_deref() == Some(tool)
                    && attr(&r.0, "data-category").as_deref() == Some(category)
            })
            .unwrap_or_else(|| panic!("no cost row for {tool} {category}"));
        assert_eq!(cell(cells, "failures"), c["failures"].to_string(), "{tool} {category}");
        assert_eq!(cell(cells, "retries"), c["retries"].to_string(), "{tool} {category}");
        assert!(
            cost_table.contains(&format!("data-k=\"lost_ms\" data-v=\"{}\"", c["lost_ms"])),
            "{tool} {category}: lost_ms"
        );
    }
    assert!(dom.contains("Agent: 42 of 45 errors (93%) are argument problems"), "the headline");
    // The verdict line, as the table prints it.
    assert!(dom.contains("✗ 329 hidden errors (Edit 284, Agent 45)"), "verdict");
}

/// A screenshot is a picture, not a blank page: in light and dark schemes.
#[test]
fn the_screenshot_is_not_blank_in_light_and_dark() {
    let Some(browser) = chromium() else { return };
    let dir = tempfile::tempdir().unwrap();
    page(dir.path(), "sample-traces/peri-postmortem.db", "peri.html");
    let url = file_url(&dir.path().join("peri.html"));
    for (scheme, extra) in
        [("light", &[][..]), ("dark", &["--force-dark-mode", "--blink-settings=preferredColorScheme=0"][..])]
    {
        let shot = dir.path().join(format!("{scheme}.png"));
        let mut args = vec![format!("--screenshot={}", shot.display()), "--window-size=1200,1600".into()];
        args.extend(extra.iter().map(|s| s.to_string()));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let run = browse(&browser, &url, &args);
        assert_eq!(run.fetched(), Vec::<String>::new());
        assert_eq!(console_lines(&run.stderr), Vec::<&str>::new());
        let (w, h, px) = decode(&shot);
        assert_eq!((w, h), (1200, 1600));
        let background = px[0];
        let colours: std::collections::BTreeSet<[u8; 3]> = px.iter().copied().collect();
        let drawn = px.iter().filter(|p| **p != background).count();
        assert!(colours.len() >= 16, "{scheme}: {} colours", colours.len());
        assert!(drawn * 20 > px.len(), "{scheme}: only {drawn} of {} pixels drawn", px.len());
        // The report's red: hidden-error bars are drawn.
        let red = px.iter().filter(|[r, g, b]| *r > 180 && *g < 140 && *b < 140).count();
        assert!(red > 500, "{scheme}: {red} red pixels");
        let luma = |[r, g, b]: [u8; 3]| (u32::from(r) * 3 + u32::from(g) * 6 + u32::from(b)) / 10;
        match scheme {
            "light" => assert!(luma(background) > 200, "light background {background:?}"),
            _ => assert!(luma(background) < 60, "dark background {background:?}"),
        }
    }
}

/// (width, height, RGB pixels) of a PNG.
fn decode(path: &Path) -> (u32, u32, Vec<[u8; 3]>) {
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    let step = match info.color_type {
        png::ColorType::Rgb => 3,
        png::ColorType::Rgba => 4,
        other => panic!("unexpected PNG colour type {other:?}"),
    };
    assert_eq!(info.bit_depth, png::BitDepth::Eight);
    let px = buf[..info.buffer_size()].chunks(step).map(|c| [c[0], c[1], c[2]]).collect();
    (info.width, info.height, px)
}

/// The checks can fail: a page that fetches is seen by the proxy, and a
/// script error is seen in the console. The page itself has no URL to
/// fetch in any `src`, `href` or `url()`.
#[test]
fn the_network_and_console_checks_catch_what_they_look_for() {
    let Some(browser) = chromium() else { return };
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.html");
    std::fs::write(
        &bad,
        "<!DOCTYPE html><html><body><img src=\"http://falseok-test.example/x.png\"><script>nope();</script></body></html>",
    )
    .unwrap();
    let run = browse(&browser, &file_url(&bad), &["--dump-dom"]);
    assert!(run.proxied.iter().any(|h| h == "falseok-test.example"), "a fetch reaches the proxy: {:?}", run.proxied);
    assert_eq!(run.page_fetches, vec!["http://falseok-test.example/x.png".to_string()]);
    assert_eq!(
        run.fetched(),
        vec!["falseok-test.example".to_string(), "http://falseok-test.example/x.png".to_string()]
    );
    assert!(console_lines(&run.stderr).iter().any(|l| l.contains("Uncaught")), "{}", run.stderr);

    let text = page(dir.path(), "sample-traces/peri-postmortem.db", "peri.html");
    let fetch =
        Regex::new(r#"(?i)(\b(src|href|action|srcset|poster|data)\s*=\s*["']?\s*[a-z][a-z0-9+.-]*:)|url\(|@import"#)
            .unwrap();
    assert!(!fetch.is_match(&text), "{:?}", fetch.find(&text));
    assert!(!text.contains("http://") && !text.contains("https://"), "no URL at all in the sample's page");
}

/// A tool name and a result holding `<script>` and `&` are text on the
/// page, in the source and in the DOM Chromium builds from it.
#[test]
fn markup_in_a_tool_name_and_a_result_is_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let tool = "<script>alert('tool')</script>&Bash";
    let result = "Error: <script>alert(\"result\")</script> & <img src=x onerror=alert(1)> failed";
    peri_db(
        dir.path(),
        "evil.db",
        &[("s1", vec![(tool, serde_json::json!({"a": "</pre><script>x()</script>"}), result, false, "c1")])],
    );
    for cmd in ["scan", "check"] {
        let out = run_in(dir.path(), &[cmd, "evil.db", "--format", "html"]);
        assert_ne!(out.status.code(), Some(2), "{}", stderr(&out));
        let text = stdout(&out);
        assert_eq!(text.matches("<script").count(), 1, "only the page's own script: {text}");
        assert!(!text.contains("<img"), "{text}");
        assert!(text.contains("&lt;script&gt;alert(&#39;tool&#39;)&lt;/script&gt;&amp;Bash"), "{text}");
        assert!(
            text.contains("Error: &lt;script&gt;alert(&quot;result&quot;)&lt;/script&gt; &amp; &lt;img src=x onerror=alert(1)&gt; failed"),
            "{text}"
        );
        std::fs::write(dir.path().join(format!("{cmd}.html")), &text).unwrap();
    }
    let Some(browser) = chromium() else { return };
    let run = browse(&browser, &file_url(&dir.path().join("scan.html")), &["--dump-dom"]);
    assert_eq!(run.fetched(), Vec::<String>::new());
    assert_eq!(console_lines(&run.stderr), Vec::<&str>::new(), "nothing ran but the page's script");
    assert_eq!(run.stdout.matches("<script").count(), 1, "one script element in the DOM");
    assert!(run.stdout.contains("data-script=\"ran\""));
    assert!(!run.stdout.contains("<img"), "no element made from the result");
    let tools = rows(table(&run.stdout, "tools"));
    assert_eq!(attr(&tools[0].0, "data-tool").as_deref(), Some(tool), "the name survives as text");
}

/// `check --format html` prints the page and keeps the gate's exit code.
#[test]
fn check_writes_the_page_and_keeps_its_exit_code() {
    let out = run_in(root(), &["check", "sample-traces/peri-postmortem.db", "--format", "html"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.starts_with("<!DOCTYPE html>") && text.ends_with("</html>\n"));
    assert!(
        text.contains("id=\"gate\">falseok check failed: 329 hidden errors (limit 0)."),
        "the verdict is on the page"
    );
    assert!(stderr(&out).contains("falseok check failed: 329 hidden errors (limit 0)."));
    let out = run_in(root(), &["check", "sample-traces/peri-postfix.db", "--format", "html"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("<p class=\"verdict good\" id=\"gate\">falseok check passed"));
    let out = run_in(root(), &["check", "sample-traces/peri-postfix.db", "--format", "html", "--max-hidden", "x"]);
    assert_eq!(out.status.code(), Some(2));
}

/// A store with many tools, categories, days and long results gives a page
/// of bounded size: top rows shown, the rest counted.
#[test]
fn a_big_store_gives_a_bounded_page() {
    let dir = tempfile::tempdir().unwrap();
    let long = format!("Error: {}", "x".repeat(1_500));
    let texts = [
        long.clone(),
        format!("Error: permission denied {}", "y".repeat(1_500)),
        format!("Error: timed out {}", "z".repeat(1_500)),
        format!("Error: file not found {}", "w".repeat(1_500)),
    ];
    let tools: Vec<String> = (0..200).map(|i| format!("tool_{i:03}")).collect();
    let ids: Vec<String> = (0..200 * texts.len()).map(|i| format!("c{i}")).collect();
    let mut calls = Vec::new();
    for (i, t) in tools.iter().enumerate() {
        for (j, text) in texts.iter().enumerate() {
            calls.push((
                t.as_str(),
                serde_json::json!({"arg": "v".repeat(1000)}),
                text.as_str(),
                j % 2 == 0,
                ids[i * texts.len() + j].as_str(),
            ));
        }
    }
    let sessions: Vec<(String, Vec<FxCall<'_>>)> =
        calls.chunks(40).enumerate().map(|(i, c)| (format!("s{i}"), c.to_vec())).collect();
    let sessions: Vec<(&str, Vec<FxCall<'_>>)> = sessions.iter().map(|(s, c)| (s.as_str(), c.clone())).collect();
    peri_db(dir.path(), "big.db", &sessions);
    let input = std::fs::metadata(dir.path().join("big.db")).unwrap().len();
    let out = run_in(dir.path(), &["scan", "big.db", "--format", "html"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(input > 2 << 20, "the store is large: {input} bytes");
    assert!(text.len() < 1 << 20, "the page is {} bytes for a store of {input}", text.len());
    assert!(text.contains("and 175 more tools</th>"), "the rest of the tools counted");
    assert!(text.contains("more tools with errors ("), "the rest of the categories counted");
    assert!(text.contains("only the 60 largest tool and category pairs are embedded"), "examples bounded");
}

/// The page's per-day counts and examples come from the calls the report
/// counts: under every filter they add up to the JSON report's totals, and
/// no example is of a tool the filter left out.
#[test]
fn days_and_examples_follow_the_filters() {
    let sample = "sample-traces/peri-postmortem.db";
    let day_row = Regex::new(r"(?s)<tr[^>]*>\s*<th scope=.row.[^>]*>([^<]*)</th>(.*?)</tr>").unwrap();
    let cell = Regex::new(r#"data-k="(\w+)"[^>]*>([^<]*)<"#).unwrap();
    let pair = Regex::new(r#"<div class="pair" id="[^"]*" data-tool="([^"]*)""#).unwrap();
    for filter in [&[][..], &["--tool", "Agent"][..], &["--since", "2026-05-25", "--until", "2026-05-28"][..]] {
        let json = scan_json(&[sample], filter);
        let mut args = vec!["scan", sample, "--format", "html"];
        args.extend_from_slice(filter);
        let out = run_in(root(), &args);
        assert!(out.status.success(), "{}", stderr(&out));
        let text = stdout(&out);
        let days = table(&text, "days");
        let (mut calls, mut errors, mut hidden, mut n) = (0u64, 0u64, 0u64, 0);
        for r in day_row.captures_iter(days) {
            let get =
                |k: &str| cell.captures_iter(&r[2]).find(|c| &c[1] == k).map(|c| c[2].parse::<u64>().unwrap()).unwrap();
            calls += get("calls");
            errors += get("errors");
            hidden += get("hidden");
            n += 1;
        }
        let t = &json["totals"];
        assert!(n > 0, "{filter:?}: no day rows");
        assert_eq!(
            (calls, errors, hidden),
            (t["calls"].as_u64().unwrap(), t["errors"].as_u64().unwrap(), t["hidden_errors"].as_u64().unwrap()),
            "{filter:?}"
        );
        let tools: Vec<&str> = json["tools"].as_array().unwrap().iter().map(|t| t["tool"].as_str().unwrap()).collect();
        let shown: Vec<String> = pair.captures_iter(&text).map(|c| unescape(&c[1])).collect();
        assert!(!shown.is_empty(), "{filter:?}: no examples");
        assert!(shown.iter().all(|t| tools.contains(&t.as_str())), "{filter:?}: {shown:?}");
    }
}

/// What the measuring script saw: the document's width, the summary blocks'
/// boxes, and the ids and command words that wrapped onto a second line.
#[derive(Debug)]
struct Measure {
    scroll_width: f64,
    viewport: f64,
    /// id → (top, bottom, left, right), in page coordinates.
    boxes: std::collections::BTreeMap<String, [f64; 4]>,
    /// Ids, slugs and command words checked, and those that wrapped.
    ids: u64,
    wrapped: Vec<String>,
}

/// The script the test adds to a copy of the page (the page itself has
/// one script only): element positions written into the DOM, which
/// `--dump-dom` then prints.
const MEASURE: &str = r#"<script>(function(){var d=document.documentElement;
var r={sw:d.scrollWidth,w:innerWidth,boxes:{},ids:0,wrapped:[]};
['verdict','summary-tools','summary-sessions','summary-scope'].forEach(function(id){var e=document.getElementById(id);
if(e){var b=e.getBoundingClientRect();r.boxes[id]=[b.top+scrollY,b.bottom+scrollY,b.left,b.right];}});
document.querySelectorAll('.id, .cmd .w').forEach(function(e){r.ids++;var rects=e.getClientRects();
var fs=parseFloat(getComputedStyle(e).fontSize);
if(rects.length>1||(rects.length===1&&rects[0].height>fs*2))r.wrapped.push(e.textContent);});
d.setAttribute('data-measure',JSON.stringify(r));})();</script>"#;

fn measure_of(json: &str) -> Measure {
    let v: serde_json::Value = serde_json::from_str(&unescape(json)).unwrap_or_else(|e| panic!("{e}: {json}"));
    let boxes = v["boxes"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, b)| {
            let b: Vec<f64> = b.as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect();
            (k.clone(), [b[0], b[1], b[2], b[3]])
        })
        .collect();
    Measure {
        scroll_width: v["sw"].as_f64().unwrap(),
        viewport: v["w"].as_f64().unwrap(),
        boxes,
        ids: v["ids"].as_u64().unwrap(),
        wrapped: v["wrapped"].as_array().unwrap().iter().map(|w| w.as_str().unwrap().to_string()).collect(),
    }
}

/// The page in `dir/page.html` measured at 1280 × 800 (the window) and at
/// 480 wide (in a 480-pixel frame: a headless window is at least 500 wide).
fn measure(browser: &Path, dir: &Path, text: &str) -> (Measure, Measure, String) {
    std::fs::write(dir.join("measured.html"), text.replace("</body>", &format!("{MEASURE}</body>"))).unwrap();
    let run = browse(browser, &file_url(&dir.join("measured.html")), &["--dump-dom", "--window-size=1280,800"]);
    assert_eq!(run.fetched(), Vec::<String>::new(), "the page made the browser fetch");
    assert_eq!(console_lines(&run.stderr), Vec::<&str>::new(), "console messages");
    let attr_re = Regex::new(r#"data-measure="([^"]*)""#).unwrap();
    let wide = measure_of(&attr_re.captures(&run.stdout).expect("the measuring script ran")[1]);
    std::fs::write(
        dir.join("frame.html"),
        "<!DOCTYPE html><html><body style=\"margin:0\"><iframe id=\"f\" src=\"measured.html\" style=\"border:0;width:480px;height:800px\"></iframe>\
         <script>document.getElementById('f').addEventListener('load',function(){document.documentElement.setAttribute('data-child',\
         this.contentDocument.documentElement.getAttribute('data-measure'));});</script></body></html>",
    )
    .unwrap();
    let framed = browse(
        browser,
        &file_url(&dir.join("frame.html")),
        &["--dump-dom", "--window-size=1280,800", "--allow-file-access-from-files"],
    );
    let child = Regex::new(r#"data-child="([^"]*)""#).unwrap();
    let narrow = measure_of(&child.captures(&framed.stdout).expect("the frame's page was measured")[1]);
    (wide, narrow, run.stdout)
}

/// `scan PATH --format html` made at a fixed time (`SOURCE_DATE_EPOCH`).
fn page_made_at(input: &str, epoch: &str) -> String {
    let out = Command::new(BIN)
        .args(["scan", input, "--format", "html"])
        .current_dir(root())
        .env("SOURCE_DATE_EPOCH", epoch)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    stdout(&out)
}

/// Issue 50: the first screen (1280 × 800) holds the verdict, a line per
/// tool with errors, the five worst sessions (as `sessions` ranks and
/// grades them, each linked to its row) and the sources, time span and
/// generation time; the title names the sources and the dates; at 480
/// pixels nothing runs off the side, and no id, slug or command word
/// breaks onto two lines at either width.
#[test]
fn the_first_screen_holds_the_summary_and_the_page_fits_480_pixels() {
    let text = page_made_at("sample-traces/peri-postmortem.db", "1767225600");
    assert!(
        text.contains(
            "<title>peri-postmortem.db · calls 2026-05-20 to 2026-06-02 · made 2026-01-01 · falseok postmortem</title>"
        ),
        "{}",
        &text[..text.find("</title>").unwrap_or(0) + 8]
    );
    assert!(text.contains("<time id=\"generated\" datetime=\"2026-01-01T00:00:00+00:00\">2026-01-01 00:00 UTC</time>"));
    let json = scan_json(&["sample-traces/peri-postmortem.db"], &[]);
    // One line per tool with errors: its counts, its hidden errors, its first fix.
    let failing: Vec<&serde_json::Value> =
        json["tools"].as_array().unwrap().iter().filter(|t| t["errors"].as_u64() > Some(0)).collect();
    let summary = &text[text.find("id=\"summary-tools\"").unwrap()..text.find("id=\"summary-sessions\"").unwrap()];
    let line = Regex::new(r#"(?s)<li data-tool="([^"]*)">(.*?)</li>"#).unwrap();
    let lines: Vec<(String, String)> =
        line.captures_iter(summary).map(|c| (unescape(&c[1]), c[2].to_string())).collect();
    assert_eq!(lines.len(), failing.len(), "{summary}");
    for t in &failing {
        let (_, body) = lines.iter().find(|(name, _)| name == t["tool"].as_str().unwrap()).unwrap();
        assert!(body.contains(&format!("<span data-k=\"errors\">{}</span>", t["errors"])), "{body}");
        assert!(body.contains(&format!("<span data-k=\"hidden_errors\">{}</span>", t["hidden_errors"])), "{body}");
        let headline = json["headlines"].as_array().unwrap().iter().find(|h| h["tool"] == t["tool"]).unwrap();
        assert!(body.contains(headline["fix"].as_str().unwrap()), "the first fix: {body}");
    }
    let clean = json["tools"].as_array().unwrap().len() - failing.len();
    assert!(summary.contains(&format!("{clean} tools without errors")), "{summary}");
    // The five worst sessions are `falseok sessions`' first five, with their grades.
    let out = run_in(root(), &["sessions", "sample-traces/peri-postmortem.db", "--format", "json", "--limit", "5"]);
    let ranked = json_of(&out);
    let worst = &text[text.find("id=\"summary-sessions\"").unwrap()..text.find("id=\"summary-scope\"").unwrap()];
    let item = Regex::new(
        r##"<li data-session="([^"]*)"><span [^>]*data-k="grade">([A-F])</span> <a href="#(session-\d+)">"##,
    )
    .unwrap();
    let shown: Vec<(String, String, String)> =
        item.captures_iter(worst).map(|c| (unescape(&c[1]), c[2].to_string(), c[3].to_string())).collect();
    let expected: Vec<(String, String)> = ranked["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["session"].as_str().unwrap().to_string(), s["grade"].as_str().unwrap().to_string()))
        .collect();
    assert_eq!(expected.len(), 5);
    assert_eq!(shown.iter().map(|s| (s.0.clone(), s.1.clone())).collect::<Vec<_>>(), expected, "{worst}");
    for (id, _, anchor) in &shown {
        let row = &text[text.find(&format!("<tr id=\"{anchor}\"")).expect("the linked row")..];
        assert!(row[..row.find('>').unwrap()].contains(&format!("data-session=\"{id}\"")), "{anchor} is {id}'s row");
    }

    let Some(browser) = chromium() else { return };
    let dir = tempfile::tempdir().unwrap();
    let (wide, narrow, _) = measure(&browser, dir.path(), &text);
    assert_eq!(wide.viewport, 1280.0);
    for id in ["verdict", "summary-tools", "summary-sessions", "summary-scope"] {
        let [top, bottom, left, right] = wide.boxes.get(id).copied().unwrap_or_else(|| panic!("no #{id}: {wide:?}"));
        assert!(top >= 0.0 && bottom <= 800.0 && left >= 0.0 && right <= 1280.0, "#{id} at {top}..{bottom}: {wide:?}");
    }
    assert!(wide.scroll_width <= 1280.0, "the page is {} wide at 1280", wide.scroll_width);
    assert_eq!(narrow.viewport, 480.0);
    assert!(narrow.scroll_width <= 480.0, "the page is {} wide at 480", narrow.scroll_width);
    for m in [&wide, &narrow] {
        assert!(m.ids > 100, "ids, slugs and command words checked: {}", m.ids);
        assert_eq!(m.wrapped, Vec::<String>::new(), "broken across lines at {}", m.viewport);
    }
}

fn json_of(out: &std::process::Output) -> serde_json::Value {
    assert!(out.status.success(), "{}", stderr(out));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The words of the `n`-th command (`<code class="cmd">`) after `from` in
/// the page, as a shell line.
fn command_after(text: &str, from: &str) -> String {
    let at = text.find(from).unwrap_or_else(|| panic!("no {from}"));
    let code = &text[at..];
    let code = &code[code.find("<code class=\"cmd\">").expect("a command")..];
    let code = &code[..code.find("</code>").unwrap()];
    let word = Regex::new(r#"<span class="w">([^<]*)</span>"#).unwrap();
    word.captures_iter(code).map(|c| unescape(&c[1])).collect::<Vec<_>>().join(" ")
}

/// Run `line` in a shell in the repository, as a reader who pastes it
/// would, with `falseok` on the PATH.
fn paste(line: &str) -> std::process::Output {
    let bin = Path::new(BIN).parent().unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    Command::new("sh").arg("-c").arg(line).current_dir(root()).env("PATH", path).output().unwrap()
}

/// Issue 50: a command copied from the page runs as it is (it names the
/// trace the report read) and prints the calls the page counted: the
/// `examples` of a category the page cut, and the `show` of the worst
/// session. An Edit failure's `old_string` and `new_string` are a diff.
#[test]
fn commands_copied_from_the_page_run_and_print_what_it_counted() {
    let text = page_made_at("sample-traces/peri-postmortem.db", "1767225600");
    let Some(browser) = chromium() else { return };
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("peri.html"), &text).unwrap();
    let run = browse(&browser, &file_url(&dir.path().join("peri.html")), &["--dump-dom"]);
    let dom = &run.stdout;
    // The first category block with more calls than it shows.
    let pair = Regex::new(r#"(?s)<div class="pair" id="(ex-\d+-\d+)" data-tool="([^"]*)" data-category="([^"]*)">\s*<h4>[^<]*<span data-k="shown">(\d+)</span> of <span data-k="errors">(\d+)</span>"#).unwrap();
    let c = pair
        .captures_iter(dom)
        .find(|c| c[4].parse::<u64>().unwrap() < c[5].parse::<u64>().unwrap())
        .expect("a category the page cut");
    let (anchor, tool, category, errors) = (&c[1], unescape(&c[2]), unescape(&c[3]), &c[5]);
    let line = command_after(dom, &format!("id=\"{anchor}\""));
    assert!(line.contains("sample-traces/peri-postmortem.db"), "the command names the trace: {line}");
    let out = paste(&line);
    assert!(out.status.success(), "{line}: {}", stderr(&out));
    let said = format!("{errors} of {errors} {category} failures of {tool} shown.");
    assert!(stdout(&out).contains(&said), "{line} printed no {said:?}:\n{}", stdout(&out));
    assert_eq!(stdout(&out).matches(" · session ").count(), errors.parse::<usize>().unwrap(), "{line}");
    // The worst session's drill-down prints its calls, as many as the page counts.
    let row = &dom[dom.find("<tr id=\"session-0\"").expect("the worst session's row")..];
    let row = &row[..row.find("</tr>").unwrap()];
    let calls = Regex::new(r#"data-k="calls"[^>]*>(\d+)<"#).unwrap().captures(row).unwrap()[1].to_string();
    let id = attr(&row[..row.find('>').unwrap()], "data-session").unwrap();
    let line = command_after(row, "<td");
    assert!(line.starts_with(&format!("falseok show {id} ")), "{line}");
    let out = paste(&line);
    assert!(out.status.success(), "{line}: {}", stderr(&out));
    assert!(stdout(&out).lines().next().unwrap().ends_with(&format!("· {calls} calls")), "{}", stdout(&out));

    // Edit failures: old_string and new_string as a diff, lines marked.
    let diff = Regex::new(r#"(?s)<pre class="diff">(.*?)</pre>"#).unwrap();
    let diffs: Vec<String> = diff.captures_iter(dom).map(|c| c[1].to_string()).collect();
    assert!(!diffs.is_empty(), "no diff on the page");
    assert!(
        diffs.iter().any(|d| d.contains("<span class=\"del\">- ") && d.contains("<span class=\"ins\">+ ")),
        "{diffs:?}"
    );
    let edits = dom.matches("· Edit</p>").count();
    assert_eq!(diffs.len(), edits, "a diff per Edit example");
}
