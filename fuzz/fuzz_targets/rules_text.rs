//! Any result text through every text function: rules, classification,
//! templates, sanitizing, redaction and the renderers' escapers.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tracelint::analysis::normalize::template;
use tracelint::report::{csv, github, junit, markdown};
use tracelint::{redact, rules, sanitize};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    for tool in ["Edit", "Agent", "folder_operations", "Bash"] {
        let _ = rules::detect(tool, &text);
        let _ = rules::classify(tool, &text);
    }
    let t = template(&text);
    assert!(!t.contains('\n'));
    let clean = sanitize::one_line(&text);
    assert!(!clean.chars().any(|c| c.is_control()), "one_line leaves no control characters");
    let _ = sanitize::block(&text, "  ", 5, 300);
    let _ = sanitize::truncate(&text, 17);
    let _ = redact::redact(&text);
    let annotation = github::data(&text);
    assert!(!annotation.contains('\n') && !annotation.contains('\r'));
    let x = junit::xml(&text);
    let bare = ["&amp;", "&lt;", "&gt;", "&quot;", "&apos;"].iter().fold(x.clone(), |acc, e| acc.replace(e, ""));
    assert!(!bare.contains(['&', '<', '>', '"', '\'']), "XML text has a raw special: {x:?}");
    let _ = markdown::code(&text);
    let _ = markdown::text(&text);
    let _ = csv::cell(&text);
});
