//! The arena: two phases, alignment, sizes, handles, blocks, aliasing, device memory, and
//! properties of random reservations (no two live tensors share bytes; writes stay inside).

extern crate std;
use std::string::ToString;
use std::vec;
use std::vec::Vec;

use proptest::prelude::*;

use super::*;
use crate::error::CapacityError;
use crate::memory::{AlignedBytes, Memory, MemoryKind};
use crate::plan::Lifetime;
use crate::tensor::{DType, TensorError};

fn config() -> ProptestConfig {
    let mut config = ProptestConfig::with_cases(if cfg!(miri) { 4 } else { 256 });
    if cfg!(miri) {
        config.failure_persistence = None;
    }
    config
}

type Small<'m> = Arena<InlineSlots<16>, &'m mut [u8]>;

#[test]
fn reserve_then_allocate() {
    let mut arena: Small<'_> = Arena::new(InlineSlots::new());
    let a = arena.reserve::<f32>(&[3]).unwrap(); // 12 bytes
    let b = arena.reserve::<u8>(&[40]).unwrap(); // 40 bytes
    let c = arena.reserve::<f64>(&[0]).unwrap(); // empty
    let d = arena.reserve::<i16>(&[2, 2]).unwrap(); // 8 bytes
    assert_eq!(arena.required_bytes(), Ok(32 + 64 + 8));
    assert_eq!(arena.sum_of_sizes(), 60);
    assert_eq!(arena.slot_count(), 4);
    assert_eq!(arena.offset(&b), Ok(32));
    assert_eq!(arena.tensor_mut(&a).unwrap_err(), ArenaError::NotAllocated);

    let mut small = [0u8; 100];
    let e = arena.allocate(&mut small[..]).unwrap_err();
    assert!(matches!(
        e.error,
        ArenaError::Memory(CapacityError { needed, available: 100 }) if (104..136).contains(&needed)
    ));
    let mut memory = AlignedBytes::<104>::new();
    arena.allocate(&mut memory.0[..]).unwrap();
    assert!(arena.is_allocated());
    assert_eq!(
        arena.reserve::<u8>(&[1]).unwrap_err(),
        ArenaError::AlreadyAllocated
    );
    assert_eq!(
        arena.reserve_block::<u8>().unwrap_err(),
        ArenaError::AlreadyAllocated
    );
    let mut other = [0u8; 1];
    assert_eq!(
        arena.allocate(&mut other[..]).unwrap_err().error,
        ArenaError::AlreadyAllocated
    );

    for h in [a.erase(), b.erase(), c.erase(), d.erase()] {
        let bag = arena.bag(&h).unwrap();
        assert_eq!(bag.dtype(), h.dtype());
        if !bag.bytes().is_empty() {
            assert_eq!(bag.bytes().as_ptr() as usize % 32, 0);
        }
    }
    arena.tensor_mut(&a).unwrap().fill(2.5);
    arena.tensor_mut(&b).unwrap().fill(7);
    arena
        .tensor_mut(&d)
        .unwrap()
        .copy_from_slice(&[1, 2, 3, 4])
        .unwrap();
    assert!(arena.tensor(&c).unwrap().is_empty());
    assert_eq!(arena.tensor(&a).unwrap().iter().sum::<f32>(), 7.5);
    assert_eq!(arena.tensor(&d).unwrap().get(&[1, 0]), Some(&3));
    let [x, y] = arena
        .tensors_mut([&a, &a])
        .map(|_| ())
        .map_or([0, 1], |_| [1, 0]);
    assert_eq!((x, y), (0, 1), "the same tensor twice is aliased");
    let address = arena.address(&b).unwrap();
    assert_eq!(address, memory_address(&arena) + 32);

    // Release keeps the plan and the handles.
    let m = arena.release().unwrap();
    assert_eq!(arena.tensor(&a).unwrap_err(), ArenaError::NotAllocated);
    arena.allocate(m).unwrap();
    assert_eq!(arena.tensor(&a).unwrap().iter().sum::<f32>(), 7.5);

    // Reset gives the memory back and reuses the table.
    let m = arena.reset().unwrap();
    assert_eq!(m.len(), 104);
    assert!(!arena.is_allocated());
    assert_eq!(arena.slot_count(), 0);
    assert_eq!(arena.tensor(&a).unwrap_err(), ArenaError::NotAllocated);
    let a2 = arena.reserve::<f32>(&[3]).unwrap();
    arena.allocate(m).unwrap();
    assert_eq!(
        arena.tensor(&a2).unwrap().iter().sum::<f32>(),
        7.5,
        "same bytes again"
    );
    assert_eq!(
        arena.tensor(&b).unwrap_err(),
        ArenaError::UnknownHandle { slot: 1 }
    );
}

