//! Inciting Incident combat (seed 003; rules reference `shared/rules/inciting-incident.md`): a
//! pure rule system on the `table` core. Work in progress (issue 6).
