//! Seats (the people, or bots, at the table) and the sides they sit on.

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// A seat's index in its [`Seats`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct SeatId(pub u16);

/// A side of the table. What sides mean (players against the GM, every actor for itself…) is
/// the ruleset's business.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct SideId(pub u8);

/// Whether a seat is a player's or the game moderator's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// A player, who controls player characters.
    #[default]
    Player,
    /// The game moderator (GM), who controls the non-player characters and referees.
    Gm,
}

/// One seat at the table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Seat {
    /// The seat's name, unique at the table (what a person types to name it).
    pub name: String,
    /// The side the seat plays for.
    pub side: SideId,
    /// Player or GM.
    pub role: Role,
}

/// Errors about seats.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SeatError {
    /// Two seats share a name.
    #[error("two seats are named {0:?}; seat names must be unique")]
    DuplicateName(String),
    /// A seat name is empty.
    #[error("a seat has an empty name")]
    EmptyName,
    /// No seat has this name.
    #[error("there is no seat named {0:?}")]
    Unknown(String),
    /// There is no seat with this number.
    #[error("there is no seat number {0}")]
    UnknownId(u16),
}

/// The seats of one table, in order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(transparent)]
pub struct Seats(Vec<Seat>);

impl Seats {
    /// Builds the seats, rejecting empty and duplicate names.
    pub fn new(seats: Vec<Seat>) -> Result<Self, SeatError> {
        for (i, s) in seats.iter().enumerate() {
            if s.name.trim().is_empty() {
                return Err(SeatError::EmptyName);
            }
            if seats[..i].iter().any(|o| o.name == s.name) {
                return Err(SeatError::DuplicateName(s.name.clone()));
            }
        }
        Ok(Seats(seats))
    }

    /// The seat with this id.
    pub fn get(&self, id: SeatId) -> Result<&Seat, SeatError> {
        self.0.get(usize::from(id.0)).ok_or(SeatError::UnknownId(id.0))
    }

    /// The id of the seat with this name.
    pub fn find(&self, name: &str) -> Result<SeatId, SeatError> {
        self.0
            .iter()
            .position(|s| s.name == name)
            .map(|i| SeatId(i as u16))
            .ok_or_else(|| SeatError::Unknown(name.to_owned()))
    }

    /// Every seat with its id.
    pub fn iter(&self) -> impl Iterator<Item = (SeatId, &Seat)> {
        self.0.iter().enumerate().map(|(i, s)| (SeatId(i as u16), s))
    }

    /// How many seats there are.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are no seats.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seat(name: &str) -> Seat {
        Seat { name: name.into(), side: SideId(0), role: Role::Player }
    }

    #[test]
    fn seat_names_must_be_unique_and_non_empty() {
        assert_eq!(Seats::new(vec![seat("a"), seat("a")]), Err(SeatError::DuplicateName("a".into())));
        assert_eq!(Seats::new(vec![seat(" ")]), Err(SeatError::EmptyName));
    }

    #[test]
    fn seats_are_found_by_name_and_id() {
        let seats = Seats::new(vec![seat("a"), seat("b")]).unwrap();
        assert_eq!(seats.find("b"), Ok(SeatId(1)));
        assert_eq!(seats.get(SeatId(1)).unwrap().name, "b");
        assert_eq!(seats.find("c"), Err(SeatError::Unknown("c".into())));
        assert_eq!(seats.get(SeatId(9)), Err(SeatError::UnknownId(9)));
    }
}
