//! Resolution: turning a predicted collision into an order (speed change, stop, wait, start).

mod order;
mod trivial;

pub use order::{Occupancy, Order, OrderKind, StartVerdict, StopCause};
pub(crate) use trivial::start_verdict;
