//! `cargo xtask corpus`: measure falseok on the real-trace corpus.
//!
//! The traces live outside the repository (`corpus/README.md`); their
//! provenance (`corpus/sources.tsv`) and a person's verdict on every call
//! (`corpus/labels/*.tsv`) live here. This runs the falseok binary's
//! `export` over every source, joins its judged calls to the labels and
//! counts, per agent and per split (`tune`, `held-out`): calls and flags
//! against the labels, hidden-error precision and recall, and the share of
//! `other` among the errors falseok reports.
//!
//! A label is joined to a judged call of the source that holds its file by
//! (session, call id) when that is unique, else by call id alone when that
//! is unique in the source, else by (session, position in the session).

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde::Deserialize;

/// One row of `sources.tsv`.
#[derive(Debug, Clone)]
pub struct Source {
    pub agent: String,
    pub repo: String,
    pub local: String,
    pub split: String,
}

/// One row of a `labels/<agent>.tsv`.
#[derive(Debug, Clone)]
pub struct Label {
    pub agent: String,
    pub local: String,
    pub session: String,
    pub call_id: String,
    pub seq: Option<u64>,
    pub tool: String,
    pub flagged: Option<bool>,
    pub verdict: Verdict,
    pub why: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Fail,
    Ok,
    NoResult,
    /// The failure is in the output, but the agent's own command threw the
    /// status away (`| tail`, `|| true`): counted neither as a hidden error
    /// nor as a false alarm (LABELS.md).
    Masked,
    /// The user or the harness refused or cancelled the call: not a hidden
    /// error, flagged or not (LABELS.md).
    Rejected,
}

/// The columns of an export row the measure needs.
#[derive(Debug, Clone, Deserialize)]
pub struct Judged {
    pub session: String,
    pub seq: u64,
    pub tool: String,
    pub call_id: String,
    pub flagged: bool,
    pub hidden: bool,
    pub error: bool,
    pub category: Option<String>,
    #[serde(default)]
    pub rules: Vec<String>,
}

/// Parse a TSV with a header line into maps from column name to value.
/// Blank lines and lines starting with `#` are skipped.
pub fn read_tsv(text: &str, origin: &str) -> Result<Vec<HashMap<String, String>>, String> {
    let mut lines = text.lines().filter(|l| !l.trim().is_empty() && !l.starts_with('#'));
    let Some(header) = lines.next() else { return Ok(Vec::new()) };
    let names: Vec<&str> = header.split('\t').map(str::trim).collect();
    let mut rows = Vec::new();
    for (i, line) in lines.enumerate() {
        let cells: Vec<&str> = line.split('\t').collect();
        if cells.len() < names.len().min(3) {
            return Err(format!("{origin}: row {} has {} cells, the header {}", i + 2, cells.len(), names.len()));
        }
        rows.push(
            names.iter().enumerate().map(|(j, n)| (n.to_string(), cells.get(j).unwrap_or(&"").to_string())).collect(),
        );
    }
    Ok(rows)
}

fn need<'a>(row: &'a HashMap<String, String>, col: &str, origin: &str) -> Result<&'a str, String> {
    row.get(col).map(String::as_str).ok_or_else(|| format!("{origin}: no `{col}` column"))
}

pub fn parse_sources(text: &str, origin: &str) -> Result<Vec<Source>, String> {
    read_tsv(text, origin)?
        .iter()
        .map(|r| {
            let split = need(r, "split", origin)?.trim().to_string();
            if split != "tune" && split != "held-out" {
                return Err(format!("{origin}: split `{split}` is neither `tune` nor `held-out`"));
            }
            Ok(Source {
                agent: need(r, "agent", origin)?.trim().to_string(),
                repo: need(r, "repo", origin)?.trim().to_string(),
                local: need(r, "local", origin)?.trim().trim_end_matches('/').to_string(),
                split,
            })
        })
        .collect()
}

