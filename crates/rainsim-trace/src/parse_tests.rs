use super::*;

/// Which formats take which quick path: SSDsim and DiskSim in ns the
/// blank-separated one (DiskSim in ms never: its integer times are ms),
/// the four comma-separated formats it reads the other, the rest none.
#[test]
fn each_format_takes_its_quick_path() {
    for format in Format::ALL {
        let units: &[Option<TimeUnit>] =
            if format == Format::Disksim { &[Some(TimeUnit::Ns), Some(TimeUnit::Ms)] } else { &[None] };
        for &unit in units {
            let want = match (format, unit) {
                (Format::Ssdsim, _) | (Format::Disksim, Some(TimeUnit::Ns)) => Quick::Blank,
                (Format::Msr | Format::Systor | Format::Spc | Format::Alibaba, _) => Quick::Csv,
                _ => Quick::No,
            };
            assert_eq!(LineParser::new(format, unit).unwrap().quick, want, "{format} {unit:?}");
        }
    }
    // A DiskSim line in ms with an integer time is read in ms.
    let mut ms = LineParser::new(Format::Disksim, Some(TimeUnit::Ms)).unwrap();
    let Ok(Parsed::Request(r)) = ms.parse(b"3 0 8 8 1") else { panic!("not read") };
    assert_eq!(r.time_ns, 3_000_000);
}

#[test]
fn scaled_decimals_are_exact() {
    assert_eq!(parse_scaled(b"1456095145.133076000", 9), Ok(1_456_095_145_133_076_000));
    assert_eq!(parse_scaled(b"0.011413", 9), Ok(11_413_000));
    assert_eq!(parse_scaled(b"223.412", 6), Ok(223_412_000));
    assert_eq!(parse_scaled(b"12", 0), Ok(12));
    assert_eq!(parse_scaled(b"1.5", 0), Ok(2));
    assert_eq!(parse_scaled(b".5", 1), Ok(5));
    assert_eq!(parse_scaled(b"0.0000000004", 9), Ok(0));
    assert_eq!(parse_scaled(b"0.0000000005", 9), Ok(1));
    assert_eq!(parse_scaled(b"1e-3", 9), Ok(1_000_000));
    assert_eq!(parse_scaled(b"-1", 9), Err("negative"));
    assert_eq!(parse_scaled(b"inf", 9), Err("not finite"));
    assert_eq!(parse_scaled(b"NaN", 9), Err("not finite"));
    assert_eq!(parse_scaled(b"", 9), Err("not a number"));
    assert_eq!(parse_scaled(b".", 9), Err("not a number"));
    assert_eq!(parse_scaled(b"1x", 9), Err("not a number"));
    assert_eq!(parse_scaled(b"99999999999999999999", 9), Err("too large"));
    assert_eq!(parse_scaled(b"0000000000000000000000012.5", 1), Ok(125), "leading zeros past 20 digits");
}

/// The one-pass integer path of `parse_scaled` agrees with the general
/// one, overflow included.
#[test]
fn scaled_integers_take_the_general_paths_value() {
    let mut ints: Vec<String> = ["0", "7", "12", "000123", "18446744073709551615", "18446744073709551616"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    for _ in 0..200 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        ints.push((x >> (x % 64)).to_string());
    }
    for s in &ints {
        for digits in 0..=12 {
            assert_eq!(parse_scaled(s.as_bytes(), digits), parse_decimal(s.as_bytes(), digits), "{s} × 10^{digits}");
        }
    }
}

/// `value × 10^digits` of a plain decimal by its definition, in u128
/// (rounded half up on the digit after the last kept), None past u64.
fn scaled_by_definition(int: &str, frac: &str, digits: u32) -> Option<u64> {
    let int: u128 = if int.is_empty() { 0 } else { int.parse().unwrap() };
    let mut kept: String = frac.chars().take(digits as usize).collect();
    while kept.len() < digits as usize {
        kept.push('0');
    }
    let fp: u128 = if kept.is_empty() { 0 } else { kept.parse().unwrap() };
    let up = frac.as_bytes().get(digits as usize).is_some_and(|&b| b >= b'5');
    u64::try_from(int * 10u128.pow(digits) + fp + u128::from(up)).ok()
}

