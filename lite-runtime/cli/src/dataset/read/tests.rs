use super::row_hash;

fn hash<K: tessera_core::data::Key>(id: u64, label: f32, slots: &[&[K]]) -> u64 {
    row_hash(id, &[label], &[0.5], slots.len(), |s| slots[s])
}

#[test]
fn the_hash_sees_every_part_of_a_row() {
    let base = hash::<u32>(1, 1.0, &[&[1, 2], &[]]);
    assert_ne!(base, hash::<u32>(2, 1.0, &[&[1, 2], &[]]));
    assert_ne!(base, hash::<u32>(1, 0.0, &[&[1, 2], &[]]));
    assert_ne!(base, hash::<u32>(1, 1.0, &[&[1], &[2]]));
    assert_eq!(base, hash::<i64>(1, 1.0, &[&[1, 2], &[]]));
}
