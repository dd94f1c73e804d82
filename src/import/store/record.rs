//! What each file gave an import, kept so that a transcript folder can be
//! read again in part (the index, src/index/): when some of its files
//! change, only they and the files they are bound to are imported again.
//!
//! Files of one import are bound to each other only through what the
//! writer shares between them: a session several files write to (its
//! start time, its parent, the order of its calls, a result already kept
//! for a call), and a key one file defines and another looks up (a call
//! id whose session a result joins, a line uuid read twice). So each file's
//! record holds the sessions it wrote to and a stable hash of every key it
//! defined or looked up. A set of files that shares none of them with the
//! other files imports the same rows alone as with them: a hash collision
//! can only bind more files, never fewer.
//!
//! It also holds what the notes of a scan say of the file (not
//! recognised, read but quiet, broken lines, surrogates), so the notes of
//! the whole folder are made again from the records of its files.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::import::{BrokenLine, ImportStats};
use crate::model::Dialect;

/// The kinds of keys files share.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Key {
    /// A tool call id.
    Call = 1,
    /// The id of a transcript line (Claude Code's `uuid`).
    Line = 2,
}

/// One file of an import, as the index keeps it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct FileRecord {
    pub path: PathBuf,
    /// The importer that read it (its format name), if one did.
    pub format: Option<String>,
    /// Sessions it wrote to, and the sessions its broken lines are reported in.
    pub sessions: BTreeSet<String>,
    /// Hashes of the keys it defined or looked up, sorted, each once.
    #[serde(with = "hex_keys")]
    pub keys: Vec<u64>,
    /// No importer recognised it.
    pub unrecognised: bool,
    /// A `.json` file that is not a whole document.
    pub broken_document: bool,
    /// Read as its format's, and yet it gave no call and no result.
    pub quiet: bool,
    /// Its lines that are not JSON records.
    pub broken_lines: Vec<BrokenLine>,
    /// Lone surrogate escapes replaced in it.
    pub surrogates: u64,
}

/// The records an import is building, by file.
#[derive(Debug, Default)]
pub(crate) struct Recorder {
    files: HashMap<PathBuf, FileRecord>,
    /// Files in reading order.
    order: Vec<PathBuf>,
    /// Some file was read by an importer whose files are not read alone.
    pub bound: bool,
}

impl Recorder {
    fn at(&mut self, file: &Path) -> &mut FileRecord {
        if !self.files.contains_key(file) {
            self.order.push(file.to_path_buf());
            self.files.insert(file.to_path_buf(), FileRecord { path: file.to_path_buf(), ..FileRecord::default() });
        }
        self.files.get_mut(file).expect("inserted above")
    }

    /// `file` wrote to `session`.
    pub(crate) fn session(&mut self, file: &Path, session: &str) {
        let rec = self.at(file);
        if !rec.sessions.contains(session) {
            rec.sessions.insert(session.to_string());
        }
    }

    /// `file` defined or looked up `key`.
    pub(crate) fn key(&mut self, file: &Path, kind: Key, key: &str) {
        let h = crate::sanitize::stable_hash(&[&[kind as u8], key.as_bytes()]);
        self.at(file).keys.push(h);
    }

    /// Make sure `file` has a record (a file that wrote nothing has one too).
    pub(crate) fn file(&mut self, file: &Path) -> &mut FileRecord {
        self.at(file)
    }

    /// The records, in reading order, with the notes' share of `stats`
    /// (what the import said of each file) and each file's keys sorted.
    pub(crate) fn finish(mut self, stats: &ImportStats) -> Option<Vec<FileRecord>> {
        if self.bound {
            return None;
        }
        for b in &stats.broken_lines {
            let rec = self.at(&b.file);
            rec.broken_lines.push(b.clone());
            rec.sessions.insert(b.session.clone().unwrap_or_else(|| stem_session(&b.file)));
        }
        for f in &stats.broken {
            self.at(f).broken_document = true;
        }
        for f in &stats.unrecognised {
            self.at(f).unrecognised = true;
        }
        for (f, _) in &stats.quiet {
            self.at(f).quiet = true;
        }
        let mut out = Vec::with_capacity(self.order.len());
        for path in self.order {
            let Some(mut rec) = self.files.remove(&path) else { continue };
            rec.keys.sort_unstable();
            rec.keys.dedup();
            out.push(rec);
        }
        Some(out)
    }
}

/// The session a broken line of a file with no session of its own is
/// reported in: the file's name without its extension.
pub(crate) fn stem_session(file: &Path) -> String {
    file.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default()
}

