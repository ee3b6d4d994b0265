use super::*;

#[test]
fn slices_are_host_memory() {
    let mut buf = [1u8; 10];
    let m: &mut [u8] = &mut buf;
    assert_eq!(Memory::len(&m), 10);
    assert_eq!(m.kind(), MemoryKind::Host);
    assert_eq!(m.base_address(), m.bytes().as_ptr() as usize);
    m.bytes_mut()[9] = 2;
    assert_eq!(buf[9], 2);
}

#[test]
fn aligned_bytes_start_on_64() {
    let a = AlignedBytes::<3>::new();
    assert_eq!(a.base_address() % 64, 0);
    assert_eq!(a.len(), 3);
    assert!(!a.is_empty());
    let mut chunks = [Chunk64::ZERO; 2];
    let bytes = chunks_as_bytes_mut(&mut chunks);
    assert_eq!(bytes.len(), 128);
    assert_eq!(bytes.as_ptr() as usize % 64, 0);
    bytes[127] = 5;
    assert_eq!(chunks_as_bytes(&chunks)[127], 5);
}

#[test]
fn kinds() {
    assert!(MemoryKind::Host.host_accessible());
    assert!(MemoryKind::Pinned.host_accessible());
    assert!(MemoryKind::Managed.host_accessible());
    assert!(!MemoryKind::Device.host_accessible());
}