proptest::proptest! {
    /// Plain decimals (integer part, fraction or both, up to 22 and 24
    /// digits, leading zeros past 20 included) read exactly as defined,
    /// overflow included, at the
    /// formats' scales and others; a stray byte hands the text to the
    /// `f64` path, which agrees with `f64` parsing.
    #[test]
    fn plain_decimals_scale_as_defined(
        int in "[0-9]{0,22}",
        frac in proptest::option::of("[0-9]{0,24}"),
        digits in proptest::sample::select(vec![0u32, 1, 6, 9, 12]),
        stray in proptest::option::of((0usize..30, proptest::sample::select(vec![b'e', b'-', b'/', b':', b' ']))),
    ) {
        let mut text = int.clone().into_bytes();
        if let Some(fr) = &frac {
            text.push(b'.');
            text.extend(fr.bytes());
        }
        let got = parse_scaled(&text, digits);
        if int.is_empty() && frac.as_deref().unwrap_or("").is_empty() {
            proptest::prop_assert_eq!(got, Err("not a number"));
        } else {
            let want = scaled_by_definition(&int, frac.as_deref().unwrap_or(""), digits).ok_or("too large");
            proptest::prop_assert_eq!(got, want);
        }
        if let Some((at, b)) = stray {
            text.insert(at.min(text.len()), b);
            proptest::prop_assert_eq!(parse_scaled(&text, digits), parse_scaled_f64(&text, digits));
        }
    }

    /// `parse_u64` is `str::parse` on ASCII digits, up to 20 of them,
    /// overflow included, and refuses anything else: mostly digits,
    /// with the bytes next to them (`/`, `:`) and ones that differ from a
    /// digit by one bit (0xB0 = `0` | 0x80, `p` = `0` | 0x40, `?`),
    /// up to 21 bytes (every length of the eight-at-a-time path).
    #[test]
    fn parse_u64_is_str_parse_on_digits(
        text in proptest::collection::vec(proptest::prop_oneof![
            12 => proptest::sample::select(b"0123456789".to_vec()),
            1 => proptest::sample::select(vec![b'/', b':', b'+', b'.', b' ', 0xB0, b'p', b'?', b'9' | 0x80]),
        ], 0..22),
        big in 18_446_744_073_709_551_000u64..=u64::MAX,
    ) {
        let want = |t: &[u8]| {
            let digits = !t.is_empty() && t.len() <= 20 && t.iter().all(u8::is_ascii_digit);
            digits.then(|| std::str::from_utf8(t).unwrap().parse::<u64>().ok()).flatten()
        };
        proptest::prop_assert_eq!(parse_u64(&text), want(&text));
        // Near u64::MAX and just past it (a 20-digit text ending in 0–9 more).
        let near = big.to_string();
        proptest::prop_assert_eq!(parse_u64(near.as_bytes()), Some(big));
        let past = format!("{}{}", &near[..19], (big % 10 + 6) % 10);
        proptest::prop_assert_eq!(parse_u64(past.as_bytes()), want(past.as_bytes()));
    }
}

#[test]
fn integers() {
    assert_eq!(parse_u64(b"18446744073709551615"), Some(u64::MAX));
    assert_eq!(parse_u64(b"18446744073709551616"), None);
    assert_eq!(parse_u64(b"1.0"), None);
    assert_eq!(parse_u64(b"+1"), None);
    assert_eq!(parse_u64(b""), None);
}

#[test]
fn field_errors_name_the_column() {
    let mut p = LineParser::new(Format::Msr, None).unwrap();
    let e = p.parse(b"1,hm,0,Write,9056014336").unwrap_err();
    assert!(e.starts_with("expected 7 comma-separated fields (Timestamp,Hostname,"), "{e}");
    assert!(e.ends_with("found 5"), "{e}");
    let e = p.parse(b"1,hm,0,Write,9056014336,0,1").unwrap_err();
    assert!(e.starts_with("size 0"), "{e}");
    let e = p.parse(b"1,hm,0,Delete,9056014336,512,1").unwrap_err();
    assert!(e.contains("field 4 (Type)") && e.contains("`Delete`"), "{e}");
    let mut p = LineParser::new(Format::Disksim, Some(TimeUnit::Ns)).unwrap();
    let e = p.parse(b"-5 0 1 1 1").unwrap_err();
    assert!(e.contains("negative"), "{e}");
    let e = p.parse(b"5 0 1 1 2").unwrap_err();
    assert!(e.contains("1 (read) or 0 (write)"), "{e}");
    // Two bad fields: the first in the line is named.
    let e = p.parse(b"x5 0 1 1 2").unwrap_err();
    assert!(e.contains("field 1") && e.contains("`x5`"), "{e}");
    // Sizes: not a number, zero, past 4 GiB (in bytes, after the sectors).
    let e = p.parse(b"5 0 1 8x 1").unwrap_err();
    assert!(e.contains("field 4") && e.contains("expected a positive integer (512-byte sectors), found `8x`"), "{e}");
    let e = p.parse(b"5 0 1 0 1").unwrap_err();
    assert!(e.starts_with("size 0 in field 4"), "{e}");
    let e = p.parse(b"5 0 1 8388608 1").unwrap_err();
    assert!(e.contains("field 4") && e.ends_with("size 8388608 is too large (more than 4 GiB)"), "{e}");
    assert!(p.parse(b"5 0 1 8388607 1").is_ok(), "4 GiB less a sector");
    let e = p.parse(b"5x 0 1 1 1").unwrap_err();
    assert!(e.contains("field 1") && e.contains("expected a non-negative time in nanoseconds, found `5x`"), "{e}");
    let e = p.parse(b"5 0 18446744073709551615 1 1").unwrap_err();
    assert!(e.contains("field 3") && e.ends_with("value 18446744073709551615 is too large"), "{e}");
    assert!(LineParser::new(Format::Msr, Some(TimeUnit::Ms)).is_err());
    assert!(LineParser::new(Format::Disksim, None).is_err());
}

