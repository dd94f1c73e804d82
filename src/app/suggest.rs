//! "Did you mean …?" for names a user typed: tools, rules, categories.

/// Edit distance (insertions, deletions, substitutions, and swaps of two
/// neighbours), on characters.
fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut rows = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in rows.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in rows[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut d = (rows[i - 1][j] + 1).min(rows[i][j - 1] + 1).min(rows[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d = d.min(rows[i - 2][j - 2] + 1);
            }
            rows[i][j] = d;
        }
    }
    rows[a.len()][b.len()]
}

/// The candidate `name` most likely meant: the same name in another case,
/// else the closest one within a third of its length (at least 1, at most 3).
pub(crate) fn did_you_mean<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let candidates: Vec<&str> = candidates.into_iter().collect();
    if let Some(same) = candidates.iter().find(|c| c.eq_ignore_ascii_case(name)) {
        return Some(same);
    }
    let lower = name.to_lowercase();
    let limit = (name.chars().count() / 3).clamp(1, 3);
    candidates
        .iter()
        .map(|c| (distance(&lower, &c.to_lowercase()), *c))
        .filter(|(d, _)| *d <= limit)
        .min()
        .map(|(_, c)| c)
}

/// "; did you mean X?" or nothing.
pub(crate) fn hint<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    did_you_mean(name, candidates).map_or(String::new(), |c| format!("; did you mean {c}?"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn case_first_then_close_names() {
        let tools = ["Edit", "Read", "bash", "MultiEdit"];
        assert_eq!(did_you_mean("Edti", tools), Some("Edit"));
        assert_eq!(did_you_mean("Bash", tools), Some("bash"));
        assert_eq!(did_you_mean("edit", tools), Some("Edit"));
        assert_eq!(did_you_mean("Grep", tools), None);
        assert_eq!(did_you_mean("hidden-errors", ["hidden-error", "oscillation"]), Some("hidden-error"));
        assert_eq!(hint("Zzz", tools), "");
    }
}