pub fn parse_labels(text: &str, agent: &str, origin: &str) -> Result<Vec<Label>, String> {
    read_tsv(text, origin)?
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let verdict = match need(r, "verdict", origin)?.trim() {
                "fail" => Verdict::Fail,
                "ok" => Verdict::Ok,
                "none" => Verdict::NoResult,
                "masked" => Verdict::Masked,
                "rejected" => Verdict::Rejected,
                v => return Err(format!("{origin}: row {}: verdict `{v}`", i + 2)),
            };
            let flagged = match need(r, "flagged", origin)?.trim() {
                "1" => Some(true),
                "0" => Some(false),
                _ => None,
            };
            Ok(Label {
                agent: agent.to_string(),
                local: need(r, "local", origin)?.trim().to_string(),
                session: r.get("session").map(|s| s.trim().to_string()).unwrap_or_default(),
                call_id: r.get("call_id").map(|s| s.trim().to_string()).unwrap_or_default(),
                seq: r.get("seq").and_then(|s| s.trim().parse().ok()),
                tool: r.get("tool").map(|s| s.trim().to_string()).unwrap_or_default(),
                flagged,
                verdict,
                why: r.get("why").cloned().unwrap_or_default(),
            })
        })
        .collect()
}

/// The extra arguments a store needs to be read (Cursor is only read when named).
fn format_args(agent: &str) -> &'static [&'static str] {
    match agent {
        "cursor" => &["--source-format", "cursor"],
        _ => &[],
    }
}

/// Run `falseok export` over one source and parse its rows.
pub fn export(bin: &Path, path: &Path, agent: &str) -> Result<Vec<Judged>, String> {
    let out = Command::new(bin)
        .arg("export")
        .args(format_args(agent))
        .arg("--no-redact")
        .arg(path)
        .output()
        .map_err(|e| format!("{}: cannot run: {e}", bin.display()))?;
    if !out.status.success() {
        return Err(format!(
            "{}: export failed ({}): {}",
            path.display(),
            out.status,
            String::from_utf8_lossy(&out.stderr).lines().next().unwrap_or("")
        ));
    }
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_str(l).map_err(|e| format!("{}: export row: {e}", path.display())))
        .collect()
}

/// Counts of one agent in one split.
#[derive(Debug, Default, Clone)]
pub struct Tally {
    pub repos: std::collections::BTreeSet<String>,
    pub sources: usize,
    pub labels: usize,
    pub judged: usize,
    pub matched: usize,
    pub flag_agree: usize,
    pub flag_labelled: usize,
    pub truth_hidden: usize,
    pub found_hidden: usize,
    pub true_hidden: usize,
    pub truth_fail: usize,
    pub found_error: usize,
    pub true_error: usize,
    pub other: usize,
    pub errors: usize,
    /// The content rule that made each found hidden error: (right, wrong).
    pub by_rule: BTreeMap<String, (usize, usize)>,
    /// Per content rule: the results labelled `ok` it judged hidden errors
    /// (its false alarms over the successes).
    pub ok_alarms: BTreeMap<String, usize>,
}

impl Tally {
    fn precision(&self) -> Option<f64> {
        (self.found_hidden > 0).then(|| self.true_hidden as f64 / self.found_hidden as f64)
    }
    fn recall(&self) -> Option<f64> {
        (self.truth_hidden > 0).then(|| self.true_hidden as f64 / self.truth_hidden as f64)
    }
    fn other_share(&self) -> Option<f64> {
        (self.errors > 0).then(|| self.other as f64 / self.errors as f64)
    }
}

/// A disagreement between a label and falseok, for reading.
#[derive(Debug, Clone)]
pub struct Miss {
    pub kind: &'static str,
    /// The judged call's place in its session (`None`: unmatched).
    pub seq: Option<u64>,
    pub label: Label,
    pub category: Option<String>,
    pub rules: Vec<String>,
}

/// The measure of the whole corpus.
#[derive(Debug, Default)]
pub struct Measure {
    /// (agent, split) → counts.
    pub tallies: BTreeMap<(String, String), Tally>,
    pub misses: Vec<(String, Miss)>,
    /// Calls falseok reported as `other`, with their first rule (tune split).
    pub others: Vec<(String, String, String)>,
    pub problems: Vec<String>,
}

