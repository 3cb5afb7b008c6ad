//! Calendar dates without a date library: seconds since the Unix epoch to and from UTC dates, for
//! `--to 2024-01-31` revisions and the dates the `_git` plane records.

/// `YYYY-MM-DDTHH:MM:SSZ` for seconds since the Unix epoch (UTC), without a date library.
pub fn iso_date(secs: i64) -> String {
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    // Civil-from-days (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = if m <= 2 { y + 1 } else { y };
    format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z", rem / 3600, rem % 3600 / 60, rem % 60)
}

/// Seconds since the epoch for `2024-01-31` (the end of that day, UTC) or `2024-01-31T12:00[:00][Z]`.
pub fn parse_date(text: &str) -> Option<i64> {
    let (date, time) = match text.split_once('T') {
        Some((d, t)) => (d, Some(t.trim_end_matches('Z'))),
        None => (text, None),
    };
    let mut parts = date.split('-');
    let (y, m, d): (i64, i64, i64) =
        (parts.next()?.parse().ok()?, parts.next()?.parse().ok()?, parts.next()?.parse().ok()?);
    if parts.next().is_some() || !(1..=12).contains(&m) || !(1..=31).contains(&d) || date.len() != 10 {
        return None;
    }
    // Days from civil (Howard Hinnant's algorithm).
    let y2 = if m <= 2 { y - 1 } else { y };
    let era = y2.div_euclid(400);
    let yoe = y2 - era * 400;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let seconds = match time {
        None => 86_399,
        Some(t) => {
            let mut hms = t.split(':');
            let h: i64 = hms.next()?.parse().ok()?;
            let mi: i64 = hms.next()?.parse().ok()?;
            let s: i64 = hms.next().map_or(Some(0), |s| s.parse().ok())?;
            h * 3600 + mi * 60 + s
        }
    };
    let total = days * 86_400 + seconds;
    // `2024-02-30` would land in March: refuse dates that do not round-trip.
    if !iso_date(total).starts_with(date) {
        return None;
    }
    Some(total)
}

#[cfg(test)]
mod tests {
    use super::{iso_date, parse_date};

    #[test]
    fn dates_from_text() {
        assert_eq!(parse_date("2024-01-01"), Some(1_704_067_200 + 86_399));
        assert_eq!(parse_date("2024-01-01T00:01"), Some(1_704_067_260));
        assert_eq!(parse_date("2024-01-01T00:00:30Z"), Some(1_704_067_230));
        assert_eq!(parse_date("HEAD~1"), None);
        assert_eq!(parse_date("2024-13-01"), None);
        assert_eq!(parse_date("2024-02-30"), None);
        assert!(parse_date("2024-02-29").is_some());
    }

    #[test]
    fn dates_from_seconds() {
        assert_eq!(iso_date(0), "1970-01-01T00:00:00Z");
        assert_eq!(iso_date(1_704_067_200), "2024-01-01T00:00:00Z");
        assert_eq!(iso_date(1_709_251_199), "2024-02-29T23:59:59Z");
    }
}