/// A wrong field count names the separator and, for SPC (extra columns
/// allowed), says "at least".
#[test]
fn a_wrong_field_count_names_the_separator_and_spcs_least() {
    let mut spc = LineParser::new(Format::Spc, None).unwrap();
    assert_eq!(
        spc.parse(b"0,657728,8192,R").unwrap_err(),
        "expected at least 5 comma-separated fields (ASU,LBA,Size,Opcode,Timestamp), found 4"
    );
    let mut disksim = LineParser::new(Format::Disksim, Some(TimeUnit::Ns)).unwrap();
    assert_eq!(
        disksim.parse(b"11413000 0 657728 16").unwrap_err(),
        "expected 5 whitespace-separated fields (arrival_time device lba_sectors size_sectors type), found 4"
    );
}

/// Only times with a decimal point read in whole ns are counted as
/// rounded (the reader's note that the file may be in ms); times in ms,
/// and whole or exponent ns, are exact.
#[test]
fn only_decimal_times_read_as_whole_ns_count_as_rounded() {
    let read = |p: &mut LineParser, line: &[u8]| match p.parse(line) {
        Ok(Parsed::Request(r)) => r.time_ns,
        other => panic!("{other:?}"),
    };
    let mut ns = LineParser::new(Format::Disksim, Some(TimeUnit::Ns)).unwrap();
    assert_eq!(read(&mut ns, b"7 0 8 8 1"), 7);
    assert_eq!(read(&mut ns, b"1e3 0 8 8 1"), 1000);
    assert_eq!(ns.rounded_ns, 0);
    assert_eq!(read(&mut ns, b"1.5 0 8 8 1"), 2);
    assert_eq!(read(&mut ns, b"2.25 0 8 8 1"), 2);
    assert_eq!(ns.rounded_ns, 2);
    // DiskSim in ms and msr-window (ms): 1.5 ms and 223.412 ms, exact.
    let mut ms = LineParser::new(Format::Disksim, Some(TimeUnit::Ms)).unwrap();
    assert_eq!(read(&mut ms, b"1.5 0 8 8 1"), 1_500_000);
    let mut window = LineParser::new(Format::MsrWindow, None).unwrap();
    assert_eq!(read(&mut window, b"223.412 0 3159347200 36864 0"), 223_412_000);
    assert_eq!((ms.rounded_ns, window.rounded_ns), (0, 0));
}

/// A bad size names its unit: bytes in MSR, 512-byte sectors in DiskSim.
#[test]
fn a_bad_size_names_its_unit() {
    let mut msr = LineParser::new(Format::Msr, None).unwrap();
    assert_eq!(
        msr.parse(b"128166385295514663,hm,0,Write,9056014336,2k,2833").unwrap_err(),
        "field 6 (Size): expected a positive integer (bytes), found `2k`"
    );
    let mut disksim = LineParser::new(Format::Disksim, Some(TimeUnit::Ns)).unwrap();
    assert_eq!(
        disksim.parse(b"11413000 0 657728 2k 1").unwrap_err(),
        "field 4 (size_sectors): expected a positive integer (512-byte sectors), found `2k`"
    );
}

/// Zero written with an exponent (as printf's `%e` writes it) is a
/// time of 0, not a negative one.
#[test]
fn zero_with_an_exponent_is_zero_not_negative() {
    assert_eq!(parse_scaled(b"0.000000e+00", 9), Ok(0));
    assert_eq!(parse_scaled(b"0e0", 6), Ok(0));
    assert_eq!(parse_scaled(b"1.500000e+00", 9), Ok(1_500_000_000));
}

/// A field quoted in an error is shown whole up to 40 bytes, and cut
/// with an ellipsis after that.
#[test]
fn a_quoted_field_is_whole_up_to_40_bytes_and_cut_after() {
    let forty = "x".repeat(40);
    assert_eq!(show(forty.as_bytes()), format!("`{forty}`"));
    assert_eq!(show(format!("{forty}y").as_bytes()), format!("`{forty}…`"));
    assert_eq!(show(b"abc"), "`abc`");
}

#[test]
fn systor_blank_iotype_has_no_direction() {
    let mut p = LineParser::new(Format::Systor, None).unwrap();
    assert_eq!(p.parse(b"1456095145.133076000,0,,0,0,4096"), Ok(Parsed::NoDirection));
}
