//! `--since` / `--until` values: a date, an RFC 3339 time, or a span back
//! from now such as `90m`, `12h`, `7d`, `2w`.

use chrono::{DateTime, Duration, NaiveDate, Utc};

pub(crate) fn parse(value: &str, now: DateTime<Utc>) -> Result<DateTime<Utc>, String> {
    let v = value.trim();
    if let Ok(t) = DateTime::parse_from_rfc3339(v) {
        return Ok(t.with_timezone(&Utc));
    }
    if let Ok(d) = NaiveDate::parse_from_str(v, "%Y-%m-%d") {
        return Ok(d.and_hms_opt(0, 0, 0).expect("midnight exists").and_utc());
    }
    if let Some(unit) = v.chars().last() {
        let digits = &v[..v.len() - unit.len_utf8()];
        if let Ok(n) = digits.parse::<i64>() {
            let span = match unit {
                's' => Duration::try_seconds(n),
                'm' => Duration::try_minutes(n),
                'h' => Duration::try_hours(n),
                'd' => Duration::try_days(n),
                'w' => Duration::try_weeks(n),
                _ => None,
            };
            if let Some(t) = span.and_then(|s| now.checked_sub_signed(s)) {
                return Ok(t);
            }
        }
    }
    Err(format!(
        "invalid time {value:?}: expected a date (2026-06-01), an RFC 3339 time (2026-06-01T12:00:00Z) or a span such as 7d, 12h, 30m, 2w"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forms() {
        let now = DateTime::parse_from_rfc3339("2026-06-10T00:00:00Z").unwrap().with_timezone(&Utc);
        assert_eq!(parse("2026-06-01", now).unwrap().to_rfc3339(), "2026-06-01T00:00:00+00:00");
        assert_eq!(parse("2026-06-01T12:00:00+02:00", now).unwrap().to_rfc3339(), "2026-06-01T10:00:00+00:00");
        assert_eq!(parse("7d", now).unwrap().to_rfc3339(), "2026-06-03T00:00:00+00:00");
        assert_eq!(parse("12h", now).unwrap().to_rfc3339(), "2026-06-09T12:00:00+00:00");
        assert_eq!(parse("2w", now).unwrap().to_rfc3339(), "2026-05-27T00:00:00+00:00");
        assert!(parse("yesterday", now).is_err());
        assert!(parse("7y", now).is_err());
        assert!(parse("", now).is_err());
        assert!(parse("99999999999999d", now).is_err(), "overflow is an error, not a panic");
    }
}
