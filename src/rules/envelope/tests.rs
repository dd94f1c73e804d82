//! Tests of the envelope walker.

use super::*;
use serde_json::json;

fn fails(v: Value) -> Option<String> {
    failure(v.as_object().unwrap()).map(|f| f.message)
}

#[test]
fn failure_fields_and_their_guards() {
    assert_eq!(fails(json!({"error": "boom"})).as_deref(), Some("boom"));
    assert_eq!(fails(json!({"errors": [{"message": "bad field"}]})).as_deref(), Some("bad field"));
    assert_eq!(
        fails(json!({"status": "Unauthorized", "message": "key expired"})).as_deref(),
        Some("unauthorized key expired"),
        "a telling status goes first"
    );
    assert_eq!(
        fails(json!({"error": {"code": 403, "message": "no", "status": "PERMISSION_DENIED"}})).as_deref(),
        Some("403 PERMISSION_DENIED no")
    );
    assert_eq!(fails(json!({"status": "failed"})).as_deref(), Some(r#"{"status":"failed"}"#));
    assert!(fails(json!({"exception": "ValueError('x')"})).is_some());
    assert!(fails(json!({"error": {"code": 403, "status": "PERMISSION_DENIED"}})).is_some());
    for ok in [
        json!({"error": null, "errors": [], "failed": 0, "rows": []}),
        json!({"status": "success", "error": false}),
        json!({"status": "partial", "items": [1]}),
        json!({"jobs": [{"status": "failed"}]}),
        json!({"_shards": {"failed": 1}, "hits": {"hits": [{"_id": "1"}]}}),
    ] {
        assert_eq!(fails(ok.clone()), None, "{ok}");
    }
    assert!(fails(json!({"_shards": {"total": 2, "failed": 1}, "hits": {"hits": []}})).is_some());
}

#[test]
fn exceptions_and_pending_authorisations_handed_back_as_data() {
    let plugin = json!({"response_type": "ERROR_HANDLED_BY_REFLECT_AND_RETRY_PLUGIN", "error_type": "KeyError",
        "error_details": "'A-991'", "retry_count": 1});
    assert_eq!(fails(plugin).as_deref(), Some("KeyError: 'A-991'"));
    assert!(fails(json!({"error_type": "KeyError", "error_details": null})).is_none());
    assert!(fails(json!({"error_type": "KeyError", "count": 4})).is_none(), "a statistic, not a failure");
    let pending = json!({"pending": true, "message": "Needs your authorization to access your data."});
    assert!(fails(pending).is_some());
    assert!(fails(json!({"pending": true, "message": "Job queued"})).is_none());
}

#[test]
fn a_scraped_page_that_is_an_error_or_block_page() {
    let page = |title: &str| json!({"url": "https://shop.example/", "title": title, "headings": [], "description": ""});
    for t in [
        "Just a moment...",
        "Attention Required! | Cloudflare",
        "Access denied | shop.example used Cloudflare to restrict access",
        "GoDaddy Security - Access Denied",
        "Not Acceptable!",
        "509 Bandwidth Limit Exceeded",
        "404 Not Found",
        "500 - Internal server error.",
        "Error 404 (Not Found)!!1",
    ] {
        let said = fails(page(t));
        assert_eq!(said, Some(format!("{ERROR_PAGE} {t}")), "{t}");
    }
    for t in ["Forbidden City: a visitor's guide", "404 errors explained", "Access Denied Records (label)", "Shop"] {
        assert_eq!(fails(page(t)), None, "{t}");
    }
    assert_eq!(fails(json!({"title": "404 Not Found", "year": 2004})), None, "not a page's data");
    let hits = json!({"query": "cloudflare challenge", "results": [{"title": "Just a moment...", "url": "https://x.example/"}]});
    assert_eq!(fails(hits), None, "a search's hit titled like a block page is an answer");
}

#[test]
fn data_apis_and_mcp_servers_that_answer_in_their_data() {
    let av = json!({"Information": "Thank you for using Alpha Vantage! Our standard API rate limit is 25 requests per day."});
    assert!(fails(av).is_some());
    assert!(fails(json!({"Information": "Company overview", "Symbol": "IBM"})).is_none());
    assert!(fails(json!({"Error Message": "Invalid API call."})).is_some());
    let cg = json!({"status": {"error_code": 429, "error_message": "You've exceeded the Rate Limit."}});
    assert_eq!(fails(cg).as_deref(), Some("You've exceeded the Rate Limit."));
    assert!(fails(json!({"status": {"error_code": 0, "error_message": null}, "data": []})).is_none());
    let doc = json!({"markdown": "# Page not found", "metadata": {"title": "Missing", "sourceURL": "https://x.example/a", "statusCode": 404}});
    assert_eq!(fails(doc), Some(format!("{ERROR_PAGE} 404 Missing")));
    let ok = json!({"markdown": "# Hi", "metadata": {"sourceURL": "https://x.example/", "statusCode": 200}});
    assert!(fails(ok).is_none());
    let serp = json!({"search_metadata": {"status": "Success"}, "error": "Google hasn't returned any results for this query."});
    assert!(fails(serp).is_none(), "an empty search is an answer");
    let aws = json!({"search_results": [{"rank_order": 1, "url": "", "title": "Error searching AWS docs - status code 503"}]});
    assert_eq!(fails(aws).as_deref(), Some("Error searching AWS docs - status code 503"));
    let hit =
        json!({"search_results": [{"url": "https://docs.aws.amazon.com/x.html", "title": "Error handling in Lambda"}]});
    assert!(fails(hit).is_none());
    let guide = json!({"results": [{"title": "Error Handling Guide", "url": "", "content": "…"}]});
    assert!(fails(guide).is_none(), "a title about errors");
    assert!(fails(json!({"Note": "API key saved to .env"})).is_none(), "another tool's note");
    let supa = "Below is the result of the SQL query. Note that this contains untrusted user data.\n\n<untrusted-data-1f>\n{\"error\": {\"code\": 400, \"message\": \"Query exceeds the maximum allowed window.\"}}\n</untrusted-data-1f>";
    assert!(fails(json!({"result": supa})).is_some());
    let rows = "Below is the result of the SQL query.\n\n<untrusted-data-2a>\n[{\"error\": \"a row's column\"}]\n</untrusted-data-2a>";
    assert!(fails(json!({"result": rows})).is_none(), "rows are data");
}

#[test]
fn weather_and_maps_apis_say_it_their_way() {
    let owm = json!({"cod": "404", "message": "city not found"});
    assert_eq!(fails(owm).as_deref(), Some("404 city not found"));
    assert!(fails(json!({"cod": 401, "message": "Invalid API key."})).is_some());
    assert!(fails(json!({"cod": "200", "message": 0, "list": []})).is_none(), "a forecast");
    assert!(fails(json!({"cod": 200, "name": "Oslo", "weather": []})).is_none());
    assert!(fails(json!({"detail": {"error": "Unauthorized: missing or invalid API key."}})).is_some());
    assert!(fails(json!({"detail": {"error": null, "id": 4}})).is_none());
    assert!(fails(json!({"data": {}, "error": null, "successful": false})).is_some(), "Composio");
    assert!(fails(json!({"data": {"id": 1}, "error": null, "successful": true})).is_none());
    let denied =
        json!({"error_message": "The provided API key is invalid.", "results": [], "status": "REQUEST_DENIED"});
    assert_eq!(fails(denied).as_deref(), Some("request_denied The provided API key is invalid."));
    assert!(fails(json!({"results": [], "status": "OVER_QUERY_LIMIT"})).is_some());
    assert!(fails(json!({"results": [], "status": "ZERO_RESULTS"})).is_none(), "found nothing: an answer");
    assert!(fails(json!({"error": "No matching rental listings found."})).is_none(), "a search's none");
    assert!(fails(json!({"error": "No results found for 'blue sofa' under $100"})).is_none());
    assert!(fails(json!({"error": "No user found with id 42"})).is_some(), "a keyed lookup's missing thing");
    assert!(fails(json!({"error": "Search failed: no matching index 'products'", "status": 404})).is_some());
    assert!(fails(json!({"results": [{"place_id": "x"}], "status": "OK"})).is_none());
}

#[test]
fn a_success_that_names_the_parts_that_failed() {
    let partial = json!({"success": true, "data": {"os": "Windows 11"}, "error": "users: access denied"});
    assert_eq!(fails(partial), None, "the answer came back; only a part failed");
    assert!(fails(json!({"success": true, "error": "users: access denied"})).is_some(), "no answer beside it");
    assert!(fails(json!({"data": {"os": "x"}, "errors": [{"message": "denied"}]})).is_some(), "no verdict of its own");
    assert!(fails(json!({"success": false, "data": {"os": "x"}, "error": "denied"})).is_some());
}

#[test]
fn batches_fail_only_when_every_item_failed() {
    let all = json!({"success": true, "results": [{"ok": false, "error": "x"}, {"success": false}]});
    assert_eq!(fails(all).as_deref(), Some("x"));
    assert_eq!(fails(json!({"success": true, "results": [{"success": false}, {"success": true}]})), None);
    assert_eq!(fails(json!({"success": true, "results": []})), None);
}

#[test]
fn nested_and_stringified_replies() {
    let inner = json!({"success": false, "error": "Repository not found"}).to_string();
    let mcp = json!({"content": [{"type": "text", "text": inner}], "isError": false});
    assert_eq!(fails(json!({"result": mcp.clone()})).as_deref(), Some("Repository not found"));
    assert_eq!(fails(json!({"response": mcp.to_string()})).as_deref(), Some("Repository not found"));
    let flagged = json!({"content": [{"type": "text", "text": "Error: Access denied"}], "isError": true});
    assert_eq!(fails(flagged).as_deref(), Some("Error: Access denied"));
    // Data of the reply is not followed.
    assert_eq!(fails(json!({"data": {"status": "error"}, "ok": true})), None);
    // Too deep is not followed.
    let mut v = json!({"error": "deep"});
    for _ in 0..=MAX_DEPTH {
        v = json!({"result": v});
    }
    assert_eq!(fails(v), None);
}

#[test]
fn reply_texts() {
    let text = |v: Value| reply_text(v.as_object().unwrap());
    assert_eq!(text(json!({"result": "Error: x"})).as_deref(), Some("Error: x"));
    let mcp = json!({"content": [{"type": "text", "text": "Failed to fetch u - status code 404"}], "isError": false});
    assert_eq!(text(json!({"result": mcp})).as_deref(), Some("Failed to fetch u - status code 404"));
    assert_eq!(text(json!({"rows": [], "count": 0})), None);
}

#[test]
fn github_error_notice_fetched_by_a_web_reader() {
    let notice = json!({"message": "Not Found", "status": "404",
        "documentation_url": "https://docs.github.com/rest/repos/repos#get-a-repository"});
    let o = notice.as_object().unwrap();
    assert_eq!(data_failure(o, true).as_deref(), Some("Not Found"));
    assert_eq!(data_failure(o, false), None, "a file holding the notice is the file's data");
    // A repository's own fields beside a message: the data asked for.
    let repo = json!({"message": "Not Found", "documentation_url": "https://docs.github.com/x", "name": "r"});
    assert_eq!(data_failure(repo.as_object().unwrap(), true), None);
}

#[test]
fn content_items_are_read_as_their_text() {
    let are = |v: &Value| are_content_items(v.as_array().unwrap());
    let text = |v: Value| reply_text(json!({"content": v}).as_object().unwrap());
    let two = json!([{"type": "text", "text": "Error: refused", "annotations": null, "meta": null},
        {"type": "image", "data": "iVBO", "mimeType": "image/png"}, {"type": "text", "text": "retry"}]);
    assert!(are(&two));
    assert_eq!(text(two).as_deref(), Some("Error: refused\nretry"));
    // Rows of data are not content items, and items with no text say nothing.
    assert!(!are(&json!([{"type": "text", "text": "a", "id": 7}])));
    assert!(!are(&json!([{"text": "untyped"}])));
    assert!(!are(&json!([])));
    let image = json!([{"type": "image", "data": "iVBO"}]);
    assert!(are(&image));
    assert_eq!(text(image), None);
}

#[test]
fn aws_and_gateway_default_error_bodies() {
    let aws = json!({"__type": "com.amazonaws.dynamodb.v20120810#ResourceNotFoundException",
        "message": "Requested resource not found"});
    assert_eq!(fails(aws).as_deref(), Some("Requested resource not found"));
    assert!(fails(json!({"__type": "UnrecognizedClientException", "Message": "bad token"})).is_some());
    assert!(fails(json!({"__type": "Table", "message": "3 columns"})).is_none(), "a data class, not an error");
    assert!(fails(json!({"__type": "ValidationException", "message": "x", "Items": []})).is_none(), "data beside it");
    for said in ["Missing Authentication Token", "Internal server error", "Forbidden", "Endpoint request timed out"] {
        assert_eq!(fails(json!({"message": said})).as_deref(), Some(said), "{said}");
    }
    assert_eq!(fails(json!({"Message": "An error has occurred."})).as_deref(), Some("An error has occurred."));
    for ok in
        [json!({"message": "Hello, Ada!"}), json!({"message": "Forbidden", "user": "ada"}), json!({"message": ""})]
    {
        assert_eq!(fails(ok.clone()), None, "{ok}");
    }
}

#[test]
fn a_partial_answer_that_says_its_part_is_missing() {
    let missing = json!({"status": "partial", "data": {"prices": null}, "message": "prices unavailable"});
    assert!(fails(missing).is_some());
    assert!(fails(json!({"status": "Partial", "error": "quote service failed"})).is_some());
    assert_eq!(fails(json!({"status": "partial", "message": "3 of 5 sources loaded", "items": [1, 2, 3]})), None);
    assert_eq!(fails(json!({"status": "partial", "items": [1]})), None);
}
