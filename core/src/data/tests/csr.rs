use super::*;
use crate::CapacityError;

#[test]
fn capacity_errors_say_what_is_needed_and_write_nothing() {
    let (mut offsets, mut values) = ([0u32; 3], [0u32; 3]);
    let mut csr = Csr::new(&mut offsets, &mut values).unwrap();
    csr.push_row(&[1, 2]).unwrap();
    assert_eq!(
        csr.push_row(&[3, 4]),
        Err(CsrCapacity::Values(CapacityError {
            needed: 4,
            available: 3
        }))
    );
    csr.push_row(&[3]).unwrap();
    assert_eq!(
        csr.push_row(&[]),
        Err(CsrCapacity::Rows(CapacityError {
            needed: 3,
            available: 2
        }))
    );
    assert_eq!(csr.view().row_offsets(), &[0, 2, 3]);
    assert_eq!(csr.view().values(), &[1, 2, 3]);
    let mut none: [u32; 0] = [];
    assert!(Csr::new(&mut none, &mut []).is_err());
}

#[test]
fn pushed_values_are_invisible_until_the_row_ends() {
    let (mut offsets, mut values) = ([0i64; 4], [0i64; 8]);
    let mut csr = Csr::new(&mut offsets, &mut values).unwrap();
    csr.push(5).unwrap();
    assert_eq!(csr.view().rows(), 0);
    assert_eq!(csr.view().nnz(), 0);
    csr.end_row().unwrap();
    let cp = csr.checkpoint();
    csr.push_row(&[6, 7]).unwrap();
    csr.rollback(cp);
    assert_eq!(csr.view().iter().collect::<Vec<_>>(), [&[5][..]]);
    // A stale checkpoint from beyond the current state changes nothing.
    let later = {
        csr.push_row(&[1]).unwrap();
        csr.checkpoint()
    };
    csr.clear();
    csr.rollback(later);
    assert_eq!(csr.view().rows(), 0);
}

#[test]
fn views_of_untrusted_slices_are_checked() {
    assert_eq!(
        CsrView::<u32>::new(&[], &[]).unwrap_err(),
        CsrError::NoOffsets
    );
    assert_eq!(
        CsrView::<u32>::new(&[1, 1], &[0]).unwrap_err(),
        CsrError::FirstOffset
    );
    assert_eq!(
        CsrView::<u32>::new(&[0, 2, 1], &[0, 0]).unwrap_err(),
        CsrError::Offset { row: 1 }
    );
    assert_eq!(
        CsrView::<u32>::new(&[0, 3], &[0, 0]).unwrap_err(),
        CsrError::Offset { row: 0 }
    );
    assert_eq!(
        CsrView::<u32>::new(&[0, 1], &[0, 0]).unwrap_err(),
        CsrError::LastOffset
    );
    assert_eq!(
        CsrView::<i64>::new(&[0, -1], &[]).unwrap_err(),
        CsrError::Offset { row: 0 }
    );
    let v = CsrView::<u32>::new(&[0, 0, 2], &[8, 9]).unwrap();
    assert_eq!(v.row(1), Some(&[8, 9][..]));
    assert_eq!(v.row(2), None);
}

#[test]
fn a_sample_writer_dropped_early_leaves_no_trace() {
    let dims = Dims::new(1, 0, 2);
    let mut bufs = Buffers::<u32>::new(dims, 2, 8);
    let mut batch = bufs.batch(dims);
    {
        let mut w = batch.begin().unwrap();
        w.label_dense()[0] = 9.0;
        w.push_slot(&[1, 2]).unwrap();
    }
    {
        let mut w = batch.begin().unwrap();
        w.push_slot(&[3]).unwrap();
        assert_eq!(
            w.finish(),
            Err(BatchError::SlotCount {
                expected: 2,
                found: 1
            })
        );
    }
    assert_eq!(batch.samples(), 0);
    assert_eq!(batch.csr().nnz(), 0);
    batch.push_sample(&[1.0], &[], &[&[4], &[5, 6]]).unwrap();
    batch.push_sample(&[2.0], &[], &[&[], &[7]]).unwrap();
    assert_eq!(
        batch.push_sample(&[3.0], &[], &[&[], &[]]),
        Err(BatchError::Full { capacity: 2 })
    );
    assert_eq!(
        batch.push_sample(&[3.0, 1.0], &[], &[&[], &[]]),
        Err(BatchError::Width {
            what: "label",
            expected: 1,
            found: 2
        })
    );
    assert_eq!(batch.csr().row_offsets(), &[0, 1, 3, 3, 4]);
    assert_eq!(batch.label_dense(), &[1.0, 2.0]);
}