/// Join the labels of one source to its judged calls and count.
pub fn tally_source(
    split: &str,
    labels: &[&Label],
    judged: &[Judged],
    tally: &mut Tally,
    misses: &mut Vec<(String, Miss)>,
) -> usize {
    let mut by_session_id: HashMap<(&str, &str), Vec<usize>> = HashMap::new();
    let mut by_id: HashMap<&str, Vec<usize>> = HashMap::new();
    let mut by_seq: HashMap<(&str, u64), usize> = HashMap::new();
    // A reused id is shown as `<id>@<event>` by some readers: the k-th call
    // of an id in a session is the k-th label of it.
    let mut by_base: HashMap<(&str, &str), Vec<usize>> = HashMap::new();
    let mut order: Vec<usize> = (0..judged.len()).collect();
    order.sort_by(|&a, &b| (&judged[a].session, judged[a].seq).cmp(&(&judged[b].session, judged[b].seq)));
    for &i in &order {
        let j = &judged[i];
        by_session_id.entry((&j.session, &j.call_id)).or_default().push(i);
        by_id.entry(&j.call_id).or_default().push(i);
        by_seq.insert((&j.session, j.seq), i);
        by_base.entry((&j.session, base_id(&j.call_id))).or_default().push(i);
    }
    let mut label_order: Vec<usize> = (0..labels.len()).collect();
    label_order.sort_by_key(|&i| (labels[i].session.clone(), labels[i].seq.unwrap_or(u64::MAX)));
    let mut nth: HashMap<usize, usize> = HashMap::new();
    let mut counts: HashMap<(&str, &str), usize> = HashMap::new();
    for &i in &label_order {
        let l = labels[i];
        let n = counts.entry((&l.session, &l.call_id)).or_insert(0);
        nth.insert(i, *n);
        *n += 1;
    }
    let find = |k: usize, l: &Label| -> Option<usize> {
        if !l.call_id.is_empty() {
            if let Some(all) = by_base.get(&(l.session.as_str(), l.call_id.as_str()))
                && let Some(&i) = nth.get(&k).and_then(|n| all.get(*n))
            {
                return Some(i);
            }
            if let Some([one]) = by_session_id.get(&(l.session.as_str(), l.call_id.as_str())).map(Vec::as_slice) {
                return Some(*one);
            }
            if let Some([one]) = by_id.get(l.call_id.as_str()).map(Vec::as_slice) {
                return Some(*one);
            }
        }
        let seq = l.seq?;
        if let Some(&i) = by_seq.get(&(l.session.as_str(), seq)) {
            return Some(i);
        }
        // A label without a session (the store names none): the call at
        // that place of the one session the unit holds.
        let sessions: std::collections::HashSet<&str> = judged.iter().map(|j| j.session.as_str()).collect();
        match (l.session.is_empty(), sessions.len()) {
            (true, 1) => by_seq.get(&(*sessions.iter().next()?, seq)).copied(),
            _ => None,
        }
    };
    let mut unmatched = 0;
    for (k, l) in labels.iter().enumerate() {
        tally.labels += 1;
        let truth_hidden = l.verdict == Verdict::Fail && l.flagged != Some(true);
        let Some(i) = find(k, l) else {
            unmatched += 1;
            if truth_hidden {
                tally.truth_hidden += 1;
            }
            if l.verdict == Verdict::Fail {
                tally.truth_fail += 1;
            }
            misses.push((
                split.to_string(),
                Miss { kind: "unmatched", seq: None, label: (*l).clone(), category: None, rules: vec![] },
            ));
            continue;
        };
        let j = &judged[i];
        tally.matched += 1;
        if let Some(f) = l.flagged {
            tally.flag_labelled += 1;
            if f == j.flagged {
                tally.flag_agree += 1;
            } else {
                misses.push((
                    split.to_string(),
                    Miss {
                        kind: "flag",
                        seq: Some(j.seq),
                        label: (*l).clone(),
                        category: j.category.clone(),
                        rules: j.rules.clone(),
                    },
                ));
            }
        }
        // Neither a hidden error nor a false alarm, whatever was found.
        if matches!(l.verdict, Verdict::Masked | Verdict::Rejected) {
            continue;
        }
        if truth_hidden {
            tally.truth_hidden += 1;
        }
        if l.verdict == Verdict::Fail {
            tally.truth_fail += 1;
        }
        if j.hidden {
            tally.found_hidden += 1;
        }
        if j.error {
            tally.found_error += 1;
            if l.verdict == Verdict::Fail {
                tally.true_error += 1;
            }
        }
        if truth_hidden && j.hidden {
            tally.true_hidden += 1;
        }
        if j.hidden {
            let rule = j.rules.first().cloned().unwrap_or_else(|| "-".into());
            let hits = tally.by_rule.entry(rule).or_default();
            if truth_hidden {
                hits.0 += 1;
            } else {
                hits.1 += 1;
            }
            if l.verdict == Verdict::Ok {
                *tally.ok_alarms.entry(j.rules.first().cloned().unwrap_or_else(|| "-".into())).or_default() += 1;
            }
        }
        let kind = match (truth_hidden, j.hidden) {
            (true, false) => Some("missed"),
            (false, true) => Some("false-hidden"),
            _ => None,
        };
        if let Some(kind) = kind {
            misses.push((
                split.to_string(),
                Miss {
                    kind,
                    seq: Some(j.seq),
                    label: (*l).clone(),
                    category: j.category.clone(),
                    rules: j.rules.clone(),
                },
            ));
        }
    }
    unmatched
}

