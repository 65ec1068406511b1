//! The time a template may ask for: `strftime_now(format)`, and the `date_string` and `datetime`
//! llama.cpp passes every template — C's `strftime` in the C locale, for a moment given in seconds
//! since 1970 (UTC: the caller says when "now" is, so that a render can be repeated).

use std::fmt::Write as _;

const DAYS: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];
const MONTHS: [&str; 12] = [
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

/// A moment broken down as `struct tm` holds it.
struct Tm {
    year: i64,
    /// 1–12.
    month: u32,
    /// 1–31.
    day: u32,
    hour: u32,
    minute: u32,
    second: u32,
    /// 0 = Sunday.
    weekday: u32,
    /// 0–365.
    yearday: u32,
}

fn broken_down(unix_seconds: i64) -> Tm {
    let days = unix_seconds.div_euclid(86_400);
    let secs = unix_seconds.rem_euclid(86_400) as u32;
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    let before: [u32; 12] = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334];
    let yearday = before[month as usize - 1] + day - 1 + u32::from(leap && month > 2);
    Tm {
        year,
        month,
        day,
        hour: secs / 3600,
        minute: secs / 60 % 60,
        second: secs % 60,
        weekday: (days + 4).rem_euclid(7) as u32,
        yearday,
    }
}

/// `format` as C's `strftime` writes it for the moment `unix_seconds` (UTC, C locale). A
/// conversion it does not know is written as it stands.
pub fn strftime(format: &str, unix_seconds: i64) -> String {
    let t = broken_down(unix_seconds);
    let mut out = String::new();
    let mut chars = format.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let Some(spec) = chars.next() else {
            out.push('%');
            break;
        };
        let hour12 = if t.hour % 12 == 0 { 12 } else { t.hour % 12 };
        let _ = match spec {
            'a' => write!(out, "{}", &DAYS[t.weekday as usize][..3]),
            'A' => write!(out, "{}", DAYS[t.weekday as usize]),
            'b' | 'h' => write!(out, "{}", &MONTHS[t.month as usize - 1][..3]),
            'B' => write!(out, "{}", MONTHS[t.month as usize - 1]),
            'd' => write!(out, "{:02}", t.day),
            'e' => write!(out, "{:2}", t.day),
            'H' => write!(out, "{:02}", t.hour),
            'I' => write!(out, "{hour12:02}"),
            'j' => write!(out, "{:03}", t.yearday + 1),
            'm' => write!(out, "{:02}", t.month),
            'M' => write!(out, "{:02}", t.minute),
            'p' => write!(out, "{}", if t.hour < 12 { "AM" } else { "PM" }),
            'S' => write!(out, "{:02}", t.second),
            'y' => write!(out, "{:02}", t.year.rem_euclid(100)),
            'Y' => write!(out, "{}", t.year),
            'C' => write!(out, "{:02}", t.year.div_euclid(100)),
            'u' => write!(out, "{}", if t.weekday == 0 { 7 } else { t.weekday }),
            'w' => write!(out, "{}", t.weekday),
            'F' => write!(out, "{}-{:02}-{:02}", t.year, t.month, t.day),
            'D' => write!(out, "{:02}/{:02}/{:02}", t.month, t.day, t.year.rem_euclid(100)),
            'T' => write!(out, "{:02}:{:02}:{:02}", t.hour, t.minute, t.second),
            'R' => write!(out, "{:02}:{:02}", t.hour, t.minute),
            'Z' => write!(out, "UTC"),
            'z' => write!(out, "+0000"),
            'n' => writeln!(out),
            't' => write!(out, "\t"),
            '%' => write!(out, "%"),
            other => write!(out, "%{other}"),
        };
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_as_strftime_writes_them() {
        // 2024-07-26 13:25:09 UTC, a Friday, the 208th day of a leap year.
        let t = 1_722_000_309;
        assert_eq!(strftime("%d %b %Y", t), "26 Jul 2024");
        assert_eq!(strftime("%b %d %Y", t), "Jul 26 2024");
        assert_eq!(
            strftime("%A, %B %e %H:%M:%S %j %p %y %%", t),
            "Friday, July 26 13:25:09 208 PM 24 %"
        );
        assert_eq!(strftime("%F %T %Q", 0), "1970-01-01 00:00:00 %Q");
        assert_eq!(strftime("%a %d %m %Y", 951_782_400), "Tue 29 02 2000");
    }
}
