use super::*;

#[test]
fn names_round_trip() {
    for f in Format::ALL {
        assert_eq!(f.name().parse::<Format>().unwrap(), f);
        assert_eq!(f.to_string(), f.name());
    }
    let err = "csv".parse::<Format>().unwrap_err();
    assert!(err.contains("msr-window") && err.contains("alibaba"), "{err}");
    assert_eq!("ms".parse::<TimeUnit>().unwrap(), TimeUnit::Ms);
    assert!("s".parse::<TimeUnit>().is_err());
}

/// `--time-unit` takes the names `ns` and `ms`; messages print them so.
#[test]
fn time_units_read_and_print_their_names() {
    for (name, unit) in [("ns", TimeUnit::Ns), ("ms", TimeUnit::Ms)] {
        assert_eq!(name.parse::<TimeUnit>(), Ok(unit));
        assert_eq!(unit.name(), name);
        assert_eq!(unit.to_string(), name);
    }
    assert_eq!("s".parse::<TimeUnit>(), Err("unknown time unit `s`; valid units: ns, ms".to_string()));
}

#[test]
fn detects_each_shape() {
    let d = |l: &[&str]| detect(l).unwrap();
    assert_eq!(d(&["128166385295514663,hm,0,Write,9056014336,2048,2833"]), (Format::Msr, None));
    assert_eq!(d(&["0,657728,8192,R,0.011413"]), (Format::Spc, None));
    assert_eq!(d(&["Timestamp,Response,IOType,LUN,Offset,Size", "1.5,0.1,R,0,0,4096"]), (Format::Systor, None));
    assert_eq!(d(&["1.5,0.1,,0,0,4096"]), (Format::Systor, None));
    assert_eq!(d(&["0,R,126703661056,4096,1577808000000046"]), (Format::Alibaba, None));
    assert_eq!(d(&["0.000 0 200626176 4096 0", "1.5 0 512 1024 1"]), (Format::MsrWindow, None));
    assert_eq!(d(&["0.000 0 200626176 4096 0", "1.5 0 3 8 1"]), (Format::Disksim, Some(TimeUnit::Ms)));
    assert_eq!(d(&["11413000 0 657728 16 1\r\n", "", "12\t0  512   1024 0"]), (Format::Disksim, Some(TimeUnit::Ns)));
    assert_eq!(d(&["1538323200,12309216,8,1,1063"]), (Format::Cbs, None));
    assert_eq!(d(&["Timestamp,Offset,Size,IOType,VolumeID", "1538323200,12309216,8,1,1063"]), (Format::Cbs, None));
    assert_eq!(
        d(&["  8,0    3        1     0.000000000   697  Q   W 223490 + 8 [kjournald]"]),
        (Format::Blkparse, None)
    );
    assert_eq!(d(&["fio version 2 iolog", "/dev/sdb add"]), (Format::Fio, None));
    assert_eq!(d(&["fio version 3 iolog", "0 /dev/sdb add"]), (Format::Fio, None));
    // A fio header is only a header on the first line.
    assert!(detect(&["0,657728,8192,R,0.011413", "fio version 2 iolog"]).is_ok());
}

/// Lines one step off a shape of the detection rule match no format:
/// a `blkparse` device not `maj,min`, a time that is not one decimal
/// number, six numeric columns for five, a CBS row with a wrong IOType
/// or a sixth column.
#[test]
fn lines_just_off_a_shape_match_no_format() {
    for line in [
        "8 3 1 0.000000000 697 Q W 223490 + 8 [kjournald]",
        "8,0,1 3 1 0.000000000 697 Q W 223490 + 8 [kjournald]",
        "x,0 3 1 0.000000000 697 Q W 223490 + 8 [kjournald]",
        "abc 0 657728 16 1",
        "11413000x 0 657728 16 1",
        "1.2.3 0 657728 16 1",
        ". 0 657728 16 1",
        "11413000 0 657728 16 1 7",
        "1538323200,12309216,8,2,1063",
        "1538323200,12309216,8,1,1063,7",
    ] {
        let e = detect(&[line]).unwrap_err();
        assert!(e.starts_with("line 1 (") && e.contains("matches no supported format"), "{line}: {e}");
    }
    // The same shapes one step back on: blkparse, disksim.
    let blk = "  8,0    3        1     0.000000000   697  Q   W 223490 + 8 [kjournald]";
    assert_eq!(detect(&[blk]).unwrap(), (Format::Blkparse, None));
    assert_eq!(detect(&["1.5 0 657728 16 1"]).unwrap(), (Format::Disksim, Some(TimeUnit::Ms)));
}

