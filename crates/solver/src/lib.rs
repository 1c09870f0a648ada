//! Analysis for facedown (layer 3): exact equilibria of matrix games ([`matrix`]), whole 1v1
//! Iron Triangle conflicts solved by backward induction ([`duel`]), single turns solved as
//! the two-stage games they are ([`one_turn`]), and bots that play any seat ([`bots`]),
//! among them the equilibrium bot ([`equilibrium`]); [`kinds`] names the bots each system offers
//! a shell (the CLI's `--bot`, the server's seats).

pub mod bots;
pub mod duel;
pub mod equilibrium;
pub mod kinds;
pub mod matrix;
pub mod one_turn;
