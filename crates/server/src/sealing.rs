//! What the server adds to the session's sealed rounds (`session::sealed`): the protocol's
//! names for their refusals, their state as a welcome shows it, and the answer to a reveal
//! that faulted. The hub routes and journals; every rule of a round is the session's.

use session::any::AnyError;
use session::sealed::{Fault, RoundInfo, SealError};

use crate::protocol::{ErrorCode, RoundState, SeatCommitment, ServerMessage};

/// The protocol's code for a refusal: a sealed round's rule by name, else the rules'.
pub(crate) fn refusal_code(e: &AnyError) -> ErrorCode {
    match e {
        AnyError::Sealing(SealError::BadCommitment | SealError::BadNonce | SealError::NoCanonicalForm(_)) => {
            ErrorCode::BadMessage
        }
        AnyError::Sealing(SealError::NotSealed | SealError::NotAsked(_) | SealError::NothingToReveal(_)) => {
            ErrorCode::NotAsked
        }
        AnyError::Sealing(SealError::Bound(_)) => ErrorCode::Bound,
        AnyError::Sealing(SealError::NotBound(_)) => ErrorCode::NotBound,
        AnyError::Sealing(SealError::RoundOpen) => ErrorCode::RoundOpen,
        AnyError::Sealing(SealError::NeedsNonce(_)) => ErrorCode::Internal,
        _ => ErrorCode::Refused,
    }
}

/// A sealed round as a welcome shows it.
pub(crate) fn round_state(r: RoundInfo) -> RoundState {
    RoundState {
        sealed: r.committed.iter().map(|s| s.0).collect(),
        bound: r.bound,
        commitments: r
            .commitments
            .into_iter()
            .map(|c| SeatCommitment { seat: c.seat.0, commitment: c.commitment })
            .collect(),
        revealing: r.revealing.iter().map(|s| s.0).collect(),
        opening: r.opening,
    }
}

/// The answer to an applied request: its ack, or — for a reveal that did not match its
/// commitment — the fault, applied and public.
pub(crate) fn answer(id: String, seq: u64, fault: Option<Fault>) -> ServerMessage {
    match fault {
        None => ServerMessage::Ack { id, seq },
        Some(fault) => ServerMessage::Error {
            id: Some(id),
            code: ErrorCode::WrongNonce,
            message: format!(
                "the revealed command and nonce do not hash to the seat's commitment: a fault \
                 ({}), logged for every seat; the seat's decision is forced",
                serde_json::to_value(&fault).ok().and_then(|v| v.get("fault").cloned()).unwrap_or_default()
            ),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_sealed_round_refusal_has_its_documented_code() {
        let code = |e: SealError| refusal_code(&AnyError::Sealing(e));
        assert_eq!(code(SealError::BadCommitment), ErrorCode::BadMessage);
        assert_eq!(code(SealError::NotAsked(1)), ErrorCode::NotAsked);
        assert_eq!(code(SealError::NothingToReveal(1)), ErrorCode::NotAsked);
        assert_eq!(code(SealError::Bound(1)), ErrorCode::Bound);
        assert_eq!(code(SealError::NotBound(1)), ErrorCode::NotBound);
        assert_eq!(code(SealError::RoundOpen), ErrorCode::RoundOpen);
        assert_eq!(refusal_code(&AnyError::Refused("§5.2".into())), ErrorCode::Refused);
    }

    #[test]
    fn a_faulted_reveal_is_answered_with_its_fault_not_an_ack() {
        assert_eq!(answer("r".into(), 4, None), ServerMessage::Ack { id: "r".into(), seq: 4 });
        match answer("r".into(), 4, Some(Fault::WrongNonce)) {
            ServerMessage::Error { id, code, message } => {
                assert_eq!((id.as_deref(), code), (Some("r"), ErrorCode::WrongNonce));
                assert!(message.contains("wrong_nonce"), "{message}");
            }
            other => panic!("{other:?}"),
        }
    }
}