/// The notes' share of an import made again from its files' records, in
/// the order given (the order the files were read in), as one import of
/// them all would have counted it. `product` gives the dialect and product
/// of each format's name.
pub(crate) fn stats_of(
    records: &[FileRecord],
    product: &dyn Fn(&str) -> Option<(Dialect, &'static str)>,
) -> ImportStats {
    let mut stats = ImportStats::default();
    for rec in records {
        stats.surrogates += rec.surrogates;
        stats.broken_lines.extend(rec.broken_lines.iter().cloned());
        if rec.broken_document {
            stats.broken.push(rec.path.clone());
        }
        if rec.unrecognised {
            stats.unrecognised.push(rec.path.clone());
        }
        if let Some((dialect, prod)) = rec.format.as_deref().and_then(product) {
            stats.dialects.insert(dialect);
            stats.files += 1;
            if rec.quiet {
                stats.quiet.push((rec.path.clone(), prod));
            }
        }
    }
    stats
}

/// The files that hold each key: each key's files as a list threaded
/// through one vector (a file, and the key's entry before it), from a
/// foldhash map of each key's last entry, sized once. A folder's files
/// hold a hundred thousand keys or more, and a SipHash map of a list each
/// cost more than the rest of a run through the index that reads one new
/// file.
pub(crate) struct KeyFiles {
    last: foldhash::HashMap<u64, usize>,
    held: Vec<(usize, usize)>,
}

impl KeyFiles {
    pub(crate) fn with_capacity(keys: usize) -> KeyFiles {
        KeyFiles {
            last: foldhash::HashMap::with_capacity_and_hasher(keys, Default::default()),
            held: Vec::with_capacity(keys),
        }
    }

    /// File `file` holds `key`.
    pub(crate) fn add(&mut self, key: u64, file: usize) {
        let before = self.last.insert(key, self.held.len()).unwrap_or(usize::MAX);
        self.held.push((file, before));
    }

    /// The files that hold `key`, the last added first.
    pub(crate) fn files(&self, key: u64) -> impl Iterator<Item = usize> + '_ {
        let mut at = self.last.get(&key).copied().unwrap_or(usize::MAX);
        std::iter::from_fn(move || {
            let &(file, before) = self.held.get(at)?;
            at = before;
            Some(file)
        })
    }
}

#[cfg(test)]
#[test]
fn each_key_gives_every_file_that_holds_it() {
    let mut k = KeyFiles::with_capacity(0);
    for (key, file) in [(7, 0), (9, 0), (7, 1), (u64::MAX, 2), (7, 3), (0, 3)] {
        k.add(key, file);
    }
    let files = |key| k.files(key).collect::<Vec<_>>();
    assert_eq!(files(7), [3, 1, 0]);
    assert_eq!(files(9), [0]);
    assert_eq!(files(u64::MAX), [2]);
    assert_eq!(files(0), [3]);
    assert!(files(8).is_empty());
}

/// A file's keys as the index keeps them: one string of 16 hexadecimal
/// digits a key. A folder's files hold a hundred thousand keys or more,
/// and reading them as JSON numbers was a third of a run through the index
/// that reads one new file.
mod hex_keys {
    use serde::de::Error;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    const DIGITS: &[u8; 16] = b"0123456789abcdef";

    /// Written as its JSON text (a string of hexadecimal digits needs no
    /// escape), so that serde_json does not look at each digit again.
    pub(super) fn serialize<S: Serializer>(keys: &[u64], s: S) -> Result<S::Ok, S::Error> {
        let mut out = Vec::with_capacity(keys.len() * 16 + 2);
        out.push(b'"');
        for &k in keys {
            out.extend((0..16).rev().map(|i| DIGITS[((k >> (4 * i)) & 0xf) as usize]));
        }
        out.push(b'"');
        let text = String::from_utf8(out).map_err(serde::ser::Error::custom)?;
        serde_json::value::RawValue::from_string(text).map_err(serde::ser::Error::custom)?.serialize(s)
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u64>, D::Error> {
        let text = std::borrow::Cow::<str>::deserialize(d)?;
        let digits = text.as_bytes();
        if digits.len() % 16 != 0 {
            return Err(D::Error::custom("keys are not 16 hexadecimal digits each"));
        }
        let mut keys = Vec::with_capacity(digits.len() / 16);
        let mut bad = 0;
        for chunk in digits.chunks_exact(16) {
            // A digit's value, or 16 or more for any other byte (collected
            // in `bad` rather than tested digit by digit).
            let (k, b) = chunk.iter().fold((0u64, 0u8), |(k, bad), &d| {
                let v = VALUES[usize::from(d)];
                (k << 4 | u64::from(v & 0xf), bad | v)
            });
            bad |= b;
            keys.push(k);
        }
        if bad >= 16 {
            return Err(D::Error::custom("a key is not lower-case hexadecimal"));
        }
        Ok(keys)
    }

    /// Each byte's value as a lower-case hexadecimal digit; 16 or more for
    /// a byte that is not one.
    const VALUES: [u8; 256] = {
        let mut v = [0xf0u8; 256];
        let mut i = 0;
        while i < 16 {
            v[DIGITS[i] as usize] = i as u8;
            i += 1;
        }
        v
    };

    #[cfg(test)]
    mod tests {
        #[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq)]
        struct Keys(#[serde(with = "super")] Vec<u64>);

        #[test]
        fn keys_read_back_as_written() {
            for keys in [vec![], vec![0], vec![1, 0xdead_beef, u64::MAX, 39_164_914_933_703_524]] {
                let text = serde_json::to_string(&Keys(keys.clone())).unwrap();
                assert_eq!(text.len(), 2 + 16 * keys.len(), "{text}");
                assert_eq!(serde_json::from_str::<Keys>(&text).unwrap(), Keys(keys));
            }
            for bad in
                [r#""abc""#, r#""000000000000000g""#, r#""+00000000000000f""#, r#""000000000000000A""#, "[1,2]", "12"]
            {
                assert!(serde_json::from_str::<Keys>(bad).is_err(), "{bad}");
            }
        }
    }
}
