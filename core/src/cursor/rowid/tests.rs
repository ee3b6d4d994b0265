extern crate std;
use std::format;

use super::RowId;

#[test]
fn display_is_mlnets_to_string() {
    // "{0:x16}{1:x16}" of (High, Low): each half zero-padded to 16 lowercase digits.
    assert_eq!(
        format!("{}", RowId::new(0, 0)),
        "00000000000000000000000000000000"
    );
    assert_eq!(
        format!("{}", RowId::new(0xdead_beef, 0xABC)),
        "0000000000000abc00000000deadbeef"
    );
    assert_eq!(
        format!("{}", RowId::new(u64::MAX, 1)),
        "0000000000000001ffffffffffffffff"
    );
}

#[test]
fn hash_code_is_mlnets_get_hash_code() {
    // Each value worked by hand from
    // (int)((uint)Low ^ (uint)(Low >> 32) ^ (uint)(High << 7) ^ (uint)(High >> 57)
    //       ^ (uint)(High >> 25)).
    //
    // Low = 0x0000_0001_0000_0002, High = 0x0200_0000_0000_0003 (2^57 + 3):
    //   (uint)Low = 2, (uint)(Low >> 32) = 1,
    //   High << 7 = 3 << 7 = 0x180 (2^57 << 7 = 2^64 is shifted out),
    //   High >> 57 = 1, High >> 25 = 2^32 -> (uint) 0;
    //   2 ^ 1 ^ 0x180 ^ 1 ^ 0 = 0x182 = 386.
    assert_eq!(
        RowId::new(0x0000_0001_0000_0002, 0x0200_0000_0000_0003).hash_code(),
        386
    );
    // Low = High = u64::MAX: 0xFFFFFFFF ^ 0xFFFFFFFF = 0; (uint)(High << 7) = 0xFFFFFF80;
    //   High >> 57 = 0x7F; (uint)(High >> 25) = 0xFFFFFFFF;
    //   0 ^ 0xFFFFFF80 ^ 0x7F ^ 0xFFFFFFFF = 0xFFFFFFFF ^ 0xFFFFFFFF = 0.
    assert_eq!(RowId::new(u64::MAX, u64::MAX).hash_code(), 0);
    // Low = 0x1234_5678_9abc_def0, High = 0: 0x9abcdef0 ^ 0x12345678 = 0x88888888,
    //   as int: 2290649224 - 2^32 = -2004318072.
    assert_eq!(
        RowId::new(0x1234_5678_9abc_def0, 0).hash_code(),
        -2_004_318_072
    );
    // High = 2^31: High << 7 = 2^38 -> (uint) 0; High >> 57 = 0; High >> 25 = 2^6 = 64.
    assert_eq!(RowId::new(0, 1 << 31).hash_code(), 64);
    // High = 1: 1 << 7 = 128, the rest 0.
    assert_eq!(RowId::new(0, 1).hash_code(), 128);
}
