-- Games kept as their record: the setup, the ruleset's version, the draw source's seeds and the
-- append-only sequence of (seat, command). Events are derived by replaying the commands; the
-- hash of the derived events detects a replay that diverges.
--
-- Portable SQL on purpose: the PostgreSQL backend of a later issue implements the same
-- `Persist` trait on this schema (there: `id BIGINT GENERATED ALWAYS AS IDENTITY`). The version
-- number 1001 keeps these migrations apart from a campaign's (1, 2, …) in one database file.

CREATE TABLE games (
    id               INTEGER PRIMARY KEY,
    ruleset          TEXT NOT NULL,
    ruleset_version  TEXT NOT NULL,
    -- The ruleset's typed setup, as JSON text (the store does not know its type).
    setup            TEXT NOT NULL,
    -- The draw source's seeds, as a JSON array of integers.
    seeds            TEXT NOT NULL,
    -- The hash of the events derived from the first `hashed_entries` commands; NULL: none yet.
    events_hash      TEXT,
    hashed_entries   BIGINT,
    created_at       TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- Append-only: entries are inserted, never updated or deleted. An undo is an entry of its own.
CREATE TABLE game_commands (
    game_id  BIGINT NOT NULL REFERENCES games (id),
    seq      BIGINT NOT NULL CHECK (seq >= 0),
    seat     INTEGER NOT NULL CHECK (seat >= 0),
    -- The ruleset's command, as JSON text.
    command  TEXT NOT NULL,
    mark     TEXT NOT NULL CHECK (mark IN ('played', 'forced', 'undo')),
    PRIMARY KEY (game_id, seq)
);