fn memory_address(arena: &Small<'_>) -> usize {
    arena.memory().unwrap().base_address()
}

#[test]
fn unaligned_regions_are_padded() {
    let mut memory = AlignedBytes::<96>::new();
    {
        let mut arena: Small<'_> = Arena::new(InlineSlots::new());
        arena.reserve::<u32>(&[8]).unwrap();
        assert_eq!(arena.required_bytes(), Ok(32));
        assert_eq!(arena.required_bytes_unaligned(), Ok(63));
        // Start 5 bytes past a 64-byte boundary: 27 bytes of padding.
        let e = arena.allocate(&mut memory.0[5..63]).unwrap_err();
        assert_eq!(
            e.error,
            ArenaError::Memory(CapacityError {
                needed: 59,
                available: 58
            })
        );
    }
    let mut arena: Small<'_> = Arena::new(InlineSlots::new());
    let a = arena.reserve::<u32>(&[8]).unwrap();
    arena.allocate(&mut memory.0[5..64]).unwrap();
    let t = arena.tensor_mut(&a).unwrap();
    assert_eq!(t.as_slice().unwrap().as_ptr() as usize % 32, 0);
}

#[test]
fn alignment_is_configurable() {
    assert_eq!(
        Arena::<InlineSlots<1>, &mut [u8]>::with_alignment(InlineSlots::new(), 24).unwrap_err(),
        ArenaError::BadAlignment { alignment: 24 }
    );
    let mut arena: Arena<_, &mut [u8]> = Arena::with_alignment(InlineSlots::<4>::new(), 1).unwrap();
    assert_eq!(arena.alignment(), 1);
    arena.reserve::<u8>(&[3]).unwrap();
    let w = arena.reserve::<f64>(&[1]).unwrap(); // still on f64's alignment (4 on i686)
    arena.reserve::<u8>(&[1]).unwrap();
    let at = 3usize.next_multiple_of(align_of::<f64>());
    assert_eq!(arena.required_bytes(), Ok(at + 8 + 1));
    assert_eq!(arena.offset(&w), Ok(at));
    let mut arena: Arena<_, &mut [u8]> =
        Arena::with_alignment(InlineSlots::<4>::new(), 128).unwrap();
    arena.reserve::<u8>(&[3]).unwrap();
    arena.reserve::<u8>(&[3]).unwrap();
    assert_eq!(arena.required_bytes(), Ok(131));
}

