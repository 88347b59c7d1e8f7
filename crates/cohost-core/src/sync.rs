//! Locking plain data shared between tasks.

use std::sync::{Mutex, MutexGuard, PoisonError};

/// Lock `m`, taking the data even if a holder panicked. cohost's shared
/// state is plain maps and buffers changed in single steps, so a panic
/// elsewhere (reported on its own) must not take every later user down too,
/// nor make it skip its update silently.
pub fn lock<T: ?Sized>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}