/// SPC allows columns after the fifth: seven are not MSR's seven, and
/// nine or more are still SPC.
#[test]
fn spc_lines_with_extra_columns_are_spc() {
    for line in ["0,657728,8192,R,0.011413,x,y", "0,657728,8192,R,0.011413,a,b,c,d,e"] {
        assert_eq!(detect(&[line]).unwrap(), (Format::Spc, None), "{line}");
    }
}

/// The notes of rules 2 and 3 name the first unaligned line and the
/// number of lines sampled.
#[test]
fn the_numeric_rules_notes_name_the_line_and_the_sample() {
    let lines: [(u64, &[u8]); 3] = [(4, b"0.5 0 512 512 1"), (5, b"1.5 0 1024 4096 1"), (7, b"2.5 0 3 8 1")];
    let (f, u, note) = detect_explained(&lines).unwrap();
    assert_eq!((f, u), (Format::Disksim, Some(TimeUnit::Ms)));
    let note = note.unwrap();
    assert!(note.contains("only because line 7 has an address or size that is not a multiple of 512"), "{note}");
    let lines: [(u64, &[u8]); 2] = [(1, b"11413000 0 657728 16 1"), (2, b"11565000 1 31244784 64 1")];
    let (f, u, note) = detect_explained(&lines).unwrap();
    assert_eq!((f, u), (Format::Disksim, Some(TimeUnit::Ns)));
    let note = note.unwrap();
    assert!(
        note.starts_with("times read as ns")
            && note.contains("every time in the first 2 lines is a whole number")
            && note.contains("--time-unit ms"),
        "{note}"
    );
}

/// A sample of one line is "the only line", not "the first 1 lines".
#[test]
fn a_sample_of_one_line_is_named_so() {
    let note = |line: &[u8]| detect_explained(&[(1, line)]).map(|(_, _, n)| n.expect("a note"));
    let whole = note(b"11413000 0 657728 16 1").unwrap();
    assert!(whole.contains("every time in the only line is a whole number;"), "{whole}");
    let window = note(b"0.5 0 512 512 1").unwrap();
    assert!(window.contains("every address and size in the only line is a multiple of 512;"), "{window}");
    let e = note(b"1000 0 512 512 1").unwrap_err();
    assert!(e.contains("ambiguous: every time in the only line is a whole number"), "{e}");
    let e = detect(&["1000 0 512 512 1", "2000 0 1024 512 1"]).unwrap_err();
    assert!(e.contains("ambiguous: every time in the first 2 lines is a whole number"), "{e}");
}

/// A DiskSim file given without a unit is in ms when some time (the
/// first column, not another) has a decimal point.
#[test]
fn a_disksim_unit_is_ms_when_a_time_has_a_decimal_point() {
    let unit = |lines: &[&[u8]]| {
        let numbered: Vec<(u64, &[u8])> = lines.iter().enumerate().map(|(i, l)| (i as u64 + 1, *l)).collect();
        disksim_unit(&numbered)
    };
    assert_eq!(unit(&[b"7 0 8 8 1", b"  1.5\t0 8 8 1\r\n"]), TimeUnit::Ms);
    assert_eq!(unit(&[b"1.5 0 8 8 1"]), TimeUnit::Ms);
    assert_eq!(unit(&[b"7 0 8 8 1", b"", b"8 0 8.5 8 1"]), TimeUnit::Ns);
}

#[test]
fn ambiguity_and_garbage_are_errors() {
    let e = detect(&["0,657728,8192,R,0.011413", "0,R,1,4096,15"]).unwrap_err();
    assert!(e.contains("ambiguous") && e.contains("line 1") && e.contains("line 2"), "{e}");
    let e = detect(&["hello world"]).unwrap_err();
    assert!(e.contains("line 1"), "{e}");
    assert!(detect::<&str>(&[]).is_err());
    // An unrecognised line is left to the parser when others decide.
    assert_eq!(detect(&["0,657728,8192,R,0.011413", "garbage"]).unwrap(), (Format::Spc, None));
    // Whole-number times with every address and size a multiple of 512:
    // ns and sectors, or whole ms and bytes (4 KiB requests 1 ms apart,
    // or 2 MiB requests 1 ns apart)? Not guessed.
    let e = detect(&["0 0 0 4096 1", "1 0 4096 4096 0", "2 0 8192 4096 0"]).unwrap_err();
    assert!(e.contains("ambiguous") && e.contains("msr-window") && e.contains("first 3 lines"), "{e}");
    // One unaligned size settles it: sectors.
    assert_eq!(detect(&["0 0 0 4096 1", "1 0 4096 8 0"]).unwrap(), (Format::Disksim, Some(TimeUnit::Ns)));
}