#[test]
fn blocks_are_back_to_back() {
    let mut table = [Slot::EMPTY; 5];
    let mut arena: Arena<_, &mut [u8]> = Arena::new(SliceSlots::new(&mut table));
    let before = arena.reserve::<u8>(&[1]).unwrap();
    let weights = arena.reserve_block::<f32>().unwrap();
    let w1 = arena.reserve_in(&weights, &[2, 3]).unwrap();
    let w2 = arena.reserve_in(&weights, &[5]).unwrap();
    assert_eq!(
        arena
            .reserve_in(
                &BlockHandle::<f32> {
                    slot: 0,
                    elem: core::marker::PhantomData
                },
                &[1]
            )
            .unwrap_err(),
        ArenaError::UnknownHandle { slot: 0 }
    );
    assert_eq!(
        arena
            .reserve::<u8>(&[1])
            .and_then(|_| arena.reserve::<u8>(&[1]))
            .unwrap_err(),
        ArenaError::Slots(CapacityError {
            needed: 6,
            available: 5
        })
    );
    assert_eq!(arena.required_bytes(), Ok(32 + 64 + 1));
    assert_eq!(arena.offset(&w1), Ok(32));
    assert_eq!(arena.offset(&w2), Ok(32 + 24));
    let mut memory = AlignedBytes::<128>::new();
    arena.allocate(&mut memory.0[..]).unwrap();
    arena.tensor_mut(&w1).unwrap().fill(1.0);
    arena.tensor_mut(&w2).unwrap().fill(2.0);
    arena.tensor_mut(&before).unwrap().fill(9);
    let all = arena.block(&weights).unwrap();
    assert_eq!(all.shape(), &[11]);
    assert_eq!(all.iter().sum::<f32>(), 6.0 + 10.0);
    arena.block_mut(&weights).unwrap().mul_assign_scalar(0.5);
    assert_eq!(arena.tensor(&w2).unwrap().iter().sum::<f32>(), 5.0);
    let [a, b] = arena.tensors_mut([&w1, &w2]).unwrap();
    assert_eq!((a.len(), b.len()), (6, 5));
    // A tensor handle is not a block handle.
    let fake = BlockHandle::<f32> {
        slot: w1.slot,
        elem: core::marker::PhantomData,
    };
    assert_eq!(
        arena.block(&fake).unwrap_err(),
        ArenaError::UnknownHandle { slot: 2 }
    );
}

#[test]
fn lifetimes_overlap_and_aliases_are_refused() {
    let mut arena: Small<'_> = Arena::new(InlineSlots::new());
    let x = arena
        .reserve_for::<f32>(&[64], Lifetime::new(0, 1))
        .unwrap();
    let h = arena
        .reserve_for::<f32>(&[128], Lifetime::new(1, 2))
        .unwrap();
    let y = arena
        .reserve_for::<f32>(&[64], Lifetime::new(2, 3))
        .unwrap();
    let bias = arena.reserve::<i8>(&[4]).unwrap();
    assert_eq!(
        arena
            .reserve_for::<f32>(&[1], Lifetime::new(2, 1))
            .unwrap_err(),
        ArenaError::Plan(crate::plan::PlanError::BadLifetime {
            buffer: 4,
            lifetime: Lifetime::new(2, 1)
        })
    );
    assert_eq!(arena.sum_of_sizes(), 256 + 512 + 256 + 4);
    assert_eq!(arena.required_bytes(), Ok(512 + 256 + 4));
    let mut memory = vec![0u8; arena.required_bytes_unaligned().unwrap()];
    arena.allocate(&mut memory[..]).unwrap();
    assert_eq!(arena.offset(&x), arena.offset(&y));
    let [a, b] = arena.tensors_mut([&x, &h]).unwrap();
    assert_eq!((a.len(), b.len()), (64, 128));
    assert_eq!(
        arena.tensors_mut([&h, &x, &y]).unwrap_err(),
        ArenaError::Aliased {
            first: 1,
            second: 2
        }
    );
    let [bx, bb] = arena.bags_mut([&x.erase(), &bias.erase()]).unwrap();
    bx.stretch_mut::<f32>().unwrap().fill(1.0);
    bb.stretch_mut::<i8>().unwrap().fill(-1);
    assert_eq!(
        arena.tensor(&y).unwrap().iter().sum::<f32>(),
        64.0,
        "y reuses x's bytes"
    );
    assert!(arena.bags_mut([&x.erase(), &y.erase()]).is_err());
}

#[test]
fn bool_tensors_are_validated() {
    let mut arena: Small<'_> = Arena::new(InlineSlots::new());
    let flags = arena.reserve::<bool>(&[4]).unwrap();
    let mut memory = AlignedBytes::<32>::new();
    memory.0[2] = 7;
    arena.allocate(&mut memory.0[..]).unwrap();
    assert_eq!(
        arena.tensor(&flags).unwrap_err(),
        ArenaError::Tensor(TensorError::InvalidValue { element: 2 })
    );
    let [mut bag] = arena.bags_mut([&flags.erase()]).unwrap();
    bag.bytes_mut().fill(1);
    assert_eq!(
        arena.tensor(&flags).unwrap().iter().filter(|b| **b).count(),
        4
    );
}

