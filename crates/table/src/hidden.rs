//! Hidden commitments: a card played face down, and how it looks to each viewer.

use serde::{Deserialize, Serialize};

/// One commitment slot: nothing played yet, a card face down, or a card face up.
///
/// The value of a face-down card is in the state (the table knows it), but [`Sealed::face`]
/// shows it only to its owner until [`Sealed::reveal`] turns it face up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case", tag = "state", content = "value")]
pub enum Sealed<T> {
    /// Nothing committed yet.
    #[default]
    Empty,
    /// Committed and still hidden from everyone but its owner.
    FaceDown(T),
    /// Revealed to everyone.
    FaceUp(T),
}

/// What a viewer sees of a [`Sealed`] slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "state", content = "value")]
pub enum Face<T> {
    /// Nothing committed yet.
    Empty,
    /// Something is committed; the viewer may not know what.
    FaceDown,
    /// The viewer knows the value: it is face up, or the viewer owns it.
    Known(T),
}

impl<T: Copy> Sealed<T> {
    /// Whether a card has been played into this slot (face down or up).
    pub fn is_committed(&self) -> bool {
        !matches!(self, Sealed::Empty)
    }

    /// The committed value, whether hidden or not. Only rules code may look at this.
    pub fn value(&self) -> Option<T> {
        match *self {
            Sealed::Empty => None,
            Sealed::FaceDown(v) | Sealed::FaceUp(v) => Some(v),
        }
    }

    /// Turns a face-down card face up; other slots are unchanged.
    pub fn reveal(&mut self) {
        if let Sealed::FaceDown(v) = *self {
            *self = Sealed::FaceUp(v);
        }
    }

    /// The slot as seen by a viewer; `owner` says whether the viewer committed it.
    pub fn face(&self, owner: bool) -> Face<T> {
        match *self {
            Sealed::Empty => Face::Empty,
            Sealed::FaceDown(v) if owner => Face::Known(v),
            Sealed::FaceDown(_) => Face::FaceDown,
            Sealed::FaceUp(v) => Face::Known(v),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn face_down_value_is_shown_only_to_its_owner() {
        let slot = Sealed::FaceDown(7);
        assert_eq!(slot.face(true), Face::Known(7));
        assert_eq!(slot.face(false), Face::FaceDown);
    }

    #[test]
    fn reveal_shows_the_value_to_everyone() {
        let mut slot = Sealed::FaceDown(7);
        slot.reveal();
        assert_eq!(slot.face(false), Face::Known(7));
        let mut empty: Sealed<i32> = Sealed::Empty;
        empty.reveal();
        assert_eq!(empty.face(false), Face::Empty);
        assert!(!empty.is_committed());
    }
}
