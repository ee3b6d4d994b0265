//! Constant weights packed once into a kernel's persistent bytes (with
//! [`Options::pack_weights`](crate::interpreter::Options::pack_weights)): a 16-byte flag, then
//! the packed values, filled at the first invoke and again after a reset clears the flag. The
//! float CONV_2D's panels, the LSTM's and the integer SVDF's use it.

use zerocopy::{FromBytes, IntoBytes, KnownLayout};

use crate::interpreter::KernelError;

/// The `n` values of `T` after the flag at the start of `state`, packed by `fill` when the
/// flag is clear (it is then set): the same values at every later invoke.
///
/// # Errors
/// `small` if `state` is shorter than the flag and the values (or they are misaligned);
/// `fill`'s error.
pub(crate) fn packed_once<T: FromBytes + IntoBytes + KnownLayout>(
    state: &mut [u8],
    n: usize,
    small: KernelError,
    fill: impl FnOnce(&mut [T]) -> Result<(), KernelError>,
) -> Result<&[T], KernelError> {
    let (flag, rest) = state.split_at_mut_checked(16).ok_or(small)?;
    let bytes = n.checked_mul(size_of::<T>()).ok_or(small)?;
    let values = <[T]>::mut_from_bytes(rest.get_mut(..bytes).ok_or(small)?).map_err(|_| small)?;
    if flag[0] == 0 {
        fill(values)?;
        flag[0] = 1;
    }
    Ok(values)
}
