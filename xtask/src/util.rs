//! Small helpers the sample generators share: an SQL blob literal, for
//! the samples written as SQL text (`langgraph.rs`, `zed.rs`).

use std::fmt::Write as _;

/// An SQL blob literal, `X'…'`, of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() * 2 + 3);
    s.push_str("X'");
    for b in bytes {
        let _ = write!(s, "{b:02x}");
    }
    s.push('\'');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_is_an_sql_blob_literal() {
        assert_eq!(hex(&[0x00, 0xab, 0x10]), "X'00ab10'");
        assert_eq!(hex(&[]), "X''");
    }
}
