use super::*;
use crate::parse::{LineParser, Parsed};
use proptest::prelude::*;

const FORMATS: [Format; 4] = [Format::Msr, Format::Systor, Format::Spc, Format::Alibaba];

fn general(format: Format, line: &[u8]) -> Result<Parsed, String> {
    LineParser::new(format, None).unwrap().general(line)
}

fn req(time_ns: u64, device: u32, offset: u64, size: u32, op: Op) -> Request {
    Request { time_ns, device, offset, size, op }
}

#[test]
fn reads_plain_lines_of_each_format() {
    let cases: [(Format, &[u8], Request); 7] = [
        (
            Format::Msr,
            b"128166372000000017,web,3,Read,8192,4096,1234",
            req(12816637200000001700, 3, 8192, 4096, Op::Read),
        ),
        (Format::Msr, b"5,a b,0,wRiTe,0,512,", req(500, 0, 0, 512, Op::Write)),
        (
            Format::Systor,
            b"1456095145.5,0.0001,W,2,4096,8192",
            req(1_456_095_145_500_000_000, 2, 4096, 8192, Op::Write),
        ),
        (Format::Systor, b"7,x,r,0,0,1", req(7_000_000_000, 0, 0, 1, Op::Read)),
        (Format::Spc, b"1,10,4096,w,0.000123456", req(123_456, 1, 5120, 4096, Op::Write)),
        (Format::Spc, b"0,0,512,R,2,extra,columns", req(2_000_000_000, 0, 0, 512, Op::Read)),
        (
            Format::Alibaba,
            b"9,W,4096,16384,1577808000000046",
            req(1_577_808_000_000_046_000, 9, 4096, 16384, Op::Write),
        ),
    ];
    for (format, line, want) in cases {
        let text = String::from_utf8_lossy(line);
        assert_eq!(csv_line(format, line), Some(want), "{format}: {text}");
        assert_eq!(general(format, line), Ok(Parsed::Request(want)), "{format}: {text}");
    }
}

#[test]
fn hands_back_what_it_is_not_sure_of() {
    let cases: [(Format, &[u8]); 18] = [
        (Format::Msr, b"1,h,0,Read,0,4096"),
        (Format::Msr, b"1,h,0,Read,0,4096,2,3"),
        (Format::Msr, b"1, h,0,Reads,0,4096,2"),
        (Format::Msr, b"1,h,0, Read,0,4096,2"),
        (Format::Msr, b"1,h,0,Read,0,0,2"),
        (Format::Msr, b"184467440737095517,h,0,Read,0,1,2"),
        (Format::Systor, b"1.1234567891,0,R,0,0,1"),
        (Format::Systor, b"1.,0,R,0,0,1"),
        (Format::Systor, b"1,0,,0,0,1"),
        (Format::Systor, b"1,0,RW,0,0,1"),
        (Format::Systor, b"1,0,x,0,0,1"),
        (Format::Spc, b"0,1,1,Q,0"),
        (Format::Alibaba, b"0,2,0,1,1"),
        (Format::Spc, b"0,36028797018963968,1,r,0"),
        (Format::Spc, b"0,1,4294967296,r,0"),
        (Format::Spc, b"0,1,1,r,0 "),
        (Format::Alibaba, b"0,R,0,1,18446744073709552"),
        (Format::Cbs, b"1,0,8,1,0"),
    ];
    for (format, line) in cases {
        assert_eq!(csv_line(format, line), None, "{format}: {}", String::from_utf8_lossy(line));
    }
    // Just inside the limits the general parser agrees.
    for (format, line) in [
        (Format::Msr, &b"184467440737095516,h,4294967295,read,9999999999999999999,4294967295,x"[..]),
        (Format::Spc, b"4294967295,36028797018963967,4294967295,W,18446744073.709551615"),
        (Format::Alibaba, b"0,w,1,1,18446744073709551"),
    ] {
        let quick = csv_line(format, line).map(Parsed::Request);
        assert!(quick.is_some(), "{format}: handed back");
        assert_eq!(quick.ok_or(String::new()), general(format, line));
    }
}

/// One column: mostly what a plain line holds, sometimes what makes the
/// general parser work harder (blanks, points, letters, long numbers).
fn column() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => "[0-9]{1,8}",
        2 => "[0-9]{1,9}\\.[0-9]{1,10}",
        1 => "[0-9]{17,21}",
        2 => prop::sample::select(vec!["R", "W", "r", "w", "Read", "write", "READ", "x"]).prop_map(String::from),
        1 => "[ \t]?[0-9.]{0,4}[ \t]?",
        1 => "[a-z ,.]{0,3}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2048))]

    /// On random lines the quick path either hands the line back or reads
    /// what the general parser reads; the parser's entry agrees with its
    /// general path on every line.
    #[test]
    fn agrees_with_the_general_parser(cols in prop::collection::vec(column(), 0..9), f in 0usize..4) {
        let format = FORMATS[f];
        let line = cols.join(",");
        if let Some(r) = csv_line(format, line.as_bytes()) {
            prop_assert_eq!(Ok(Parsed::Request(r)), general(format, line.as_bytes()), "{}", line);
        }
        let p = LineParser::new(format, None).unwrap();
        prop_assert_eq!(p.clone().parse(line.as_bytes()), p.clone().general(line.as_bytes()));
    }

    /// Every plain line in range is read, to the general parser's request.
    #[test]
    fn reads_every_plain_line(
        secs in prop_oneof![0u64..100_000, 0u64..18_000_000_000],
        nanos in 0u32..1_000_000_000,
        decimals in 0u32..=9,
        device in prop_oneof![0u32..16, any::<u32>()],
        offset in prop_oneof![0u64..1 << 40, 0u64..1 << 55],
        size in prop_oneof![1u32..=65_536, 1u32..=u32::MAX],
        read: bool,
        f in 0usize..4,
    ) {
        let format = FORMATS[f];
        let frac = nanos / 10u32.pow(9 - decimals);
        let seconds = if decimals == 0 { secs.to_string() } else { format!("{secs}.{frac:0w$}", w = decimals as usize) };
        let rw = if read { "R" } else { "W" };
        let line = match format {
            Format::Msr => format!("{},host,{device},{},{offset},{size},99", secs * 100_000, if read { "Read" } else { "Write" }),
            Format::Systor => format!("{seconds},0.0005,{rw},{device},{offset},{size}"),
            Format::Spc => format!("{device},{},{size},{rw},{seconds}", offset >> 9),
            _ => format!("{device},{rw},{offset},{size},{}", secs * 1000),
        };
        let r = csv_line(format, line.as_bytes());
        prop_assert!(r.is_some(), "handed back: {}", line);
        prop_assert_eq!(Ok(Parsed::Request(r.unwrap())), general(format, line.as_bytes()), "{}", line);
    }
}
