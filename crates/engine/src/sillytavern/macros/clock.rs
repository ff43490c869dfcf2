//! The date and time macros (macros/definitions/time-macros.js, with
//! moment.js's English formats): `{{time}}` ("4:05 PM"), `{{date}}`
//! ("December 7, 2026"), `{{weekday}}`, `{{isotime}}` ("16:05"),
//! `{{isodate}}` ("2026-12-07") and `{{time::UTC+2}}`, in the machine's
//! time zone as SillyTavern's page shows them in the browser's.

/// A moment: seconds since 1970 and the local offset from UTC in seconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Moment {
    pub unix: i64,
    pub offset: i64,
}

impl Moment {
    /// Now, in the machine's time zone.
    pub fn now() -> Self {
        let unix = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64);
        Moment {
            unix,
            offset: local_offset(unix),
        }
    }

    /// The same instant at another offset from UTC.
    fn at(self, offset: i64) -> Self {
        Moment { offset, ..self }
    }

    /// (year, month 1–12, day, weekday 0 = Sunday, hour, minute).
    fn parts(self) -> (i64, u32, u32, u32, u32, u32) {
        let local = self.unix + self.offset;
        let days = local.div_euclid(86_400);
        let secs = local.rem_euclid(86_400);
        // Days to a civil date (the proleptic Gregorian calendar).
        let z = days + 719_468;
        let era = z.div_euclid(146_097);
        let doe = z - era * 146_097;
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
        let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
        let year = yoe + era * 400 + i64::from(month <= 2);
        let weekday = (days + 4).rem_euclid(7) as u32;
        (
            year,
            month,
            day,
            weekday,
            (secs / 3600) as u32,
            (secs % 3600 / 60) as u32,
        )
    }
}

pub(crate) const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
pub(crate) const WEEKDAYS: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];

/// The value of a date or time macro (`name` in lower case), or `None` for
/// the others.
pub fn value(name: &str, arg: Option<&str>, now: Moment) -> Option<String> {
    let m = match (name, arg) {
        ("time", Some(spec)) => match utc_offset(spec) {
            Some(hours) => now.at(hours * 3600),
            None => now,
        },
        _ => now,
    };
    let (year, month, day, weekday, hour, minute) = m.parts();
    Some(match name {
        "time" => {
            let h12 = if hour % 12 == 0 { 12 } else { hour % 12 };
            format!("{h12}:{minute:02} {}", if hour < 12 { "AM" } else { "PM" })
        }
        "date" => format!("{} {day}, {year}", MONTHS[month as usize - 1]),
        "weekday" => WEEKDAYS[weekday as usize].to_string(),
        "isotime" => format!("{hour:02}:{minute:02}"),
        "isodate" => format!("{year:04}-{month:02}-{day:02}"),
        _ => return None,
    })
}

/// `UTC+2`, `UTC-10`: the hours.
pub fn utc_offset(spec: &str) -> Option<i64> {
    let rest = spec.strip_prefix("UTC")?;
    let (sign, digits) = match rest.as_bytes().first()? {
        b'+' => (1, &rest[1..]),
        b'-' => (-1, &rest[1..]),
        _ => return None,
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) || digits.len() > 3 {
        return None;
    }
    Some(sign * digits.parse::<i64>().ok()?)
}

fn local_offset(unix: i64) -> i64 {
    use chrono::{Local, Offset, TimeZone};
    Local
        .timestamp_opt(unix, 0)
        .single()
        .map_or(0, |t| i64::from(t.offset().fix().local_minus_utc()))
}

#[cfg(test)]
mod tests {
    use super::*;

    // time-macros.js: time, date, weekday, isotime, isodate.
    #[test]
    fn formats_as_moment_does_in_english() {
        // 2026-12-07 16:05 UTC, a Monday.
        let m = Moment {
            unix: 1_796_659_500,
            offset: 0,
        };
        assert_eq!(value("isodate", None, m).unwrap(), "2026-12-07");
        assert_eq!(value("isotime", None, m).unwrap(), "16:05");
        assert_eq!(value("time", None, m).unwrap(), "4:05 PM");
        assert_eq!(value("date", None, m).unwrap(), "December 7, 2026");
        assert_eq!(value("weekday", None, m).unwrap(), "Monday");
        assert_eq!(value("time", Some("UTC-10"), m).unwrap(), "6:05 AM");
        assert_eq!(value("time", Some("nonsense"), m).unwrap(), "4:05 PM");
        let midnight = Moment {
            unix: 1_796_601_600,
            offset: 0,
        };
        assert_eq!(value("time", None, midnight).unwrap(), "12:00 AM");
        assert!(value("model", None, m).is_none());
    }
}