#[test]
fn a_batch_needs_room_for_one_sample() {
    let dims = Dims::new(1, 1, 2);
    let (mut ld, mut offsets, mut values) = ([0f32; 1], [0u32; 3], [0u32; 4]);
    assert_eq!(
        SampleBatch::new(dims, &mut ld, &mut offsets, &mut values).unwrap_err(),
        BatchError::NoRoom
    );
    let (mut ld, mut offsets) = ([0f32; 4], [0u32; 2]);
    assert_eq!(
        SampleBatch::new(dims, &mut ld, &mut offsets, &mut values).unwrap_err(),
        BatchError::NoRoom
    );
    assert_eq!(
        SampleBatch::<u32>::new(Dims::new(0, 0, 0), &mut [], &mut [0], &mut []).unwrap_err(),
        BatchError::NoRoom
    );
}

#[test]
fn a_batch_resumes_over_the_buffers_it_filled() {
    let dims = Dims::new(1, 0, 2);
    let mut bufs = Buffers::<u32>::new(dims, 3, 8);
    let filled = {
        let mut batch = bufs.batch(dims);
        batch.push_sample(&[1.0], &[], &[&[4], &[5, 6]]).unwrap();
        batch.push_sample(&[2.0], &[], &[&[], &[7]]).unwrap();
        batch.samples()
    };
    let batch = SampleBatch::resume(
        dims,
        &mut bufs.ld,
        &mut bufs.offsets,
        &mut bufs.values,
        filled,
    )
    .unwrap();
    assert_eq!(batch.keys(1, 1), Some(&[7][..]));
    assert_eq!(batch.csr().row_offsets(), &[0, 1, 3, 3, 4]);
    // Offsets that decrease, or more samples than fit, are refused.
    bufs.offsets[2] = 0;
    assert!(matches!(
        SampleBatch::resume(dims, &mut bufs.ld, &mut bufs.offsets, &mut bufs.values, 2),
        Err(BatchError::Resume(_))
    ));
    assert_eq!(
        SampleBatch::resume(dims, &mut bufs.ld, &mut bufs.offsets, &mut bufs.values, 4)
            .unwrap_err(),
        BatchError::Full { capacity: 3 }
    );
}

#[test]
fn append_copies_whole_batches_or_nothing() {
    let dims = Dims::new(1, 1, 2);
    let mut a = Buffers::<u32>::new(dims, 2, 8);
    let mut b = Buffers::<u32>::new(dims, 3, 8);
    let mut src = a.batch(dims);
    src.push_sample(&[1.0], &[2.0], &[&[4], &[5, 6]]).unwrap();
    src.push_sample(&[3.0], &[4.0], &[&[], &[7]]).unwrap();
    let mut dst = b.batch(dims);
    dst.push_sample(&[0.0], &[0.0], &[&[9], &[]]).unwrap();
    dst.append(&src).unwrap();
    assert_eq!(dst.samples(), 3);
    assert_eq!(dst.label_dense(), &[0.0, 0.0, 1.0, 2.0, 3.0, 4.0]);
    assert_eq!(dst.csr().row_offsets(), &[0, 1, 1, 2, 4, 4, 5]);
    assert_eq!(dst.csr().values(), &[9, 4, 5, 6, 7]);
    assert_eq!(dst.append(&src), Err(BatchError::Full { capacity: 3 }));
    assert_eq!(dst.samples(), 3);
}

#[test]
fn append_into_an_empty_batch_keeps_the_offsets() {
    let dims = Dims::new(1, 0, 2);
    let mut a = Buffers::<i64>::new(dims, 2, 8);
    let mut b = Buffers::<i64>::new(dims, 2, 8);
    let mut src = a.batch(dims);
    src.push_sample(&[1.0], &[], &[&[4], &[5, 6]]).unwrap();
    src.push_sample(&[3.0], &[], &[&[], &[7]]).unwrap();
    let mut dst = b.batch(dims);
    dst.append(&src).unwrap();
    assert_eq!(dst.csr().row_offsets(), src.csr().row_offsets());
    assert_eq!(dst.csr().values(), &[4, 5, 6, 7]);
    assert_eq!(dst.keys(1, 1), Some(&[7][..]));
}
