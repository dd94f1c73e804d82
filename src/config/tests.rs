use std::path::Path;

use serde_json::json;

use super::*;

fn parse(text: &str) -> Result<Config> {
    file::parse(Path::new("falseok.toml"), text, false).map(Option::unwrap)
}

fn refusal(text: &str) -> String {
    parse(text).unwrap_err().to_string()
}

const DECLINED: &str = r#"
[[rules]]
id = "payment-declined"
tool = "pay_*"
category = "permission-denied"
fix = "Check the card before paying."
result = { pointer = "/status", equals = "declined" }
"#;

#[test]
fn a_pointer_rule_fires_on_the_reply_and_on_replies_nested_in_it() {
    let c = parse(DECLINED).unwrap();
    let fires = |tool: &str, text: &str| matches!(c.judge(tool, &json!({}), text, text), Some(Verdict::Fails(_)));
    assert!(fires("pay_card", r#"{"status": "declined"}"#));
    // MCP text contents holding JSON, inside an ADK `response`.
    let mcp = r#"{"response": {"content": [{"type": "text", "text": "{\"status\": \"declined\"}"}]}}"#;
    assert!(fires("pay_card", mcp));
    assert!(!fires("pay_card", r#"{"status": "approved"}"#));
    assert!(!fires("refund", r#"{"status": "declined"}"#), "another tool");
    // A list of payments whose `status` is declined is data, not a reply.
    assert!(!fires("pay_card", r#"{"payments": [{"status": "declined"}]}"#));
}

#[test]
fn every_test_of_a_pointer_and_the_text_regex_behave() {
    let rule = |pred: &str| {
        parse(&format!("[[rules]]\nid = \"r\"\ntool = \"re:^t\"\ncategory = \"other\"\nfix = \"f\"\nresult = {pred}\n"))
            .unwrap()
    };
    let fires =
        |pred: &str, text: &str| matches!(rule(pred).judge("t", &json!({}), text, text), Some(Verdict::Fails(_)));
    assert!(fires(r#"{ pointer = "/code", in = [429, 503] }"#, r#"{"code": 503}"#));
    assert!(!fires(r#"{ pointer = "/code", in = [429, 503] }"#, r#"{"code": 200}"#));
    assert!(fires(r#"{ pointer = "/declined", exists = true }"#, r#"{"declined": null}"#));
    assert!(fires(r#"{ pointer = "/declined", exists = false }"#, r#"{"ok": 1}"#));
    assert!(!fires(r#"{ pointer = "/declined", exists = false }"#, r#"{"declined": 1}"#));
    assert!(fires(r#"{ pointer = "/msg", contains = "quota" }"#, r#"{"msg": "over quota today"}"#));
    assert!(fires(r#"{ pointer = "/tags", contains = "failed" }"#, r#"{"tags": ["x", "failed"]}"#));
    assert!(fires(r#"{ pointer = "/code", matches = "^4\\d\\d$" }"#, r#"{"code": 429}"#));
    assert!(fires(r#"{ pointer = "/n", equals = 2 }"#, r#"{"n": 2.0}"#));
    assert!(fires(r#"{ text = "failed with status: 429" }"#, "Notification trigger failed with status: 429"));
    assert!(!fires(r#"{ text = "failed with status: 429" }"#, "sent"));
}

#[test]
fn an_args_predicate_narrows_a_rule_and_benign_shapes_come_first() {
    let c = parse(
        r#"
[[benign]]
id = "probe"
tool = "http_get"
reason = "The health probe asks for a missing page on purpose."
result = { pointer = "/status", equals = 404 }
args = { pointer = "/url", contains = "/probe" }

[[rules]]
id = "page-missing"
tool = "http_get"
category = "not-found"
fix = "Ask for a page that exists."
result = { pointer = "/status", equals = 404 }
"#,
    )
    .unwrap();
    let text = r#"{"status": 404}"#;
    let v = c.judge("http_get", &json!({"url": "https://x/probe"}), text, text);
    assert!(matches!(v, Some(Verdict::Benign(b)) if b.id == "probe"));
    let v = c.judge("http_get", &json!({"url": "https://x/page"}), text, text);
    assert!(matches!(v, Some(Verdict::Fails(r)) if r.id == "page-missing"));
}

#[test]
fn a_bad_file_is_refused_naming_the_line_and_the_key() {
    let e =
        refusal("[[rules]]\nid = \"x\"\ntool = \"t\"\ncategory = \"nope\"\nfix = \"f\"\nresult = { text = \"a\" }\n");
    assert_eq!(e, "falseok.toml: line 4, key `rules.category`: not a category (`falseok rules` lists them)");
    let e = refusal("ignore = [\"json-envelope-error\"]\nselectt = []\n");
    assert!(e.starts_with("falseok.toml: line 2, key `selectt`: unknown field `selectt`"), "{e}");
    let e =
        refusal("[[rules]]\nid = \"x\"\ntool = \"t\"\ncategory = \"other\"\nfix = \"f\"\nresult = { text = \"(\" }\n");
    assert!(e.starts_with("falseok.toml: line 6, key `rules.result.text`: not a regex"), "{e}");
    let e = refusal(
        "[[rules]]\nid = \"x\"\ntool = \"t\"\ncategory = \"other\"\nfix = \"f\"\nresult = { pointer = \"/a\", equals = 1, exists = true }\n",
    );
    assert!(e.contains("line 6, key `rules.result.pointer`: takes exactly one of"), "{e}");
    let e = refusal(
        "[[rules]]\nid = \"json-envelope-error\"\ntool = \"t\"\ncategory = \"other\"\nfix = \"f\"\nresult = { text = \"a\" }\n",
    );
    assert!(e.contains("line 2, key `rules.id`: `json-envelope-error` is already a built-in"), "{e}");
    let e = refusal("ignore = [\"no-such-rule\"]\n");
    assert!(e.contains("line 1, key `ignore`: `no-such-rule` is not"), "{e}");
    let e = refusal("[[rules]]\nid = \"x\"\ntool = \"t\"\ncategory = \"other\"\nresult = { text = \"a\" }\n");
    assert!(e.contains("missing field `fix`"), "{e}");
    let e = refusal("ignore = [\"a\"\n");
    assert!(e.starts_with("falseok.toml: line "), "{e}");
}

#[test]
fn a_pyproject_is_read_only_for_its_tool_table() {
    let p = Path::new("pyproject.toml");
    assert!(file::parse(p, "[project]\nname = \"x\"\n", true).unwrap().is_none());
    let text = format!(
        "[project]\nname = \"x\"\n[tool.ruff]\nline-length = 1\n{}",
        DECLINED.replace("[[rules]]", "[[tool.falseok.rules]]")
    );
    let c = file::parse(p, &text, true).unwrap().unwrap();
    assert_eq!(c.rules[0].origin, "pyproject.toml:6");
    assert!(file::mentions_tool_table(&text));
    assert!(!file::mentions_tool_table("[tool.ruff]\n"));
}

#[test]
fn the_fingerprint_follows_what_changes_a_verdict() {
    let a = parse(DECLINED).unwrap().fingerprint;
    assert_eq!(a, parse(&format!("# a comment\n{DECLINED}")).unwrap().fingerprint);
    assert_ne!(a, parse(&DECLINED.replace("declined\" }", "refused\" }")).unwrap().fingerprint);
    assert_ne!(a, parse(&format!("ignore = [\"other\"]\n{DECLINED}")).unwrap().fingerprint);
}

#[test]
fn globs_match_whole_names_and_regexes_search() {
    assert!(tool_pattern("pay_*").unwrap().is_match("pay_card"));
    assert!(!tool_pattern("pay_*").unwrap().is_match("repay_card"));
    assert!(tool_pattern("mcp__*__charge").unwrap().is_match("mcp__stripe__charge"));
    assert!(tool_pattern("re:charge").unwrap().is_match("mcp__stripe__charge"));
    assert!(tool_pattern("a.b").unwrap().is_match("a.b") && !tool_pattern("a.b").unwrap().is_match("axb"));
}
