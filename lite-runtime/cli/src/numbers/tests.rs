use super::*;

#[test]
fn numbers_are_checked_not_clamped() {
    assert_eq!(positive("7"), Ok(7));
    assert!(positive("0").is_err());
    assert!(positive("-1").is_err());
    assert!(positive("18446744073709551616").is_err());
    assert_eq!(seconds("0"), Ok(0.0));
    for bad in ["NaN", "inf", "-1", "1e300", "soon"] {
        assert!(seconds(bad).is_err(), "{bad}");
    }
    assert_eq!(dims("1, 2,3"), Ok(Dims::new(1, 2, 3)));
    for bad in ["0,0,0", "1,2", "1,2,3,4", "99999999999,1,1", "1,x,1", ""] {
        assert!(dims(bad).is_err(), "{bad}");
    }
    assert_eq!(max_nnz("2147483647"), Ok(i32::MAX as u32));
    assert!(max_nnz("2147483648").is_err());
}
