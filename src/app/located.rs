//! Where `--format sarif` points each finding (docs/ci.md, "SARIF"): the
//! report's place of it (the database row; the transcript a folder's
//! session came from), and for a transcript the line of the result, found
//! by its call id: the line after the call's own that names the id (the
//! call's line when no later one does). Paths under the current folder are
//! written relative to it, as GitHub code scanning reads them.

use std::collections::BTreeMap;
use std::io::BufRead;
use std::path::Path;

use crate::render::sarif::{self, Located};
use crate::report::Report;

/// The lines found in one transcript: per call id, (the first line naming
/// it, the next line naming it).
type Lines = BTreeMap<String, (u64, Option<u64>)>;

/// Where each finding of `report` points, in `findings` order.
pub(crate) fn resolve(report: &Report) -> Vec<Option<Located>> {
    let here = std::env::current_dir().ok();
    let database = |source: &str| {
        report
            .sources
            .iter()
            .find(|s| s.path == source)
            .is_some_and(|s| crate::source::Format::from_name(&s.format).is_some())
    };
    let mut located: Vec<Option<Located>> = report.findings.iter().map(sarif::place_of).collect();
    // The transcripts to read, with the call ids to find in each.
    let mut wanted: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (f, at) in report.findings.iter().zip(&mut located) {
        let Some(at) = at.as_mut().filter(|_| !database(&f.source)) else { continue };
        if at.line.is_none() {
            // A transcript's row is the import's, not the file's: no row.
            at.row = None;
            if let Some(call) = &f.call_id {
                wanted.entry(at.path.clone()).or_default().push(call.clone());
            }
        }
    }
    let found: BTreeMap<String, Lines> =
        wanted.into_iter().map(|(path, ids)| (path.clone(), lines(&path, ids))).collect();
    for (f, at) in report.findings.iter().zip(&mut located) {
        let Some(at) = at.as_mut() else { continue };
        if at.line.is_none()
            && let (Some(call), Some(lines)) = (&f.call_id, found.get(&at.path))
            && let Some((first, next)) = lines.get(call)
        {
            at.line = Some(next.unwrap_or(*first));
        }
        if let Some(here) = &here
            && let Ok(rel) = Path::new(&at.path).strip_prefix(here)
        {
            at.path = rel.display().to_string();
        }
    }
    located
}

/// The lines of the transcript at `path` that name each of `ids`; none
/// when it cannot be read (the location then names the file alone).
fn lines(path: &str, mut ids: Vec<String>) -> Lines {
    ids.sort_unstable();
    ids.dedup();
    ids.retain(|id| !id.is_empty());
    let mut out = Lines::new();
    let Ok(file) = std::fs::File::open(path) else { return out };
    if !file.metadata().is_ok_and(|m| m.is_file()) || ids.is_empty() {
        return out;
    }
    let Ok(ac) = aho_corasick::AhoCorasick::new(&ids) else { return out };
    let mut reader = std::io::BufReader::new(file);
    let mut line = Vec::new();
    let mut n = 0u64;
    while reader.read_until(b'\n', &mut line).is_ok_and(|read| read > 0) {
        n += 1;
        for m in ac.find_overlapping_iter(&line) {
            // The whole id, not a part of a longer one (`c1` in `c10`).
            let word = |b: Option<&u8>| b.is_some_and(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-'));
            if word(m.start().checked_sub(1).and_then(|i| line.get(i))) || word(line.get(m.end())) {
                continue;
            }
            let id = &ids[m.pattern().as_usize()];
            match out.get_mut(id) {
                None => {
                    out.insert(id.clone(), (n, None));
                }
                Some((first, next @ None)) if *first < n => *next = Some(n),
                Some(_) => {}
            }
        }
        line.clear();
    }
    out
}
