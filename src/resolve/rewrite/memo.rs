//! What a standing agent remembers of its bend tries: for each side and avoidance distance, the
//! scalars that rebuild the bent rail without its mesh checks, or why that try failed.
//!
//! Half the bends a standing crowd tries repeat one the same agent tried before with the same
//! inputs bit for bit (plaza, 1,000 agents: 17,350 of 34,634 tries in 330 frames, a temporary
//! counter): it stands where it stood, on the same rail, blocked at the same point. The
//! geometric part of a try (avoidance point, reconnection point, where the bend leaves the rail,
//! the mesh checks) is a function of those inputs, the static mesh, the configuration and the
//! agent's radius, so a remembered try gives the same rail bit for bit; only the sweep of the
//! bent rail runs again, since the other agents move. Neither the rail (a copy of the rest of
//! the agent's path with its arclength tables, kilobytes) nor the avoidance point is kept, to
//! stay within the memory budget per agent: a try is rebuilt from where the reconnection point
//! and the place the bend leaves the rail lie in their searches, which skips the reconnection search and the wall checks
//! but not the avoidance point's ray or the curves' arclength tables. Those tables are built
//! without their error checks when the first build bisected none of their intervals
//! ([`BendRecipe::bisected`], `crate::rail::Splice::Repeated`): the same tables, at a quarter
//! of the arclength measures.

use super::{BendFailure, AVOIDANCE_FRACTIONS};
use crate::detect::Collision;
use crate::rail::Rail;
use crate::resolve::order::Side;

/// Tries per bend: two sides, each at up to [`AVOIDANCE_FRACTIONS`]' distances.
const TRIES: usize = 2 * AVOIDANCE_FRACTIONS.len();

/// What a bend's geometry depends on besides the static mesh, the configuration and the agent's
/// radius (all fixed for a world's life), bit for bit: the rail (by address; the memo is
/// dropped whenever the agent's rail changes), where the agent stands on it, and the
/// collision's arclength and point. The side and the distance index the tries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct BendInputs {
    rail: usize,
    from: u64,
    collision_s: u64,
    collision_at: [u64; 2],
}

impl BendInputs {
    /// The inputs of a bend of `rail` from arclength `from` (metres) around `collision`.
    pub(crate) fn of(rail: &Rail, from: f64, collision: &Collision) -> BendInputs {
        BendInputs {
            rail: std::ptr::from_ref(rail) as usize,
            from: from.to_bits(),
            collision_s: collision.s.to_bits(),
            collision_at: [
                collision.agent_position.x.to_bits(),
                collision.agent_position.y.to_bits(),
            ],
        }
    }
}

/// What rebuilds a try's bent rail besides its avoidance point (computed again, one ray on the
/// mesh): [`super::bend_from`] with the points these name gives the rail whose searches and
/// mesh checks passed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct BendRecipe {
    /// The reconnection point's place in `super::reconnection_scan`.
    pub reconnect: u16,
    /// Where the bend leaves the old rail: the index that `super::leave_s` turns into an
    /// arclength.
    pub leave: u8,
    /// Whether the arclength table of a new segment had an interval bisected: if not, the
    /// rebuild's tables skip their checks (`crate::rail::Splice::Repeated`).
    pub bisected: bool,
}

/// One remembered try.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) enum BendTry {
    /// Not tried with these inputs.
    #[default]
    Untried,
    /// Failed before its sweep.
    Failed(BendFailure),
    /// Its rail, to rebuild.
    Found(BendRecipe),
}

/// A standing agent's tries for one set of [`BendInputs`], at most one per side and avoidance
/// distance (80 bytes, boxed, held only by standing agents that have bent since they
/// last moved: `Agent::bend_memo`, counted by `World::memory`).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct BendMemo {
    inputs: BendInputs,
    tries: [BendTry; TRIES],
}

impl BendMemo {
    /// A memo for `inputs`: the tries of `earlier` if it was for the same inputs, else none.
    pub(crate) fn for_inputs(inputs: BendInputs, earlier: Option<&BendMemo>) -> BendMemo {
        match earlier {
            Some(memo) if memo.inputs == inputs => memo.clone(),
            _ => BendMemo {
                inputs,
                tries: [BendTry::Untried; TRIES],
            },
        }
    }

    /// The try on `side` at the `fraction`-th avoidance distance.
    pub(crate) fn try_at(&self, side: Side, fraction: usize) -> BendTry {
        self.tries[index(side, fraction)]
    }

    /// Remember the try on `side` at the `fraction`-th avoidance distance.
    pub(crate) fn remember(&mut self, side: Side, fraction: usize, found: BendTry) {
        self.tries[index(side, fraction)] = found;
    }

    /// How many tries found a rail.
    #[cfg(test)]
    pub(crate) fn found(&self) -> usize {
        self.tries
            .iter()
            .filter(|found| matches!(found, BendTry::Found(_)))
            .count()
    }
}

/// Where the try on `side` at the `fraction`-th distance is kept.
fn index(side: Side, fraction: usize) -> usize {
    let side = match side {
        Side::Left => 0,
        Side::Right => 1,
    };
    side * AVOIDANCE_FRACTIONS.len() + fraction
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inputs(from: f64) -> BendInputs {
        BendInputs {
            rail: 1,
            from: from.to_bits(),
            collision_s: 2.0f64.to_bits(),
            collision_at: [0, 0],
        }
    }

    #[test]
    fn a_memo_holds_eighty_bytes() {
        // The figure docs/PERFORMANCE.md counts per standing agent that has bent.
        assert!(std::mem::size_of::<BendMemo>() <= 80);
    }

    #[test]
    fn a_memo_keeps_its_tries_for_the_same_inputs_only() {
        let mut memo = BendMemo::for_inputs(inputs(1.0), None);
        let recipe = BendRecipe {
            reconnect: 7,
            leave: 1,
            bisected: false,
        };
        memo.remember(Side::Right, 2, BendTry::Found(recipe));
        memo.remember(Side::Left, 0, BendTry::Failed(BendFailure::OffMesh));
        let same = BendMemo::for_inputs(inputs(1.0), Some(&memo));
        assert_eq!(same.try_at(Side::Right, 2), BendTry::Found(recipe));
        assert_eq!(
            same.try_at(Side::Left, 0),
            BendTry::Failed(BendFailure::OffMesh)
        );
        assert_eq!(same.try_at(Side::Left, 2), BendTry::Untried);
        // Standing a hair further on: nothing is remembered.
        let moved = BendMemo::for_inputs(inputs(1.0 + 1e-12), Some(&memo));
        assert_eq!(moved.try_at(Side::Right, 2), BendTry::Untried);
        assert_eq!(moved.try_at(Side::Left, 0), BendTry::Untried);
    }
}