#[test]
fn handles_from_elsewhere_are_refused() {
    let mut one: Small<'_> = Arena::new(InlineSlots::new());
    let mut two: Small<'_> = Arena::new(InlineSlots::new());
    let f = one.reserve::<f32>(&[4]).unwrap();
    let big = one.reserve::<f32>(&[8]).unwrap();
    let block = one.reserve_block::<f32>().unwrap();
    two.reserve::<i32>(&[4]).unwrap();
    two.reserve::<f32>(&[4]).unwrap();
    two.reserve::<f32>(&[4]).unwrap();
    assert_eq!(one.layout(&big).unwrap().shape(), &[8]);
    let mut m = AlignedBytes::<128>::new();
    two.allocate(&mut m.0[..]).unwrap();
    assert_eq!(
        two.tensor(&f).unwrap_err(),
        ArenaError::UnknownHandle { slot: 0 }
    );
    // Same index and dtype: it names the other arena's tensor, with that tensor's shape.
    assert_eq!(two.tensor(&big).unwrap().shape(), &[4]);
    // A block handle is not a tensor's.
    assert_eq!(
        two.block(&block).unwrap_err(),
        ArenaError::UnknownHandle { slot: 2 }
    );
    let far = TensorHandle::<f32> {
        slot: 9,
        elem: core::marker::PhantomData,
    };
    assert_eq!(
        two.tensor(&far).unwrap_err(),
        ArenaError::UnknownHandle { slot: 9 }
    );
    assert_eq!(
        two.layout(&far).unwrap_err(),
        ArenaError::UnknownHandle { slot: 9 }
    );
    assert_eq!(two.bag_layout(&big.erase()).unwrap().shape(), &[4]);
}

/// Device memory as a GPU adapter would describe it: an address, no bytes.
#[derive(Debug)]
struct FakeDevice {
    address: usize,
    len: usize,
}

impl Memory for FakeDevice {
    fn kind(&self) -> MemoryKind {
        MemoryKind::Device
    }
    fn base_address(&self) -> usize {
        self.address
    }
    fn len(&self) -> usize {
        self.len
    }
}

#[test]
fn device_memory_gets_addresses_only() {
    let mut arena: Arena<InlineSlots<4>, FakeDevice> = Arena::new(InlineSlots::new());
    let a = arena.reserve::<f32>(&[10]).unwrap();
    let b = arena.reserve::<f32>(&[10]).unwrap();
    let needed = arena.required_bytes().unwrap();
    arena
        .allocate(FakeDevice {
            address: 0x7000_0010,
            len: needed + 16,
        })
        .unwrap();
    assert_eq!(arena.address(&a), Ok(0x7000_0020));
    assert_eq!(arena.address(&b), Ok(0x7000_0060));
    let device = arena.reset().unwrap();
    assert_eq!(device.kind(), MemoryKind::Device);
    assert!(!device.kind().host_accessible());
}

#[test]
fn slots_and_handles_are_small() {
    // What a firmware table costs per reserved buffer (documented on `Slot`).
    let expected = if size_of::<usize>() == 8 { 224 } else { 124 };
    assert_eq!(size_of::<Slot>(), expected);
    assert_eq!(size_of::<TensorHandle<f32>>(), 4);
    assert_eq!(size_of::<BagHandle>(), 8);
}