/// What one export reads: the source itself, or, for a folder holding
/// SQLite databases (a `.crush` folder with its `-wal`), each database.
fn units(root: &Path, local: &str) -> Vec<String> {
    let path = root.join(local);
    if !path.is_dir() {
        return vec![local.to_string()];
    }
    let mut dbs = Vec::new();
    let mut stack = vec![path.clone()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if is_sqlite(&p) {
                dbs.push(p.strip_prefix(root).unwrap_or(&p).to_string_lossy().into_owned());
            }
        }
    }
    dbs.sort();
    if dbs.is_empty() { vec![local.to_string()] } else { dbs }
}

fn is_sqlite(p: &Path) -> bool {
    use std::io::Read;
    let mut head = [0u8; 16];
    std::fs::File::open(p).and_then(|mut f| f.read_exact(&mut head)).is_ok() && &head == b"SQLite format 3\0"
}

/// Measure every source of `sources` with the labels, running `bin`.
pub fn measure(root: &Path, bin: &Path, sources: &[Source], labels: &[Label], only: Option<&str>) -> Measure {
    let mut m = Measure::default();
    let under = |l: &Label, unit: &str| l.local == unit || l.local.starts_with(&format!("{unit}/"));
    for label in labels {
        if !sources.iter().any(|s| under(label, &s.local)) {
            m.problems.push(format!("{}: a label under no source", label.local));
        }
    }
    for src in sources {
        if only.is_some_and(|a| a != src.agent) {
            continue;
        }
        if !root.join(&src.local).exists() {
            m.problems.push(format!("{}: missing (run corpus/rebuild.sh)", src.local));
            continue;
        }
        let key = (src.agent.clone(), src.split.clone());
        let t = m.tallies.entry(key.clone()).or_default();
        t.sources += 1;
        t.repos.insert(src.repo.clone());
        for unit in units(root, &src.local) {
            let mine: Vec<Label> = labels
                .iter()
                .filter(|l| under(l, &unit))
                .map(|l| Label { agent: src.agent.clone(), ..l.clone() })
                .collect();
            let judged = match export(bin, &root.join(&unit), &src.agent) {
                Ok(j) => j,
                Err(e) => {
                    m.problems.push(e);
                    Vec::new()
                }
            };
            let tally = m.tallies.entry(key.clone()).or_default();
            tally.judged += judged.len();
            for j in &judged {
                if j.error {
                    tally.errors += 1;
                    if j.category.as_deref() == Some("other") {
                        tally.other += 1;
                        if src.split == "tune" {
                            m.others.push((src.agent.clone(), j.tool.clone(), j.rules.join(",")));
                        }
                    }
                }
            }
            let refs: Vec<&Label> = mine.iter().collect();
            let unmatched = tally_source(&src.split, &refs, &judged, tally, &mut m.misses);
            if unmatched > 0 {
                m.problems.push(format!("{unit}: {unmatched} of {} labels match no judged call", mine.len()));
            }
        }
    }
    m
}

