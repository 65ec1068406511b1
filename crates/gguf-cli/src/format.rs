//! Numbers as people read them.

/// `7615616512` → `"7.62 B"`; `268098176` → `"268.10 M"`.
pub fn count(n: u64) -> String {
    const UNITS: [(f64, &str); 4] = [(1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "K")];
    let x = n as f64;
    for (scale, unit) in UNITS {
        if x >= scale {
            return format!("{:.2} {unit}", x / scale);
        }
    }
    n.to_string()
}

/// `253113024` → `"253.1 MB"` (decimal units, as file managers and model hubs show sizes).
pub fn bytes(n: u64) -> String {
    const UNITS: [(f64, &str); 4] = [(1e12, "TB"), (1e9, "GB"), (1e6, "MB"), (1e3, "kB")];
    let x = n as f64;
    for (scale, unit) in UNITS {
        if x >= scale {
            return format!("{:.1} {unit}", x / scale);
        }
    }
    format!("{n} B")
}

/// `343932928` → `"328.00 MiB"`, `25769803776` → `"24.00 GiB"`: binary units, as llama.cpp's
/// logs and device memory give sizes.
pub fn mib(n: u64) -> String {
    const GIB: u64 = 1 << 30;
    if n >= GIB {
        format!("{:.2} GiB", n as f64 / GIB as f64)
    } else {
        format!("{:.2} MiB", n as f64 / (1u64 << 20) as f64)
    }
}

/// `part` of `total` as a whole percentage: `(181, 247)` → `"73%"`.
pub fn percent(part: u64, total: u64) -> String {
    match total {
        0 => "-".into(),
        _ => format!("{:.0}%", 100.0 * part as f64 / total as f64),
    }
}

/// `7615616512` → `"7,615,616,512"`.
pub fn grouped(n: u64) -> String {
    gguf_core::text::Grouped(n).to_string()
}

/// A float with its integer digits grouped, whole or not: `1000000` → `"1,000,000"`, `10000.5` →
/// `"10,000.5"` (RoPE bases read like every other figure).
pub fn grouped_decimal(x: f64) -> String {
    if !x.is_finite() || x.abs() >= 1e18 {
        return x.to_string();
    }
    let text = x.abs().to_string();
    let (whole, fraction) = text.split_once('.').unwrap_or((&text, ""));
    let sign = if x < 0.0 { "-" } else { "" };
    let whole = grouped(whole.parse().unwrap_or(0));
    match fraction {
        "" => format!("{sign}{whole}"),
        f => format!("{sign}{whole}.{f}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn human_numbers() {
        assert_eq!(count(7_615_616_512), "7.62 B");
        assert_eq!(count(268_098_176), "268.10 M");
        assert_eq!(count(999), "999");
        assert_eq!(bytes(253_113_024), "253.1 MB");
        assert_eq!(bytes(41_812_404_288), "41.8 GB");
        assert_eq!(bytes(96), "96 B");
        assert_eq!(grouped(7_615_616_512), "7,615,616,512");
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(100), "100");
        assert_eq!(grouped(1000), "1,000");
        assert_eq!(grouped_decimal(1_000_000.0), "1,000,000");
        assert_eq!(grouped_decimal(10_000.5), "10,000.5");
        assert_eq!(grouped_decimal(-1234.25), "-1,234.25");
        assert_eq!(grouped_decimal(0.5), "0.5");
        assert_eq!(grouped_decimal(f64::NAN), "NaN");
    }
}
