//! Bots: programs that make a seat's decisions from what that seat may see.

use table::{Decision, Ruleset};

/// A bot plays one seat. It sees a [`Decision`]: the legal commands and, on demand, the
/// seat's own view — never the hidden state.
pub trait Bot<R: Ruleset> {
    /// The index in `decision.legal` of the command to give. `decision.legal` is never empty.
    fn choose(&mut self, decision: &Decision<'_, R>) -> usize;
}
