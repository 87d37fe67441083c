//! Resolution: turning a predicted collision into an order (speed change, stop, wait, start).

mod deadlock;
mod destination;
mod detour;
mod jam;
mod order;
mod passage;
mod recheck;
mod rewrite;
#[cfg(feature = "parallel")]
mod speculate;
mod trivial;

pub(crate) use deadlock::LaneLink;
pub use order::{
    Occupancy, Order, OrderKind, Reroute, RerouteReason, Side, StartVerdict, StopCause,
};
pub(crate) use recheck::BlockedWait;
pub use recheck::BLOCKED_RECHECK;
pub(crate) use rewrite::BendMemo;
#[cfg(feature = "parallel")]
pub(crate) use speculate::Speculation;
pub(crate) use trivial::{start_verdict, Hysteresis};
