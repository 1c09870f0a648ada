//! Analysis for facedown (layer 3): bots that play any seat, and — later — equilibria,
//! whole-conflict solving and simulation.

pub mod bots;
