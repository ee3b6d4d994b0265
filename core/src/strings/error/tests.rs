extern crate std;
use std::string::ToString;

use super::*;

#[test]
fn display_names_what_and_where() {
    let e = StringTensorError::Decreasing {
        index: 2,
        previous: 22,
        value: 21,
    };
    assert_eq!(
        e.to_string(),
        "string tensor offset[2] (byte 12) is 21, less than offset[1] = 22"
    );
    let e = StringTensorError::CountTooLarge {
        count: i32::MAX,
        len: 8,
    };
    assert!(e.to_string().contains("8589934596-byte offset table"));
    let e = TfliteEncodeError::Capacity(CapacityError {
        needed: 25,
        available: 10,
    });
    assert_eq!(
        e.to_string(),
        "cannot encode string tensor: buffer too small: 25 needed, 10 available"
    );
    assert!(core::error::Error::source(&e).is_some());
}
