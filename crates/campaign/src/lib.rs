//! The campaign store (a shell, layer 4): Iron Triangle campaigns kept in a SQLite database.
//! Work in progress (issue 4).