/// `id` without the `@<event>` a reader adds to a reused id.
fn base_id(id: &str) -> &str {
    match id.rsplit_once('@') {
        Some((base, n)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => base,
        _ => id,
    }
}

fn pct(x: Option<f64>) -> String {
    x.map_or("–".into(), |v| format!("{:.3}", v))
}

/// What each content rule found, per agent and split: the hidden errors
/// it was first to judge, right and wrong (what it costs in precision).
pub fn render_rules(m: &Measure) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "{:<28} {:<14} {:<8} {:>5} {:>5}", "rule", "agent", "split", "right", "wrong");
    let mut rows: Vec<(&str, &str, &str, usize, usize)> = Vec::new();
    for ((agent, split), t) in &m.tallies {
        for (rule, (right, wrong)) in &t.by_rule {
            rows.push((rule, agent, split, *right, *wrong));
        }
    }
    rows.sort();
    for (rule, agent, split, right, wrong) in &rows {
        let _ = writeln!(s, "{rule:<28} {agent:<14} {split:<8} {right:>5} {wrong:>5}");
    }
    // The whole corpus, every agent and split: what each rule found right,
    // and its false alarms over every result labelled `ok`.
    let mut total: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for (rule, _, _, right, _) in &rows {
        total.entry(rule).or_default().0 += right;
    }
    for t in m.tallies.values() {
        for (rule, n) in &t.ok_alarms {
            total.entry(rule).or_default().1 += n;
        }
    }
    let _ = writeln!(s, "\nwhole corpus: {:<28} {:>5} {:>12}", "rule", "right", "false alarms on ok");
    for (rule, (right, alarms)) in total {
        let _ = writeln!(s, "              {rule:<28} {right:>5} {alarms:>12}");
    }
    s
}

/// The table of a measure, and (with `details`) the disagreements of the
/// tune split.
pub fn render(m: &Measure, details: bool) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:<14} {:<8} {:>5} {:>4} {:>6} {:>6} {:>6} {:>9} {:>6} {:>6} {:>6} {:>9} {:>7} {:>7}",
        "agent",
        "split",
        "repos",
        "src",
        "labels",
        "judged",
        "match",
        "flag=",
        "hidden",
        "found",
        "TP",
        "precision",
        "recall",
        "other"
    );
    for ((agent, split), t) in &m.tallies {
        let _ = writeln!(
            s,
            "{:<14} {:<8} {:>5} {:>4} {:>6} {:>6} {:>6} {:>9} {:>6} {:>6} {:>6} {:>9} {:>7} {:>7}",
            agent,
            split,
            t.repos.len(),
            t.sources,
            t.labels,
            t.judged,
            t.matched,
            format!("{}/{}", t.flag_agree, t.flag_labelled),
            t.truth_hidden,
            t.found_hidden,
            t.true_hidden,
            pct(t.precision()),
            pct(t.recall()),
            t.other_share().map_or("–".into(), |v| format!("{:.1}%", v * 100.0)),
        );
    }
    for p in &m.problems {
        let _ = writeln!(s, "problem: {p}");
    }
    if details {
        for (split, miss) in &m.misses {
            if split != "tune" {
                continue;
            }
            let l = &miss.label;
            let _ = writeln!(
                s,
                "{:<12} {:<13} {} {} #{} @{} {} [{}] {} :: {}",
                miss.kind,
                l.agent,
                l.local,
                l.session,
                l.call_id,
                miss.seq.map_or("-".into(), |s| s.to_string()),
                l.tool,
                miss.category.as_deref().unwrap_or("-"),
                miss.rules.join(","),
                l.why
            );
        }
        let mut others: BTreeMap<(String, String), usize> = BTreeMap::new();
        for (agent, tool, rules) in &m.others {
            *others.entry((agent.clone(), format!("{tool} [{rules}]"))).or_default() += 1;
        }
        for ((agent, what), n) in others {
            let _ = writeln!(s, "other        {agent:<13} {n:>4} × {what}");
        }
    }
    s
}

