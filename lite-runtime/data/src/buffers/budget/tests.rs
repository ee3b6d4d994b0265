use super::*;

#[test]
fn sizes_over_the_budget_are_errors_naming_the_bytes() {
    let b = MemoryBudget::new(1000);
    assert_eq!(b.vec("x", 250, 0u32).map(|v| v.len()), Ok(250));
    let e = b.vec("x", 251, 0u32).unwrap_err();
    assert_eq!(
        e,
        MemoryError::OverBudget {
            what: "x",
            bytes: 1004,
            budget: 1000
        }
    );
    assert!(e.to_string().contains("1004 bytes"), "{e}");
    // No overflow on the largest lengths: the product is taken in u128.
    let e = b.vec("x", usize::MAX, 0u64).unwrap_err();
    assert!(matches!(e, MemoryError::OverBudget { bytes, .. } if bytes == usize::MAX as u128 * 8));
}

#[test]
#[cfg_attr(miri, ignore)]
fn the_allocator_may_refuse_within_an_unlimited_budget() {
    // A budget above the address space: the allocator itself must refuse, as an error.
    let e = MemoryBudget::new(u64::MAX)
        .vec("x", isize::MAX as usize / 2, 0u8)
        .unwrap_err();
    assert!(matches!(e, MemoryError::Refused { .. }), "{e}");
}
