//! Resolution: turning a predicted collision into an order (speed change, stop, wait, start).

mod deadlock;
mod destination;
mod detour;
mod order;
mod rewrite;
mod trivial;

pub use order::{
    Occupancy, Order, OrderKind, Reroute, RerouteReason, Side, StartVerdict, StopCause,
};
pub(crate) use trivial::{start_verdict, Hysteresis};