/// Read `corpus/sources.tsv` and every `corpus/labels/*.tsv` under `meta`.
/// A label's agent is its source's (the file name is free).
pub fn load(meta: &Path) -> Result<(Vec<Source>, Vec<Label>), String> {
    let read = |p: &Path| std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()));
    let sources_path = meta.join("sources.tsv");
    let sources = parse_sources(&read(&sources_path)?, &sources_path.display().to_string())?;
    let mut labels = Vec::new();
    let dir = meta.join("labels");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "tsv"))
        .collect();
    files.sort();
    for f in files {
        labels.extend(parse_labels(&read(&f)?, "", &f.display().to_string())?);
    }
    Ok((sources, labels))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn judged(session: &str, seq: u64, id: &str, flagged: bool, hidden: bool) -> Judged {
        Judged {
            session: session.into(),
            seq,
            tool: "t".into(),
            call_id: id.into(),
            flagged,
            hidden,
            error: flagged || hidden,
            category: (flagged || hidden).then(|| "other".into()),
            rules: vec![],
        }
    }

    const LABELS: &str = "local\tsession\tcall_id\tseq\ttool\tflagged\tverdict\tcategory\twhy\n\
        a/x.db\ts1\tc1\t1\tt\t0\tfail\t\terror text\n\
        a/x.db\ts1\tc2\t2\tt\t0\tok\t\tfine\n\
        a/x.db\ts2\tc1\t1\tt\t1\tfail\t\tflagged\n\
        a/x.db\ts2\t\t2\tt\t0\tfail\t\tno id\n";

    #[test]
    fn labels_join_by_session_and_id_then_by_position() {
        let labels = parse_labels(LABELS, "a", "labels").unwrap();
        let refs: Vec<&Label> = labels.iter().collect();
        // c1 is reused across sessions; the last label has no id.
        let rows = vec![
            judged("s1", 1, "c1", false, true),
            judged("s1", 2, "c2", false, true),
            judged("s2", 1, "c1", true, false),
            judged("s2", 2, "s2#2", false, false),
        ];
        let mut t = Tally::default();
        let mut misses = Vec::new();
        assert_eq!(tally_source("tune", &refs, &rows, &mut t, &mut misses), 0);
        assert_eq!((t.matched, t.truth_hidden, t.found_hidden, t.true_hidden), (4, 2, 2, 1));
        assert_eq!((t.flag_agree, t.flag_labelled), (4, 4));
        let kinds: Vec<&str> = misses.iter().map(|(_, m)| m.kind).collect();
        assert_eq!(kinds, ["false-hidden", "missed"]);
        assert_eq!(t.precision(), Some(0.5));
        assert_eq!(t.recall(), Some(0.5));
        // Both found hidden errors carry no rule here: one right, one wrong.
        assert_eq!(t.by_rule.get("-"), Some(&(1, 1)));
        // The wrong one was labelled ok: a false alarm over the successes.
        assert_eq!(t.ok_alarms.get("-"), Some(&1));
    }

    /// Masked and rejected calls count neither as hidden errors nor as
    /// false alarms, whatever the judge found.
    #[test]
    fn masked_and_rejected_calls_count_neither_way() {
        let text = "local\tsession\tcall_id\tseq\ttool\tflagged\tverdict\tcategory\twhy\n\
            a/x.db\ts1\tc1\t1\tt\t0\tmasked\t\tbuild failed, | tail\n\
            a/x.db\ts1\tc2\t2\tt\t0\trejected\t\tuser declined\n\
            a/x.db\ts1\tc3\t3\tt\t0\tfail\t\terror text\n";
        let labels = parse_labels(text, "a", "labels").unwrap();
        let refs: Vec<&Label> = labels.iter().collect();
        let rows = vec![
            judged("s1", 1, "c1", false, true),
            judged("s1", 2, "c2", false, false),
            judged("s1", 3, "c3", false, true),
        ];
        let mut t = Tally::default();
        let mut misses = Vec::new();
        tally_source("tune", &refs, &rows, &mut t, &mut misses);
        assert_eq!((t.matched, t.truth_hidden, t.found_hidden, t.true_hidden), (3, 1, 1, 1));
        assert!(misses.is_empty(), "{misses:?}");
        assert_eq!(t.precision(), Some(1.0));
    }

    #[test]
    fn bad_rows_are_refused() {
        assert!(parse_labels("local\tverdict\tflagged\nx\tmaybe\t0\n", "a", "l").is_err());
        assert!(parse_sources("agent\trepo\tlocal\tsplit\na\tb\tc\tsome\n", "s").is_err());
    }
}
