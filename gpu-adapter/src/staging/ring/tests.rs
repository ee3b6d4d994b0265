//! The ring against a model: a FIFO of in-flight slots and one "filling" cell. Random
//! operation sequences (valid and invalid) must agree with the model at every step, and
//! the invariants hold throughout.

use std::collections::VecDeque;

use proptest::prelude::*;

use super::*;

#[derive(Debug, Clone, Copy)]
enum Op {
    Acquire,
    Submit(usize),
    Abandon(usize),
    Complete(usize),
    CompleteOldest,
    CompleteAll,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => Just(Op::Acquire),
        3 => (0usize..6).prop_map(Op::Submit),
        1 => (0usize..6).prop_map(Op::Abandon),
        1 => (0usize..6).prop_map(Op::Complete),
        3 => Just(Op::CompleteOldest),
        1 => Just(Op::CompleteAll),
    ]
}

/// What the ring should do: slots are used strictly in order.
struct Model {
    n: usize,
    next: usize,
    filling: Option<usize>,
    flight: VecDeque<(usize, u64)>,
    ticket: u64,
}

impl Model {
    fn state(&self, slot: usize) -> SlotState {
        if self.filling == Some(slot) {
            SlotState::Filling
        } else if let Some(&(_, ticket)) = self.flight.iter().find(|(s, _)| *s == slot) {
            SlotState::InFlight { ticket }
        } else {
            SlotState::Free
        }
    }
}

fn check_invariants(ring: &StagingRing, model: &Model) -> Result<(), TestCaseError> {
    for slot in 0..model.n {
        prop_assert_eq!(ring.state(slot), Some(model.state(slot)));
    }
    let flying: Vec<_> = ring.in_flight().collect();
    prop_assert_eq!(&flying, &model.flight.iter().copied().collect::<Vec<_>>());
    prop_assert!(flying.windows(2).all(|w| w[0].1 < w[1].1));
    let filling = (0..model.n)
        .filter(|&s| ring.state(s) == Some(SlotState::Filling))
        .count();
    prop_assert!(filling <= 1);
    prop_assert_eq!(ring.next_slot(), model.next);
    prop_assert_eq!(ring.submitted(), model.ticket);
    Ok(())
}

proptest! {
    #[test]
    fn ring_follows_the_model(n in 1usize..5, ops in proptest::collection::vec(op(), 0..64)) {
        let mut ring = StagingRing::new(n).unwrap();
        let mut model = Model { n, next: 0, filling: None, flight: VecDeque::new(), ticket: 0 };
        for op in ops {
            match op {
                Op::Acquire => {
                    let got = ring.acquire();
                    let slot = model.next;
                    let want = match model.state(slot) {
                        SlotState::Free => {
                            model.filling = Some(slot);
                            Ok(slot)
                        }
                        SlotState::Filling => Err(RingError::AlreadyFilling { slot }),
                        SlotState::InFlight { ticket } => Err(RingError::Busy { slot, ticket }),
                    };
                    prop_assert_eq!(got, want);
                }
                Op::Submit(slot) => {
                    let got = ring.submit(slot);
                    if slot < n && model.filling == Some(slot) {
                        prop_assert_eq!(got, Ok(model.ticket));
                        model.flight.push_back((slot, model.ticket));
                        model.ticket += 1;
                        model.filling = None;
                        model.next = (slot + 1) % n;
                    } else {
                        prop_assert!(got.is_err());
                    }
                }
                Op::Abandon(slot) => {
                    let got = ring.abandon(slot);
                    if slot < n && model.filling == Some(slot) {
                        prop_assert_eq!(got, Ok(()));
                        model.filling = None;
                    } else {
                        prop_assert!(got.is_err());
                    }
                }
                Op::Complete(slot) => {
                    let got = ring.complete(slot);
                    match model.flight.iter().position(|(s, _)| *s == slot) {
                        Some(i) => {
                            prop_assert_eq!(got, Ok(()));
                            model.flight.remove(i);
                        }
                        None => prop_assert!(got.is_err()),
                    }
                }
                Op::CompleteOldest => {
                    if let Some((slot, _)) = model.flight.pop_front() {
                        prop_assert_eq!(ring.complete(slot), Ok(()));
                    }
                }
                Op::CompleteAll => {
                    ring.complete_all();
                    model.flight.clear();
                }
            }
            check_invariants(&ring, &model)?;
        }
    }

    /// The uploader's loop (acquire; on Busy complete the oldest; submit) never blocks
    /// for good and never hands out an in-flight slot, whatever the ring size.
    #[test]
    fn uploader_loop_cycles(n in 1usize..6, uploads in 0usize..40) {
        let mut ring = StagingRing::new(n).unwrap();
        for i in 0..uploads {
            let slot = match ring.acquire() {
                Ok(s) => s,
                Err(RingError::Busy { slot, ticket }) => {
                    prop_assert_eq!(ring.in_flight().next(), Some((slot, ticket)));
                    ring.complete(slot).unwrap();
                    ring.acquire().unwrap()
                }
                Err(e) => return Err(TestCaseError::fail(e.to_string())),
            };
            prop_assert_eq!(slot, i % n);
            prop_assert_eq!(ring.submit(slot), Ok(i as u64));
            prop_assert!(ring.in_flight().count() <= n);
        }
    }
}

#[test]
fn empty_ring_is_an_error() {
    assert_eq!(StagingRing::new(0).unwrap_err(), RingError::Empty);
    assert!(RingError::Empty.to_string().contains("at least one"));
}