#[test]
fn errors_display() {
    let errors = [
        ArenaError::AlreadyAllocated,
        ArenaError::NotAllocated,
        ArenaError::Memory(CapacityError {
            needed: 1,
            available: 0,
        }),
        ArenaError::Slots(CapacityError {
            needed: 1,
            available: 0,
        }),
        ArenaError::Tensor(TensorError::TooLarge { axis: 0 }),
        ArenaError::Plan(crate::plan::PlanError::TooLarge { buffer: 0 }),
        ArenaError::BadAlignment { alignment: 3 },
        ArenaError::UnknownHandle { slot: 0 },
        ArenaError::Aliased {
            first: 0,
            second: 1,
        },
        ArenaError::NotHostAccessible {
            kind: MemoryKind::Device,
        },
        ArenaError::MemoryChanged {
            expected: 1,
            found: 0,
        },
    ];
    for e in errors {
        assert!(e.to_string().starts_with("arena"), "{e}");
    }
    let e = AllocateError {
        memory: (),
        error: ArenaError::NotAllocated,
    };
    assert_eq!(e.to_string(), "arena is not allocated yet");
}

/// A random tensor: elements, dtype index, lifetime (first, length) or always.
type Reservation = (usize, usize, Option<(u32, u32)>);

fn reservations() -> impl Strategy<Value = Vec<Reservation>> {
    let n = if cfg!(miri) { 0..6usize } else { 0..24usize };
    prop::collection::vec(
        (
            0usize..40,
            0usize..4,
            prop::option::weighted(0.8, (0u32..8, 0u32..4)),
        ),
        n,
    )
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn live_tensors_never_share_bytes(spec in reservations(), alignment in prop::sample::select(&[1usize, 8, 32, 64][..])) {
        let mut arena: Arena<InlineSlots<24>, &mut [u8]> = Arena::with_alignment(InlineSlots::new(), alignment).unwrap();
        let mut handles = Vec::new();
        for &(n, kind, life) in &spec {
            let life = life.map_or(Lifetime::ALWAYS, |(f, l)| Lifetime::new(f, f + l));
            let dtype = [DType::U8, DType::I16, DType::F32, DType::F64][kind];
            let h = match dtype {
                DType::U8 => arena.reserve_for::<u8>(&[n], life).unwrap().erase(),
                DType::I16 => arena.reserve_for::<i16>(&[n], life).unwrap().erase(),
                DType::F32 => arena.reserve_for::<f32>(&[n], life).unwrap().erase(),
                _ => arena.reserve_for::<f64>(&[n], life).unwrap().erase(),
            };
            handles.push((h, life));
        }
        let required = arena.required_bytes().unwrap();
        prop_assert!(required <= arena.sum_of_sizes() + spec.len() * 64);
        let mut memory = vec![0u8; arena.required_bytes_unaligned().unwrap()];
        arena.allocate(&mut memory[..]).unwrap();
        // Bytes of every tensor: aligned, inside the plan, apart from every live neighbour.
        let mut ranges = Vec::new();
        for (h, life) in &handles {
            let bag = arena.bag(h).unwrap();
            let start = bag.bytes().as_ptr() as usize;
            if !bag.bytes().is_empty() {
                prop_assert_eq!(start % alignment.max(h.dtype().align()), 0);
            }
            ranges.push((start, bag.bytes().len(), *life));
        }
        let base = ranges.iter().filter(|r| r.1 > 0).map(|r| r.0).min().unwrap_or(0);
        for (i, &(s, n, l)) in ranges.iter().enumerate() {
            if n > 0 {
                prop_assert!(s + n - base <= required);
            }
            for &(t, m, k) in &ranges[i + 1..] {
                if n > 0 && m > 0 && l.overlaps(k) {
                    prop_assert!(s + n <= t || t + m <= s);
                }
            }
        }
        // Writing each live set's tensors with their own index leaves each intact.
        for step in 0..12u32 {
            let live: Vec<usize> = (0..handles.len()).filter(|&i| handles[i].1.overlaps(Lifetime::new(step, step))).collect();
            for &i in &live {
                let [mut bag] = arena.bags_mut([&handles[i].0]).unwrap();
                bag.bytes_mut().fill(i as u8);
            }
            for &i in &live {
                prop_assert!(arena.bag(&handles[i].0).unwrap().bytes().iter().all(|&b| b == i as u8));
            }
        }
    }
}
